"""A managed settings file the host named but that is missing (a typo in the path) or
unreadable is never taken as "no policy": every consumer of the managed layer fails
closed and says so, naming the file (docs/permissions.md, "Managed settings")."""

from __future__ import annotations

import json

import pytest

from wskit.trust import TrustStore

CASES = {"missing": None, "invalid-json": '{"permissions": ', "not-an-object": "[1]"}


@pytest.fixture(params=sorted(CASES))
def managed(request, tmp_path):
    path = tmp_path / "admin" / "managed-settings.json"
    path.parent.mkdir()
    if CASES[request.param] is not None:
        path.write_text(CASES[request.param])
    return path


def _project(make_tree, home, tmp_path):
    ws = make_tree({
        ".git/HEAD": "ref: refs/heads/main\n",
        ".mcp.json": json.dumps({"mcpServers": {"db": {"command": "db"}}}),
        ".claude/settings.json": json.dumps({"enabledPlugins": {"plug": True}, "hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}),
    })
    plug = make_tree({".claude-plugin/plugin.json": json.dumps({"name": "plug", "version": "1.0.0"}),
                      "skills/s1/SKILL.md": "---\nname: s1\ndescription: d\n---\nb\n"}, root=tmp_path / "plug")
    TrustStore.for_home(home).grant(ws)
    return ws, plug


def test_a_named_managed_file_that_cannot_be_used_denies_every_permission_check(wsctl, tmp_path, managed):
    res = wsctl("--managed-settings", str(managed), "permissions", "check", "Bash", "ls", str(tmp_path))
    assert res.exit_code == 4, res.output
    assert res.output.startswith("deny: managed settings unreadable:") and str(managed) in res.output


def test_every_consumer_of_the_managed_layer_fails_closed_and_names_the_file(
        wsctl, make_tree, wskit_home, tmp_path, managed):
    ws, plug = _project(make_tree, wskit_home, tmp_path)
    m = ("--managed-settings", str(managed))
    data = json.loads(wsctl(*m, "--plugin-dir", str(plug), "inspect", str(ws), json=True).output)
    named = [d for d in data["diagnostics"] if d["code"] == "managed-settings-invalid"]
    assert named and named[0]["path"] == str(managed)
    plugins = wsctl(*m, "--plugin-dir", str(plug), "plugins", "list", str(ws)).output
    assert "inactive (managed settings)" in plugins and str(managed) in plugins
    servers = json.loads(wsctl(*m, "mcp", "list", str(ws), json=True).output)
    assert servers["servers"] == []
    assert any(d["code"] == "mcp-managed-denied" and d["path"] == str(managed) for d in servers["diagnostics"])
    hooks = wsctl(*m, "hooks", "list", str(ws)).output
    assert hooks.startswith("no hooks") and "managed settings cannot be read" in hooks
    # the same project without --managed-settings: its plugin, server and hook are there
    assert "inactive" not in wsctl("--plugin-dir", str(plug), "plugins", "list", str(ws)).output
    assert len(json.loads(wsctl("mcp", "list", str(ws), json=True).output)["servers"]) == 1
    assert not wsctl("hooks", "list", str(ws)).output.startswith("no hooks")
