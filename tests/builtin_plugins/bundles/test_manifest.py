"""Manifests: fields, types, default folders, no double loading, plugin-root expansion."""

from __future__ import annotations

from tests.builtin_plugins._bundle_helpers import codes, load, plugin, skill
from wskit.builtin_plugins.bundles.discovery import load_bundle, read_manifest
from wskit.builtin_plugins.bundles.manifest import parse_manifest
from wskit.host import HostProfile


def test_minimal_manifest_gets_default_components():
    m, diags = parse_manifest({"name": "demo", "unknownKey": 1}, "p.json")
    assert diags == []
    assert m.name == "demo" and m.default_enabled is True
    assert m.components["skill"] == ("skills",)
    assert m.components["command"] == ("commands",)
    assert m.components["style"] == ("output-styles",)
    assert m.components["hook"] == ("hooks/hooks.json",)
    assert m.components["mcp_server"] == (".mcp.json",)
    assert m.components["lsp_server"] == (".lsp.json",)


def test_wrong_types_are_errors_naming_the_key():
    m, diags = parse_manifest({"name": "demo", "keywords": "x", "commands": 3}, "p.json")
    assert m is None
    msgs = " ".join(d.message for d in diags)
    assert "'keywords'" in msgs and "'commands'" in msgs
    assert all(d.level == "error" and d.path == "p.json" for d in diags)


def test_missing_or_bad_name():
    assert codes(parse_manifest({"version": "1.0.0"}, "p")[1]) == ["manifest-missing-name"]
    m, d = parse_manifest({"name": "Bad Name"}, "p")
    assert m is None and "manifest-invalid-name" in codes(d)


def test_author_string_is_a_warning():
    m, diags = parse_manifest({"name": "demo", "author": "Jane"}, "p")
    assert m.author == {"name": "Jane"}
    assert codes(diags) == ["manifest-author-string"] and diags[0].level == "warning"


def test_component_paths_replace_or_add_and_dedupe():
    m, _ = parse_manifest({"name": "d", "skills": "./extra", "commands": ["./cmds", "./more"],
                           "hooks": "./hooks/hooks.json", "mcpServers": {"x": {"command": "y"}}}, "p")
    assert m.components["skill"] == ("skills", "extra")  # skills add to the default folder
    assert m.components["command"] == ("cmds", "more")  # commands replace it
    assert m.components["hook"] == ("hooks/hooks.json",)  # pointing at the default: loaded once
    assert m.inline["mcp_server"] == {"x": {"command": "y"}}


def test_escaping_component_path_fails_the_plugin():
    m, diags = parse_manifest({"name": "d", "agents": "../outside"}, "p")
    assert m is None and "manifest-path" in codes(diags)


def test_dependency_forms_and_bad_ranges():
    m, _ = parse_manifest({"name": "d", "dependencies": ["a", {"name": "b", "version": "^2.0.0"}]}, "p")
    assert m.dependencies == (("a", "*"), ("b", "^2.0.0"))
    m, _ = parse_manifest({"name": "d", "dependencies": {"c": ">=1.2 <2"}}, "p")
    assert m.dependencies == (("c", ">=1.2 <2"),)
    m, diags = parse_manifest({"name": "d", "dependencies": {"c": "not a range!"}}, "p")
    assert m is None and "manifest-dependency" in codes(diags)
    m, diags = parse_manifest({"name": "d", "dependencies": ["d"]}, "p")
    assert m is None and "cannot depend on itself" in diags[0].message


def test_host_manifest_is_preferred(tmp_path):
    root = plugin(tmp_path / "p", "claude-name")
    plugin(root, "host-name", host_dir=".blade-plugin")
    m, info, _ = read_manifest(str(root), HostProfile(name="blade", home=tmp_path))
    assert m.name == "host-name" and info["manifest_source"] == "host"
    m, info, _ = read_manifest(str(root), HostProfile(name="other", home=tmp_path))
    assert m.name == "claude-name" and info["manifest_source"] == "claude"


def test_no_manifest_is_reported_with_path(tmp_path, wskit_profile):
    (tmp_path / "empty").mkdir()
    b = load_bundle(str(tmp_path / "empty"), "cli", "cli", 35, wskit_profile)
    assert b.state == "error"
    assert b.issues[0].code == "no-manifest" and str(tmp_path / "empty") in b.issues[0].message


def test_hooks_named_in_manifest_load_once(tmp_path, wskit_pm, wskit_profile, make_tree):
    hooks = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}}
    root = plugin(tmp_path / "p", "demo", {"hooks/hooks.json": hooks}, hooks="./hooks/hooks.json")
    ws = make_tree({"README": "x"})
    w = load(wskit_pm, ws, wskit_profile, plugin_dirs=[str(root)])
    assert len(w.registry("hook")) == 1


def test_plugin_root_placeholders_expand(tmp_path, wskit_pm, make_tree):
    mcp = {"mcpServers": {"srv": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/s", "args": ["${BLADE_PLUGIN_ROOT}/a"],
                                  "env": {"ROOT": "${CLAUDE_PLUGIN_ROOT}"}},
                          "web": {"type": "http", "url": "http://localhost/${BLADE_PLUGIN_ROOT}/x"}}}
    root = plugin(tmp_path / "p", "demo", {".mcp.json": mcp, "skills/s1/SKILL.md": skill()})
    profile = HostProfile(name="blade", home=tmp_path / "home")
    (tmp_path / "home").mkdir()
    w = load(wskit_pm, make_tree({"a": "b"}), profile, plugin_dirs=[str(root)])
    srv = w.registry("mcp_server").get("demo:srv")
    assert srv.command == f"{root}/bin/s" and srv.args == (f"{root}/a",) and srv.env == {"ROOT": str(root)}
    assert w.registry("mcp_server").get("web").url == f"http://localhost/{root}/x"
    assert w.registry("skill").get("plugin:demo:s1").provenance.plugin == "demo"
