"""WorkspaceCache under concurrency: 32 threads, then 1,000 asyncio tasks.

The cache is instrumented (a subclass recording loads and removals) and its
invariants are checked after every operation:

- at most 64 entries, pinned or not;
- no initialised entry of an old generation (after ``reset``) is cached;
- pins never go negative;
- one load per workspace and generation: a second load of the same
  (workspace, generation) happens only after that entry was removed
  (evicted or invalidated), and two never overlap;
- once quiet: at most 32 entries and no pins left.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections import Counter, OrderedDict
from pathlib import Path
from types import MappingProxyType

import pytest

from wskit.binding import Binding
from wskit.cache import WorkspaceCache
from wskit.errors import WorkspaceCapacityError
from wskit.host import HostProfile
from wskit.models import Provenance, Resource, Scope
from wskit.registry import Candidate, Registry
from wskit.session import snapshot
from wskit.trust import TrustDecision
from wskit.workspace import WorkspaceResources

N_WORKSPACES = 80  # more than the hard cap (64), so capacity errors and evictions happen
DURATION = 2.0  # seconds of random operations


class _RecordingDict(OrderedDict):
    """The cache's entry map, recording every removal per (key, generation)."""

    def __init__(self, removals: Counter) -> None:
        super().__init__()
        self.removals = removals

    def __delitem__(self, key):
        self.removals[(key, self[key].generation)] += 1
        super().__delitem__(key)

    def clear(self):
        for key, entry in self.items():
            self.removals[(key, entry.generation)] += 1
        super().clear()


class InstrumentedCache(WorkspaceCache):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.removals: Counter = Counter()
        self.loads: Counter = Counter()
        self.in_flight: set = set()
        self.violations: list[str] = []
        self._meta = threading.Lock()
        self._entries = _RecordingDict(self.removals)

    def _run_load(self, key, entry):
        tag = (key, entry.generation)
        with self._meta:
            if tag in self.in_flight:
                self.violations.append(f"overlapping loads of {tag}")
            self.in_flight.add(tag)
            self.loads[tag] += 1
        try:
            return super()._run_load(key, entry)
        finally:
            with self._meta:
                self.in_flight.discard(tag)

    def check(self) -> None:
        """Assert the invariants (under the cache lock)."""
        with self._lock:
            assert len(self._entries) <= self.active_capacity
            for key, e in self._entries.items():
                assert e.users >= 0
                if e.resources is not None:
                    assert e.generation == self._generation, "old-generation resources cached"
                    assert str(e.resources.binding.source_root) == key
            with self._meta:
                for tag, n in self.loads.items():
                    assert n <= 1 + self.removals[tag], f"{tag} loaded {n} times, removed {self.removals[tag]}"
        assert not self.violations, self.violations


def _cheap_loader(profile: HostProfile):
    """A real (if small) load: one immutable registry with one resource per workspace."""

    def load(binding: Binding) -> WorkspaceResources:
        time.sleep(random.random() * 0.002)  # widen race windows
        root = str(binding.source_root)
        res = Resource(id=f"project:{Path(root).name}", name=Path(root).name, kind="skill",
                       provenance=Provenance(scope=Scope.PROJECT, source_root=root, path="x", sha256="0" * 64))
        reg = Registry.build("skill", [Candidate(res, 1)])
        return WorkspaceResources(
            binding=binding, profile=profile, trust=TrustDecision(path=root, state="trusted"),
            sources=(), kinds=MappingProxyType({}), registries=MappingProxyType({"skill": reg}), diagnostics=(),
        )

    return load


