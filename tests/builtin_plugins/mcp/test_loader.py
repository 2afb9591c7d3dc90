"""MCP definitions: sources, precedence, expansion, validation, strict mode."""

from __future__ import annotations

import json

from tests.builtin_plugins._bundle_helpers import codes, load, plugin
from wskit.builtin_plugins.mcp.loader import expand_server, resolve_mcp_servers


def test_sources_and_precedence(tmp_path, wskit_pm, wskit_profile, make_tree, monkeypatch):
    monkeypatch.setenv("TOKEN", "abc")
    monkeypatch.delenv("NOPE", raising=False)
    home = wskit_profile.home
    (home / ".claude").mkdir()
    (home / ".claude/settings.json").write_text(json.dumps({"mcpServers": {
        "shared": {"command": "user-cmd"}, "mine": {"url": "https://u.example/mcp"}}}))
    ws = make_tree({
        ".mcp.json": json.dumps({"mcpServers": {"shared": {"command": "proj", "args": ["${TOKEN}", "${NOPE:-dflt}"]},
                                                "broken": {"type": "ws", "url": "x"}}}),
        ".wskit/settings.local.json": json.dumps({"mcpServers": {"loc": {"command": "l", "cwd": "sub"}}}),
    })
    p = plugin(tmp_path / "p", "plug", {".mcp.json": {"shared": {"command": "from-plugin"}}})
    w = load(wskit_pm, ws, wskit_profile, plugin_dirs=[str(p)])
    reg = w.registry("mcp_server")
    shared = reg.get("shared")
    # a project definition keeps ${VAR} as written; the values come only when it is started
    assert shared.id == "project:shared" and shared.args == ("${TOKEN}", "${NOPE:-dflt}")
    assert shared.variables == ("TOKEN", "NOPE")
    started, secrets = expand_server(shared, {"TOKEN": "abc"})
    assert started.args == ("abc", "dflt") and secrets == ["abc"]
    assert reg.get("plug:shared").command == "from-plugin"  # namespaced, replaced nothing
    assert reg.get("mine").transport == "http" and reg.get("mine").scope.value == "user"
    assert reg.get("loc").id == "local:loc"
    assert "mcp-invalid" in codes(w.diagnostics)
    eff, _ = resolve_mcp_servers(w, explicit=['{"mcpServers": {"shared": {"command": "explicit"}}}'])
    assert eff.get("shared").command == "explicit"
    assert eff.get("loc").cwd == str(ws / "sub") and eff.get("plug:shared").cwd == str(ws)
    strict, _ = resolve_mcp_servers(w, explicit=['{"name": "solo", "command": "s"}'], strict=True)
    assert strict.ids() == ["cli:solo"]


def test_undefined_variable_is_reported_and_not_startable(wskit_pm, wskit_profile, make_tree, monkeypatch):
    monkeypatch.delenv("MISSING_TOKEN", raising=False)
    ws = make_tree({".mcp.json": json.dumps({"gh": {"type": "http", "url": "https://x.example/mcp",
                                                    "headers": {"Authorization": "Bearer ${MISSING_TOKEN}"}}})})
    w = load(wskit_pm, ws, wskit_profile)
    srv = w.registry("mcp_server").get("gh")
    assert srv.unresolved == ("MISSING_TOKEN",) and not srv.startable
    d = [d for d in w.diagnostics if d.code == "mcp-undefined-variable"]
    assert d and d[0].path == str(ws / ".mcp.json")


def test_vscode_servers_key_and_bad_fields(wskit_pm, wskit_profile, make_tree):
    ws = make_tree({".mcp.json": json.dumps({"servers": {"a": {"command": "x"}}})})
    w = load(wskit_pm, ws, wskit_profile)
    assert "mcp-servers-key" in codes(w.diagnostics) and len(w.registry("mcp_server")) == 0
    ws2 = make_tree({".mcp.json": json.dumps({"a": {"command": "x", "timeout": 5},
                                              "b": {"command": "y", "args": "notalist"},
                                              "c": {"command": "z", "timeout": 5000}})}, root=ws.parent / "ws2")
    w = load(wskit_pm, ws2, wskit_profile)
    msgs = [d.message for d in w.diagnostics if d.code == "mcp-invalid"]
    assert any("'timeout'" in m for m in msgs) and any("'args'" in m for m in msgs)
    assert w.registry("mcp_server").ids() == ["project:c"]


