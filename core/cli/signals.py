"""Commands that start processes (MCP servers, language servers) clean up when
stopped by a signal, not only by Ctrl-C.

Python's default for SIGTERM and SIGHUP ends the process at once: no ``finally``
runs, so a server the command started (in its own process group, as the MCP
SDK starts them) keeps running. :func:`stop_on_signals` turns those signals into
:class:`Terminated` (a ``KeyboardInterrupt``, so code that already cleans up after
Ctrl-C does the same), ignores repeats while the cleanup runs, and afterwards
ends the process with the same signal, so the parent still sees it killed by it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["Terminated", "stop_on_signals"]


class Terminated(KeyboardInterrupt):
    """The command was stopped by the signal ``signum``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextmanager
def stop_on_signals(signals: tuple[int, ...] = (signal.SIGTERM, signal.SIGHUP)) -> Iterator[None]:
    """Within the block, ``signals`` raise :class:`Terminated` in the main thread
    (once; later ones are ignored until the block is left, so cleanup is not cut
    short). On leaving the block after such a signal, the handlers are restored and
    the signal is raised again: the process ends as that signal would have ended it.
    Outside the main thread it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    fired: list[int] = []

    def handler(signum, _frame) -> None:
        if fired:
            return
        fired.append(signum)
        raise Terminated(signum)

    old = {s: signal.signal(s, handler) for s in signals}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        if fired:  # cleaned up: now end as the signal would have
            signal.raise_signal(fired[0])
