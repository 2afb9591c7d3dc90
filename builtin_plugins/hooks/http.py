"""HTTP hooks: the URL policy and a POST that follows no redirects
(reference/blade.md §11.2 and §11.4).

The policy is checked *before* anything is sent: only ``http``/``https``;
``https`` unless ``allow_http``; the unspecified address (``0.0.0.0``, ``::``),
multicast and reserved ranges always refused; loopback (127/8, ::1,
``localhost``) refused unless ``allow_loopback``; private, shared and
link-local ranges (10/8, 172.16/12, 192.168/16, 100.64/10, 169.254/16,
fc00::/7, fe80::/10, and any other address that is not globally routable)
refused unless ``allow_private``. An IPv6 address that embeds an IPv4 one
(``::ffff:a.b.c.d``, ``::a.b.c.d``, 6to4 ``2002::/16``, NAT64 ``64:ff9b::/96``)
is judged as that IPv4 address. A host in ``allowed_hosts`` (exact, or
``*.suffix`` for sub-domains) bypasses all of it. Host names are resolved
*once*: every address they resolve to must pass, and the request connects to
the address that was checked (TLS still verifies the certificate for the
host name), so a name that resolves elsewhere the second time cannot reach a
refused address.

``timeout`` bounds the whole request — connect, send and the full response —
not each socket read: a server that trickles bytes is cut off at the deadline.
Header values expand ``$VAR`` and ``${VAR}`` only for names the hook lists in
``allowedEnvVars`` (Claude Code) or the session's own variables; any other
reference becomes the empty string, never a host environment value.

:func:`apost_json` is the same request on the event loop (httpx's async client, imported
when first used): the same policy and pinned address, the same bounds, the same errors.
"""

from __future__ import annotations

import _thread
import ipaddress
import math
import os
import re
import time
from collections.abc import Mapping
from urllib.parse import urlsplit

from wskit.builtin_plugins.hooks import MAX_TIMEOUT
from wskit.errors import WskitError
from wskit.values import FrozenValue, field

#: Default response cap, bytes (Blade: maxResponseBytes 256 KiB).
DEFAULT_MAX_RESPONSE = 256 * 1024
_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_SHARED = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class HttpHookSecurityError(WskitError):
    """The URL of an HTTP hook was refused by the :class:`UrlPolicy` (a blocking error)."""


class HttpHookError(WskitError):
    """The HTTP hook failed: connection, redirect, status or oversized response."""


class UrlPolicy(FrozenValue):
    """Where HTTP hooks may post (Blade's ``httpPolicy``).

    :ivar allow_http: plain ``http://`` allowed. :ivar allow_loopback: 127/8, ::1, localhost.
    :ivar allow_private: RFC 1918, link-local and unique-local ranges.
    :ivar allowed_hosts: host names (``api.example.com`` or ``*.example.com``) that bypass every check.
    """

    allow_http: bool = False
    allow_loopback: bool = False
    allow_private: bool = False
    allowed_hosts: tuple[str, ...] = field(default_factory=tuple)

    @classmethod
    def local_testing(cls) -> "UrlPolicy":
        """http and loopback allowed (a hook server on this machine)."""
        return cls(allow_http=True, allow_loopback=True)

    def _host_listed(self, host: str) -> bool:
        host = host.lower().rstrip(".")
        for pat in self.allowed_hosts:
            pat = pat.lower()
            if pat.startswith("*.") and host.endswith(pat[1:]):
                return True
            if host == pat:
                return True
        return False

    def check(self, url: str) -> tuple[str, str, int]:
        """Check ``url``; return ``(scheme, host, port)``.

        :raises HttpHookSecurityError: naming the rule that refused it.
        """
        scheme, host, port, _ = self.resolve(url)
        return scheme, host, port

    def resolve(self, url: str) -> tuple[str, str, int, list[str] | None]:
        """Check ``url`` and return ``(scheme, host, port, addresses)``: the addresses that
        passed, to connect to (None for an ``allowed_hosts`` name: resolved when connecting).

        :raises HttpHookSecurityError: naming the rule that refused it.
        """
        if any(c in url for c in "\r\n\x00"):
            raise HttpHookSecurityError(f"hook URL {url!r} holds a control character")
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            raise HttpHookSecurityError(f"hook URL {url!r}: only http and https are allowed")
        try:
            host = parts.hostname or ""
            port = parts.port or (443 if scheme == "https" else 80)
        except ValueError as err:
            raise HttpHookSecurityError(f"hook URL {url!r}: {err}") from None
        if not host:
            raise HttpHookSecurityError(f"hook URL {url!r} has no host")
        if self._host_listed(host):
            return scheme, host, port, None
        if scheme == "http" and not self.allow_http:
            raise HttpHookSecurityError(f"hook URL {url!r}: plain http is refused (https required)")
        named_local = host.lower() in ("localhost", "localhost.") or host.lower().endswith(".localhost")
        addrs = _addresses(host, port)
        for addr in addrs:
            kind = "loopback" if named_local else _classify(addr)
            if kind == "refused":
                raise HttpHookSecurityError(f"hook URL {url!r}: address {addr} is refused")
            if kind == "loopback" and not self.allow_loopback:
                raise HttpHookSecurityError(f"hook URL {url!r}: loopback address {addr} is refused")
            if kind == "private" and not self.allow_private:
                raise HttpHookSecurityError(f"hook URL {url!r}: private address {addr} is refused")
        return scheme, host, port, [str(a) for a in addrs]


