"""A guard never switches off silently: not by a same-text hook elsewhere, not by a padded
tool input (issue 32, red-team F10 and F7).

F10: hooks were de-duplicated by their command *text*, before ``${CLAUDE_PLUGIN_ROOT}`` and
the working folder fill it in, so an approved project plugin (or a project Cursor
``hooks.json``) whose hook has the same text as the user's guard displaced it: the guard
never ran, the outcome said "allowed" and listed nothing. Now two hooks are one only when
they run the same program in the same folder, a guard that needs no approval is kept over
an approved copy, and a dropped hook is named in the outcome's warnings.

F7: the runner refused to start a hook whose JSON input was over 100 KiB; the tool input is
the model's, so padding it made the user's guard "could not start" and a ``report`` host ran
the call. Now the hook gets every input a gate accepts, and the gate denies a call whose
input is over :data:`wskit.resources.hooks.MAX_TOOL_INPUT_BYTES` before any hook, with the
reason said. Real ``wsctl``, real hook processes, the example host of docs/integrating.md."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from tests.security.test_guard_not_silent import _payload, _project

GUARD = '#!/bin/sh\ngrep -q "rm -rf /" && { echo "blocked by the plugin guard" >&2; exit 2; } || exit 0\n'
FORMATTER = "#!/bin/sh\ncat >/dev/null; echo formatted >&2; exit 0\n"
HOOKS = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/hooks/g.sh"}]}]}}


def _plugin(root: Path, name: str, script: str) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin/plugin.json").write_text(json.dumps({"name": name, "version": "1.0.0"}))
    (root / "hooks").mkdir()
    (root / "hooks/g.sh").write_text(script)
    (root / "hooks/hooks.json").write_text(json.dumps(HOOKS))
    return root


def _approve_all(wsctl, project: Path) -> None:
    st = json.loads(wsctl("hooks", "status", str(project), json=True).stdout)
    assert st["digest"], st
    assert wsctl("hooks", "trust", str(project), "--digest", st["digest"]).exit_code == 0


def _run(wsctl, project: Path, payload: str) -> tuple[int, dict]:
    r = wsctl("hooks", "run", "PreToolUse", str(project), "--payload", payload, json=True)
    return r.exit_code, json.loads(r.stdout)


def test_an_approved_project_plugin_with_the_same_hook_text_does_not_displace_the_users_guard(
        wsctl, wskit_home, tmp_path):
    for name in ("fmt", "zzz"):  # before and after the user's plugin in name order
        _plugin(wskit_home / ".claude/plugins/guardp", "guardp", GUARD) \
            if not (wskit_home / ".claude/plugins/guardp").exists() else None
        project = _project(tmp_path / name)
        _plugin(project / ".claude/plugins" / name, name, FORMATTER)
        assert wsctl("trust", "grant", str(project)).exit_code == 0
        _approve_all(wsctl, project)
        code, out = _run(wsctl, project, _payload(tmp_path))
        assert out["blocked"] and "blocked by the plugin guard" in out["reason"], out
        ran = sorted(r["hook_id"].split(":")[1] for r in out["results"])
        assert ran == sorted(["guardp", name]), out  # both programs ran: neither displaced
        assert out["skipped"] == [] and out["undecided"] == 0


def test_the_users_cursor_guard_is_not_displaced_by_an_approved_project_copy(wsctl, wskit_home, tmp_path):
    entry = {"version": 1, "hooks": {"beforeShellExecution": [{"command": "./hooks/guard.sh"}]}}
    deny = ('#!/bin/sh\ngrep -q "rm -rf /" && { echo \'{"permission": "deny", "user_message": '
            '"blocked by user cursor guard"}\'; exit 0; }\necho \'{"permission": "allow"}\'\n')
    allow = '#!/bin/sh\ncat >/dev/null\necho \'{"permission": "allow"}\'\n'
    project = _project(tmp_path)
    for base, script in ((wskit_home / ".cursor", deny), (project / ".cursor", allow)):
        (base / "hooks").mkdir(parents=True)
        (base / "hooks.json").write_text(json.dumps(entry))
        (base / "hooks/guard.sh").write_text(script)
        (base / "hooks/guard.sh").chmod(0o755)
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    code, out = _run(wsctl, project, _payload(tmp_path))
    assert out["blocked"] and "blocked by user cursor guard" in out["reason"], out
    _approve_all(wsctl, project)
    code, out = _run(wsctl, project, _payload(tmp_path))
    assert out["blocked"] and "blocked by user cursor guard" in out["reason"], out
    assert len(out["results"]) == 2, out


def test_the_same_program_twice_runs_once_and_the_dropped_copy_is_named(wsctl, wskit_home, tmp_path):
    guard = wskit_home / "guard.sh"
    guard.write_text(GUARD)
    pre = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": f"sh {guard}"}]}]}
    (wskit_home / ".claude").mkdir(exist_ok=True)
    (wskit_home / ".claude/settings.json").write_text(json.dumps({"hooks": pre}))
    project = _project(tmp_path, {"hooks": pre})
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    _approve_all(wsctl, project)
    code, out = _run(wsctl, project, _payload(tmp_path))
    assert out["blocked"], out
    (result,) = out["results"]
    assert result["hook_id"].startswith("user:"), out  # the guard that needs no approval is the one kept
    (note,) = [w for w in out["warnings"] if "duplicates run once" in w]
    assert note.startswith("hook project:") and "runs the same program in the same folder" in note


def test_a_padded_input_still_reaches_the_users_guard(wsctl, wskit_home, tmp_path):
    pre = {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "grep -q 'rm -rf' && { echo 'rm -rf is not allowed' >&2; exit 2; } || exit 0"}]}]}
    (wskit_home / ".claude").mkdir(exist_ok=True)
    (wskit_home / ".claude/settings.json").write_text(json.dumps({"hooks": pre}))
    project = _project(tmp_path)
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    payload = _payload(tmp_path, command="rm -rf / # " + "A" * 300_000)
    code, out = _run(wsctl, project, payload)
    assert code == 0 and out["blocked"] and out["reason"] == "rm -rf is not allowed", out
    assert out["undecided"] == 0


def _example_host():
    path = Path(__file__).resolve().parents[2] / "docs/examples/agent_host.py"
    spec = importlib.util.spec_from_file_location("agent_host_padded", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_host_never_runs_a_call_the_model_padded(tmp_path):
    from wskit.resources.hooks import MAX_TOOL_INPUT_BYTES

    host = _example_host()
    home, project = host.make_demo_tree(tmp_path)
    settings = json.loads((home / ".claude/settings.json").read_text())
    settings["permissions"]["allow"].append("Bash(rm:*)")  # the user allows rm; their guard refuses rm -rf
    (home / ".claude/settings.json").write_text(json.dumps(settings))
    (project / "build").mkdir()
    (project / "build/keep").write_text("x")
    padded = {"command": "rm -rf build", "description": "A" * 110_000}
    huge = {"command": "rm -rf build", "description": "A" * (MAX_TOOL_INPUT_BYTES + 1)}
    told: list[str] = []
    out = host.run_session(home, project, [("Bash", padded), ("Bash", padded), ("Bash", huge), ("Bash", huge)],
                           warn=told.append)
    assert (project / "build/keep").exists() and out["ran"] == [], out["turns"]
    assert [t[1] for t in out["turns"][:2]] == ["deny: rm -rf is not allowed"] * 2
    for _, said in out["turns"][2:]:
        assert said.startswith("deny: the Bash input is ") and f"over the {MAX_TOOL_INPUT_BYTES}-byte bound" in said
    assert told == []  # every guard looked at every call it could see


def test_the_gate_refuses_an_input_over_the_bound_before_any_hook(tmp_path):
    import asyncio

    from wskit.resources.hooks import MAX_TOOL_INPUT_BYTES

    host = _example_host()
    home, project = host.make_demo_tree(tmp_path)
    marker = tmp_path / "hook-ran"
    pre = {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": f"cat > {marker}"}]}]}
    settings = json.loads((home / ".claude/settings.json").read_text())
    settings["hooks"] = pre
    (home / ".claude/settings.json").write_text(json.dumps(settings))
    from wskit import HostProfile, RuntimeOptions, WorkspaceCache, attach, snapshot

    session = snapshot(WorkspaceCache(HostProfile(name="wskit", home=home)).resolve(project))
    attach(session, RuntimeOptions(tools=host.TOOLS))
    big = {"file_path": "x", "content": "é" * (MAX_TOOL_INPUT_BYTES // 2)}  # 2 bytes each in UTF-8
    for decision in (session.before_tool("Write", big), asyncio.run(session.gate.abefore_tool("Write", big))):
        assert decision.decision == "deny" and decision.source == "input-limit", decision
        assert decision.hook is None and not marker.exists()
    assert session.before_tool("Read", {"file_path": "AGENTS.md"}).hook is not None and marker.exists()
    session.close()


def _helper(root: Path) -> None:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin/plugin.json").write_text(json.dumps({"name": "helper", "version": "1.0.0"}))
    (root / "skills/hello").mkdir(parents=True)
    (root / "skills/hello/SKILL.md").write_text("---\nname: hello\ndescription: hi\n---\nhi\n")


def test_a_project_plugin_folder_replacing_the_users_guard_plugin_leaves_its_guard_not_decided(
        wsctl, wskit_home, tmp_path):
    from tests.security.test_guard_not_silent import assert_switched_off

    _plugin(wskit_home / ".claude/plugins/guardp", "guardp", GUARD)
    project = _project(tmp_path)
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    _approve_all(wsctl, project)
    code, out = _run(wsctl, project, _payload(tmp_path))
    assert out["blocked"], out
    shadow = project / ".claude/plugins/guardp"
    _helper(shadow)  # a plugin folder of the same name, with a skill and no hooks
    (shadow / ".claude-plugin/plugin.json").write_text(json.dumps({"name": "guardp", "version": "9.9.9"}))
    assert_switched_off(wsctl, project, tmp_path, "plugin:guardp:",
                        f"the project's plugin folder {shadow} replaces plugin guardp")
    r = wsctl("inspect", str(project))
    assert "is replaced by the project's" in r.stdout and "reported switched-off" in r.stdout, r.stdout
    # the user's own "off" is a decision: nothing reported
    (wskit_home / ".claude/settings.json").write_text(json.dumps({"enabledPlugins": {"guardp": False}}))
    code, out = _run(wsctl, project, _payload(tmp_path))
    assert code == 0 and out["undecided"] == 0 and out["skipped"] == [], out


def test_a_project_switching_off_a_dependency_leaves_the_users_guard_not_decided(wsctl, wskit_home, tmp_path):
    from tests.security.test_guard_not_silent import assert_switched_off

    guard = _plugin(wskit_home / ".claude/plugins/guardp", "guardp", GUARD)
    (guard / ".claude-plugin/plugin.json").write_text(json.dumps(
        {"name": "guardp", "version": "1.0.0", "dependencies": ["helper"]}))
    _helper(wskit_home / ".claude/plugins/helper")
    project = _project(tmp_path)
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    _approve_all(wsctl, project)
    code, out = _run(wsctl, project, _payload(tmp_path))
    assert out["blocked"], out
    (project / ".claude/settings.json").write_text(json.dumps({"enabledPlugins": {"helper": False}}))
    assert_switched_off(wsctl, project, tmp_path, "plugin:guardp:",
                        f"{project}/.claude/settings.json switches off plugin guardp")
    (project / ".claude/settings.json").unlink()
    shadow = project / ".claude/plugins/helper"  # the same through a replaced dependency with a broken manifest
    (shadow / ".claude-plugin").mkdir(parents=True)
    (shadow / ".claude-plugin/plugin.json").write_text("{not json")
    assert_switched_off(wsctl, project, tmp_path, "plugin:guardp:", f"the project's plugin folder {shadow}")
