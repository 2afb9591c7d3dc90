"""The bounds of ``wsctl serve`` as units: the allowed Host/Origin set built from what
is bound, the rate-limited log, and a connection's state that stays the same size
however many calls it serves (the per-call growth found with tracemalloc)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("wskit_serve")

from wskit_serve.guard import HostGuard, ServeLog, is_loopback  # noqa: E402


def test_host_guard_allows_every_spelling_of_the_bound_address_and_nothing_else():
    g = HostGuard(["127.0.0.2"], 8765, ("localhost", "127.0.0.2"))
    for ok in ("127.0.0.2:8765", "localhost:8765", "LOCALHOST:8765", "[::ffff:127.0.0.2]:8765", "0x7f.0.0.2:8765"):
        assert g.allows_host(ok), ok
    for bad in ("127.0.0.1:8765", "127.0.0.2:8766", "127.0.0.2", "evil.example:8765", "localhost.evil:8765",
                "127.0.0.2:8765:1", "[127.0.0.2]:8765x", "", None, "::1:8765", "127.0.0.2:+8765"):
        assert not g.allows_host(bad), bad
    assert g.allows_origin(None) and g.allows_origin("http://localhost:8765")
    for bad in ("null", "https://127.0.0.2:8765", "http://evil.example:8765", "http://127.0.0.2",
                "http://u@127.0.0.2:8765", "http://127.0.0.2:8765/x", "file://", "http://127.0.0.2:99999"):
        assert not g.allows_origin(bad), bad
    v6 = HostGuard(["::1"], 80, ())
    assert v6.allows_host("[::1]") and v6.allows_host("[0:0:0:0:0:0:0:1]:80") and not v6.allows_host("[::2]:80")


def test_loopback_is_decided_from_the_address_in_any_spelling():
    for addr in ("127.0.0.1", "127.255.0.9", "::1", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1", "127.1"):
        assert is_loopback(addr), addr
    for addr in ("0.0.0.0", "::", "10.0.0.1", "::ffff:10.0.0.1", "fe80::1%lo", "localhost", ""):
        assert not is_loopback(addr), addr


def test_serve_log_says_one_line_per_condition_per_interval_and_never_blocks(tmp_path):
    r, w = os.pipe()
    try:
        log = ServeLog(fd=w, interval=60.0, max_pending=4)
        t0 = time.monotonic()
        for i in range(10_000):  # a flood of one condition: one line
            log.say("flood", f"accept failed \x1b[31m{i}")
        assert log.held == 9_999
        os.set_blocking(r, False)
        assert log.flush(5)
        out = os.read(r, 65536).decode()
        assert out.count("\n") == 1 and "\\x1b[31m0" in out and "\x1b" not in out
        # nobody reads: the writer thread blocks, say() does not; lines over the queue are dropped
        os.set_blocking(w, False)
        try:
            while True:
                os.write(w, b"x" * 65536)
        except BlockingIOError:
            pass
        os.set_blocking(w, True)
        for i in range(100):
            log.say(f"c{i}", "a line")
        assert time.monotonic() - t0 < 10
        assert log.dropped >= 90
    finally:
        os.close(r)
        os.close(w)


def test_a_connection_serving_many_calls_keeps_the_same_size(tmp_path):
    """skill_load once kept an activation record per call and appended the skill's
    allowed-tools clause again each time (558 bytes a call, and slower each call)."""
    from wskit_serve.catalog import ServedWorkspace

    from wskit.cache import WorkspaceCache
    from wskit.host import HostProfile

    home, proj = tmp_path / "home", tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    home.mkdir()
    for i in range(3):
        d = proj / ".claude" / "skills" / f"s{i}"
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: s{i}\ndescription: d\nallowed-tools: [Read, Grep]\n---\nBody {i}\n")
    subprocess.run([sys.executable, "-m", "wskit", "--home", str(home), "trust", "grant", str(proj)],
                   check=True, capture_output=True, timeout=60)
    sw = ServedWorkspace(WorkspaceCache(profile=HostProfile(home=home)).resolve(str(proj)))
    for n in range(300):
        assert f"Body {n % 3}" in sw.bounded(sw.load_skill(f"s{n % 3}"))
    assert sw.workflows.records == []
    assert {slug: len(c) for slug, c in sw.workflows.active.items()} == {"s0": 1, "s1": 1, "s2": 1}
    assert not sw.workflows.check("Bash").allowed and sw.workflows.check("Read").allowed


def test_activating_a_skill_again_does_not_grow_its_clauses(tmp_path):
    from wskit.builtin_plugins.skills.workflows import _narrow

    a, b = ("Read",), ("Grep",)
    assert _narrow([a], [a]) == [a] and _narrow([a], [b, b]) == [a, b] and _narrow([], [None, None]) == [None]
    assert Path  # the module's imports stay used
