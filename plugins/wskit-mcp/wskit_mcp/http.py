"""The HTTP transports of wskit's MCP client (streamable HTTP and legacy SSE): the
SDK's transports over an ``httpx2`` client whose responses are bounded per message.

The SDK reads a JSON response body whole (``response.aread()``, no bound) and bounds
an SSE event only by ``httpx2``'s per-event limit, which fails one request (or
silently reconnects the GET stream) and keeps the connection; the legacy SSE
transport cannot be given another limit than ``httpx2``'s 1 MiB, so there one event
is bounded by the smaller of the two (:data:`LEGACY_SSE_EVENT_BYTES`). Here every response body passes
through :class:`BoundedTransport`, which counts bytes as they arrive:

- ``text/event-stream``: the bytes since the last event boundary (an empty line, any
  of the SSE line endings ``CRLF``, ``LF``, ``CR``), so a GET stream that stays open
  for hours is never cut, but one event can hold at most ``max_message_bytes``;
- anything else (``application/json`` answers, error bodies, OAuth metadata): the
  whole body.

A body over the bound is not read further: the stream raises
:class:`MessageTooLarge` (an ``httpx2.StreamError``, which the SDK turns into an
error answer for the request it belonged to), :attr:`StdioReport.violation` says
which server sent what (the first bytes, escaped), and ``on_violation`` closes the
connection, as the stdio transport does for an over-long line. Requests ask for
``Accept-Encoding: identity``; a compressed body would be counted before it is
inflated (a few KiB of gzip can inflate to GiB), so one is refused the same way.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2

from .stdio import SHOWN_BYTES, StdioReport, first_bytes

__all__ = ["LEGACY_SSE_EVENT_BYTES", "BoundedTransport", "MessageTooLarge", "bounded_http_client"]

#: The SDK's legacy SSE transport parses events with ``httpx2``'s default limit (1 MiB),
#: which it does not let a caller change: the bound of one event there.
LEGACY_SSE_EVENT_BYTES = 1 << 20

#: One SSE line ending; a lone CR only when no LF follows (the trailing CR of a chunk is
#: held back until the next chunk says which it is).
_EOL = rb"(?:\r\n|\r(?!\n)|\n)"
#: An event boundary: a line ending followed by an empty line.
_BOUNDARY = re.compile(_EOL + _EOL)
_EOL_AT_START = re.compile(_EOL)


class MessageTooLarge(httpx2.StreamError):
    """A response body (or one SSE event) went over the per-message byte bound."""


class _Counter:
    """Bytes of the message in progress: the whole body, or the SSE event since the
    last boundary; ``head`` keeps its first bytes for the error line."""

    def __init__(self, sse: bool) -> None:
        self.sse = sse
        self.pending = 0
        self.head = bytearray()
        self._cr = False   # the previous chunk ended with CR: held back
        self._bol = True   # the last byte counted ended a line

    def feed(self, chunk: bytes) -> None:
        if not self.sse:
            self._grow(chunk)
            return
        data = b"\r" + chunk if self._cr else chunk
        self._cr = data.endswith(b"\r")
        if self._cr:
            data = data[:-1]
        last = -1
        if self._bol and (m := _EOL_AT_START.match(data)) is not None:
            last = m.end()
        for m in _BOUNDARY.finditer(data):
            last = max(last, m.end())
        if data:
            self._bol = data.endswith(b"\n")
        if last >= 0:
            self.pending = 0
            self.head = bytearray()
            data = data[last:]
        self._grow(data)

    def _grow(self, data: bytes) -> None:
        self.pending += len(data)
        if len(self.head) <= SHOWN_BYTES:
            self.head += data[:SHOWN_BYTES + 1 - len(self.head)]


class _BoundedBody(httpx2.AsyncByteStream):
    """A response stream that raises :class:`MessageTooLarge` before it passes on the
    chunk that takes the message in progress over ``limit``."""

    def __init__(self, inner: Any, limit: int, sse: bool, refuse: Callable[[str, bytes], None]) -> None:
        self._inner, self._limit, self._refuse = inner, limit, refuse
        self._count = _Counter(sse)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._count.feed(chunk)
            if self._count.pending > self._limit:
                what = "one SSE event" if self._count.sse else "a response body"
                self._refuse(f"{what} over the {self._limit}-byte bound", bytes(self._count.head))
                raise MessageTooLarge(f"{what} over the {self._limit}-byte bound")
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class BoundedTransport(httpx2.AsyncBaseTransport):
    """An ``httpx2`` transport that bounds every response message (see the module).

    :param inner: the transport that does the I/O (default ``httpx2.AsyncHTTPTransport()``).
    :param max_message_bytes: the largest JSON body (and SSE event), in bytes.
    :param max_event_bytes: the largest SSE event when it differs (the legacy SSE
        transport, whose ``httpx2`` parser holds an event to 1 MiB whatever is asked).
    :param report: receives :attr:`StdioReport.violation` when a message is refused.
    :param on_violation: called (in the event loop) after the report is filled, to
        close the connection.
    """

    def __init__(self, inner: httpx2.AsyncBaseTransport | None = None, *, max_message_bytes: int,
                 report: StdioReport, on_violation: Callable[[], None] | None = None,
                 max_event_bytes: int | None = None) -> None:
        self._inner = inner if inner is not None else httpx2.AsyncHTTPTransport()
        self._limit = max_message_bytes
        self._event_limit = max_event_bytes if max_event_bytes is not None else max_message_bytes
        self._report = report
        self._on_violation = on_violation

    def _refuse(self, what: str, head: bytes) -> None:
        if self._report.violation is None:
            self._report.violation = f"it sent {what} (starting {first_bytes(head)}); the connection was closed"
        if self._on_violation is not None:
            self._on_violation()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send ``request`` (asking for an uncompressed body) and wrap the response's stream."""
        request.headers["Accept-Encoding"] = "identity"
        response = await self._inner.handle_async_request(request)
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            await response.aclose()
            self._refuse(f"a compressed body (Content-Encoding: {first_bytes(encoding.encode(), 40)}) though "
                         "none was asked", b"")
            raise MessageTooLarge("a compressed body though none was asked")
        sse = response.headers.get("content-type", "").strip().lower().startswith("text/event-stream")
        response.stream = _BoundedBody(response.stream, self._event_limit if sse else self._limit, sse,
                                       self._refuse)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


