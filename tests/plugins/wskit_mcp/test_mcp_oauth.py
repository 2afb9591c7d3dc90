"""OAuth end to end on loopback: an SDK MCP server that is its own authorization server
(tests/plugins/wskit_mcp/oauth_server.py), the SDK's OAuth client in the session:
discovery, dynamic registration, authorization code + PKCE through the session's
loopback callback, tokens stored 0600 under the home, refresh, logout."""

from __future__ import annotations

import json
import os
import stat
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.process_helpers import free_port, start_listening
from wskit.binding import Binding
from wskit.host import HostProfile
from wskit.plugin.facade import WskitHooks
from wskit.plugin.manager import make_plugin_manager
from wskit.resources.servers import McpServer
from wskit.session.build import provenance, session_from_resources
from wskit.session.runtime import RuntimeOptions, attach

HERE = Path(__file__).resolve().parent


@pytest.fixture
def oauth_server(tmp_path):
    port = free_port()
    counts = tmp_path / "counts.json"
    proc = start_listening([sys.executable, str(HERE / "oauth_server.py"), str(port), str(counts)], port)
    yield f"http://127.0.0.1:{port}/mcp", counts
    proc.terminate()
    proc.wait(10)


def browser(visited):
    """A user who clicks "allow": open the page, follow the redirect to the loopback callback."""
    def open_page(url: str) -> None:
        visited.append(url)
        with urllib.request.urlopen(url, timeout=10) as resp:  # follows the 302 to /callback
            assert b"Authorization complete" in resp.read()
    return open_page


def session(home, url, options):
    import wskit_mcp
    from wskit_mcp import McpService

    pm = make_plugin_manager(load_entrypoints=False, env={})
    pm.register(wskit_mcp, name="mcp-client")
    root = home.parent / "proj"
    root.mkdir(exist_ok=True)
    d = McpServer(id="user:remote", name="remote", alias="remote", transport="http", url=url,
                  provenance=provenance("user", str(home), ".mcp.json", {"remote": url}))
    s = session_from_resources(Binding(source_root=root, execution_root=root, cwd=root), [d], hooks=WskitHooks(pm))
    object.__setattr__(s, "profile", HostProfile(name="wskit", home=home))
    attach(s, RuntimeOptions(services={"mcp": McpService.factory(options)}))
    return s


def test_login_call_refresh_reuse_and_logout(tmp_path, oauth_server):
    from wskit_mcp import McpAuthRequiredError, McpOptions
    from wskit_mcp.oauth import token_path

    url, counts = oauth_server
    home = tmp_path / "home"
    home.mkdir()
    visited: list[str] = []

    s = session(home, url, McpOptions(on_authorize=browser(visited)))
    try:
        with pytest.raises(McpAuthRequiredError, match="wsctl mcp login remote"):
            s.mcp.connect("remote")  # no browser opens during a session's call
        assert visited == [] and s.mcp.status()[0].status == "needs-auth"
        s.mcp.login("remote")
        (page,) = visited
        assert "code_challenge=" in page and "code_challenge_method=S256" in page
        assert "redirect_uri=http%3A%2F%2F127.0.0.1%3A" in page
        assert s.mcp.call_tool("remote", "whoami")["text"] == "authorized"
        assert json.loads(counts.read_text()) == {"authorization_code": 1, "refresh_token": 0}
        stored = token_path(home, "user:remote", url)
        assert stat.S_IMODE(os.lstat(stored).st_mode) == 0o600
        doc = json.loads(stored.read_text())
        assert doc["tokens"]["access_token"] and doc["client_info"]["client_id"] and doc["server"] == "user:remote"
        time.sleep(2.5)  # the access token expired: the next call refreshes it
        assert s.mcp.call_tool("remote", "whoami")["text"] == "authorized"
        assert json.loads(counts.read_text())["refresh_token"] == 1
    finally:
        assert s.close() == []

    s2 = session(home, url, McpOptions(on_authorize=browser(visited)))
    try:  # a new session uses the stored tokens (refreshing them): no browser
        assert s2.mcp.call_tool("remote", "whoami")["text"] == "authorized"
        assert len(visited) == 1
        assert s2.mcp.logout("remote") is True
        assert not stored.exists()
        with pytest.raises(McpAuthRequiredError):
            s2.mcp.connect("remote")
    finally:
        assert s2.close() == []


def test_a_token_file_that_is_a_link_is_refused(tmp_path, oauth_server):
    from wskit_mcp import McpAuthRequiredError, McpOptions
    from wskit_mcp.oauth import token_path

    url, _ = oauth_server
    home = tmp_path / "home"
    home.mkdir()
    stored = token_path(home, "user:remote", url)
    stored.parent.mkdir(parents=True)
    decoy = tmp_path / "decoy.json"
    decoy.write_text('{"version": 1, "tokens": {"access_token": "stolen"}}')
    stored.symlink_to(decoy)
    s = session(home, url, McpOptions())
    try:
        with pytest.raises(McpAuthRequiredError, match="is a symbolic link; refused"):
            s.mcp.connect("remote")
    finally:
        s.close()
    assert decoy.read_text().startswith('{"version": 1, "tokens": {"access_token": "stolen"}}')
