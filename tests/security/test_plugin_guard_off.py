"""A guard never switches off silently, through plugin enablement (issue 32, red-team F6).

A trusted project's settings ``"enabledPlugins": {"guardp": false}`` (``settings.json`` or
``settings.local.json``) switched off a plugin the user installed, whose hooks are the
user's guard, and ``wsctl hooks run`` printed ``allowed (0 hook(s))``, exit 0, with no
skipped line. Claude Code 2.1.337 does switch such a plugin off with its hooks (recorded
case ``plugin-guard-off``), so wskit does too — its command is gone — but reports the guard
``switched-off``: not decided, exit 3, the file named, blocked under ``--unapproved block``,
the same in the Python API (``HookOutcome.undecided``). The user's own switch, and a
project switching off its own plugin, stay decisions. Real ``wsctl``, real hook processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.security.test_guard_not_silent import _payload, _project, assert_switched_off

GUARD = '#!/bin/sh\ngrep -q "rm -rf /" && { echo "blocked by the plugin guard" >&2; exit 2; } || exit 0\n'


def _plugin(root: Path, name: str = "guardp") -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin/plugin.json").write_text(json.dumps({"name": name, "version": "1.0.0"}))
    (root / "hooks").mkdir()
    (root / "hooks/g.sh").write_text(GUARD)
    (root / "hooks/g.sh").chmod(0o755)
    (root / "hooks/hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/g.sh"}]}]}}))
    (root / "commands").mkdir()
    (root / "commands/cg.md").write_text("---\ndescription: a command\n---\nbody\n")
    return root


def _approve(wsctl, project: Path) -> None:
    st = json.loads(wsctl("hooks", "status", str(project), json=True).stdout)
    assert wsctl("hooks", "trust", str(project), "--digest", st["digest"]).exit_code == 0


def _commands(wsctl, project: Path) -> str:
    return json.dumps(json.loads(wsctl("commands", "list", str(project), json=True).stdout))


@pytest.mark.parametrize("name", ["settings.json", "settings.local.json"])
def test_a_projects_enabled_plugins_leaves_the_users_plugin_guard_not_decided(wsctl, wskit_home, tmp_path, name):
    _plugin(wskit_home / ".claude/plugins/guardp")
    project = _project(tmp_path)
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    _approve(wsctl, project)
    r = wsctl("hooks", "run", "PreToolUse", str(project), "--payload", _payload(tmp_path))
    assert r.exit_code == 0 and r.stdout.startswith("PreToolUse: blocked: blocked by the plugin guard"), r.stdout
    assert "guardp:cg" in _commands(wsctl, project)
    (project / ".claude" / name).write_text(json.dumps({"enabledPlugins": {"guardp": False}}))
    assert_switched_off(wsctl, project, tmp_path, "plugin:guardp:",
                        f"{project}/.claude/{name} switches off plugin guardp (enabledPlugins)")
    # the rest of the plugin is off, as the host has it; the guard is said everywhere it is listed
    assert "guardp:cg" not in _commands(wsctl, project)
    st = json.loads(wsctl("hooks", "status", str(project), json=True).stdout)
    assert st["state"] == "switched-off" and [e["state"] for e in st["entries"]] == ["switched-off"]
    assert st["digest"] is None  # nothing to approve: approving cannot make it run
    r = wsctl("inspect", str(project))
    assert f"1 hook of the user's switched off by project settings, not decided: {project}/.claude/{name}" in r.stdout
    r = wsctl("plugins", "list", str(project))
    assert "its hooks are the user's guards: reported switched-off (not decided)" in r.stdout
    (row,) = json.loads(wsctl("hooks", "list", str(project), json=True).stdout)["hooks"]
    assert row["switched_off_by"] == f"{project}/.claude/{name}"
    assert "guardp (switched off by project settings)" in wsctl("hooks", "list", str(project)).stdout


def test_the_users_own_switch_of_the_plugin_is_a_decision(wsctl, wskit_home, tmp_path):
    _plugin(wskit_home / ".claude/plugins/guardp")
    (wskit_home / ".claude/settings.json").write_text(json.dumps({"enabledPlugins": {"guardp": False}}))
    project = _project(tmp_path)
    (project / ".claude/settings.json").write_text(json.dumps({"enabledPlugins": {"guardp": False}}))
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    r = wsctl("hooks", "run", "PreToolUse", str(project), "--payload", _payload(tmp_path), json=True)
    data = json.loads(r.stdout)
    assert r.exit_code == 0 and data["skipped"] == [] and data["undecided"] == 0, r.stdout


def test_a_project_switching_off_its_own_plugin_is_a_decision(wsctl, wskit_home, tmp_path):
    project = _project(tmp_path)
    _plugin(project / ".claude/plugins/projp", name="projp")
    (project / ".claude/settings.json").write_text(json.dumps({"enabledPlugins": {"projp": False}}))
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    r = wsctl("hooks", "run", "PreToolUse", str(project), "--payload", _payload(tmp_path), json=True)
    data = json.loads(r.stdout)
    assert r.exit_code == 0 and data["skipped"] == [] and data["undecided"] == 0, r.stdout


def test_the_python_api_lists_the_switched_off_plugin_guard_as_undecided(wskit_home, tmp_path):
    from wskit import HostProfile, TrustStore, WorkspaceCache, snapshot

    _plugin(wskit_home / ".claude/plugins/guardp")
    project = _project(tmp_path)
    (project / ".claude/settings.local.json").write_text(json.dumps({"enabledPlugins": {"guardp": False}}))
    TrustStore.for_home(wskit_home).grant(project)
    session = snapshot(WorkspaceCache(HostProfile(name="wskit", home=wskit_home)).resolve(project))
    payload = {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}
    out = session.hook_runner.run("PreToolUse", payload)
    assert not out.blocked and [s.state for s in out.undecided] == ["switched-off"]
    assert f"{project}/.claude/settings.local.json switches off plugin guardp" in out.undecided[0].message
    out = session.hook_runner.run("PreToolUse", payload, unapproved="block")
    assert out.blocked and "plugin:guardp:" in out.reason
    assert session.registry("command").find("guardp:cg") is None  # the plugin's command is off
    session.close()


@pytest.mark.parametrize("host", ["claude", "wskit"])
def test_a_plugin_claude_code_installed_is_switched_off_as_loudly(tmp_path, host):
    """The same for a plugin Claude Code installed (its ledger, ``enabledPlugins["hello@localmkt"]:
    true`` in the user's settings), switched off by the project as ``"hello@localmkt": false``."""
    from tests.builtin_plugins.bundles.test_claude_installed import _home
    from wskit import HostProfile, WorkspaceCache, snapshot

    home, proj = _home(tmp_path)
    cache = home / ".claude/plugins/cache/localmkt/hello/1.0.0"
    _plugin(tmp_path / "src")  # its hooks folder, copied into the installed plugin
    (cache / "hooks").mkdir()
    for f in ("g.sh", "hooks.json"):
        (cache / "hooks" / f).write_bytes((tmp_path / "src/hooks" / f).read_bytes())
    (cache / "hooks/g.sh").chmod(0o755)
    (proj / ".claude").mkdir()
    (proj / ".claude/settings.json").write_text(json.dumps({"enabledPlugins": {"hello@localmkt": False}}))
    ws = WorkspaceCache(HostProfile(name=host, home=home)).resolve(str(proj))
    assert "plugin:hello:sk-hello" not in {s.id for s in ws.registry("skill").active()}  # off, as Claude Code has it
    session = snapshot(ws)
    out = session.hook_runner.run("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})
    assert [s.state for s in out.undecided] == ["switched-off"] and not out.blocked
    assert f"{proj}/.claude/settings.json switches off plugin hello" in out.undecided[0].message
    session.close()
