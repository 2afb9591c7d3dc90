"""Where the ``mcp`` SDK's log records go: one masked line each, never the terminal.

The SDK logs transport faults with ``logger.exception`` (a traceback whose pydantic
error quotes the line the server wrote, ``input_value='token=…'``). With no handler
configured, Python's last-resort handler printed that to stderr in every program that
used the SDK through wskit: ``wsctl mcp list --status``, ``wsctl serve``, a host's
session. :func:`route_sdk_logging`, run when :mod:`wskit_mcp.service` is imported (so
before any connection, whatever the entry point), takes the ``mcp`` logger's records
and re-logs each on ``wskit_mcp.sdk`` as one line: the SDK's message and the exception's
type, without its text or traceback, with every secret value of a live server (the
``${VAR}`` values substituted at start) replaced by ``***``. ``wskit_mcp.sdk`` has a
``NullHandler``, so nothing reaches the terminal unless the host configures logging.
"""

from __future__ import annotations

import logging
import threading
import weakref
from typing import Any

__all__ = ["SDK_LOGGER", "mask_secrets", "route_sdk_logging", "watch_secrets"]

#: The logger the SDK's records are re-logged on (one line each, masked).
SDK_LOGGER = "wskit_mcp.sdk"

_holders: dict[int, weakref.ref] = {}  # by id: a holder need not be hashable
_lock = threading.RLock()  # a weakref callback may run while it is held


def watch_secrets(holder: Any) -> None:
    """Mask ``holder.secrets`` (an iterable of strings, read at each record) in every SDK
    record while ``holder`` lives."""
    key = id(holder)

    def gone(ref, key=key) -> None:
        with _lock:
            if _holders.get(key) is ref:  # not a newer holder that got the same id
                del _holders[key]

    with _lock:
        _holders[key] = weakref.ref(holder, gone)


def mask_secrets(text: str) -> str:
    """``text`` with every watched secret value replaced by ``***``, longest first."""
    with _lock:
        holders = [ref() for ref in _holders.values()]
    values = {v for h in holders if h is not None for v in (getattr(h, "secrets", ()) or ()) if v}
    for value in sorted(values, key=len, reverse=True):
        text = text.replace(value, "***")
    return text


class _Relay(logging.Handler):
    """Re-logs a record of the SDK on :data:`SDK_LOGGER` as one masked line."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:  # a record whose arguments do not format
            text = str(record.msg)
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None:  # the type only: the text of a parse error quotes what the server wrote
            text = f"{text}: {type(exc).__name__}"
        line = " ".join(mask_secrets(text).split())
        logging.getLogger(SDK_LOGGER).log(record.levelno, "%s: %s", record.name, line)


def route_sdk_logging() -> None:
    """Send the ``mcp`` logger's records through the masking relay (idempotent): the
    logger stops propagating (a host's root handler never sees a raw record or its
    traceback) and :data:`SDK_LOGGER` gets a ``NullHandler`` (no last-resort output)."""
    sdk = logging.getLogger("mcp")
    if not any(isinstance(h, _Relay) for h in sdk.handlers):
        sdk.addHandler(_Relay())
    sdk.propagate = False
    out = logging.getLogger(SDK_LOGGER)
    if not any(isinstance(h, logging.NullHandler) for h in out.handlers):
        out.addHandler(logging.NullHandler())
