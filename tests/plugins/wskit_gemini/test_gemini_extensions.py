"""gemini-extension.json: validation, MCP schema translation, project vs user extensions."""

from __future__ import annotations

import json

from wskit.binding import Binding
from wskit.host import HostProfile
from wskit.plugin.facade import WskitHooks
from wskit.testing import write_tree
from wskit.trust import TrustStore
from wskit.workspace import load_workspace
from wskit_gemini.extensions import find_extensions


def _ext(manifest, **files):
    return {"gemini-extension.json": manifest if isinstance(manifest, str) else json.dumps(manifest), **files}


def _home(tmp_path, exts):
    tree = {}
    for name, files in exts.items():
        for rel, text in files.items():
            tree[f".gemini/extensions/{name}/{rel}"] = text
    return write_tree(tmp_path / "home", tree)


def test_invalid_manifests_are_reported_and_skipped(tmp_path):
    home = _home(tmp_path, {
        "Bad": _ext({"name": "Bad Name"}),
        "broken": _ext('{\n  "name": "broken",\n  "version": \n}'),
        "ok": _ext({"name": "ok-ext", "version": "2.0.0", "excludeTools": "nope"}),
    })
    exts, diags = find_extensions(home, None)
    assert [e.name for e in exts] == ["ok-ext"] and exts[0].version == "2.0.0" and exts[0].exclude_tools == ()
    codes = {(d.code, d.path.split("/extensions/")[1].split("/")[0]) for d in diags}
    assert {("gemini-extension-invalid", "Bad"), ("gemini-extension-invalid", "broken"),
            ("gemini-extension-name", "ok"), ("gemini-extension-invalid", "ok")} == codes
    broken = next(d for d in diags if "/broken/" in d.path)
    assert broken.line == 4


def test_mcp_schema_translated_and_trust_dropped(tmp_path):
    home = _home(tmp_path, {"net": _ext({"name": "net", "mcpServers": {
        "sse": {"url": "https://example.invalid/sse", "trust": True},
        "http": {"httpUrl": "https://example.invalid/mcp", "timeout": 5000},
        "local": {"command": "${extensionPath}${/}bin${/}srv"}}})})
    repo = write_tree(tmp_path / "repo", {".git/HEAD": "x"})
    import wskit_gemini
    from wskit.plugin.manager import make_plugin_manager

    pm = make_plugin_manager(load_entrypoints=False, env={})
    pm.register_checked(wskit_gemini, "gemini")
    ws = load_workspace(WskitHooks(pm), Binding.discover(repo), HostProfile(home=home))
    reg = ws.registry("mcp_server")
    assert reg.get("plugin:net:sse").transport == "sse" and reg.get("plugin:net:http").transport == "http"
    assert reg.get("net:http").url == "https://example.invalid/mcp"
    assert reg.get("net:local").command == f"{home}/.gemini/extensions/net/bin/srv"
    assert reg.get("net:local").alias == "net__local"
    assert any(d.code == "gemini-extension-trust-ignored" for d in ws.diagnostics)


def test_project_extensions_only_when_trusted_and_they_replace_user_ones(tmp_path, gemini_pm):
    home = _home(tmp_path, {"tools": _ext({"name": "tools", "version": "1.0.0"})})
    repo = write_tree(tmp_path / "repo", {".git/HEAD": "x", **{
        f".gemini/extensions/tools/{k}": v for k, v in _ext(
            {"name": "tools", "version": "9.0.0"}, **{"commands/go.toml": 'prompt = "go"\n'}).items()}})

    def load():
        return load_workspace(WskitHooks(gemini_pm), Binding.discover(repo), HostProfile(home=home))

    ws = load()
    assert ws.registry("gemini_extension").get("tools").version == "1.0.0"
    assert "plugin:tools:go" not in {r.id for r in ws.resources()}
    TrustStore.for_home(home).grant(repo)
    ws = load()
    ext = ws.registry("gemini_extension").get("tools")
    assert ext.version == "9.0.0" and ext.origin == "project"
    assert ws.registry("command").get("tools:go").id == "plugin:tools:go"
    assert any(d.code == "gemini-extension-shadowed" for d in ws.diagnostics)


def test_a_bad_project_extension_is_reported_once(tmp_path, gemini_pm):
    home = write_tree(tmp_path / "home", {})
    repo = write_tree(tmp_path / "repo", {".git/HEAD": "x", ".gemini/extensions/bad/gemini-extension.json": "[]"})
    TrustStore.for_home(home).grant(repo)
    ws = load_workspace(WskitHooks(gemini_pm), Binding.discover(repo), HostProfile(home=home))
    assert [d.code for d in ws.diagnostics if d.code.startswith("gemini-")] == ["gemini-extension-invalid"]
