"""Test helper for runtime code: fail a test that leaves a child process running.

Use it in a ``conftest.py``::

    from wskit.session.testing import no_leaked_children  # noqa: F401  (autouse fixture)

After each test it waits up to 10 s for every child process started during the
test to exit, then fails naming the survivors (and kills them, so one leak does
not spill into the next test). Children are listed from ``/proc`` on Linux and
with POSIX ``ps -A -o pid=,ppid=,stat=,args=`` elsewhere (macOS, the BSDs); where
neither works the fixture fails the test rather than pass unchecked.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

#: Linux's process folder (None: not used; tests switch it off to exercise ``ps``).
PROC: Path | None = Path("/proc") if Path("/proc/self/stat").is_file() else None


class ChildListingError(RuntimeError):
    """This platform offers no way to list child processes (no ``/proc``, no ``ps``)."""


def _ps_children(parent: int) -> dict[int, str]:
    import subprocess

    try:
        text = subprocess.run(["ps", "-A", "-o", "pid=,ppid=,stat=,args="], capture_output=True, text=True,
                              timeout=30, check=True, errors="replace").stdout
    except (OSError, subprocess.SubprocessError) as err:
        raise ChildListingError(f"cannot list child processes: no /proc and 'ps' failed ({err})") from None
    out: dict[int, str] = {}
    for line in text.splitlines():
        fields = line.split(None, 3)
        if len(fields) < 3 or not fields[0].isdigit() or not fields[1].isdigit():
            continue
        if int(fields[1]) != parent or fields[2].startswith("Z"):
            continue
        out[int(fields[0])] = fields[3].strip() if len(fields) > 3 else ""
    return out


def live_children(pid: int | None = None) -> dict[int, str]:
    """``{pid: command line}`` of the live (non-zombie) children of ``pid`` (default: this process).

    :raises ChildListingError: neither ``/proc`` nor ``ps`` can list processes here.
    """
    parent = str(pid or os.getpid())
    out: dict[int, str] = {}
    proc = PROC
    if proc is None:
        found = _ps_children(int(parent))
        found.pop(os.getpid(), None)
        return {p: c for p, c in found.items() if not c.startswith("ps -A -o")}
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
