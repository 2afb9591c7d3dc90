"""LSP definitions: .lsp.json, plugins, Blade's schema and limits."""

from __future__ import annotations

import json

from tests.builtin_plugins._bundle_helpers import load, plugin

GOOD = {"command": "pyright-langserver", "args": ["--stdio"], "extensionToLanguage": {".py": "python", "pyi": "python"}}


def test_project_and_plugin_servers(tmp_path, wskit_pm, wskit_profile, make_tree):
    ws = make_tree({".lsp.json": json.dumps({"py": {**GOOD, "startupTimeout": 500, "maxRestarts": 5}})})
    p = plugin(tmp_path / "p", "langs", {".lsp.json": {"lspServers": {"py": {
        **GOOD, "command": "${CLAUDE_PLUGIN_ROOT}/bin/ls", "env": {"HOME_DIR": "${WSKIT_PLUGIN_ROOT}"}}}}})
    w = load(wskit_pm, ws, wskit_profile, plugin_dirs=[str(p)])
    reg = w.registry("lsp_server")
    native = reg.get("py")
    assert native.id == "project:py" and native.startup_timeout == 500 and native.max_restarts == 5
    assert native.extension_to_language == {".py": "python", ".pyi": "python"}
    plug = reg.get("plugin:langs:py")
    assert plug.command == f"{p}/bin/ls" and plug.env == {"HOME_DIR": str(p)}


def test_limits_and_unknown_fields(wskit_pm, wskit_profile, make_tree):
    bad = {
        "unknown": {**GOOD, "colour": "red"},
        "range": {**GOOD, "maxRestarts": 11},
        "noext": {"command": "x", "extensionToLanguage": {}},
        "nul": {**GOOD, "command": "a\nb"},
        "bad name!": GOOD,
        "ok": GOOD,
    }
    ws = make_tree({".lsp.json": json.dumps(bad)})
    w = load(wskit_pm, ws, wskit_profile)
    msgs = " | ".join(d.message for d in w.diagnostics if d.code == "lsp-invalid")
    assert "Unknown LSP server field: unknown.colour" in msgs
    assert "maxRestarts must be an integer between 0 and 10" in msgs
    assert "extensionToLanguage" in msgs and "NUL or newline" in msgs and "name must match" in msgs
    assert w.registry("lsp_server").ids() == ["project:ok"]


def test_more_than_32_servers_refused(wskit_pm, wskit_profile, make_tree):
    ws = make_tree({".lsp.json": json.dumps({f"s{i}": GOOD for i in range(33)})})
    w = load(wskit_pm, ws, wskit_profile)
    assert any(d.code == "lsp-too-many" for d in w.diagnostics) and len(w.registry("lsp_server")) == 0


def test_timeouts_out_of_range_are_clamped_with_a_warning(wskit_pm, wskit_profile, make_tree):
    ws = make_tree({".lsp.json": json.dumps({"java": {**GOOD, "startupTimeout": 120000, "requestTimeout": 5}})})
    w = load(wskit_pm, ws, wskit_profile)
    srv = w.registry("lsp_server").get("java")
    assert srv.startup_timeout == 60000 and srv.request_timeout == 100
    assert [d.code for d in w.diagnostics].count("lsp-timeout-clamped") == 2
