"""Whether a project's ``enabledPlugins: {"guard@mk": false}`` switches off the hooks of a
plugin the user enabled: wskit against Claude Code's answers
(:mod:`tests.conformance.plugin_guard_off`). wskit agrees on what runs; where the switch is
the project's, the user's guard it switched off is reported ``switched-off`` (not decided)
rather than silently (docs/compatibility.md)."""

from __future__ import annotations

import json

import pytest

from tests.conformance.plugin_guard_off import CASES, load, setup

RECORDED = load()


def test_every_case_is_recorded():
    entry = RECORDED["claude"]
    assert entry["version"].count(".") == 2 and set(entry["cases"]) == {c[0] for c in CASES}


@pytest.mark.parametrize(("cid", "where"), CASES, ids=[c[0] for c in CASES])
def test_wskit_runs_the_plugins_hook_when_claude_code_does(cid, where, wsctl, wskit_home, tmp_path):
    home, project, marker = setup(tmp_path, where)
    assert home == wskit_home  # the case's home is the test's scratch home
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    st = json.loads(wsctl("hooks", "status", str(project), json=True).stdout)
    if st["digest"]:  # a plugin's hooks run once approved (docs/hooks.md): approve what awaits
        assert wsctl("hooks", "trust", str(project), "--digest", st["digest"]).exit_code == 0
    r = wsctl("hooks", "run", "UserPromptSubmit", str(project), json=True)
    data = json.loads(r.stdout)
    answer = "ran" if marker.exists() else "off"
    assert answer == RECORDED["claude"]["cases"][cid], r.output
    states = [s["state"] for s in data["skipped"]]
    if where is None:
        assert states == [] and r.exit_code == 0
    elif where.startswith("project:"):  # off as in Claude Code, but never silently
        assert states == ["switched-off"] and data["undecided"] == 1 and r.exit_code == 3
        assert where.split(":", 1)[1] in data["skipped"][0]["message"]
    else:  # the user's own switch: a decision, the plugin is not loaded
        assert states == [] and data["undecided"] == 0 and r.exit_code == 0
    # the plugin's command follows the host either way: off whenever the plugin is
    commands = json.loads(wsctl("commands", "list", str(project), json=True).stdout)
    assert ("guard:c-guard" in json.dumps(commands)) == (where is None)