@pytest.fixture
def workspaces(tmp_path: Path) -> list[Path]:
    out = []
    for i in range(N_WORKSPACES):
        ws = tmp_path / f"ws{i:02d}"
        (ws / ".git").mkdir(parents=True)
        (ws / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        (ws / "src").mkdir()
        out.append(ws)
    return out


def _make_cache(tmp_path: Path) -> InstrumentedCache:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    profile = HostProfile(name="wskit", home=home)
    return InstrumentedCache(profile, loader=_cheap_loader(profile))


def _check_result(ws_res: WorkspaceResources, ws: Path) -> None:
    assert ws_res.binding.source_root == ws.resolve()
    assert [r.name for r in ws_res.registry("skill")] == [ws.name]


def test_32_threads_random_operations(tmp_path, workspaces):
    cache = _make_cache(tmp_path)
    stop = time.monotonic() + DURATION
    errors: list[BaseException] = []
    ops = Counter()

    def worker(seed: int) -> None:
        rnd = random.Random(seed)
        try:
            while time.monotonic() < stop:
                ws = rnd.choice(workspaces)
                where = ws / "src" if rnd.random() < 0.5 else ws
                op = rnd.choices(["resolve", "pin", "snapshot", "reset", "invalidate"], [40, 30, 20, 2, 8])[0]
                try:
                    if op == "resolve":
                        _check_result(cache.resolve(where), ws)
                    elif op == "pin":
                        with cache.using(where) as res:
                            _check_result(res, ws)
                            cache.check()
                            time.sleep(rnd.random() * 0.001)
                    elif op == "snapshot":
                        session = snapshot(cache.resolve(where))
                        assert [r.name for r in session.resources()] == [ws.name]
                    elif op == "reset":
                        cache.reset()
                    else:
                        cache.invalidate(where)
                except WorkspaceCapacityError:
                    ops["capacity"] += 1
                ops[op] += 1
                cache.check()
        except BaseException as err:  # noqa: BLE001
            errors.append(err)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(DURATION + 60)
    assert not any(t.is_alive() for t in threads), "a worker hung"
    assert not errors, errors[0]
    cache.check()
    stats = cache.stats()
    assert stats["active_users"] == 0
    assert stats["entries"] <= 32
    assert ops["reset"] > 0 and ops["pin"] > 100 and sum(cache.loads.values()) > N_WORKSPACES


def test_1000_asyncio_tasks_with_cancellation(tmp_path, workspaces):
    cache = _make_cache(tmp_path)

    async def task(i: int, rnd: random.Random) -> str:
        ws = rnd.choice(workspaces)
        op = rnd.choice(["resolve", "pin", "pin", "snapshot", "reset"] if i % 50 == 0 else ["resolve", "pin", "snapshot"])
        try:
            if op == "resolve":
                _check_result(await cache.aresolve(ws), ws)
            elif op == "pin":
                async with cache.ausing(ws / "src") as res:
                    _check_result(res, ws)
                    cache.check()
                    await asyncio.sleep(rnd.random() * 0.002)
            elif op == "snapshot":
                session = snapshot(await cache.aresolve(ws))
                assert [r.name for r in session.resources()] == [ws.name]
            else:
                cache.reset()
        except WorkspaceCapacityError:
            return "capacity"
        cache.check()
        return op

    async def main() -> list:
        rnd = random.Random(1234)
        tasks = [asyncio.create_task(task(i, rnd)) for i in range(1000)]
        await asyncio.sleep(0.001)
        # cancel a tenth of them while they are loading or pinned
        for t in rnd.sample(tasks, 100):
            t.cancel()
        return await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 60)

    results = asyncio.run(main())
    unexpected = [r for r in results if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError)]
    assert not unexpected, unexpected[0]
    assert sum(1 for r in results if isinstance(r, str)) >= 800
    # let worker threads of cancelled loads finish, then the cache must be quiet
    deadline = time.monotonic() + 10
    while cache.stats()["in_flight"] and time.monotonic() < deadline:
        time.sleep(0.01)
    cache.check()
    stats = cache.stats()
    assert stats["active_users"] == 0, f"pins leaked: {stats}"
    assert stats["entries"] <= 32


def _gated_cache(tmp_path):
    """A cache whose loads signal ``started`` and then wait for ``release`` (10 s at most)."""
    home = tmp_path / "home"
    home.mkdir()
    profile = HostProfile(name="wskit", home=home)
    started, release = threading.Event(), threading.Event()
    inner = _cheap_loader(profile)

    def gated(binding):
        started.set()
        release.wait(10)
        return inner(binding)

    return WorkspaceCache(profile, loader=gated), started, release


def test_cancelled_async_starter_does_not_leak_its_pin(tmp_path, workspaces):
    """A task cancelled while its load runs in a worker thread must release its
    pin: a leaked pin makes the entry unevictable forever (a slow leak that
    ends in WorkspaceCapacityError)."""
    cache, started, release = _gated_cache(tmp_path)

    async def main():
        t = asyncio.create_task(cache.aresolve(workspaces[0]))
        while not started.is_set():
            await asyncio.sleep(0.001)
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t
        release.set()
        # the load finishes in its thread and is cached, unpinned
        for _ in range(1000):
            if cache.stats()["in_flight"] == 0:
                break
            await asyncio.sleep(0.005)

    asyncio.run(main())
    stats = cache.stats()
    assert stats["initialized"] == 1
    assert stats["active_users"] == 0, stats


def test_a_cancelled_waiter_does_not_cancel_the_load_its_peers_wait_for(tmp_path, workspaces):
    """Waiters share one future of the running load; a waiter task cancelled while it
    waits must not cancel that future (``asyncio.wrap_future`` cancels its source), or
    the load's end raises ``InvalidStateError`` and the other waiters see a cancellation
    they never asked for."""
    cache, started, release = _gated_cache(tmp_path)

    async def main():
        starter = asyncio.create_task(cache.aresolve(workspaces[0]))
        while not started.is_set():
            await asyncio.sleep(0.001)
        doomed = asyncio.create_task(cache.aresolve(workspaces[0]))
        peer = asyncio.create_task(cache.aresolve(workspaces[0]))
        await asyncio.sleep(0.01)  # both wait on the load's future
        doomed.cancel()
        with pytest.raises(asyncio.CancelledError):
            await doomed
        release.set()
        return await asyncio.gather(starter, peer, return_exceptions=True)

    results = asyncio.run(main())
    assert not [r for r in results if isinstance(r, BaseException)], results
    _check_result(results[1], workspaces[0])
