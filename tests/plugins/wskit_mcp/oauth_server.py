"""An OAuth-protected MCP server (official SDK) for the tests: it is its own authorization
server (metadata, dynamic client registration, authorize with PKCE, token, refresh) and
a resource server that wants a bearer token for ``/mcp``.

``python oauth_server.py PORT COUNTS_FILE``: serves on 127.0.0.1:PORT. Authorization is
granted at once (a redirect to the client's loopback ``redirect_uri`` with the code), as
a user clicking "allow" would. Access tokens live ``TOKEN_SECONDS`` (default 2) seconds.
After every token grant ``COUNTS_FILE`` holds ``{"authorization_code": n, "refresh_token": m}``.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import time

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

PORT = int(sys.argv[1])
COUNTS = sys.argv[2]
BASE = f"http://127.0.0.1:{PORT}"
LIFE = int(os.environ.get("TOKEN_SECONDS", "2"))


class Provider:
    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.counts = {"authorization_code": 0, "refresh_token": 0}

    def _count(self, grant: str) -> None:
        self.counts[grant] += 1
        with open(COUNTS, "w") as fh:
            json.dump(self.counts, fh)

    async def get_client(self, client_id: str):
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(16)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [], expires_at=time.time() + 300, client_id=client.client_id,
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource)
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code: str):
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes, resource) -> OAuthToken:
        token, refresh = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        self.access[token] = AccessToken(token=token, client_id=client_id, scopes=scopes,
                                         expires_at=int(time.time()) + LIFE, resource=resource)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(access_token=token, expires_in=LIFE, refresh_token=refresh,
                          scope=" ".join(scopes) or None)

    async def exchange_authorization_code(self, client, authorization_code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        self._count("authorization_code")
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client, refresh_token: str):
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client, refresh_token: RefreshToken, scopes) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        self._count("refresh_token")
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str):
        found = self.access.get(token)
        if found is None or (found.expires_at and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token) -> None:
        self.access.pop(getattr(token, "token", ""), None)


server = MCPServer(
    "wskit-oauth-server", auth_server_provider=Provider(),
    auth=AuthSettings(issuer_url=BASE, resource_server_url=f"{BASE}/mcp",
                      client_registration_options=ClientRegistrationOptions(enabled=True)))


@server.tool()
def whoami() -> str:
    """Answered only with a valid bearer token."""
    return "authorized"


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=PORT, log_level="warning")
