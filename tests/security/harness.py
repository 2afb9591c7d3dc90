"""Shared helpers of the adversarial suite: a hang guard and a bytes-read meter."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class Hung(AssertionError):
    """The guarded call did not return within its time bound (a hang)."""


def bounded(fn: Callable[[], T], seconds: float) -> T:
    """Run ``fn`` in a daemon thread; return its value or re-raise its exception.

    :raises Hung: when it has not finished after ``seconds`` (the thread is
        abandoned: a daemon never blocks interpreter exit). This is a hang
        guard, not a speed assertion: bounds are 10-100x the normal time.
    """
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as err:  # noqa: BLE001 - re-raised in the caller
            box["error"] = err

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        raise Hung(f"call did not finish within {seconds} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


def rchar() -> int:
    """Bytes this process has read through read(2)-like calls (``/proc/self/io``
    ``rchar``); 0 where /proc is missing, so callers compare deltas."""
    try:
        with open("/proc/self/io", "rb") as fh:
            for line in fh:
                if line.startswith(b"rchar:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def fork_run(fn: Callable[[], None]) -> int:
    """Run ``fn`` in a forked child process (wskit already imported, so no
    start-up cost); the child exits 0 when ``fn`` returns, 1 when it raises.

    :returns: the child's pid.
    """
    pid = os.fork()
    if pid == 0:  # child
        code = 1
        try:
            fn()
            code = 0
        finally:
            os._exit(code)
    return pid


def wait_exit(pid: int, timeout: float) -> int:
    """Wait for a child; SIGKILL it after ``timeout`` seconds. Returns its exit status."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise AssertionError(f"child {pid} hung")
        time.sleep(0.005)


def bounded_process(fn: Callable[[], None], seconds: float) -> None:
    """Hang guard for code that may hold the GIL (a regex, a C parser): run
    ``fn`` in a forked child and kill it after ``seconds``.

    :raises Hung: the child did not finish in time.
    :raises AssertionError: the child raised (exit status 1).
    """
    pid = fork_run(fn)
    try:
        status = wait_exit(pid, seconds)
    except AssertionError:
        raise Hung(f"call did not finish within {seconds} s") from None
    assert status == 0, f"child failed with status {status}"
