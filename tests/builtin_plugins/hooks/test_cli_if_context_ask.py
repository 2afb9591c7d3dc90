"""The handler field ``if``, plain stdout as context and ``ask``, end to end with real
files: ``.claude/settings.json``, trusted project and hooks, ``wsctl hooks run|list|trust``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wskit.trust import TrustStore

ASK = {"type": "command", "command": "echo '" + json.dumps({"hookSpecificOutput": {
    "hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "why"}}) + "'"}


def _project(make_tree, home: Path, hooks: dict) -> Path:
    ws = make_tree({".claude/settings.json": json.dumps({"hooks": hooks})})
    TrustStore.for_home(home).grant(ws)
    return ws


def _trust_hooks(wsctl, ws: Path) -> str:
    digest = json.loads(wsctl("hooks", "status", str(ws), json=True).output)["digest"]
    assert wsctl("hooks", "trust", str(ws), "--digest", digest).exit_code == 0
    return digest


def _payload(tmp_path: Path, command: str) -> str:
    p = tmp_path / f"p{abs(hash(command))}.json"
    p.write_text(json.dumps({"tool_name": "Bash", "tool_input": {"command": command}}))
    return str(p)


IF_HOOKS = {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "if": "Bash(git commit:*)", "command": "echo blocked-by-if >&2; exit 2"}]}]}


@pytest.mark.parametrize("command,blocked", [("ls", False), ("git commit -m x", True)])
def test_hooks_run_honours_if(wsctl, wskit_home, make_tree, tmp_path, command, blocked):
    ws = _project(make_tree, wskit_home, IF_HOOKS)
    _trust_hooks(wsctl, ws)
    res = wsctl("hooks", "run", "PreToolUse", str(ws), "--tool", "Bash", "--payload", _payload(tmp_path, command))
    assert res.exit_code == 0, res.output
    assert ("blocked: blocked-by-if" in res.stdout) is blocked
    assert res.stdout.startswith("PreToolUse: blocked" if blocked else "PreToolUse: allowed (0 hook(s))")


def test_hooks_list_shows_if_and_the_digest_covers_it(wsctl, wskit_home, make_tree):
    ws = _project(make_tree, wskit_home, IF_HOOKS)
    data = json.loads(wsctl("hooks", "list", str(ws), json=True).output)
    assert data["hooks"][0]["if"] == "Bash(git commit:*)" and data["diagnostics"] == []
    assert "Bash if Bash(git commit:*)" in wsctl("hooks", "list", str(ws)).stdout
    digest = _trust_hooks(wsctl, ws)
    changed = json.loads(json.dumps(IF_HOOKS).replace("git commit:*", "git push:*"))
    (ws / ".claude/settings.json").write_text(json.dumps({"hooks": changed}))
    st = json.loads(wsctl("hooks", "status", str(ws), json=True).output)
    assert st["state"] == "awaiting" and st["digest"] != digest  # widening or narrowing `if` needs review


def test_if_diagnostics_name_the_file(wsctl, wskit_home, make_tree):
    ws = _project(make_tree, wskit_home, {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "if": "Bash(git", "command": "x"}]}],
        "Stop": [{"hooks": [{"type": "command", "if": "Bash(git *)", "command": "y"}]}]})
    data = json.loads(wsctl("hooks", "list", str(ws), json=True).output)
    by_code = {d["code"]: d for d in data["diagnostics"]}
    assert set(by_code) == {"hook-if-invalid", "hook-if-not-tool-event"}
    assert all(d["path"] == ".claude/settings.json" for d in by_code.values())
    assert "runs on every call its matcher matches" in by_code["hook-if-invalid"]["message"]
    assert "on Stop this handler never runs" in by_code["hook-if-not-tool-event"]["message"]
    assert [h["if"] for h in data["hooks"]] == ["Bash(git", "Bash(git *)"]


def test_session_start_plain_stdout_is_context(wsctl, wskit_home, make_tree):
    ws = _project(make_tree, wskit_home, {"SessionStart": [{"hooks": [
        {"type": "command", "command": "echo plain session context"}]}]})
    _trust_hooks(wsctl, ws)
    data = json.loads(wsctl("hooks", "run", "SessionStart", str(ws), json=True).output)
    assert data["additional_context"] == ["plain session context"]
    assert "added context: plain session context" in wsctl("hooks", "run", "SessionStart", str(ws)).stdout


def test_hooks_run_shows_ask_and_its_reason(wsctl, wskit_home, make_tree, tmp_path):
    ws = _project(make_tree, wskit_home, {"PreToolUse": [{"matcher": "Bash", "hooks": [ASK]}]})
    _trust_hooks(wsctl, ws)
    p = _payload(tmp_path, "ls")
    human = wsctl("hooks", "run", "PreToolUse", str(ws), "--payload", p)
    assert human.stdout.startswith("PreToolUse: ask: why (1 hook(s))") and "allowed" not in human.stdout
    data = json.loads(wsctl("hooks", "run", "PreToolUse", str(ws), "--payload", p, json=True).output)
    assert data["permission_decision"] == "ask" and data["reason"] == "why" and not data["blocked"]


def test_hooks_run_after_ask_the_next_hook_runs_and_its_block_wins(wsctl, wskit_home, make_tree, tmp_path):
    ws = _project(make_tree, wskit_home, {"PreToolUse": [{"matcher": "Bash", "hooks": [
        ASK, {"type": "command", "command": "echo second >&2; exit 2"}]}]})
    _trust_hooks(wsctl, ws)
    data = json.loads(wsctl("hooks", "run", "PreToolUse", str(ws), "--payload", _payload(tmp_path, "ls"),
                            json=True).output)
    assert [r["status"] for r in data["results"]] == ["success", "blocked"]
    assert data["blocked"] and data["permission_decision"] == "deny" and data["reason"] == "second"


@pytest.mark.parametrize("digest,says", [
    ("sha256:0000", "is not an approval digest"),
    ("sha256:" + "1" * 64, "is not the current digest of what is to be approved"),
])
def test_trust_with_an_unknown_digest_shows_the_current_one(wsctl, wskit_home, make_tree, digest, says):
    ws = _project(make_tree, wskit_home, IF_HOOKS)
    current = json.loads(wsctl("hooks", "status", str(ws), json=True).output)["digest"]
    res = wsctl("hooks", "trust", str(ws), "--digest", digest)
    assert res.exit_code == 1 and says in res.stderr
    assert f"The current digest is {current}" in res.stderr and f"wsctl --home {wskit_home} hooks status" in res.stderr  # the hint keeps --home
    assert json.loads(wsctl("hooks", "status", str(ws), json=True).output)["state"] == "awaiting"
