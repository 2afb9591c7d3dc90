"""Hostile values in the path-naming fields of manifests and server configs
(docs/security.md), through the real loaders: ``plugin.json`` component paths, a
marketplace entry's ``source``, ``.mcp.json`` ``cwd`` and ``.lsp.json``
``workspaceFolder``. Each value ends in a diagnostic with a stable code naming
the file, and the valid sibling (another plugin, entry or server) still loads.

Settings hook ``command`` values are commands, not paths: they are run only
after the hook configuration's digest is trusted (tests/security/test_runtime_faults.py,
docs/hooks.md), so they have no path cases here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.security.harness import bounded
from wskit.builtin_plugins.bundles.discovery import read_manifest
from wskit.builtin_plugins.bundles.marketplace import load_marketplace
from wskit.builtin_plugins.lsp.loader import load_lsp_servers
from wskit.builtin_plugins.mcp.loader import load_mcp_servers
from wskit.models import ResourceSource, Scope

HOSTILE = {
    "dotdot": "../outside",
    "absolute": "/etc",
    "mid-escape": "a/../../b",
    "backslash": "..\\..\\etc",
    "nul": "x\x00/../../etc",
    "drive": "c:/windows",
    "url": "file:///etc",
}
VALUES = [pytest.param(v, id=k) for k, v in HOSTILE.items()]
COMPONENT_KEYS = ["commands", "agents", "skills", "outputStyles", "hooks", "mcpServers", "lspServers"]


def _write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize("key", COMPONENT_KEYS)
@pytest.mark.parametrize("value", VALUES)
def test_plugin_manifest_component_path(tmp_path: Path, key: str, value: str):
    evil, good = tmp_path / "evil", tmp_path / "good"
    _write_json(evil / ".claude-plugin/plugin.json", {"name": "evil", key: value})
    _write_json(good / ".claude-plugin/plugin.json", {"name": "good", key: "./extra"})
    manifest, _info, diags = bounded(lambda: read_manifest(str(evil)), 10)
    hits = [d for d in diags if d.code == "manifest-path"]
    assert hits and all(d.path and d.path.endswith("plugin.json") for d in hits), [d.code for d in diags]
    assert manifest is None or value not in str(manifest.components)
    ok, _info, ok_diags = read_manifest(str(good))
    assert ok is not None and not [d for d in ok_diags if d.level == "error"]


@pytest.mark.parametrize("value", VALUES)
def test_marketplace_source(tmp_path: Path, value: str):
    root = tmp_path / "market"
    (root / "plugins/good").mkdir(parents=True)
    _write_json(root / ".claude-plugin/marketplace.json", {
        "name": "m", "owner": {"name": "o"},
        "plugins": [{"name": "evil", "source": value}, {"name": "good", "source": "./plugins/good"}]})
    m = bounded(lambda: load_marketplace(root), 10)  # a NUL makes os.path.realpath raise ValueError
    by = {e.name: e for e in m.plugins}
    assert not by["evil"].installable and by["evil"].path is None
    hits = [d for d in m.diagnostics if d.code == "marketplace-source-invalid"]
    assert hits and hits[0].path.endswith("marketplace.json") and "evil" in hits[0].message
    assert by["good"].installable


def _servers(tmp_path: Path, file: str, key: str, good: dict, field: str, value: str, scope: Scope):
    ws = tmp_path / "ws"
    _write_json(ws / file, {"evil": {**good, field: value}, "good": good})
    src = ResourceSource(scope=scope, root=str(ws), base=str(ws), plugin="kit" if scope is Scope.PLUGIN else None)
    if scope is Scope.PLUGIN:
        src = src.model_copy(update={"components": {key: (file,)}})
    loader = load_mcp_servers if key == "mcp_server" else load_lsp_servers
    return bounded(lambda: loader(src), 10)


_LSP_GOOD = {"command": "pylsp", "extensionToLanguage": {".py": "python"}}


@pytest.mark.parametrize("scope", [Scope.PROJECT, Scope.PLUGIN])
@pytest.mark.parametrize("value", VALUES)
def test_mcp_cwd(tmp_path: Path, value: str, scope: Scope):
    res = _servers(tmp_path, ".mcp.json", "mcp_server", {"command": "srv"}, "cwd", value, scope)
    names = {r.name for r in res.resources}
    assert names == {"good"}
    hits = [d for d in res.diagnostics if d.code == "mcp-invalid" and "'cwd'" in d.message]
    assert hits and hits[0].path.endswith(".mcp.json")


@pytest.mark.parametrize("scope", [Scope.PROJECT, Scope.PLUGIN])
@pytest.mark.parametrize("value", VALUES)
def test_lsp_workspace_folder(tmp_path: Path, value: str, scope: Scope):
    res = _servers(tmp_path, ".lsp.json", "lsp_server", _LSP_GOOD, "workspaceFolder", value, scope)
    assert {r.name for r in res.resources} == {"good"}
    hits = [d for d in res.diagnostics if d.code == "lsp-invalid" and "'workspaceFolder'" in d.message]
    assert hits and hits[0].path.endswith(".lsp.json")


def test_legitimate_path_fields_still_load(tmp_path: Path):
    """A relative ``cwd``, a plugin's ``${CLAUDE_PLUGIN_ROOT}/…`` (absolute after
    expansion, inside the plugin) and a user's absolute ``cwd`` are kept."""
    assert {r.name for r in _servers(tmp_path / "a", ".mcp.json", "mcp_server", {"command": "s"}, "cwd", "sub",
                                     Scope.PROJECT).resources} == {"evil", "good"}
    res = _servers(tmp_path / "b", ".mcp.json", "mcp_server", {"command": "s"}, "cwd", "${CLAUDE_PLUGIN_ROOT}/srv",
                   Scope.PLUGIN)
    assert {r.name for r in res.resources} == {"evil", "good"}, [d.message for d in res.diagnostics]
    assert {r.name for r in _servers(tmp_path / "c", ".mcp.json", "mcp_server", {"command": "s"}, "cwd", "/opt/x",
                                     Scope.USER).resources} == {"evil", "good"}


@pytest.mark.parametrize("value", VALUES)
def test_mcp_cwd_in_project_settings(tmp_path: Path, value: str):
    """The same field in a project's ``.claude/settings.json`` ``mcpServers`` block."""
    ws = tmp_path / "ws"
    _write_json(ws / ".claude/settings.json", {"mcpServers": {"evil": {"command": "s", "cwd": value},
                                                              "good": {"command": "s"}}})
    src = ResourceSource(scope=Scope.PROJECT, root=str(ws / ".claude"), base=str(ws))
    res = bounded(lambda: load_mcp_servers(src), 10)
    assert {r.name for r in res.resources} == {"good"}
    hits = [d for d in res.diagnostics if d.code == "mcp-invalid" and "'cwd'" in d.message]
    assert hits and hits[0].path.endswith("settings.json")
