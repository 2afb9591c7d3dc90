"""Shared helpers of the adversarial suite: a hang guard and a bytes-read meter."""

from __future__ import annotations

import threading
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
