import asyncio
import threading
import time
from pathlib import Path

import pytest

from wskit.cache import WorkspaceCache
from wskit.errors import WorkspaceCapacityError
from wskit.host import HostProfile
from wskit.workspace import load_workspace


@pytest.fixture
def folders(tmp_path: Path):
    def _make(n: int) -> list[Path]:
        out = []
        for i in range(n):
            d = tmp_path / "ws" / f"w{i:03d}"
            d.mkdir(parents=True, exist_ok=True)
            out.append(d)
        return out

    return _make


def counting_cache(profile, **kw):
    calls: list[Path] = []
    lock = threading.Lock()
    cache_ref: dict = {}

    def loader(binding):
        with lock:
            calls.append(binding.source_root)
        delay = cache_ref.get("delay", 0)
        if delay:
            time.sleep(delay)
        if cache_ref.get("fail"):
            raise RuntimeError("load failed")
        return load_workspace(cache_ref["cache"].hooks_for_tests, binding, profile)

    from wskit.plugin.facade import WskitHooks
    from wskit.plugin.manager import make_plugin_manager

    cache = WorkspaceCache(profile, loader=loader, **kw)
    cache.hooks_for_tests = WskitHooks(make_plugin_manager(load_entrypoints=False, env={}))  # type: ignore[attr-defined]
    cache_ref["cache"] = cache
    return cache, calls, cache_ref


def test_idle_capacity_32_evicts_lru(wskit_profile, folders):
    cache, calls, _ = counting_cache(wskit_profile)
    dirs = folders(40)
    for d in dirs:
        cache.resolve(d)
    s = cache.stats()
    assert s["entries"] == 32 and s["initialized"] == 32 and s["capacity"] == 32 and s["active_capacity"] == 64
    roots = cache.cached_roots()
    assert dirs[0].resolve() not in roots and dirs[-1].resolve() in roots
    cache.resolve(dirs[-1])
    assert len(calls) == 40  # cached: no reload


def test_recently_used_survives(wskit_profile, folders):
    cache, calls, _ = counting_cache(wskit_profile)
    dirs = folders(33)
    for d in dirs[:32]:
        cache.resolve(d)
    cache.resolve(dirs[0])  # touch the oldest
    cache.resolve(dirs[32])
    roots = cache.cached_roots()
    assert dirs[0].resolve() in roots and dirs[1].resolve() not in roots


def test_hard_capacity_64_and_65th_raises_before_loading(wskit_profile, folders):
    cache, calls, _ = counting_cache(wskit_profile)
    dirs = folders(65)
    with contextlib_exit_stack() as stack:
        for d in dirs[:64]:
            stack.enter_context(cache.using(d))
        assert cache.stats()["entries"] == 64 and cache.stats()["active_users"] == 64
        n = len(calls)
        with pytest.raises(WorkspaceCapacityError) as info:
            cache.resolve(dirs[64])
        assert info.value.capacity == 64 and "(64)" in str(info.value)
        assert len(calls) == n  # nothing was loaded
        cache.resolve(dirs[0])  # an already-pinned workspace is still reachable
    assert cache.stats()["entries"] == 32  # converges back once released
    cache.resolve(dirs[64])


def contextlib_exit_stack():
    import contextlib

    return contextlib.ExitStack()


def test_concurrent_resolves_share_one_load(wskit_profile, folders):
    cache, calls, ref = counting_cache(wskit_profile)
    ref["delay"] = 0.2
    (d,) = folders(1)
    results = []
    barrier = threading.Barrier(16)

    def run():
        barrier.wait()
        results.append(cache.resolve(d))

    threads = [threading.Thread(target=run) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1
    assert len({id(r) for r in results}) == 1 and len(results) == 16


def test_concurrent_waiters_of_a_failing_load_all_see_its_error(wskit_profile, folders):
    """Waiters block on a future made for the first of them (the single-caller path
    makes none); a failure reaches every waiter and leaves no entry or pin."""
    cache, calls, ref = counting_cache(wskit_profile)
    ref["delay"], ref["fail"] = 0.2, True
    (d,) = folders(1)
    errors = []
    barrier = threading.Barrier(8)

    def run():
        barrier.wait()
        try:
            cache.resolve(d)
        except RuntimeError as err:
            errors.append(err)

    threads = [threading.Thread(target=run) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(errors) == 8 and len({id(e) for e in errors}) == 1
    assert cache.stats() == {**cache.stats(), "entries": 0, "active_users": 0}


def test_resolve_after_the_load_ended_makes_no_future(wskit_profile, folders):
    cache, calls, _ = counting_cache(wskit_profile)
    (d,) = folders(1)
    first = cache.resolve(d)
    assert cache.resolve(d) is first and len(calls) == 1
    assert all(e.future is None for e in cache._entries.values())


def test_failed_load_caches_nothing(wskit_profile, folders):
    cache, calls, ref = counting_cache(wskit_profile)
    (d,) = folders(1)
    ref["fail"] = True
    with pytest.raises(RuntimeError):
        cache.resolve(d)
    assert cache.stats() == {**cache.stats(), "entries": 0, "active_users": 0}
    ref["fail"] = False
    assert cache.resolve(d) is not None and len(calls) == 2


def test_reset_during_in_flight_load_is_not_written_back(wskit_profile, folders):
    cache, calls, ref = counting_cache(wskit_profile)
    ref["delay"] = 0.3
    (d,) = folders(1)
    got = []
    t = threading.Thread(target=lambda: got.append(cache.resolve(d)))
    t.start()
    time.sleep(0.1)
    assert cache.stats()["in_flight"] == 1
    cache.reset()
    t.join()
    assert got and got[0] is not None          # returned to its caller
    assert cache.stats()["entries"] == 0       # but not cached
    ref["delay"] = 0
    again = cache.resolve(d)
    assert again is not got[0] and len(calls) == 2


def test_pinned_entries_are_not_evicted(wskit_profile, folders):
    cache, _, _ = counting_cache(wskit_profile)
    dirs = folders(40)
    with cache.using(dirs[0]) as ws:
        for d in dirs[1:]:
            cache.resolve(d)
        assert dirs[0].resolve() in cache.cached_roots()
        assert ws.source_root == dirs[0].resolve()


def test_async_resolves_share_one_load(wskit_profile, folders):
    cache, calls, ref = counting_cache(wskit_profile)
    ref["delay"] = 0.1
    (d,) = folders(1)

    async def main():
        results = await asyncio.gather(*(cache.aresolve(d) for _ in range(50)))
        async with cache.ausing(d) as ws:
            assert cache.stats()["active_users"] == 1
        return results, ws

    results, ws = asyncio.run(main())
    assert len(calls) == 1 and all(r is ws for r in results)
    assert cache.stats()["active_users"] == 0


def test_cache_requires_a_home():
    with pytest.raises(ValueError, match="home"):
        WorkspaceCache(HostProfile(name="x"), loader=lambda b: None)


def test_invalidate_reloads(wskit_profile, folders):
    cache, calls, _ = counting_cache(wskit_profile)
    (d,) = folders(1)
    cache.resolve(d)
    assert cache.invalidate(d) is True
    cache.resolve(d)
    assert len(calls) == 2
