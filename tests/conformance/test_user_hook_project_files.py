"""The user's own hook that runs a trusted project's file: wskit against Claude Code's answers
(:mod:`tests.conformance.user_hook_project_files`). Claude Code runs it on folder trust; wskit
makes it an entry of that project, approved on its own (docs/compatibility.md): before
approval it does not run and the call is not decided, once approved it runs as in Claude Code."""

from __future__ import annotations

import json

import pytest

from tests.conformance.user_hook_project_files import CASES, load, setup

RECORDED = load()


def test_every_case_is_recorded():
    entry = RECORDED["claude"]
    assert entry["version"].count(".") == 2 and set(entry["cases"]) == {c[0] for c in CASES}


@pytest.mark.parametrize(("cid", "command"), CASES, ids=[c[0] for c in CASES])
def test_wskit_runs_the_project_file_only_once_approved_where_claude_code_runs_it(cid, command, wsctl, wskit_home,
                                                                                  tmp_path):
    home, project, marker = setup(tmp_path, command)
    assert home == wskit_home
    assert RECORDED["claude"]["cases"][cid] == "ran"  # the difference documented
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    r = wsctl("--host", "claude", "hooks", "run", "UserPromptSubmit", str(project), json=True)
    data = json.loads(r.stdout)
    assert not marker.exists() and r.exit_code == 3, r.output
    assert [(s["state"], s["scope"]) for s in data["skipped"]] == [("awaiting", "user")]
    st = json.loads(wsctl("--host", "claude", "hooks", "status", str(project), json=True).stdout)
    assert wsctl("--host", "claude", "hooks", "trust", str(project), "--digest", st["digest"]).exit_code == 0
    r = wsctl("--host", "claude", "hooks", "run", "UserPromptSubmit", str(project), json=True)
    assert marker.exists() and r.exit_code == 0, r.output  # approved: as Claude Code
