"""OAuth for HTTP MCP servers with the SDK's OAuth client (``mcp.client.auth``):
discovery (protected-resource and authorization-server metadata), dynamic client
registration, authorization code with PKCE, refresh.

- The browser is sent to the authorization page by ``McpOptions.on_authorize`` (default:
  :mod:`webbrowser`, and the URL printed to stderr); the redirect comes back to a
  loopback HTTP listener the session opens on ``127.0.0.1`` (port: the server's
  ``oauth.callbackPort``, else ``McpOptions.oauth_callback_port``, else the port used at the
  last login, else any free one) at ``/callback``.
- Tokens and the registered client are stored per server in
  ``<home>/.wskit/mcp-oauth/<sha256 of server id and url>.json``: a regular file of mode
  0600 owned by the user, at most 1 MiB, written atomically under a lock; a file that is
  a link, loose or malformed is refused (the server is then ``needs-auth``). Without a
  home they live in memory for the session only.
- Outside a login (``McpOptions.interactive_oauth`` False, the default for sessions) a
  server that needs a new authorization is ``needs-auth``: no browser opens during a
  tool call. A stored refresh token is used either way.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from wskit.errors import WskitError
from wskit.fs.atomic import StateFileError
from wskit.fs.store import PrivateJsonFile

__all__ = ["McpTokenStore", "McpTokenStoreError", "oauth_provider", "token_path", "token_store"]

_MAX_BYTES = 1 << 20


class McpTokenStoreError(WskitError):
    """A server's token file is unusable (a link, wrong owner or mode, too large, malformed)."""


def token_path(home: str | os.PathLike[str], server_id: str, url: str) -> Path:
    """Where the tokens of ``server_id`` at ``url`` are kept under ``home``."""
    digest = hashlib.sha256(f"{server_id}\n{url}".encode()).hexdigest()[:32]
    return Path(home) / ".wskit" / "mcp-oauth" / f"{digest}.json"


class McpTokenStore:
    """Tokens, client registration and callback port of one server (the SDK's ``TokenStorage``).

    :param path: the file (None: memory only). :param server_id, url: recorded in the file.
    """

    def __init__(self, path: Path | None, server_id: str, url: str, anchor: Path | None = None) -> None:
        self.path, self.server_id, self.url = path, server_id, url
        self._memory: dict[str, Any] = {}
        #: the private file (:mod:`wskit.fs.store`); ``anchor``: no link below it (the home)
        self._file = None if path is None else PrivateJsonFile(path, anchor, what="MCP token file",
                                                                max_bytes=_MAX_BYTES)

    def load(self) -> dict[str, Any]:
        """The stored document (``{}`` when there is none).

        :raises McpTokenStoreError: the file is unusable."""
        if self._file is None:
            return dict(self._memory)
        try:
            data = self._file.read()
        except StateFileError as err:
            raise McpTokenStoreError(str(err)) from None
        return self._checked(data)

    def _checked(self, data: Any) -> dict[str, Any]:
        if data is None:
            return {}
        if not isinstance(data, dict) or data.get("version") != 1:
            raise McpTokenStoreError(f"MCP token file {self.path} has an unknown format")
        return data

    def update(self, **fields: Any) -> None:
        """Set ``fields`` in the document (atomic, locked; unknown keys kept).

        :raises McpTokenStoreError: the file is unusable (never overwritten then)."""
        if self._file is None:
            self._memory.update(fields)
            return

        def step(data: Any) -> dict[str, Any]:
            doc = dict(self._checked(data))
            doc.update(fields, version=1, server=self.server_id, url=self.url)
            return doc

        try:
            self._file.update(step)
        except StateFileError as err:
            raise McpTokenStoreError(str(err)) from None

    def delete(self) -> bool:
        """Remove the stored tokens (``wsctl mcp logout``). :returns: True when there were some."""
        if self.path is None:
            had = bool(self._memory)
            self._memory.clear()
            return had
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            return False
        return True

    # -- the SDK's TokenStorage protocol --------------------------------------

    async def get_tokens(self):
        from mcp.shared.auth import OAuthToken

        tokens = self.load().get("tokens")
        return OAuthToken.model_validate(tokens) if isinstance(tokens, dict) else None

    async def set_tokens(self, tokens) -> None:
        expires = time.time() + tokens.expires_in if tokens.expires_in else None
        self.update(tokens=tokens.model_dump(mode="json", exclude_none=True), expires_at=expires)

    async def get_client_info(self):
        from mcp.shared.auth import OAuthClientInformationFull

        info = self.load().get("client_info")
        return OAuthClientInformationFull.model_validate(info) if isinstance(info, dict) else None

    async def set_client_info(self, client_info) -> None:
        self.update(client_info=client_info.model_dump(mode="json", exclude_none=True))