def _embedded_v4(addr: ipaddress._BaseAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for (mapped, compatible, 6to4, NAT64), or None."""
    if not isinstance(addr, ipaddress.IPv6Address):
        return None
    if addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    if addr.sixtofour is not None:
        return addr.sixtofour
    if addr in _NAT64:
        return ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)
    if int(addr) >> 32 == 0 and int(addr) > 1:  # ::a.b.c.d, the deprecated IPv4-compatible form
        return ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)
    return None


def _classify(addr: ipaddress._BaseAddress) -> str | None:
    """``refused`` (always), ``loopback``, ``private`` or None (public) for one address."""
    v4 = _embedded_v4(addr)
    if v4 is not None:
        addr = v4
    if addr.is_unspecified or addr.is_multicast:
        return "refused"
    if addr.is_loopback:
        return "loopback"
    if isinstance(addr, ipaddress.IPv4Address) and (addr in _SHARED or addr.packed[0] == 0):
        return "private" if addr.packed[0] != 0 else "refused"
    if addr.is_reserved:
        return "refused"
    if addr.is_private or addr.is_link_local or not addr.is_global:
        return "private"
    return None


def _addresses(host: str, port: int) -> list[ipaddress._BaseAddress]:
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    import socket  # a name to resolve: only when an HTTP hook's URL is checked

    try:
        infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError, OSError) as err:
        raise HttpHookSecurityError(f"hook host {host!r} does not resolve: {err}") from None
    out = []
    for i in infos:
        a = ipaddress.ip_address(i[4][0].split("%")[0])
        if a not in out:
            out.append(a)
    if not out:
        raise HttpHookSecurityError(f"hook host {host!r} does not resolve")
    return out


def allowed_env_vars(config: Mapping[str, object] | None) -> frozenset[str]:
    """The names a hook's ``allowedEnvVars`` lists (Claude Code), as read from its entry."""
    raw = (config or {}).get("allowedEnvVars")
    if not isinstance(raw, list):
        return frozenset()
    return frozenset(v for v in raw if isinstance(v, str))


def mask_header(value: str, allowed: frozenset[str] = frozenset()) -> str:
    """``value`` as shown to an approver: ``$VAR`` references kept, each one the hook does
    not list in ``allowedEnvVars`` marked ``<session only>`` (it expands only from the
    session's variables, else to nothing), every literal run replaced by ``***``."""
    out, last = [], 0
    for m in _VAR.finditer(value):
        if m.start() > last:
            out.append("***")
        name = m.group(1) or m.group(2)
        out.append(m.group(0) + ("" if name in allowed else " <session only>"))
        last = m.end()
    if last < len(value):
        out.append("***")
    return "".join(out)


def expand_headers(headers: Mapping[str, str], env: Mapping[str, str], allowed: frozenset[str] | None = None,
                   session: Mapping[str, str] | None = None) -> dict[str, str]:
    """Replace ``$VAR`` and ``${VAR}`` in header values.

    :param env: where an allowed name's value comes from (the host environment and the session's variables).
    :param allowed: the hook's ``allowedEnvVars``; None: every name of ``env`` may expand
        (``env`` is then the session's variables alone).
    :param session: the session's variables, which expand without being listed.
    :returns: the headers; a name neither allowed nor a session variable expands to ``""``
        (Claude Code), and so does an allowed one that is not set.
    """
    def one(m: re.Match) -> str:
        name = m.group(1) or m.group(2)
        if allowed is None or name in allowed:
            return env.get(name, "")
        return (session or {}).get(name, "")

    return {k: _VAR.sub(one, v) for k, v in headers.items()}


class HttpResult(FrozenValue):
    """An HTTP hook's answer. :ivar status: HTTP status. :ivar body: decoded text (≤ the cap)."""

    status: int
    body: str


def _check_request(url: str, headers: Mapping[str, str], timeout: float) -> None:
    """What both :func:`post_json` and :func:`apost_json` refuse before resolving anything."""
    if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and 0 < timeout <= MAX_TIMEOUT):
        raise HttpHookError(f"hook URL {url!r}: timeout {timeout!r} is not between 0 and {MAX_TIMEOUT:g} s")
    for k, v in headers.items():
        from wskit.builtin_plugins.hooks.definitions import header_problem  # a header to check

        why = header_problem(k, v)
        if why is not None:
            raise HttpHookError(f"hook URL {url!r}: {why}")


