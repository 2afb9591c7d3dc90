"""``/name args`` in a framework's prompt (wskit.integrations.commands, the adapters' shared
step): expanded through the session's commands as Claude Code expands a slash command; a
prompt that is not a command call is left as it is. Real files, the real commands built-in."""

from __future__ import annotations

import json
from pathlib import Path

from wskit import HostProfile, TrustStore, WorkspaceCache, snapshot
from wskit.integrations.commands import expand_prompt
from wskit.session import SessionResources


def _session(tmp_path: Path, commands: dict[str, str]) -> SessionResources:
    home, project = tmp_path / "home", tmp_path / "project"
    files = {home / ".claude" / "settings.json": "{}", project / ".git" / "HEAD": "ref: refs/heads/main\n",
             project / ".claude" / "settings.json": json.dumps({})}
    files.update({project / rel: text for rel, text in commands.items()})
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    TrustStore.for_home(home).grant(project)
    return snapshot(WorkspaceCache(HostProfile(name="wskit", home=home)).resolve(project))


def test_a_command_call_expands_with_its_arguments(tmp_path) -> None:
    session = _session(tmp_path, {".claude/commands/ship.md": "Ship version $0 ($ARGUMENTS).\n"})
    done = expand_prompt(session, '/ship 1.2 "with notes"')
    assert done.expanded and done.command == session.get("command", "ship").id
    assert done.prompt == "Ship version 1.2 (1.2 with notes).\n" and done.arguments == '1.2 "with notes"'
    # without arguments; a tab or newline ends the name as a space does
    assert expand_prompt(session, "/ship").prompt == "Ship version $0 ().\n"
    assert expand_prompt(session, "/ship\t2.0").prompt == "Ship version 2.0 (2.0).\n"


def test_a_prompt_that_is_not_a_command_call_is_left_as_it_is(tmp_path) -> None:
    session = _session(tmp_path, {".claude/commands/ship.md": "Ship it.\n"})
    for prompt in ("ship it", " /ship", "/", "/usr/bin is empty", "/unknown thing", "/ship/x"):
        done = expand_prompt(session, prompt)
        assert (done.prompt, done.command, done.expanded) == (prompt, None, False)


def test_the_expansion_keeps_its_diagnostics_and_runs_no_shell(tmp_path) -> None:
    marker = tmp_path / "ran"
    session = _session(tmp_path, {".claude/commands/st.md": f"Status: !`touch {marker}`\n@missing.txt\n"})
    done = expand_prompt(session, "/st")
    assert done.expanded and not marker.exists()
    assert done.diagnostics and all(d.path or d.message for d in done.diagnostics)
