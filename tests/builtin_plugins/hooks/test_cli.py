"""``wsctl hooks run`` (--json contract: docs/wsctl.md) and ``wsctl hooks list|status|trust|revoke``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builtin_plugins._cli_trees import servers_workspace
from wskit.resources.hooks import HookDefinition
from wskit.session.build import provenance, register_definitions
from wskit.trust import TrustStore


def hookdef(name, scope="user", **fields):
    return HookDefinition(id=f"{scope}:{name}", name=name, provenance=provenance(scope, "/h", "settings.json", fields),
                          **fields)


@pytest.fixture
def project(tmp_path: Path, wskit_home) -> Path:
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    (p / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (p / ".claude" / "skills" / "fmt").mkdir(parents=True)
    (p / ".claude" / "skills" / "fmt" / "SKILL.md").write_text("---\nname: fmt\ndescription: Format\n---\nbody\n")
    TrustStore.for_home(wskit_home).grant(p)
    return p


def test_hooks_run_json(wsctl, wskit_pm, project, tmp_path):
    register_definitions(wskit_pm, [
        hookdef("guard", event="PreToolUse", matcher="Bash", command="echo 'no rm' >&2; exit 2"),
        hookdef("proj", scope="project", event="PreToolUse", command="exit 0"),
        hookdef("other", event="PreToolUse", matcher="Read", command="exit 2"),
    ])
    payload = tmp_path / "p.json"
    payload.write_text(json.dumps({"tool_name": "Bash", "tool_input": {"command": "rm -rf x"}}))
    res = wsctl("hooks", "run", "PreToolUse", str(project), "--payload", str(payload), "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert set(data) == {"event", "blocked", "reason", "permission_decision", "updated_input", "additional_context",
                         "system_messages", "continue", "stop_reason", "warnings", "repeated", "results",
                         "skipped", "awaiting_approval", "undecided", "failed"}
    assert data["blocked"] and data["reason"] == "no rm" and data["permission_decision"] == "deny"
    assert {r["hook_id"]: r["status"] for r in data["results"]} == {"project:proj": "skipped", "user:guard": "blocked"}
    assert data["warnings"] == ["hook project:proj skipped: awaiting approval (not approved)"]
    assert data["undecided"] == 1 and data["skipped"][0]["state"] == "awaiting"
    assert set(data["results"][0]) == {"hook_id", "type", "status", "message", "exit_code", "output",
                                       "stdout_truncated", "stderr_truncated", "duration"}
    human = wsctl("hooks", "run", "PreToolUse", str(project), "--tool", "Read")
    assert human.exit_code == 0 and "blocked" in human.stdout


def test_hooks_run_unknown_event_is_usage_error(wsctl, project):
    res = wsctl("hooks", "run", "NoSuchEvent", str(project))
    assert res.exit_code == 2 and "unknown event" in res.output


def test_hooks_run_bad_payload(wsctl, project, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    res = wsctl("hooks", "run", "Stop", str(project), "--payload", str(bad))
    assert res.exit_code == 1 and "error:" in res.stderr and "JSON object" in res.stderr




def test_hooks_status_trust_revoke(wsctl, wskit_home, make_tree):
    ws = servers_workspace(make_tree, wskit_home)
    data = json.loads(wsctl("hooks", "list", str(ws), json=True).output)
    assert data["hooks"][0]["event"] == "PreToolUse" and data["hooks"][0]["matcher"] == "Bash"
    st = json.loads(wsctl("hooks", "status", str(ws), json=True).output)
    assert set(st) == {"path", "state", "enabled", "digest", "count", "error", "awaiting_approval", "entries",
                       "headers", "sources", "source_digests", "notes"}
    assert st["state"] == "awaiting" and st["count"] == 1 and st["sources"] == ["project .claude/settings.json"]
    assert [(e["state"], e["reason"], e["source"]) for e in st["entries"]] == [
        ("awaiting", "not approved", "project .claude/settings.json")]
    r = wsctl("hooks", "trust", str(ws), "--digest", "sha256:" + "1" * 64)
    assert r.exit_code == 1 and "changed after review" in r.output
    r = wsctl("hooks", "trust", str(ws), "--digest", st["digest"], json=True)
    assert json.loads(r.output)["state"] == "approved"
    (ws / ".claude/settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "./other.sh"}]}]}}))
    edited = json.loads(wsctl("hooks", "status", str(ws), json=True).output)
    assert edited["state"] == "awaiting" and edited["entries"][0]["key"] != st["entries"][0]["key"]
    r = wsctl("hooks", "revoke", str(ws), json=True)
    assert json.loads(r.output)["removed"] is True and json.loads(r.output)["state"] == "awaiting"
    (ws / ".wskit").mkdir()
    (ws / ".wskit/settings.json").write_text(json.dumps({"disableAllHooks": True}))
    assert json.loads(wsctl("hooks", "status", str(ws), json=True).output)["state"] == "disabled"


def test_hooks_status_separates_hook_approval_from_folder_trust(wsctl, wskit_home, tmp_path):
    """Right after ``trust grant``, plugin hooks still await approval: the status says
    so in words that cannot be read as folder trust, names the plugin they come from
    (not "project hooks"), and names a script several hooks run once."""
    plugin = tmp_path / "sg"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin/plugin.json").write_text(json.dumps({"name": "sg", "version": "1.0.0"}))
    (plugin / "hooks").mkdir()
    (plugin / "hooks/run.sh").write_text("#!/bin/sh\nexit 0\n")
    cmd = {"type": "command", "command": "bash \"${CLAUDE_PLUGIN_ROOT}/hooks/run.sh\""}
    (plugin / "hooks/hooks.json").write_text(json.dumps({"hooks": {
        ev: [{"hooks": [cmd]}] for ev in ("SessionStart", "Stop", "UserPromptSubmit")}}))
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    assert wsctl("trust", "grant", str(proj)).exit_code == 0
    out = wsctl("--plugin-dir", str(plugin), "hooks", "status", str(proj)).stdout.splitlines()
    assert out[0] == f"{proj}: hooks await approval (3 hooks; folder trusted)"
    assert out[1] == "3 hooks await approval (plugin sg)"
    covers = [line for line in out if line.startswith("covers:")]
    assert "covers: <plugin sg>/hooks/run.sh" in covers and len(covers) == len(set(covers))  # each file once
    data = json.loads(wsctl("--plugin-dir", str(plugin), "hooks", "status", str(proj), json=True).stdout)
    assert data["sources"] == ["plugin sg"] and data["awaiting_approval"] == 3
    assert all("hooks/run.sh" in [f["path"] for f in e["files"]] for e in data["entries"])
    summary = json.loads(wsctl("--plugin-dir", str(plugin), "inspect", str(proj), json=True).stdout)["hooks"]["summary"]
    assert summary.startswith("3 hooks await approval (plugin sg; not approved;")


def test_user_hooks_do_not_await_approval(wsctl, wskit_home, tmp_path):
    """The user's own hooks run without approval: they are not counted as awaiting it."""
    (wskit_home / ".wskit").mkdir(exist_ok=True)
    (wskit_home / ".wskit/settings.json").write_text(json.dumps({"hooks": {"Stop": [
        {"hooks": [{"type": "command", "command": "true"}]}]}}))
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    (proj / ".claude").mkdir()
    (proj / ".claude/settings.json").write_text(json.dumps({"hooks": {"Stop": [
        {"hooks": [{"type": "command", "command": "echo project"}]}]}}))
    wsctl("trust", "grant", str(proj))
    data = json.loads(wsctl("hooks", "status", str(proj), json=True).stdout)
    assert data["count"] == 2 and data["awaiting_approval"] == 1 and data["sources"] == ["project .claude/settings.json"]
