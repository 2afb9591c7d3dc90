"""MCP sources as Claude Code 2.1.332 reads them (asked with its ``system/init`` line):
``~/.claude.json``'s ``mcpServers`` (user scope) and ``projects[<abs>].mcpServers`` (local
scope), project ``.mcp.json`` with ``type: "ws"`` servers, and no ``mcpServers`` from
``settings.json`` for host ``claude`` (the default host keeps reading them)."""

from __future__ import annotations

import json

import pytest

from wskit import HostProfile, WorkspaceCache
from wskit.builtin_plugins.mcp.loader import parse_mcp_config
from wskit.plugin.manager import make_plugin_manager
from wskit.trust import TrustStore


@pytest.fixture(scope="module")
def pm():
    return make_plugin_manager(load_entrypoints=True, env={})


def _tree(tmp_path):
    p, h = tmp_path / "p", tmp_path / "h"
    (p / ".git").mkdir(parents=True)
    (h / ".claude").mkdir(parents=True)
    srv = {"command": "/bin/false"}
    (p / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj-ws": {"type": "ws", "url": "ws://127.0.0.1:9/x"},
                                                            "shared": srv}}))
    (h / ".claude.json").write_text(json.dumps({
        "numStartups": 3, "mcpServers": {"user-json": srv},
        "projects": {str(p): {"mcpServers": {"local-json": srv, "shared": {"command": "/bin/true"}}},
                     "/elsewhere": {"mcpServers": {"other-project": srv}}}}))
    (h / ".claude/settings.json").write_text(json.dumps({"mcpServers": {"settings-srv": srv}}))
    TrustStore.for_home(h).grant(p)
    return p, h


def _servers(pm, host, p, h):
    ws = WorkspaceCache(HostProfile(name=host, home=h), pm).resolve(str(p))
    return {s.name: s for s in ws.registry("mcp_server").active()}, ws


def test_host_claude_reads_claude_json_scopes_and_no_settings_json_servers(pm, tmp_path):
    p, h = _tree(tmp_path)
    servers, ws = _servers(pm, "claude", p, h)
    assert set(servers) == {"proj-ws", "shared", "user-json", "local-json"}
    assert servers["proj-ws"].transport == "ws" and servers["proj-ws"].startable
    # local scope (projects[<abs>]) outranks the project's .mcp.json, as in Claude Code
    assert servers["shared"].command == "/bin/true"
    assert servers["local-json"].scope.value == "user"  # the user's own file: no approval needed


def test_the_default_host_adds_claude_json_and_keeps_settings_json_servers(pm, tmp_path):
    p, h = _tree(tmp_path)
    servers, _ = _servers(pm, "wskit", p, h)
    assert {"settings-srv", "user-json", "local-json", "proj-ws"} <= set(servers)
    assert "other-project" not in servers


def test_a_claude_json_that_is_not_json_is_a_diagnostic(pm, tmp_path):
    p, h = _tree(tmp_path)
    (h / ".claude.json").write_text("{not json")
    servers, ws = _servers(pm, "claude", p, h)
    assert "user-json" not in servers
    assert any(d.code == "invalid-json" and d.path.endswith(".claude.json") for d in ws.diagnostics)


def test_a_ws_server_needs_a_websocket_url():
    ok, diags = parse_mcp_config('{"mcpServers": {"a": {"type": "ws", "url": "wss://127.0.0.1/x"}}}', "/")
    assert [s.transport for s in ok] == ["ws"] and not diags
    bad, diags = parse_mcp_config('{"mcpServers": {"a": {"type": "ws", "url": "http://127.0.0.1/x"}}}', "/")
    assert bad == [] and "ws(s)" in diags[0].message
