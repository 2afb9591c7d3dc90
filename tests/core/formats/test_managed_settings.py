"""The managed (administrator) settings layer: read from the path the host names, applied
over every other layer, able to switch off plugins (even --plugin-dir ones), hooks and MCP
servers, and named as the deciding layer in wsctl's answers."""

from __future__ import annotations

import json

from wskit.binding import Binding
from wskit.formats.settings import managed_layer, settings_layers
from wskit.host import HostProfile
from wskit.trust import TrustStore


def tree(make_tree, home, tmp_path, managed):
    ws = make_tree({
        ".git/HEAD": "ref: refs/heads/main\n",
        ".mcp.json": json.dumps({"db": {"command": "db"}, "web": {"command": "web"}}),
        ".claude/settings.json": json.dumps({"enabledPlugins": {"plug": True}, "hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}),
    })
    plug = make_tree({".claude-plugin/plugin.json": json.dumps({"name": "plug", "version": "1.0.0"}),
                      "skills/s1/SKILL.md": "---\nname: s1\ndescription: d\n---\nb\n"}, root=tmp_path / "plug")
    TrustStore.for_home(home).grant(ws)
    path = tmp_path / "managed-settings.json"
    path.write_text(json.dumps(managed))
    return ws, plug, path


def test_the_layer_comes_last_and_a_bad_file_is_an_error(tmp_path, wskit_home) -> None:
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"enabledPlugins": {"x": False}}))
    (wskit_home / ".claude").mkdir()
    (wskit_home / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": {"x": True}}))
    profile = HostProfile(home=wskit_home, settings={"managed_settings": str(path)})
    layers, diags = settings_layers(Binding.discover(tmp_path), profile, None)
    assert [la.scope for la in layers] == ["user", "managed"] and diags == []
    layer, diags = managed_layer(HostProfile(home=wskit_home, settings={"managed_settings": str(tmp_path / "none")}))
    assert layer is None and [(d.code, d.path) for d in diags] == [("managed-settings-invalid", str(tmp_path / "none"))]
    path.write_text("[1]")
    layer, diags = managed_layer(profile)
    assert layer is None and diags[0].code == "managed-settings-invalid" and diags[0].path == str(path)


def test_managed_settings_switch_off_plugins_hooks_and_servers(make_tree, wskit_home, tmp_path, wsctl) -> None:
    ws, plug, managed = tree(make_tree, wskit_home, tmp_path, {
        "enabledPlugins": {"plug": False}, "deniedMcpServers": [{"serverName": "db"}], "allowManagedHooksOnly": True})
    m = ["--managed-settings", str(managed)]
    plugins = wsctl(*m, "--plugin-dir", str(plug), "plugins", "list", str(ws)).output
    assert "inactive (managed settings)" in plugins
    assert f"plug: disabled by managed settings ({managed})" in plugins
    servers = wsctl(*m, "mcp", "list", str(ws), json=True)
    data = json.loads(servers.output)
    assert [s["id"] for s in data["servers"]] == ["project:web"]
    assert any(d["code"] == "mcp-managed-denied" and "'db'" in d["message"] for d in data["diagnostics"])
    hooks = wsctl(*m, "hooks", "list", str(ws)).output
    assert hooks.startswith("no hooks") and "managed settings allow managed hooks only" in hooks
    # without the managed file the project's own settings decide
    assert "plug" in wsctl("plugins", "list", str(ws)).output
    assert len(json.loads(wsctl("mcp", "list", str(ws), json=True).output)["servers"]) == 2


def test_managed_disable_all_hooks_switches_the_runner_off(make_tree, wskit_home, tmp_path) -> None:
    from wskit.builtin_plugins.hooks.trust import hooks_enabled

    ws, _plug, managed = tree(make_tree, wskit_home, tmp_path, {"disableAllHooks": True})
    profile = HostProfile(home=wskit_home, settings={"managed_settings": str(managed)})
    binding = Binding.discover(ws)
    trust = None  # the managed layer counts whatever the project trust
    assert hooks_enabled(binding, trust, profile) is False
    assert hooks_enabled(binding, trust, HostProfile(home=wskit_home)) is True
