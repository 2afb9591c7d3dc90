"""The tool-call gate (wskit.session.gate): one decision per call, one test per decision path
(hook deny, permission deny, ask, skipped guard, rules attached), the tool table, the user's
answer kept for the session or written as a rule, and the async twins. Real files, real
hook processes, the real built-ins."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from wskit import (
    HostProfile,
    RuntimeOptions,
    ToolKind,
    ToolSpec,
    TrustStore,
    UserAnswer,
    WorkspaceCache,
    attach,
    snapshot,
)
from wskit.session import SessionResources

BLOCK_RM = "grep -q 'rm -rf' && { echo 'rm -rf is not allowed' >&2; exit 2; } || exit 0"
#: a hook that rewrites the path it is given (Claude Code's updatedInput)
REWRITE = ("""python3 -c "import json,sys; d=json.load(sys.stdin); p=d['tool_input']['file_path']; """
           """print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', 'permissionDecision': """
           """'allow', 'updatedInput': {'file_path': p.replace('draft', 'final')}}}))" """)

TOOLS = [ToolSpec("read_file", matches_as="Read", kind=ToolKind.READ, path_args=("path",)),
         ToolSpec("write_file", matches_as="Write", kind=ToolKind.WRITE, path_args=("path",)),
         ToolSpec("shell", matches_as="Bash", kind=ToolKind.SHELL, command_arg="cmd")]


def tree(tmp_path: Path, *, project_hooks: dict | None = None, user_hooks: dict | None = None,
         permissions: dict | None = None, rules: bool = True) -> tuple[Path, Path]:
    """A trusted project; with ``rules``, a nested AGENTS.md and a path rule (a shell
    command is then held back once by the rules barrier, as the first write is)."""
    home, project = tmp_path / "home", tmp_path / "project"
    files = {
        home / ".claude" / "settings.json": json.dumps({"hooks": user_hooks or {}}),
        project / ".git" / "HEAD": "ref: refs/heads/main\n",
        project / "AGENTS.md": "Keep answers short.\n",
        project / "docs" / "AGENTS.md": "Docs are written in British English.\n",
        project / "docs" / "guide.md": "# Guide\n",
        project / ".claude" / "rules" / "release.md": "---\npaths: [RELEASE.md]\n---\nFollow Keep a Changelog.\n",
        project / ".claude" / "settings.json": json.dumps({"permissions": permissions or {},
                                                            "hooks": project_hooks or {}}),
    }
    if not rules:
        del files[project / "docs" / "AGENTS.md"], files[project / ".claude" / "rules" / "release.md"]
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    TrustStore.for_home(home).grant(project)
    return home, project


def session_of(home: Path, project: Path, **options) -> SessionResources:
    session = snapshot(WorkspaceCache(HostProfile(name="wskit", home=home)).resolve(project))
    attach(session, RuntimeOptions(tools=TOOLS, **options))
    return session


def test_a_hook_that_blocks_denies_with_its_reason(tmp_path) -> None:
    home, project = tree(tmp_path, user_hooks={"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": BLOCK_RM}]}]}, permissions={"allow": ["Bash"]})
    session = session_of(home, project)
    d = session.before_tool("shell", {"cmd": "rm -rf build"}, tool_use_id="t1")
    assert (d.decision, d.source, d.reason) == ("deny", "hook", "rm -rf is not allowed")
    assert d.message() == "deny: rm -rf is not allowed"
    # the hook saw Claude Code's key ("command") and lets another command through; the first
    # shell command is held back by the rules barrier with every rule it could need
    held = session.before_tool("shell", {"cmd": "echo hi"}, tool_use_id="t2")
    assert (held.decision, held.source) == ("deny", "rules") and "British English" in held.message()
    ok = session.before_tool("shell", {"cmd": "echo hi"}, tool_use_id="t3")
    assert (ok.decision, ok.source) == ("allow", "permission") and ok.input == {"cmd": "echo hi"}
    session.close()