def test_untrusted_project_mcp_is_not_loaded(wskit_pm, wskit_profile, make_tree):
    ws = make_tree({".mcp.json": json.dumps({"a": {"command": "x"}})})
    w = load(wskit_pm, ws, wskit_profile, trusted=False)
    assert len(w.registry("mcp_server")) == 0


def test_session_servers_sit_between_workspace_and_explicit(wskit_pm, wskit_profile, make_tree):
    from wskit.models import Provenance, Scope
    from wskit.resources.servers import McpServer
    from wskit.session import snapshot

    ws = make_tree({".mcp.json": json.dumps({"a": {"command": "from-project"}})})
    w = load(wskit_pm, ws, wskit_profile)
    prov = Provenance(scope=Scope.CLI, source_root=str(ws), path="<session>", sha256="0" * 64)
    sess = McpServer(id="cli:a", name="a", provenance=prov, command="from-session")
    reg, _ = resolve_mcp_servers(snapshot(w), session=[sess])
    assert reg.get("a").command == "from-session"
    reg, _ = resolve_mcp_servers(w, session=[sess], explicit=['{"a": {"command": "explicit"}}'])
    assert reg.get("a").command == "explicit"
    reg, _ = resolve_mcp_servers(w, session=[sess], strict=True)
    assert len(reg) == 0


def test_a_server_with_neither_command_nor_url_says_so(wskit_pm, wskit_profile, make_tree):
    """{"args": ["x"]} is not "'type' must be one of stdio, sse, http (got None)". The
    transport is inferred from `command` (stdio) or `url` (http); with neither, that is
    what the message says. An explicit bad type keeps its own message."""
    ws = make_tree({".mcp.json": json.dumps({"mcpServers": {"x": {"args": ["x"]}, "w": {"type": "grpc", "url": "u"},
                                                            "u": {"url": "https://u.example/mcp"}}})})
    w = load(wskit_pm, ws, wskit_profile)
    msgs = sorted(d.message for d in w.diagnostics if d.code == "mcp-invalid")
    assert msgs == ["MCP server 'w': 'type' must be one of stdio, sse, http, ws (got 'grpc')",
                    "MCP server 'x': has neither 'command' (stdio server) nor 'url' (http or sse server)"]
    assert w.registry("mcp_server").get("u").transport == "http"


def test_a_plugin_server_identical_to_an_earlier_one_is_suppressed(wskit_pm, wskit_profile, make_tree, tmp_path):
    """Claude Code offers a plugin's server only when no configured server starts the same
    thing: same command, args and env (or url and headers) as written."""
    ws = make_tree({".mcp.json": json.dumps({"mcpServers": {"mine": {"command": "srv", "args": ["--x"]}}})})
    p = plugin(tmp_path / "p", "plug", {".mcp.json": {"same": {"command": "srv", "args": ["--x"]},
                                                      "other": {"command": "srv", "args": ["--y"]}}})
    q = plugin(tmp_path / "q", "plug2", {".mcp.json": {"again": {"command": "srv", "args": ["--y"]}}})
    w = load(wskit_pm, ws, wskit_profile, plugin_dirs=[str(p), str(q)])
    ids = {s.id for s in w.registry("mcp_server").active()}
    assert "project:mine" in ids and "plugin:plug:other" in ids
    assert "plugin:plug:same" not in ids and "plugin:plug2:again" not in ids
    dup = [d for d in w.diagnostics if d.code == "mcp-duplicate"]
    assert {d.plugin for d in dup} == {"plug", "plug2"}
    assert any("'project:mine'" in d.message for d in dup)
