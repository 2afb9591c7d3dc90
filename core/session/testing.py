"""Test helper for runtime code: fail a test that leaves a child process running.

Use it in a ``conftest.py``::

    from wskit.session.testing import no_leaked_children  # noqa: F401  (autouse fixture)

After each test it waits up to 10 s for every child process started during the
test to exit, then fails naming the survivors (and kills them, so one leak does
not spill into the next test). Linux only (reads ``/proc``); elsewhere it does nothing.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

__all__ = ["live_children", "no_leaked_children"]


def live_children(pid: int | None = None) -> dict[int, str]:
    """``{pid: command line}`` of the live (non-zombie) children of ``pid`` (default: this process)."""
    parent = str(pid or os.getpid())
    out: dict[int, str] = {}
    proc = Path("/proc")
    if not proc.is_dir():
        return out
    for d in proc.iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            if fields[1] != parent or fields[0] == "Z":
                continue
            out[int(d.name)] = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except (OSError, IndexError):
            continue
    return out


@pytest.fixture(autouse=True)
def no_leaked_children():
    """Autouse fixture: a child process started by the test and still running after it fails the test."""
    before = set(live_children())
    yield
    deadline = time.monotonic() + 10
    left = {p: c for p, c in live_children().items() if p not in before}
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = {p: c for p, c in live_children().items() if p not in before}
    for p in left:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if left:
        pytest.fail("process(es) left running after the test: " + "; ".join(f"{p} {c}" for p, c in left.items()))