def test_a_deny_rule_denies_naming_the_rule_and_its_file(tmp_path) -> None:
    home, project = tree(tmp_path, permissions={"deny": ["Read(./.env)"]})
    session = session_of(home, project)
    d = session.before_tool("read_file", {"path": ".env"})  # the host's "path" is matched as file_path
    assert (d.decision, d.source) == ("deny", "permission")
    assert d.permission is not None and d.permission.rule is not None and d.permission.rule.text == "Read(./.env)"
    assert str(project / ".claude" / "settings.json") in d.reason


def test_ask_goes_to_the_callback_and_a_yes_goes_on_to_the_rules_barrier(tmp_path) -> None:
    home, project = tree(tmp_path, permissions={"ask": ["Write(./RELEASE.md)"]})
    session = session_of(home, project)
    asked = []
    d = session.before_tool("write_file", {"path": "RELEASE.md", "text": "x"},
                            ask=lambda q: asked.append((q.decision, q.source)) or True)
    assert asked == [("ask", "permission")]
    # approved, then held back by the barrier with the release rule
    assert (d.decision, d.source) == ("deny", "rules") and "Follow Keep a Changelog." in d.rules_text
    # without a callback the ask comes back; a no denies, said by the user
    q = session.before_tool("write_file", {"path": "RELEASE.md", "text": "x"})
    assert q.decision == "ask"
    no = session.answer(q, False)
    assert (no.decision, no.source) == ("deny", "user") and no.reason.startswith("the user declined")
    with pytest.raises(ValueError):
        session.answer(no, True)


def test_an_answer_remembered_locally_is_written_as_claude_code_writes_it(tmp_path) -> None:
    home, project = tree(tmp_path, rules=False)  # default mode: a shell command asks
    local = project / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"env": {"KEEP": "1"}}))
    session = session_of(home, project)
    q = session.before_tool("shell", {"cmd": "make test"})
    assert (q.decision, q.source) == ("ask", "permission")
    yes = session.answer(q, UserAnswer(True, remember="local"))
    assert yes.decision == "allow" and yes.source == "user"
    assert json.loads(local.read_text()) == {"env": {"KEEP": "1"}, "permissions": {"allow": ["Bash(make test)"]}}
    # for the rest of the session too, and in a new session from the settings file
    assert session.before_tool("shell", {"cmd": "make test"}).decision == "allow"
    assert session_of(home, project).before_tool("shell", {"cmd": "make test"}).decision == "allow"
    # a call with a wildcard character has no exact rule: the host must name one
    q2 = session.before_tool("shell", {"cmd": "ls *"})
    with pytest.raises(ValueError, match="pass the rule"):
        session.answer(q2, True, remember="session")
    session.answer(q2, True, remember="session", rule="Bash(ls:*)")
    with pytest.raises(ValueError, match="without a command"):  # never the bare tool
        session.gate.rule_for(session.gate.spec("shell"), {})
    assert session.before_tool("shell", {"cmd": "ls *"}).decision == "allow"


def test_an_unapproved_project_hook_is_a_skipped_guard_or_blocks(tmp_path) -> None:
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": BLOCK_RM}]}]}
    home, project = tree(tmp_path, project_hooks=hooks, permissions={"allow": ["Bash"]}, rules=False)
    d = session_of(home, project).before_tool("shell", {"cmd": "rm -rf build"})
    # the hook did not run (not approved): the call is allowed, and the decision says why it was not checked
    assert d.decision == "allow"
    assert [(s.guard, s.reason) for s in d.skipped] == [("hook", "awaiting-approval")]
    blocked = session_of(home, project, unapproved="block").before_tool("shell", {"cmd": "echo hi"})
    assert (blocked.decision, blocked.source) == ("deny", "unapproved-hook")
    assert d.skipped[0].id in blocked.reason


