"""What keeps ``wsctl serve --http`` standing: the listening sockets and who may use
them, the connections and sessions it holds, and a log that never blocks it.

- :func:`bind` resolves ``--http HOST`` and binds every address it names, so what
  is checked afterwards is the address *actually bound*, whatever the spelling
  (``127.1``, ``0:0:0:0:0:0:0:1``, ``::ffff:127.0.0.1``, ``localhost``).
- :class:`HostGuard` is the DNS-rebinding guard of a loopback server: a request is
  served only when its ``Host`` (and ``Origin``, when present) names a bound
  address and the bound port (any spelling of that address), ``localhost`` or the
  name the user wrote; everything else is refused (421 / 403). The SDK's own check
  knows only ``127.0.0.1``, ``localhost`` and ``::1`` (any port), so it is replaced.
- :func:`bounded_protocol` gives uvicorn's HTTP protocol a header timeout (a
  connection that has not sent a whole request head within ``header_timeout``
  seconds of its acceptance, or of the first byte of a later head, is closed; idle
  after a response is uvicorn's keep-alive timeout; a loop starved by a loaded
  machine does not charge its clients for the time it could not read them) and a
  connection cap (the oldest
  connection still waiting for its request head makes room, else the newcomer is
  closed), so a local process holding half-open connections cannot take every
  file descriptor.
- :func:`limit_sessions` gives the SDK's session manager room at its session cap by
  ending the session idle the longest instead of answering 503.
- :class:`ServeLog` writes one line per condition at most every ``interval``
  seconds, from a thread with a bounded queue: a stderr nobody reads loses lines
  (counted), never blocks the server.
"""

from __future__ import annotations

import collections
import ipaddress
import logging
import os
import socket
import threading
import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from wskit.values import FrozenValue

__all__ = ["HostGuard", "HttpLimits", "ServeLog", "bind", "bounded_protocol", "connection_cap", "host_guard",
           "is_loopback", "limit_sessions"]

_Addr = ipaddress.IPv4Address | ipaddress.IPv6Address


class HttpLimits(FrozenValue):
    """Bounds of ``serve --http``, sized for a local server (a few agents, not the web).

    :ivar max_connections: open connections at most (default 256; also at most the
        open-file limit less 64); past it the oldest connection still waiting for its
        request head is closed, else the new one.
    :ivar header_timeout: seconds a connection may take to send a whole request head
        (default 10), counted from its acceptance or the first byte of a later head,
        on the server's clock (a sweep late because the loop was starved advances it
        by at most two sweep intervals).
    :ivar max_sessions: MCP sessions at most (default 64); a new one ends the session
        idle the longest, or gets 503 when all are busy.
    :ivar session_idle_timeout: seconds a session may go without a request in flight
        (no open stream) before it is ended (default 600; the SDK's is 1800).
    :ivar graceful_shutdown: seconds open requests get after SIGTERM/SIGINT (default 5).
    """

    max_connections: int = 256
    header_timeout: float = 10.0
    max_sessions: int = 64
    session_idle_timeout: float = 600.0
    graceful_shutdown: float = 5.0

    def __post_init__(self) -> None:
        for name in ("max_connections", "header_timeout", "max_sessions", "session_idle_timeout",
                     "graceful_shutdown"):
            value = getattr(self, name)
            if not (value > 0 and value != float("inf")):
                raise ValueError(f"{name} must be a positive, finite number (got {value!r})")