class _Callback:
    """The loopback listener the authorization server redirects the browser to."""

    def __init__(self, port: int) -> None:
        result: dict[str, str] = {}
        done = threading.Event()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 — http.server's name
                parsed = urlparse(self.path)
                if parsed.path != "/callback":
                    self.send_error(404)
                    return
                query = {k: v[0] for k, v in parse_qs(parsed.query).items()}
                result.update(query)
                body = (b"Authorization failed; you can close this window." if "error" in query
                        else b"Authorization complete; you can close this window.")
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                done.set()

            def log_message(self, *_args) -> None:
                pass

        self.server = HTTPServer(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self.result, self.done = result, done
        self._thread = threading.Thread(target=self.server.serve_forever, name="wskit-mcp-oauth", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(5)


def token_store(service, server) -> McpTokenStore:
    """The token store of ``server`` in ``service``'s session (a file under the home, or memory)."""
    home = getattr(getattr(service.runtime.session, "profile", None), "home", None)
    if home is not None:
        return McpTokenStore(token_path(home, server.id, server.url), server.id, server.url, anchor=Path(home))
    return service._oauth_memory.setdefault(server.id, McpTokenStore(None, server.id, server.url))


def oauth_provider(service, server):
    """The SDK ``OAuthClientProvider`` (an httpx auth) for the HTTP ``server`` of ``service``."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

    from .service import McpAuthRequiredError

    store = token_store(service, server)
    opts = service.options
    try:
        doc = store.load()
    except McpTokenStoreError as err:
        raise McpAuthRequiredError(f"MCP server {server.id}: {err}") from None
    oauth_cfg = server.config.get("oauth") if isinstance(server.config.get("oauth"), dict) else {}
    wanted = oauth_cfg.get("callbackPort") or opts.oauth_callback_port or doc.get("port") or 0
    callback: _Callback | None = None
    port = int(wanted) if isinstance(wanted, int) else 0
    if opts.interactive_oauth:
        try:
            callback = _Callback(port)
        except OSError:
            callback = _Callback(0)  # the remembered port is taken: register again on a new one
        port = callback.port
        service._on_close(callback.close)
    redirect = f"http://127.0.0.1:{port}/callback"
    if doc.get("port") != port and opts.interactive_oauth:
        store.update(port=port, client_info=None)  # a registration names its redirect URI
    metadata = OAuthClientMetadata(client_name="wskit", redirect_uris=[redirect],
                                   grant_types=["authorization_code", "refresh_token"], response_types=["code"],
                                   token_endpoint_auth_method="none",
                                   scope=oauth_cfg.get("scope") if isinstance(oauth_cfg.get("scope"), str) else None)

    async def redirect_handler(url: str) -> None:
        if callback is None:
            raise McpAuthRequiredError(f"MCP server {server.id} needs an OAuth login: run "
                                       f"`wsctl mcp login {server.name}`")
        if opts.on_authorize is not None:
            import anyio

            await anyio.to_thread.run_sync(opts.on_authorize, url)
            return
        sys.stderr.write(f"Open this page to authorize {server.name}:\n  {url}\n")
        import webbrowser

        webbrowser.open(url)

    async def callback_handler():
        import anyio

        assert callback is not None
        ok = await anyio.to_thread.run_sync(callback.done.wait, opts.oauth_timeout)
        if not ok:
            raise McpAuthRequiredError(f"MCP server {server.id}: no authorization came back within "
                                       f"{opts.oauth_timeout:.0f} s")
        got = dict(callback.result)
        callback.done.clear()
        if "error" in got:
            raise McpAuthRequiredError(f"MCP server {server.id}: authorization refused: {got['error']}")
        return AuthorizationCodeResult(code=got.get("code", ""), state=got.get("state"), iss=got.get("iss"))

    class Provider(OAuthClientProvider):
        async def _initialize(self) -> None:
            await super()._initialize()
            expires = store.load().get("expires_at")  # the SDK forgets when a stored token expires
            if self.context.current_tokens is not None and isinstance(expires, (int, float)):
                self.context.token_expiry_time = float(expires)

    return Provider(server.url, metadata, store, redirect_handler=redirect_handler, callback_handler=callback_handler)