def test_a_blocked_builtin_is_a_skipped_guard(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("WSKIT_DISABLE_PLUGINS", "permissions")
    home, project = tree(tmp_path, permissions={"deny": ["Bash"]}, rules=False)
    d = session_of(home, project).before_tool("shell", {"cmd": "echo hi"})
    assert d.decision == "allow" and [s.guard for s in d.skipped] == ["permissions"]
    assert "no permission rules" in d.reason


def test_rules_are_attached_to_a_read_of_a_nested_file_once(tmp_path) -> None:
    home, project = tree(tmp_path, permissions={"allow": ["Read"]})
    session = session_of(home, project)
    d = session.before_tool("read_file", {"path": "docs/guide.md"})
    assert d.decision == "allow" and "British English" in d.rules_text
    assert d.rules_text.startswith("<contextual-project-instructions")
    after = session.after_tool("read_file", d.input, "# Guide\n", decision=d)
    assert after.for_model("# Guide") == f"# Guide\n\n{d.rules_text}"
    again = session.before_tool("read_file", {"path": "docs/guide.md"})
    assert again.rules_text == ""  # delivered: not sent twice
    assert session.state().extensions["rules"]["delivered"]


def test_a_hooks_updated_input_comes_back_in_the_hosts_keys(tmp_path) -> None:
    home, project = tree(tmp_path, user_hooks={"PreToolUse": [{"matcher": "Write", "hooks": [
        {"type": "command", "command": REWRITE}]}]}, permissions={"allow": ["Write"]})
    d = session_of(home, project).before_tool("write_file", {"path": "notes/draft.md", "text": "x"})
    assert d.input == {"path": "notes/final.md", "text": "x"}


def test_post_tool_use_context_and_the_monitor(tmp_path) -> None:
    post = "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"lint ok\"}}'"
    home, project = tree(tmp_path, user_hooks={"PostToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": post}]}]}, permissions={"allow": ["Bash"]}, rules=False)
    session = session_of(home, project)
    notices = [session.after_tool("shell", {"cmd": "ls"}, "same", tool_use_id=f"c{i}").notice for i in range(10)]
    after = session.after_tool("shell", {"cmd": "ls"}, "same", tool_use_id="c10")
    assert after.context == "lint ok" and after.for_model("same").startswith("same\n\nlint ok")
    assert [n is not None for n in notices].count(True) == 1


def test_the_async_twins_give_the_same_answers(tmp_path) -> None:
    home, project = tree(tmp_path, user_hooks={"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": BLOCK_RM}]}]}, permissions={"allow": ["Bash"]}, rules=False)
    session = session_of(home, project)

    async def main() -> tuple[str, str, str]:
        # two hook processes at once, on one loop
        a, b = await asyncio.gather(session.abefore_tool("shell", {"cmd": "rm -rf x"}),
                                    session.abefore_tool("shell", {"cmd": "echo ok"}))
        after = await session.aafter_tool("shell", b.input, "ok", decision=b)
        return a.decision, b.decision, after.for_model("ok")

    assert asyncio.run(main()) == ("deny", "allow", "ok")


def test_the_tool_table_refuses_a_name_twice_and_defaults_to_execute(tmp_path) -> None:
    from wskit import ToolGate

    home, project = tree(tmp_path)
    session = session_of(home, project)
    with pytest.raises(ValueError, match="named twice"):
        ToolGate(session, [ToolSpec("a"), ToolSpec("a")])
    with pytest.raises(ValueError, match="unapproved"):
        ToolGate(session, [], unapproved="ignore")  # type: ignore[arg-type]
    assert session.gate.spec("mcp__x__y").kind is ToolKind.EXECUTE
    assert ToolSpec("r", path_args="path").path_args == ("path",)  # type: ignore[arg-type]


def test_a_command_arg_the_input_lacks_is_a_warning(tmp_path) -> None:
    """A ``command_arg`` the call does not have as a string would be judged as a call
    without a command, silently (a misspelt key, a table that does not fit the tool)."""
    from wskit import ToolGate

    home, project = tree(tmp_path, rules=False)
    gate = ToolGate(session_of(home, project), [ToolSpec("run", kind="shell", command_arg="cmd")])
    (w,) = gate.before_tool("run", {"command": "ls"}).warnings
    assert "tool 'run': the input has no 'cmd' (ToolSpec.command_arg)" in w and "its keys: 'command'" in w
    assert not gate.before_tool("run", {"cmd": "ls"}).warnings
    (w,) = gate.before_tool("run", {"cmd": ["ls"]}).warnings
    assert "the input holds list at 'cmd'" in w
