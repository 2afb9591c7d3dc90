"""docs/examples/agent_host.py, the host docs/integrating.md walks through, runs every step:
resolve and snapshot, system prompt, hooks + permission rules + skill workflows + rules
barrier on each call, run, feedback, skills and commands, persist, resume."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
EXAMPLE = DOCS / "examples" / "agent_host.py"


@pytest.fixture(scope="module")
def host():
    spec = importlib.util.spec_from_file_location("agent_host_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_step_of_the_integration_path(host, tmp_path) -> None:
    home, project = host.make_demo_tree(tmp_path)
    asked = []
    told = []
    out = host.run_session(home, project, host.SCRIPT, ask_user=lambda d: asked.append(d.permission.rule.text) and False,
                           warn=told.append)
    turns = out["turns"]
    settings = f"{project}/.claude/settings.json"
    # 1, 2: snapshot and system prompt (style, static rules, skills catalog with provenance)
    assert out["diagnostics"] == []
    assert out["system_prompt"].startswith("One line.\n\n<project-instructions>")
    assert "<name>\nrelease-notes\n</name>" in out["system_prompt"]
    assert out["prompt_provenance"] == ["style", "rule", "skill"]
    # 3: the hook blocks, the deny rule denies, the ask rule asks (and the user said no)
    assert turns[0] == ("Bash", "deny: rm -rf is not allowed")
    assert turns[1] == ("Read", f"deny: deny rule 'Read(./.env)' (project in {settings})")
    assert turns[2] == ("Bash", f"deny: the user declined: ask rule 'Bash(git push:*)' (project in {settings})") \
        and asked == ["Bash(git push:*)"]
    # 4, 5: the write is held back with the rule for RELEASE.md; the retry runs
    tool, held = turns[3]
    assert tool == "Write" and held.startswith("Applicable project instructions were loaded")
    assert 'trigger-paths="RELEASE.md"' in held and "Follow Keep a Changelog." in held
    assert turns[4] == ("Write", "wrote RELEASE.md") and (project / "RELEASE.md").read_text() == "## 1.2\n"
    assert turns[5] == ("Bash", "hello")
    # 6: the skill body through the skill runtime; its allowed-tools then narrow the tools
    assert turns[6] == ("Skill", "Collect the merged changes and write RELEASE.md.")
    assert turns[7] == ("Bash", "deny: skill 'release-notes': run_command 'echo again' is not in allowed-tools")
    assert turns[8] == ("Read", "## 1.2\n")
    assert out["command"].strip() == "Ship version 1.2."
    # 7, 8: one state, resumed clean with the workflow and the delivered rules
    assert out["state_keys"] == ["hook_trust", "repetition_monitor", "rules", "skill_workflows"]
    assert out["resumed_ok"] and out["resumed_workflows"] == ["release-notes"]
    assert len(out["resumed_delivered"]) == 2  # AGENTS.md and the release rule: not delivered again
    # 3: the project's Read guard awaits approval: it did not run, and the host said so on each Read
    guard = out["guards_not_run"][0][1]
    assert out["guards_not_run"] == [(2, guard, "awaiting-approval"), (9, guard, "awaiting-approval")]
    assert told == [f"guard not run for Read: hook {guard} skipped: awaiting approval (not approved)"] * 2


def test_the_example_host_can_block_on_a_guard_that_did_not_run(host, tmp_path) -> None:
    """``unapproved="block"``: a Read the unapproved project guard may match is denied, naming
    the guard; the other tools are not concerned (its matcher is an exact name)."""
    home, project = host.make_demo_tree(tmp_path)
    out = host.run_session(home, project, host.SCRIPT, unapproved="block", warn=lambda _m: None)
    turns = out["turns"]
    guard = out["guards_not_run"][0][1]
    assert turns[8][0] == "Read" and guard in turns[8][1] and turns[8][1].startswith("deny: ")
    assert turns[1][0] == "Read" and turns[1][1].startswith("deny: ")
    assert turns[5] == ("Bash", "hello") and turns[0] == ("Bash", "deny: rm -rf is not allowed")


@pytest.mark.parametrize(("failing", "failure"), [("nosuchprogram-audit", "not found"),
                                                  ("kill -KILL $$", "killed by signal 9"),
                                                  ("sleep 5", "timeout")])
def test_the_example_host_prints_every_guard_that_did_not_decide(host, tmp_path, failing, failure) -> None:
    """The three guards that do not check a call — one awaiting approval, one that fails, one a
    project's ``enabledPlugins`` switched off — are each printed on the call they concern;
    under ``report`` the calls go on (the permission rules and the user allow them)."""
    home, project = host.make_demo_tree(tmp_path)
    host.add_guards_that_do_not_decide(home, project, failing=failing)
    told: list[str] = []
    out = host.run_session(home, project, host.GUARD_SCRIPT, ask_user=lambda d: True, warn=told.append)
    settings = f"{project}/.claude/settings.json"
    read_guard, audit = out["guards_not_run"][0][1], out["guards_not_run"][1][1]
    plugin_guard = out["guards_not_run"][-1][1]
    assert read_guard.startswith("project:") and audit.startswith("user:") and plugin_guard.startswith("plugin:audit:")
    assert out["guards_not_run"] == [(1, read_guard, "awaiting-approval"), (2, audit, "failed"),
                                     (3, audit, "failed"), (4, plugin_guard, "switched-off")]
    assert told[0] == f"guard not run for Read: hook {read_guard} skipped: awaiting approval (not approved)"
    assert told[1] == told[2] and told[1].startswith(f"guard not run for Bash: guard {audit} failed ({failure})")
    assert told[3] == (f"guard not run for Write: hook {plugin_guard} skipped: {settings} switches off plugin audit "
                       "(enabledPlugins), this guard of the user's with it; not decided (switch the plugin off in "
                       "your own settings to decide so)")
    assert len(told) == 4
    # report: the host told the user and let the calls go on (turn 2 is held by the rules barrier)
    assert out["ran"] == [1, 3, 4] and (project / "notes.md").read_text() == "draft\n"
    assert out["turns"][2] == ("Bash", "audited")


def test_the_example_host_runs_no_tool_a_guard_did_not_check_under_block(host, tmp_path) -> None:
    home, project = host.make_demo_tree(tmp_path)
    host.add_guards_that_do_not_decide(home, project, failing="kill -KILL $$")
    told: list[str] = []
    out = host.run_session(home, project, host.GUARD_SCRIPT, ask_user=lambda d: True, unapproved="block",
                           warn=told.append)
    assert out["ran"] == [] and not (project / "notes.md").exists() and len(told) == 4
    turns = out["turns"]
    assert [t[0] for t in turns] == ["Read", "Bash", "Bash", "Write"]
    assert all(text.startswith("deny: guard ") for _, text in turns), turns
    assert "did not run (awaiting approval (not approved))" in turns[0][1]
    assert "failed (killed by signal 9); the call is blocked until it can decide" in turns[1][1]
    assert f"{project}/.claude/settings.json switches off plugin audit" in turns[3][1]


def test_resume_fails_closed_when_the_active_skill_changed(host, tmp_path) -> None:
    from wskit import HostProfile, WorkspaceCache, snapshot
    from wskit.errors import ProvenanceMismatchError
    from wskit.session.resume import restore

    home, project = host.make_demo_tree(tmp_path)
    session = snapshot(WorkspaceCache(HostProfile(name="wskit", home=home)).resolve(project))
    session.component("skill_workflows").activate("release-notes")
    state = session.state().to_json()
    skill_md = project / ".claude" / "skills" / "release-notes" / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("Read Write", "Read Write Bash"))
    with pytest.raises(ProvenanceMismatchError) as err:
        restore(state, WorkspaceCache(HostProfile(name="wskit", home=home)).resolve(project))
    assert str(skill_md) in str(err.value)


def test_the_example_runs_as_a_script() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "turn: Bash | deny: rm -rf is not allowed" in done.stdout and "resumed_ok: True" in done.stdout
    assert "guard not run for Read: hook project:" in done.stdout  # the host printed the skipped guard
    done = subprocess.run([sys.executable, str(EXAMPLE), "--guards", "block"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "guard not run for Write: hook plugin:audit:" in done.stdout and "ran: []" in done.stdout


def test_the_integration_page_names_each_step_and_the_example() -> None:
    text = (DOCS / "integrating.md").read_text()
    assert "docs/examples/agent_host.py" in text
    for call in ("snapshot(", "system_prompt(", "before_tool(", "after_tool(", "answer(", "ToolSpec(",
                 "skill_workflows.activate(", "expand_command(", "session.state()", "restore("):
        assert call in text, call