def bounded_http_client(*, max_message_bytes: int, report: StdioReport,
                        on_violation: Callable[[], None] | None = None,
                        max_event_bytes: int | None = None) -> Callable[..., httpx2.AsyncClient]:
    """A client factory with the signature of the SDK's ``create_mcp_http_client``
    (``headers``, ``timeout``, ``auth``), building the SDK's client (its default
    timeouts: 30 s, 300 s read; proxies from the environment as ``httpx2`` reads them)
    with every transport it may send through wrapped in :class:`BoundedTransport`.

    :raises RuntimeError: the installed ``httpx2`` keeps its transports elsewhere (the
        client would not be bounded, so none is made).
    """
    from mcp.shared._httpx_utils import create_mcp_http_client

    def bound(inner: httpx2.AsyncBaseTransport) -> BoundedTransport:
        return BoundedTransport(inner, max_message_bytes=max_message_bytes, report=report,
                                on_violation=on_violation, max_event_bytes=max_event_bytes)

    def factory(headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None,
                auth: httpx2.Auth | None = None) -> httpx2.AsyncClient:
        client = create_mcp_http_client(headers=headers, timeout=timeout, auth=auth)
        # the default transport and one per proxy mount (HTTP_PROXY…): each request goes through one
        transport, mounts = getattr(client, "_transport", None), getattr(client, "_mounts", None)
        if not isinstance(transport, httpx2.AsyncBaseTransport) or not isinstance(mounts, dict):
            raise RuntimeError("this httpx2 keeps its transports elsewhere: MCP over HTTP cannot be bounded")
        client._transport = bound(transport)
        client._mounts = {k: None if t is None else bound(t) for k, t in mounts.items()}
        return client

    return factory