def _ip(text: str) -> _Addr | None:
    """``text`` as an IP address (brackets, a zone and IPv4's short forms such as
    ``127.1`` or ``0x7f.1`` accepted; an IPv4-mapped IPv6 address as its IPv4
    address), or None when it is not an address."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if "%" in text:
        return None  # a zone names an interface; loopback needs none
    try:
        addr = ipaddress.ip_address(text)
    except ValueError:
        if ":" in text or not text or not all(c in "0123456789abcdefxABCDEFX." for c in text):
            return None
        try:
            addr = ipaddress.IPv4Address(socket.inet_aton(text))  # 127.1, 0177.0.0.1, 0x7f000001
        except OSError:
            return None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    return addr


def is_loopback(address: str) -> bool:
    """True when ``address`` (a bound socket's address) is a loopback address,
    IPv4-mapped forms included."""
    addr = _ip(address)
    return addr is not None and addr.is_loopback


def bind(host: str, port: int, backlog: int = 1024) -> list[socket.socket]:
    """Listening sockets for every address ``host`` resolves to (a literal in any
    spelling, or a name such as ``localhost``), all on one port (``port`` 0: the
    first socket's).

    :returns: non-blocking, listening sockets.
    :raises OSError: the name does not resolve or an address cannot be bound
        (the sockets bound so far are closed).
    """
    host = host.strip("[]")
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    seen: list[tuple[int, str]] = []
    for family, _, _, _, sockaddr in infos:
        key = (family, sockaddr[0])
        if family in (socket.AF_INET, socket.AF_INET6) and key not in seen:
            seen.append(key)
    out: list[socket.socket] = []
    try:
        for family, address in seen:
            sock = socket.socket(family, socket.SOCK_STREAM)
            out.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                mapped = ipaddress.IPv6Address(address.split("%")[0]).ipv4_mapped is not None
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0 if mapped else 1)
            sock.bind((address, port))
            port = sock.getsockname()[1]
            sock.listen(backlog)
            sock.setblocking(False)
    except BaseException:
        for sock in out:
            sock.close()
        raise
    if not out:
        raise OSError(f"{host} resolves to no IPv4 or IPv6 address")
    return out


def _split_host(value: str) -> tuple[str, int | None] | None:
    """``host[:port]`` or ``[v6][:port]`` → (host, port or None); None when malformed."""
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        host, rest = value[: end + 1], value[end + 1:]
        if not rest:
            return host, None
        if not rest.startswith(":"):
            return None
        port_s = rest[1:]
    elif value.count(":") == 1:
        host, port_s = value.split(":")
    elif ":" in value:
        return None  # an IPv6 address without brackets is not a Host header
    else:
        return value, None
    if not port_s.isdigit() or len(port_s) > 5:
        return None
    return host, int(port_s)


class HostGuard:
    """The allowed ``Host``/``Origin`` values of a loopback server, built from the
    sockets actually bound.

    :param addresses: the bound addresses (strings as ``getsockname`` gives them).
    :param port: the bound port.
    :param names: host names that may appear besides the addresses: ``localhost``
        and the name the user wrote for ``--http`` (case-insensitive).
    """

    def __init__(self, addresses: Iterable[str], port: int, names: Iterable[str] = ("localhost",)) -> None:
        self.addresses = {a for a in (_ip(x) for x in addresses) if a is not None}
        self.port = port
        self.names = {n.lower().strip("[]") for n in names if n and _ip(n) is None}

    @classmethod
    def for_sockets(cls, sockets: Iterable[socket.socket], written: str = "") -> "HostGuard":
        """The guard of the listening ``sockets``; ``written`` is the host as the
        user wrote it (a name kept as an allowed name)."""
        names = [s.getsockname() for s in sockets]
        return cls([n[0] for n in names], names[0][1] if names else 0, ("localhost", written))

    def _host_ok(self, host: str, port: int | None, default_port: int) -> bool:
        if (port if port is not None else default_port) != self.port:
            return False
        if host.lower() in self.names:
            return True
        addr = _ip(host)
        return addr is not None and addr in self.addresses

    def allows_host(self, value: str | None) -> bool:
        """True when the ``Host`` header ``value`` names this server (no port: 80)."""
        parts = _split_host(value.strip()) if value else None
        return parts is not None and self._host_ok(parts[0], parts[1], 80)

    def allows_origin(self, value: str | None) -> bool:
        """True when the ``Origin`` header is absent (not a browser) or an
        ``http://`` origin naming this server (no port: 80)."""
        if value is None:
            return True
        try:
            url = urlsplit(value.strip())
            port = url.port
        except ValueError:
            return False
        if url.scheme.lower() != "http" or not url.netloc or url.path not in ("", "/") or url.username is not None:
            return False
        host = url.netloc.rsplit(":", 1)[0] if port is not None or url.netloc.endswith(":") else url.netloc
        return self._host_ok(host, port, 80)

    def allowed(self) -> list[str]:
        """The allowed ``Host`` values in their usual spellings (for messages and docs)."""
        out = [f"{n}:{self.port}" for n in sorted(self.names)]
        for a in sorted(self.addresses, key=str):
            out.append(f"[{a}]:{self.port}" if a.version == 6 else f"{a}:{self.port}")
        return out


def host_guard(app: Any, guard: HostGuard, log: "ServeLog | None" = None) -> Any:
    """An ASGI wrapper serving only requests whose ``Host`` and ``Origin`` the
    :class:`HostGuard` allows: 421 for a foreign ``Host``, 403 for a foreign
    ``Origin`` (the statuses of the SDK's own check); lifespan events pass."""

    async def guarded(scope, receive, send):
        if scope.get("type") in ("http", "websocket"):
            headers: dict[bytes, bytes] = {}
            for k, v in scope.get("headers") or ():
                if k in headers:  # two Host (or Origin) headers: ambiguous, refused
                    headers[k] = b"\x00"
                else:
                    headers[k] = v
            host = headers.get(b"host")
            origin = headers.get(b"origin")
            status, what = None, ""
            if not guard.allows_host(host.decode("latin-1") if host is not None else None):
                status, what = 421, "Host"
            elif not guard.allows_origin(origin.decode("latin-1") if origin is not None else None):
                status, what = 403, "Origin"
            if status is not None:
                if log is not None:
                    shown = (host if what == "Host" else origin) or b""
                    log.say(f"foreign-{what}", f"refused a request with a foreign {what} header "
                                               f"({shown[:80]!r}; allowed: {', '.join(guard.allowed())})")
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await send({"type": "http.response.start", "status": status,
                            "headers": [(b"content-type", b"text/plain"), (b"connection", b"close")]})
                await send({"type": "http.response.body", "body": f"Invalid {what} header\n".encode()})
                return
        await app(scope, receive, send)

    return guarded


# -- connections -----------------------------------------------------------------------


class _Connections:
    """The open connections of one server, oldest first, and the header timeout.

    A connection owes a request head from the moment it is accepted, and again from the
    first byte of each later head; it owes nothing while a request is being answered or
    while it sits idle after a response (uvicorn's keep-alive timeout, 5 s, closes that).
    Time is counted on the server's own clock, which advances at most ``max_step`` seconds
    a sweep: a loop starved by a loaded machine (the sweep itself late) does not charge the
    clients for the time it could not read them. Before a late connection is closed, its
    socket is peeked: bytes the loop has not read yet are a client that did send.
    """

    def __init__(self, max_connections: int, header_timeout: float, log: "ServeLog | None") -> None:
        self.max = max_connections
        self.header_timeout = header_timeout
        self.log = log
        self.open: dict[Any, None] = {}  # insertion-ordered: oldest first
        self.closed_idle = 0
        #: seconds between sweeps, and the most one sweep advances the server's clock
        self.interval = min(1.0, header_timeout / 4)
        self.max_step = 2 * self.interval
        self.clock = 0.0  # the server's clock (seconds it was able to run), at the last sweep
        self.last: float | None = None  # time.monotonic() at the last sweep

    def now(self) -> float:
        """The server's clock now (see the class docstring)."""
        if self.last is None:
            return self.clock
        return self.clock + min(max(0.0, time.monotonic() - self.last), self.max_step)

    @staticmethod
    def waiting(proto: Any) -> bool:
        """True while ``proto`` has no request head in progress of being answered:
        nothing received yet, a head still arriving, or idle after a response."""
        cycle = getattr(proto, "cycle", None)
        return cycle is None or bool(getattr(cycle, "response_complete", False))

    def admit(self, proto: Any) -> None:
        self.open[proto] = None
        if len(self.open) <= self.max:
            return
        victim = next((p for p in self.open if p is not proto and self.waiting(p)), proto)
        victim.transport.close()
        self.open.pop(victim, None)
        if self.log is not None:
            what = ("closed the oldest connection still waiting for its request" if victim is not proto
                    else "refused a new connection (every open one is busy)")
            self.log.say("connection-cap", f"{self.max} connections open: {what}")

    @staticmethod
    def unread(proto: Any) -> bool:
        """True when ``proto``'s socket holds bytes the loop has not read yet (or the
        peer's end of stream: then it is not a live client, False)."""
        sock = proto.transport.get_extra_info("socket") if proto.transport is not None else None
        if sock is None:
            return False
        try:
            with socket.socket(fileno=os.dup(sock.fileno())) as dup:
                return bool(dup.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT))
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return False

    def sweep(self, now: float) -> None:
        """Advance the server's clock to ``now`` (``time.monotonic()``; at most
        ``max_step`` since the last sweep) and close every connection that has owed a
        whole request head longer than the header timeout and sent nothing unread."""
        if self.last is not None:
            self.clock += min(max(0.0, now - self.last), self.max_step)
        self.last = now
        late = []
        for proto in list(self.open):
            since = getattr(proto, "_wskit_head_since", None)
            if since is None or not self.waiting(proto) or self.clock - since <= self.header_timeout:
                continue
            if self.unread(proto):
                continue  # it sent; the loop reads it next
            late.append(proto)
        for proto in late:
            self.open.pop(proto, None)
            proto.transport.close()
        if late and self.log is not None:
            self.log.say("header-timeout", f"closed {len(late)} connection(s) that sent no whole request "
                                           f"within {self.header_timeout:g} s")


def bounded_protocol(base: type, max_connections: int, header_timeout: float,
                     log: "ServeLog | None" = None) -> tuple[type, Any]:
    """A subclass of uvicorn's HTTP protocol class ``base`` under a connection cap
    and a header timeout, and the connections' keeper (run its ``sweep(time.monotonic())``
    every ``interval`` seconds).

    :param max_connections: open connections at most; past it the oldest connection
        waiting for its request head is closed, else the new one.
    :param header_timeout: seconds a connection may take to send a whole request head,
        from its acceptance or the first byte of a later head (never while idle after
        a response: that is uvicorn's keep-alive timeout).
    """
    conns = _Connections(max_connections, header_timeout, log)

    class Bounded(base):  # type: ignore[misc, valid-type]
        _wskit_head_since: float | None = None

        def connection_made(self, transport):  # noqa: D102
            self._wskit_head_since = conns.now()  # its first head is due
            super().connection_made(transport)
            conns.admit(self)

        def data_received(self, data):  # noqa: D102
            super().data_received(data)
            # still waiting after bytes arrived: a head is in progress (due from its first byte);
            # else a whole head arrived and its request is being answered
            if conns.waiting(self):
                if self._wskit_head_since is None:
                    self._wskit_head_since = conns.now()
            else:
                self._wskit_head_since = None

        def connection_lost(self, exc):  # noqa: D102
            conns.open.pop(self, None)
            super().connection_lost(exc)

    Bounded.__name__ = Bounded.__qualname__ = f"Bounded{base.__name__}"
    return Bounded, conns


def connection_cap(requested: int, reserve: int = 64) -> int:
    """``requested`` connections, at most the open-file limit less ``reserve``
    descriptors for the server's own files, so ``accept()`` never runs out of
    descriptors because of connections the server itself keeps."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):
        return requested
    if soft == resource.RLIM_INFINITY:
        return requested
    return max(1, min(requested, soft - reserve))


# -- sessions --------------------------------------------------------------------------


def limit_sessions(manager: Any, log: "ServeLog | None" = None) -> bool:
    """At the session cap of the SDK's ``StreamableHTTPSessionManager``, end the
    session idle the longest (no request in flight) to admit a new one, instead of
    the SDK's 503; a 503 remains when every session is busy.

    Relies on the manager's ``_admit_session`` and the transport's idle clock
    (``idle_scope``, ``_requests_in_flight``) of the installed SDK (2.3); returns
    False, changing nothing, when they are absent (the SDK's own cap still holds).
    """
    admit = getattr(manager, "_admit_session", None)
    sessions = getattr(manager, "_server_instances", None)
    if admit is None or not isinstance(sessions, dict) or manager.max_sessions is None:
        return False

    def idle_since(transport: Any) -> float | None:
        scope = getattr(transport, "idle_scope", None)
        if getattr(transport, "_requests_in_flight", 1) != 0 or scope is None:
            return None
        deadline = scope.deadline
        return None if deadline == float("inf") or scope.cancel_called else deadline

    def admit_or_evict(requestor: Any) -> Any:
        transport = admit(requestor)
        if transport is not None:
            return transport
        idle = [(since, sid, t) for sid, t in sessions.items() if (since := idle_since(t)) is not None]
        if not idle:
            return None
        _, sid, oldest = min(idle, key=lambda x: x[0])
        sessions.pop(sid, None)
        getattr(manager, "_session_owners", {}).pop(sid, None)
        oldest.idle_scope.cancel()  # its server task ends and terminates the transport
        if log is not None:
            log.say("session-cap", f"{manager.max_sessions} sessions open: ended the one idle the longest")
        return admit(requestor)

    manager._admit_session = admit_or_evict
    return True


# -- the log ---------------------------------------------------------------------------


def _one_line(text: str, limit: int = 400) -> str:
    text = " ".join(str(text).split())
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"
                   for c in text)
    return text if len(text) <= limit else text[:limit] + "…"


class ServeLog:
    """One line per condition, at most once per ``interval`` seconds (the next line
    says how many were held back), written to ``fd`` by a daemon thread from a
    queue of at most ``max_pending`` lines: when nobody reads the stream, lines
    are dropped (and counted in the next line written), the server never waits.

    :param fd: the descriptor written (default 2, stderr).
    :param prefix: put before every line.
    """

    def __init__(self, fd: int = 2, interval: float = 10.0, max_pending: int = 64,
                 prefix: str = "wskit serve: ") -> None:
        self.fd = fd
        self.interval = interval
        self.max_pending = max_pending
        self.prefix = prefix
        self._last: dict[str, tuple[float, int]] = {}
        self._queue: collections.deque[str] = collections.deque()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self.dropped = 0
        self.held = 0

    def say(self, condition: str, text: str) -> bool:
        """Log ``text`` for ``condition`` unless that condition was logged in the last
        ``interval`` seconds. :returns: True when the line was queued."""
        now = time.monotonic()
        with self._cond:
            last, held = self._last.get(condition, (-self.interval - 1, 0))
            if now - last < self.interval:
                self._last[condition] = (last, held + 1)
                self.held += 1
                return False
            self._last[condition] = (now, 0)
        line = _one_line(text)
        if held:
            line += f" ({held} more since the last such line)"
        return self.write(line)

    def write(self, text: str) -> bool:
        """Queue one line (no rate limit): dropped when ``max_pending`` lines wait."""
        with self._cond:
            if len(self._queue) >= self.max_pending:
                self.dropped += 1
                return False
            self._queue.append(self.prefix + _one_line(text, 4000) + "\n")
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="wskit-serve-log", daemon=True)
                self._thread.start()
            self._cond.notify()
        return True

    def _run(self) -> None:
        reported = 0
        while True:
            with self._cond:
                while not self._queue:
                    self._cond.wait()
                line = self._queue.popleft()
                dropped = self.dropped
            if dropped > reported:
                line = f"{self.prefix}{dropped - reported} line(s) dropped: stderr was not read\n" + line
                reported = dropped
            data = line.encode("utf-8", "replace")
            try:
                while data:
                    data = data[os.write(self.fd, data):]  # may block: only this thread waits
            except OSError:
                return  # stderr is gone: nothing more can be said

    def flush(self, timeout: float = 1.0) -> bool:
        """Wait up to ``timeout`` seconds for the queue to empty. :returns: True when it did."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._cond:
                if not self._queue:
                    return True
            time.sleep(0.01)
        return False

    def handler(self) -> logging.Handler:
        """A logging handler sending each record through :meth:`say`: one line (the
        message and the exception's type, never a traceback), rate-limited per
        logger and message template."""
        log = self

        class _Handler(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                try:
                    text = record.getMessage()
                except Exception:  # noqa: BLE001 — arguments that do not format
                    text = str(record.msg)
                exc = record.exc_info[1] if record.exc_info else None
                if exc is not None:
                    text = f"{text}: {type(exc).__name__}: {exc}"
                log.say(f"{record.name}:{str(record.msg)[:80]}", f"{record.name}: {text}")

        return _Handler(logging.WARNING)

    def take_over(self, names: Iterable[str] = ("uvicorn", "asyncio", "mcp")) -> None:
        """Route the loggers ``names`` (uvicorn's, asyncio's, the SDK's) through
        :meth:`handler` (and handlers already there), not propagated to handlers that
        write stderr directly; for the ``wsctl serve`` process, which owns its logging."""
        handler = self.handler()
        for name in names:
            logger = logging.getLogger(name)
            logger.addHandler(handler)
            logger.propagate = False
            if logger.level == logging.NOTSET or logger.level < logging.WARNING:
                logger.setLevel(logging.WARNING)