def post_json(
    url: str,
    body: bytes,
    *,
    headers: Mapping[str, str],
    timeout: float,
    policy: UrlPolicy,
    max_response: int = DEFAULT_MAX_RESPONSE,
) -> HttpResult:
    """POST ``body`` (JSON) to ``url`` after checking it against ``policy``.

    Connects to the address the policy checked (no second resolution); ``timeout``
    seconds bound the whole exchange. Redirects are never followed (a 3xx is an
    error); a response larger than ``max_response`` bytes is an error (never
    truncated and passed off as whole).

    :raises HttpHookSecurityError: the policy refused the URL.
    :raises HttpHookError: connection failure, timeout, redirect, status ≥ 400, too large,
        a header that cannot be sent.
    """
    import http.client  # the transport (http.client, ssl, socket) only when an HTTP hook posts

    _check_request(url, headers, timeout)
    scheme, host, port, addrs = policy.resolve(url)
    deadline = time.monotonic() + timeout
    if addrs is None:  # an allowed_hosts name: resolve it once here, and use that address
        addrs = [str(a) for a in _addresses(host, port)]
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    plain, tls = _connections()
    conn = tls(host, port, addrs, deadline) if scheme == "https" else plain(host, port, addrs, deadline)
    import threading  # when a hook is posted

    watchdog = threading.Timer(timeout, conn.abort)
    watchdog.daemon = True
    watchdog.start()
    try:
        hdrs = {"Content-Type": "application/json", "Accept": "application/json", **headers}
        conn.request("POST", path, body=body, headers=hdrs)
        resp = conn.getresponse()
        if 300 <= resp.status < 400:
            raise HttpHookError(f"hook URL {url!r} answered a redirect ({resp.status}); redirects are not followed")
        data = resp.read(max_response + 1)
        if conn.aborted:
            raise TimeoutError("timed out")
        if len(data) > max_response:
            raise HttpHookError(f"hook URL {url!r}: response is over the {max_response}-byte limit")
        if resp.status >= 400:
            raise HttpHookError(f"hook URL {url!r} answered HTTP {resp.status}")
        return HttpResult(status=resp.status, body=data.decode("utf-8", "replace"))
    except (OSError, http.client.HTTPException, ValueError) as err:
        if conn.aborted or time.monotonic() >= deadline:
            raise HttpHookError(f"hook URL {url!r}: no complete answer within its {timeout:g} s timeout") from None
        raise HttpHookError(f"hook URL {url!r}: {type(err).__name__}: {err}") from None
    finally:
        watchdog.cancel()
        conn.close()


