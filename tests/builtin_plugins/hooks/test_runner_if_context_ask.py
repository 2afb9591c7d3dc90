"""The hook runner, with real subprocesses: the handler field ``if`` restricts a
handler to the calls it matches, plain stdout is added context on SessionStart /
UserPromptSubmit / UserPromptExpansion, and ``ask`` combined with other hooks keeps
its reason without stopping the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builtin_plugins.hooks.runtime_helpers import hook

ASK = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                         "permissionDecisionReason": "why"}})


def decision(value: str, why: str) -> str:
    return "echo '" + json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": value,
                                                         "permissionDecisionReason": why}}) + "'"


def pre(session, command: str = "ls", *, tool: str = "Bash", tool_input=None, event: str = "PreToolUse"):
    return session.runtime.hooks.run(event, {"tool_name": tool, "tool_input": tool_input or {"command": command}})


# -- if -----------------------------------------------------------------------

@pytest.mark.parametrize("command,blocked", [
    ("ls", False), ("git status", False), ("git commitx", False),
    ("git commit -m x", True), ("git commit", True), ("cd sub && git commit -m x", True),
    ("FOO=1 git commit", True), ("echo 'git commit -m x'", False),
])
def test_if_restricts_a_handler_to_the_calls_it_matches(make_session, command, blocked):
    s = make_session(hook("PreToolUse", matcher="Bash", if_condition="Bash(git commit:*)",
                          command="echo blocked-by-if >&2; exit 2"))
    out = pre(s, command)
    assert out.blocked is blocked
    assert [r.hook_id for r in out.results] == (["user:" + s.registry("hook").active()[0].name] if blocked else [])
    if blocked:
        assert out.reason == "blocked-by-if"


def test_if_on_file_tools_uses_the_file_path(make_session, project: Path):
    s = make_session(hook("PostToolUse", name="src", matcher="Edit|Write", if_condition="Edit(src/**)",
                          command="touch ran-src"),
                     hook("PostToolUse", name="x", if_condition="Read(./x/*)", command="touch ran-x"))
    pre(s, tool="Edit", tool_input={"file_path": str(project / "lib" / "a.py")}, event="PostToolUse")
    pre(s, tool="Write", tool_input={"file_path": str(project / "src" / "a.py")}, event="PostToolUse")
    assert not (project / "ran-src").exists()  # another tool name, another file: neither matches
    pre(s, tool="Edit", tool_input={"file_path": str(project / "src" / "deep" / "a.py")}, event="PostToolUse")
    assert (project / "ran-src").exists()
    pre(s, tool="Read", tool_input={"file_path": str(project / "y" / "f")}, event="PostToolUse")
    assert not (project / "ran-x").exists()
    pre(s, tool="Read", tool_input={"file_path": str(project / "x" / "f")}, event="PostToolUse")
    assert (project / "ran-x").exists()


def test_if_on_a_non_tool_event_never_runs(make_session, project: Path):
    s = make_session(hook("Stop", name="cond", if_condition="Bash", command="touch ran-cond"),
                     hook("Stop", name="plain", command="touch ran-plain"))
    out = s.runtime.hooks.run("Stop", {})
    assert [r.hook_id for r in out.results] == ["user:plain"]
    assert (project / "ran-plain").exists() and not (project / "ran-cond").exists()


def test_unparsable_if_runs_the_handler_with_a_warning(make_session):
    """Chosen to fail closed for a guard: a condition we cannot read does not switch the guard off."""
    s = make_session(hook("PreToolUse", name="g", matcher="Bash", if_condition="tool_input.command matches 'rm'",
                          command="echo guarded >&2; exit 2"))
    out = pre(s, "ls")
    assert out.blocked and out.reason == "guarded"
    assert len(out.warnings) == 1 and out.warnings[0].startswith("hook user:g: 'if'")
    assert "ran it without the condition" in out.warnings[0]


def test_unparsable_if_may_restrict_but_never_grant(make_session):
    """Running a handler without its broken condition must not widen what it grants: an
    auto-approver meant for one command would otherwise allow (or rewrite) every call."""
    upd = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                             "permissionDecisionReason": "auto", "updatedInput": {"command": "id"}}})
    s = make_session(hook("PreToolUse", name="ok", matcher="Bash", if_condition="Bash(git status",
                          command=f"echo '{upd}'"))
    out = pre(s, "rm -rf /tmp/x")
    assert out.results[0].status == "success" and out.results[0].restrict_only
    assert out.permission_decision is None and out.updated_input is None and not out.blocked
    s2 = make_session(hook("PreToolUse", name="ask", matcher="Bash", if_condition="Bash(git status",
                           command=f"echo '{ASK}'"))
    assert pre(s2, "ls").permission_decision == "ask"  # restricting still counts
    s3 = make_session(hook("PreToolUse", name="fine", matcher="Bash", if_condition="Bash(rm *)",
                           command=f"echo '{upd}'"))
    good = pre(s3, "rm -rf /tmp/x")  # a readable condition that matches grants as before
    assert good.permission_decision == "allow" and good.updated_input == {"command": "id"}


def test_same_command_with_different_if_is_not_deduplicated(make_session, project: Path):
    s = make_session(hook("PostToolUse", name="a", if_condition="Bash(git push *)", command="echo x >> log"),
                     hook("PostToolUse", name="b", if_condition="Bash(git commit *)", command="echo x >> log"),
                     hook("PostToolUse", name="c", if_condition="Bash(git commit *)", command="echo x >> log"))
    out = pre(s, "git commit -m y", event="PostToolUse")
    assert [r.hook_id for r in out.results] == ["user:b"]
    assert (project / "log").read_text() == "x\n"


# -- plain stdout as context ---------------------------------------------------

@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit", "UserPromptExpansion"])
def test_plain_stdout_is_added_context_on_context_events(make_session, event):
    s = make_session(hook(event, name="a", command="echo plain session context"),
                     hook(event, name="b", command="""echo '{"hookSpecificOutput": {"additionalContext": "json"}}'"""))
    out = s.runtime.hooks.run(event, {"prompt": "hi"})
    assert out.additional_context == ["plain session context", "json"]
    assert not out.blocked


@pytest.mark.parametrize("event", ["PostToolUse", "Stop"])
def test_plain_stdout_is_not_context_elsewhere(make_session, event):
    s = make_session(hook(event, command="echo not context"))
    out = s.runtime.hooks.run(event, {"tool_name": "Bash", "tool_input": {"command": "ls"}})
    assert out.additional_context == [] and out.results[0].message == "not context"


def test_plain_stdout_of_a_failing_hook_is_not_context(make_session):
    s = make_session(hook("SessionStart", command="echo half; exit 1"))
    assert s.runtime.hooks.run("SessionStart", {}).additional_context == []


# -- ask, reasons, and several decisions ----------------------------------------

def test_ask_keeps_its_reason_and_a_later_deny_still_runs_and_wins(make_session):
    s = make_session(hook("PreToolUse", name="a", command=f"echo '{ASK}'"),
                     hook("PreToolUse", name="b", command="echo second >&2; exit 2"))
    out = pre(s)
    assert [(r.hook_id, r.status) for r in out.results] == [("user:a", "success"), ("user:b", "blocked")]
    assert out.results[0].message == "ask: why"
    assert out.blocked and out.permission_decision == "deny" and out.reason == "second"


@pytest.mark.parametrize("decisions,expected", [
    (["ask"], "ask"), (["allow", "ask"], "ask"), (["ask", "allow"], "ask"),
    (["ask", "defer"], "defer"), (["defer", "ask", "allow"], "defer"), (["allow"], "allow"),
])
def test_decisions_combine_deny_defer_ask_allow(make_session, decisions, expected):
    s = make_session(*[hook("PreToolUse", name=f"h{i}", command=decision(d, f"reason-{d}"))
                       for i, d in enumerate(decisions)])
    out = pre(s)
    assert len(out.results) == len(decisions) and not out.blocked
    assert out.permission_decision == expected and out.reason == f"reason-{expected}"


@pytest.mark.parametrize("command", ["timeout 5 rm -rf /tmp/x", "bash -lc 'rm -rf /tmp/x'", "$'rm' -rf /tmp/x",
                                     "/bin/rm -rf /tmp/x", "x=rm; $x -rf /tmp/x", "$y -rf /tmp/x", 'eval "$v"'])
def test_a_guard_if_sees_the_spellings_the_deny_rules_see(make_session, command):
    """The hooks' ``if`` and the permission rules share one normaliser: a guard for ``rm``
    is not passed by a wrapper, ``bash -lc``, ``$'…'``, a path or a variable."""
    s = make_session(hook("PreToolUse", name="g", matcher="Bash", if_condition="Bash(rm *)",
                          command="echo guarded >&2; exit 2"))
    out = pre(s, command)
    assert out.blocked and out.reason == "guarded"


def test_a_hidden_program_runs_an_approver_restrict_only(make_session):
    """``$y status`` may be ``git status``: the approver runs, its allow is dropped, with a note."""
    upd = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                             "permissionDecisionReason": "auto"}})
    s = make_session(hook("PreToolUse", name="ok", matcher="Bash", if_condition="Bash(git status)",
                          command=f"echo '{upd}'"))
    out = pre(s, "$y status")
    assert out.results[0].restrict_only and out.permission_decision is None
    assert any("could match what runs at $y" in w for w in out.warnings)
    assert pre(s, "git status").permission_decision == "allow"
    assert pre(s, "ls").results == []
