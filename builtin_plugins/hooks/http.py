"""HTTP hooks: the URL policy and a POST that follows no redirects
(reference/blade.md §11.2 and §11.4).

The policy is checked *before* anything is sent: only ``http``/``https``;
``https`` unless ``allow_http``; loopback (127/8, ::1, ``localhost``) refused
unless ``allow_loopback``; private and link-local ranges (10/8, 172.16/12,
192.168/16, 169.254/16, fc00::/7, fe80::/10) refused unless
``allow_private``; a host in ``allowed_hosts`` (exact, or ``*.suffix`` for
sub-domains) bypasses all of it. Host names are resolved and *every* address
they resolve to must pass, so a public name pointing at 127.0.0.1 is refused too.
"""

from __future__ import annotations

import http.client
import ipaddress
import os
import re
import socket
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from wskit.errors import WskitError

__all__ = [
    "DEFAULT_MAX_RESPONSE", "expand_headers", "HttpHookError", "HttpHookSecurityError", "HttpResult",
    "post_json", "process_env", "UrlPolicy"
]


#: Default response cap, bytes (Blade: maxResponseBytes 256 KiB).
DEFAULT_MAX_RESPONSE = 256 * 1024
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class HttpHookSecurityError(WskitError):
    """The URL of an HTTP hook was refused by the :class:`UrlPolicy` (a blocking error)."""


class HttpHookError(WskitError):
    """The HTTP hook failed: connection, redirect, status or oversized response."""


@dataclass(frozen=True)
class UrlPolicy:
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
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            raise HttpHookSecurityError(f"hook URL {url!r}: only http and https are allowed")
        host = parts.hostname or ""
        if not host:
            raise HttpHookSecurityError(f"hook URL {url!r} has no host")
        port = parts.port or (443 if scheme == "https" else 80)
        if self._host_listed(host):
            return scheme, host, port
        if scheme == "http" and not self.allow_http:
            raise HttpHookSecurityError(f"hook URL {url!r}: plain http is refused (https required)")
        for addr in _addresses(host, port):
            if addr.is_loopback or host.lower() in ("localhost", "localhost."):
                if not self.allow_loopback:
                    raise HttpHookSecurityError(f"hook URL {url!r}: loopback address {addr} is refused")
            elif addr.is_private or addr.is_link_local:
                if not self.allow_private:
                    raise HttpHookSecurityError(f"hook URL {url!r}: private address {addr} is refused")
            elif addr.is_unspecified or addr.is_multicast or addr.is_reserved:
                raise HttpHookSecurityError(f"hook URL {url!r}: address {addr} is refused")
        return scheme, host, port


def _addresses(host: str, port: int) -> list[ipaddress._BaseAddress]:
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except socket.gaierror as err:
        raise HttpHookSecurityError(f"hook host {host!r} does not resolve: {err}") from None
    return [ipaddress.ip_address(i[4][0].split("%")[0]) for i in infos]


def expand_headers(headers: Mapping[str, str], env: Mapping[str, str]) -> dict[str, str]:
    """Replace ``${VAR}`` in header values from ``env``; unknown variables stay verbatim (Blade)."""
    return {k: _VAR.sub(lambda m: env.get(m.group(1), m.group(0)), v) for k, v in headers.items()}


@dataclass(frozen=True)
class HttpResult:
    """An HTTP hook's answer. :ivar status: HTTP status. :ivar body: decoded text (≤ the cap)."""

    status: int
    body: str


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

    Redirects are never followed (a 3xx is an error); a response larger than
    ``max_response`` bytes is an error (never truncated and passed off as whole).

    :raises HttpHookSecurityError: the policy refused the URL.
    :raises HttpHookError: connection failure, timeout, redirect, status ≥ 400, too large.
    """
    scheme, host, port = policy.check(url)
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    conn_cls = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
    kwargs = {"context": ssl.create_default_context()} if scheme == "https" else {}
    conn = conn_cls(host, port, timeout=timeout, **kwargs)
    try:
        hdrs = {"Content-Type": "application/json", "Accept": "application/json", **headers}
        conn.request("POST", path, body=body, headers=hdrs)
        resp = conn.getresponse()
        if 300 <= resp.status < 400:
            raise HttpHookError(f"hook URL {url!r} answered a redirect ({resp.status}); redirects are not followed")
        data = resp.read(max_response + 1)
        if len(data) > max_response:
            raise HttpHookError(f"hook URL {url!r}: response is over the {max_response}-byte limit")
        if resp.status >= 400:
            raise HttpHookError(f"hook URL {url!r} answered HTTP {resp.status}")
        return HttpResult(status=resp.status, body=data.decode("utf-8", "replace"))
    except (OSError, http.client.HTTPException) as err:
        raise HttpHookError(f"hook URL {url!r}: {type(err).__name__}: {err}") from None
    finally:
        conn.close()


def process_env() -> dict[str, str]:
    """The current process environment (the source for ``${VAR}`` when the host passes none)."""
    return dict(os.environ)