async def apost_json(
    url: str,
    body: bytes,
    *,
    headers: Mapping[str, str],
    timeout: float,
    policy: UrlPolicy,
    max_response: int = DEFAULT_MAX_RESPONSE,
) -> HttpResult:
    """:func:`post_json` without blocking the event loop, through httpx's async client.

    The URL is checked and its host resolved once (in a worker thread, as the event loop's
    own ``getaddrinfo`` does); the request goes to the checked address itself, with the
    ``Host`` header and the TLS server name (certificate checked for it) of the URL's host.
    No proxy from the environment, no redirect followed, no content decoding (the body is
    bounded as sent); ``timeout`` seconds bound the whole exchange. Cancelling the awaiting
    task closes the connection.

    :raises HttpHookSecurityError: the policy refused the URL.
    :raises HttpHookError: as :func:`post_json`.
    """
    import asyncio
    import ssl

    import httpx  # only an async HTTP hook needs it (and asyncio, ssl)

    _check_request(url, headers, timeout)
    scheme, host, port, addrs = await asyncio.to_thread(policy.resolve, url)
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    default_port = 443 if scheme == "https" else 80
    hdrs = {"Content-Type": "application/json", "Accept": "application/json", "Accept-Encoding": "identity",
            "Host": host if port == default_port else f"{host}:{port}", **headers}
    try:
        async with asyncio.timeout(timeout):
            if addrs is None:  # an allowed_hosts name: resolve it once here, and use that address
                addrs = [str(a) for a in await asyncio.to_thread(_addresses, host, port)]
            async with httpx.AsyncClient(verify=ssl.create_default_context(), trust_env=False,
                                         follow_redirects=False, timeout=None) as client:
                for i, addr in enumerate(addrs):
                    target = f"{scheme}://{f'[{addr}]' if ':' in addr else addr}:{port}{path}"
                    try:
                        async with client.stream("POST", target, content=body, headers=hdrs,
                                                 extensions={"sni_hostname": host}) as resp:
                            if 300 <= resp.status_code < 400:
                                raise HttpHookError(f"hook URL {url!r} answered a redirect ({resp.status_code}); "
                                                    "redirects are not followed")
                            data = bytearray()
                            async for chunk in resp.aiter_raw():
                                data += chunk
                                if len(data) > max_response:
                                    raise HttpHookError(f"hook URL {url!r}: response is over the "
                                                        f"{max_response}-byte limit")
                            if resp.status_code >= 400:
                                raise HttpHookError(f"hook URL {url!r} answered HTTP {resp.status_code}")
                            return HttpResult(status=resp.status_code, body=bytes(data).decode("utf-8", "replace"))
                    except httpx.ConnectError:
                        if i == len(addrs) - 1:
                            raise
            raise OSError("no address to connect to")
    except TimeoutError:
        raise HttpHookError(f"hook URL {url!r}: no complete answer within its {timeout:g} s timeout") from None
    except (OSError, httpx.HTTPError, ValueError) as err:
        raise HttpHookError(f"hook URL {url!r}: {type(err).__name__}: {err}") from None


_CONNECTIONS: list[tuple[type, type]] = []


def _connections() -> tuple[type, type]:
    """The pinned HTTP and HTTPS connection classes, made on first use (their bases are
    :mod:`http.client`'s, whose import brings ``ssl``, ``socket`` and ``email``: a run without
    an HTTP hook never pays for it)."""
    if _CONNECTIONS:
        return _CONNECTIONS[0]
    import http.client
    import socket
    import ssl

    class _Pinned:
        """Connects to one of the checked ``addrs`` (never resolving ``host`` again), each step
        bounded by what is left of ``deadline``; :meth:`abort` cuts the socket off."""

        def _init_pin(self, addrs: list[str], deadline: float) -> None:
            self._addrs, self._deadline, self.aborted = addrs, deadline, False
            self._raw: socket.socket | None = None

        def _left(self) -> float:
            left = self._deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("timed out")
            return left

        def _tcp(self) -> socket.socket:
            err: OSError | None = None
            for a in self._addrs:
                try:
                    sock = socket.create_connection((a, self.port), timeout=self._left())
                    sock.settimeout(self._left())
                    self._raw = sock  # kept: http.client hands the socket to the response and forgets it
                    if self.aborted:
                        self.abort()
                    return sock
                except OSError as e:
                    err = e
            raise err or OSError("no address to connect to")

        def abort(self) -> None:
            self.aborted = True
            sock = self._raw
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    class _PinnedHTTP(_Pinned, http.client.HTTPConnection):
        def __init__(self, host: str, port: int, addrs: list[str], deadline: float) -> None:
            http.client.HTTPConnection.__init__(self, host, port)
            self._init_pin(addrs, deadline)

        def connect(self) -> None:
            self.sock = self._tcp()

    class _PinnedHTTPS(_Pinned, http.client.HTTPSConnection):
        def __init__(self, host: str, port: int, addrs: list[str], deadline: float) -> None:
            http.client.HTTPSConnection.__init__(self, host, port, context=ssl.create_default_context())
            self._init_pin(addrs, deadline)

        def connect(self) -> None:
            sock = self._tcp()
            self.sock = self._context.wrap_socket(sock, server_hostname=self.host)

    with _LOCK:
        if not _CONNECTIONS:
            _CONNECTIONS.append((_PinnedHTTP, _PinnedHTTPS))
    return _CONNECTIONS[0]


_LOCK = _thread.allocate_lock()  # threading.Lock, without importing threading


def process_env() -> dict[str, str]:
    """The current process environment (the source for ``${VAR}`` when the host passes none)."""
    return dict(os.environ)
