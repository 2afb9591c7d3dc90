"""The hook runner with real subprocesses: exit 2 blocks, JSON updatedInput,
timeouts kill the process group, output caps, trust skips, ordering, once per call."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from tests.builtin_plugins.hooks.runtime_helpers import hook
from tests.process_helpers import alive
from wskit.builtin_plugins.hooks.runner import HookRunnerConfig, ScopeHookTrust
from wskit.session.runtime import RuntimeOptions, attach


def run_pre(session, tool_input=None, tool="Bash", use_id="t1"):
    return session.runtime.hooks.run("PreToolUse", {"tool_name": tool, "tool_input": tool_input or {"command": "ls"},
                                                    "tool_use_id": use_id})


def test_exit_2_blocks_with_stderr_as_reason(make_session):
    s = make_session(hook("PreToolUse", matcher="Bash", command="echo 'rm is not allowed' >&2; exit 2"))
    out = run_pre(s)
    assert out.blocked and out.reason == "rm is not allowed"
    assert out.permission_decision == "deny"
    assert out.results[0].status == "blocked" and out.results[0].exit_code == 2


def test_payload_on_stdin_env_and_cwd(make_session, project: Path):
    script = ("cat > payload.json; printf '%s\\n' \"$WSKIT_PROJECT_DIR\" \"$WSKIT_HOOK_EVENT\" \"$CLAUDE_PROJECT_DIR\" "
              "\"$WSKIT_TOOL_NAME\" \"$SECRET_FROM_PARENT\" \"$SESSION_VAR\" > env.txt")
    s = make_session(hook("PreToolUse", command=script))
    import os
    os.environ["SECRET_FROM_PARENT"] = "leak"
    try:
        attach(s, RuntimeOptions(env={"SESSION_VAR": "v1"}))
        out = run_pre(s, {"command": "git status"})
    finally:
        del os.environ["SECRET_FROM_PARENT"]
    assert not out.blocked and out.results[0].status == "success"
    payload = json.loads((project / "payload.json").read_text())
    assert payload["tool_input"] == {"command": "git status"} and payload["hook_event_name"] == "PreToolUse"
    assert payload["session_id"] == s.session_id and payload["cwd"] == str(project)
    lines = (project / "env.txt").read_text().split("\n")
    assert lines[:6] == [str(project), "PreToolUse", str(project), "Bash", "", "v1"]


def test_json_updated_input_merges_serially(make_session, project):
    first = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                    "updatedInput": {"command": "ls -la"}, "additionalContext": "first"}}
    s = make_session(
        hook("PreToolUse", name="a", command=f"echo '{json.dumps(first)}'"),
        # the second hook sees the first hook's updated input and adds a key
        hook("PreToolUse", name="b", command=(
            sys.executable + " -c \"import json,sys; d=json.load(sys.stdin); "
            "print(json.dumps({'hookSpecificOutput': {'updatedInput': {'seen': d['tool_input']['command']}}}))\"")),
    )
    out = run_pre(s, {"command": "ls", "timeout": 5})
    assert out.updated_input == {"command": "ls -la", "timeout": 5, "seen": "ls -la"}
    assert out.permission_decision == "allow" and out.additional_context == ["first"]


def test_pre_tool_use_stops_at_first_block(make_session, project):
    s = make_session(hook("PreToolUse", name="a", command="exit 2"),
                     hook("PreToolUse", name="b", command="touch ran-b"))
    out = run_pre(s)
    # the hooks after the block are not run, and the outcome says so (not dropped silently)
    assert out.blocked and [(r.hook_id, r.status) for r in out.results] == [("user:a", "blocked"),
                                                                            ("user:b", "skipped")]
    assert out.results[1].message == "not run: user:a already blocked the call"
    assert not (project / "ran-b").exists()


def test_decision_block_and_wrong_event_name(make_session):
    s = make_session(hook("PreToolUse", name="a", command="""echo '{"hookSpecificOutput": {"hookEventName": "Stop"}}'"""),
                     hook("PreToolUse", name="b", command="""echo '{"decision": "block", "reason": "policy"}'"""))
    out = run_pre(s)
    assert out.results[0].status == "error" and "does not match" in out.results[0].message
    assert out.blocked and out.reason == "policy"


def test_timeout_kills_the_process_group(make_session, project):
    cmd = "sleep 300 & echo $! > child.pid; echo $$ > parent.pid; sleep 300"
    s = make_session(hook("PreToolUse", command=cmd, timeout=1))
    t0 = time.monotonic()
    out = run_pre(s)
    assert time.monotonic() - t0 < 30
    r = out.results[0]
    assert r.status == "timeout" and r.exit_code is None and not out.blocked
    for f in ("child.pid", "parent.pid"):
        pid = int((project / f).read_text())
        deadline = time.monotonic() + 5
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(pid), f"{f} {pid} survived the timeout"


def test_flooding_stdout_is_capped(make_session):
    s = make_session(hook("PostToolUse", command="head -c 3000000 /dev/zero | tr '\\0' x; echo done >&2"))
    attach(s, RuntimeOptions(hooks=HookRunnerConfig(output_cap=4096)))
    out = s.runtime.hooks.run("PostToolUse", {"tool_name": "Read"})
    r = out.results[0]
    assert r.status == "success" and r.stdout_truncated and not r.stderr_truncated
    assert len(r.message) == 4096


def test_other_exit_code_is_non_blocking_error(make_session):
    s = make_session(hook("PreToolUse", command="echo oops >&2; exit 3"))
    out = run_pre(s)
    assert not out.blocked and out.results[0].status == "error" and out.results[0].message == "oops"


def test_untrusted_project_hooks_are_skipped_with_warning(make_session, project):
    s = make_session(hook("PreToolUse", scope="project", name="p", command="touch ran; exit 2"),
                     hook("PreToolUse", scope="user", name="u", command="touch ran-user"))
    out = run_pre(s)
    assert not out.blocked and not (project / "ran").exists() and (project / "ran-user").exists()
    assert out.warnings == ["hook project:p skipped: project hook trust is untrusted"]


def test_trust_interface_decides(make_session, project):
    h = hook("PreToolUse", scope="project", name="p", command="exit 2")

    class Modified:
        def state(self, hook):
            return "modified"

        def digest(self):
            return "sha256:" + "0" * 64

    s = make_session(h)
    attach(s, RuntimeOptions(hooks=HookRunnerConfig(trust=Modified())))
    assert "trust is modified" in run_pre(s).warnings[0]
    s2 = make_session(h)
    attach(s2, RuntimeOptions(hooks=HookRunnerConfig(trust=ScopeHookTrust([h], approved=frozenset({h.id})))))
    assert run_pre(s2).blocked


def test_each_hook_runs_once_per_tool_call_and_event(make_session, project):
    s = make_session(hook("PostToolUse", command="echo x >> count.txt"))
    r = s.runtime.hooks
    first = r.run("PostToolUse", {"tool_name": "Edit", "tool_use_id": "u1"})
    again = r.run("PostToolUse", {"tool_name": "Edit", "tool_use_id": "u1"})
    r.run("PreToolUse", {"tool_name": "Edit", "tool_use_id": "u1"})
    r.run("PostToolUse", {"tool_name": "Edit", "tool_use_id": "u2"})
    assert again is first and again.repeated
    assert (project / "count.txt").read_text().count("x") == 2


def test_post_tool_use_runs_concurrently_with_a_bound(make_session, project):
    hooks = [hook("PostToolUse", name=f"h{i}", command=f"sleep 0.5; echo '{{\"hookSpecificOutput\": "
                                                          f"{{\"additionalContext\": \"c{i}\"}}}}'") for i in range(4)]
    s = make_session(*hooks)
    attach(s, RuntimeOptions(hooks=HookRunnerConfig(max_concurrent=4)))
    t0 = time.monotonic()
    out = s.runtime.hooks.run("PostToolUse", {"tool_name": "Write"})
    elapsed = time.monotonic() - t0
    assert out.additional_context == ["c0", "c1", "c2", "c3"]  # hook order, not finish order
    assert elapsed < 1.9  # 4 × 0.5 s serially would be ≥ 2 s


def test_matcher_rules(make_session):
    from wskit.builtin_plugins.hooks.runner import matches
    assert matches("", "X") and matches("*", "X") and matches("Edit|Write", "Write")
    assert not matches("Edit|Write", "Read") and matches("mcp__.*", "mcp__gh__issue")
    assert not matches("Edit", "EditNotebook") and matches("Notebook.*", "NotebookEdit")
    assert matches("Bash", None)  # events without a tool


def test_prompt_and_function_hooks_go_to_host_callbacks(make_session):
    seen = []

    def prompt_handler(h, payload):
        seen.append((h.prompt, payload["tool_name"]))
        return {"decision": "block", "reason": "llm says no"}

    s = make_session(hook("PreToolUse", name="p", type="prompt", prompt="Is $ARGUMENTS safe?"),
                     hook("Stop", name="f", type="function"))
    attach(s, RuntimeOptions(hooks=HookRunnerConfig(prompt_handler=prompt_handler,
                                                    functions={"f": lambda p: {"continue": False, "stopReason": "more"}})))
    out = run_pre(s)
    assert out.blocked and out.reason == "llm says no" and seen == [("Is $ARGUMENTS safe?", "Bash")]
    stop = s.runtime.hooks.run("Stop", {})
    assert stop.continue_ is False and stop.stop_reason == "more"
    calls = []
    s.runtime.hooks.register_function("UserPromptSubmit", lambda p: calls.append(p["prompt"]) or
                                      {"hookSpecificOutput": {"additionalContext": "ctx"}})
    up = s.runtime.hooks.run("UserPromptSubmit", {"prompt": "hi"})
    assert calls == ["hi"] and up.additional_context == ["ctx"]


def test_plugin_hook_gets_plugin_root(make_session, project, tmp_path):
    proot = tmp_path / "plug"
    proot.mkdir()
    s = make_session(hook("SessionStart", scope="user", command='echo "$CLAUDE_PLUGIN_ROOT" > root.txt',
                          plugin_root=str(proot)))
    s.runtime.hooks.run("SessionStart", {})
    assert (project / "root.txt").read_text().strip() == str(proot)


def test_hook_trust_from_a_plugin(project):
    """The wiring point for the hook-trust store: a ``wskit_hook_trust`` implementation."""
    from wskit.binding import Binding
    from wskit.plugin import hookimpl
    from wskit.plugin.facade import WskitHooks
    from wskit.plugin.manager import make_plugin_manager
    from wskit.session.build import session_from_resources

    class Approved:
        def state(self, h):
            return "trusted"

        def digest(self):
            return "sha256:" + "e" * 64

    class TrustPlugin:
        @hookimpl
        def wskit_hook_trust(self, session):
            return Approved()

    pm = make_plugin_manager(load_entrypoints=False, env={})
    pm.register(TrustPlugin(), name="hooktrust")
    s = session_from_resources(Binding(source_root=project, execution_root=project, cwd=project),
                               [hook("PreToolUse", scope="project", command="exit 2")], hooks=WskitHooks(pm))
    assert run_pre(s).blocked
    assert s.runtime.state().extensions["hook_trust"] == {"digest": "sha256:" + "e" * 64}


def test_ensure_group_reuses_an_existing_group():
    import click

    from wskit.cli.lazy import ensure_group

    cli = click.Group()
    mine = click.Group(name="hooks")
    mine.add_command(click.Command("list"))
    cli.add_command(mine)
    got = ensure_group(cli, "hooks", "x")
    assert cli.commands["hooks"] is got and set(got.commands) == {"list"}  # the existing group's commands
    got.add_command(click.Command("run"))
    assert set(cli.commands["hooks"].commands) == {"list", "run"} and set(mine.commands) == {"list"}
    cli.add_command(click.Command("plain"))
    import pytest as _pytest

    from wskit.errors import WskitError
    with _pytest.raises(WskitError, match="not a group"):
        ensure_group(cli, "plain", "x")


def test_session_hooks_is_the_facade_and_hook_runner_runs(project):
    """``session.hooks`` is the plugin-hook facade only (no ``run``); hook definitions run
    through ``session.hook_runner`` (issue 36: one or the other, not both)."""
    from wskit.binding import Binding
    from wskit.plugin.facade import WskitHooks
    from wskit.plugin.manager import make_plugin_manager
    from wskit.session.build import session_from_resources

    pm = make_plugin_manager(load_entrypoints=False, env={})
    facade = WskitHooks(pm)
    s = session_from_resources(Binding(source_root=project, execution_root=project, cwd=project),
                               [hook("PreToolUse", command="echo no >&2; exit 2")], hooks=facade)
    assert s.hooks is facade and s.plugin_hooks is facade and not hasattr(s.hooks, "run")
    out = s.hook_runner.run("PreToolUse", {"tool_name": "Bash", "tool_input": {}})
    assert out.blocked and out.reason == "no" and s.hook_runner is s.runtime.hooks
    kid = s.child()
    assert kid.hooks is facade
    assert kid.hook_runner.run("PreToolUse", {"tool_name": "Bash"}).blocked and kid.runtime is not s.runtime


def test_timeout_and_failure_behaviors(make_session):
    s = make_session(hook("PreToolUse", name="slow", command="sleep 5", timeout=0.3))
    attach(s, RuntimeOptions(hooks=HookRunnerConfig(timeout_behavior="deny")))
    out = run_pre(s)
    assert out.blocked and "timeoutBehavior deny" in out.reason
    s2 = make_session(hook("PreToolUse", name="bad", command="exit 7"))
    attach(s2, RuntimeOptions(hooks=HookRunnerConfig(failure_behavior="ask")))
    out2 = run_pre(s2)
    assert not out2.blocked and out2.permission_decision == "ask"
    import pytest as _pytest
    with _pytest.raises(ValueError, match="timeout_behavior"):
        HookRunnerConfig(timeout_behavior="explode")


def test_session_start_matchers_match_the_payload_source(make_session):
    """Claude Code matches ``SessionStart`` matchers against ``source`` (``startup``,
    ``resume``, ``clear``, ``compact``), not a tool name."""
    s = make_session(hook("SessionStart", matcher="startup", command="echo on-startup"),
                     hook("SessionStart", matcher="resume|compact", command="echo on-resume"))
    started = s.runtime.hooks.run("SessionStart", {"source": "startup"})
    resumed = s.runtime.hooks.run("SessionStart", {"source": "resume"})
    assert [r.context.strip() for r in started.results] == ["on-startup"]
    assert [r.context.strip() for r in resumed.results] == ["on-resume"]


def test_a_python_hook_never_runs_bytecode_planted_in_the_projects_pycache(make_session, project):
    """Approval coverage leaves ``__pycache__`` out (the interpreter rewrites it on every
    run). A ``.pyc`` planted there with the source's mtime and size would otherwise run
    instead of the covered ``helper.py``: hooks get ``PYTHONPYCACHEPREFIX`` (a private
    folder), so Python never looks there."""
    import importlib.util
    import os
    import stat as st
    from importlib._bootstrap_external import _code_to_timestamp_pyc

    helper = project / "helper.py"
    helper.write_text("VALUE = 'clean'\n")
    info = helper.stat()
    evil = compile("VALUE = 'planted'\n", str(helper), "exec")
    pyc = Path(importlib.util.cache_from_source(str(helper)))
    pyc.parent.mkdir()
    pyc.write_bytes(_code_to_timestamp_pyc(evil, int(info.st_mtime), info.st_size))
    command = f"{sys.executable} -c 'import helper; print(helper.VALUE)' > out.txt"
    # the attack works without the prefix: Python runs the planted bytecode
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    import subprocess
    subprocess.run(command, shell=True, cwd=project, env=env, check=True)
    assert (project / "out.txt").read_text() == "planted\n"
    s = make_session(hook("PreToolUse", command=command))
    out = run_pre(s)
    assert out.results[0].status == "success", out.results
    assert (project / "out.txt").read_text() == "clean\n"
    prefix = s.runtime.hooks.pycache_prefix()
    assert not prefix.startswith(str(project)) and st.S_IMODE(os.stat(prefix).st_mode) == 0o700
    assert pyc.read_bytes() == _code_to_timestamp_pyc(evil, int(info.st_mtime), info.st_size)  # not rewritten
