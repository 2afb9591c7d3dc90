"""Whose hooks a project's ``disableAllHooks`` or ``enabledPlugins`` switches off: wskit
against Claude Code's answers (:mod:`tests.conformance.disable_all_hooks`). wskit agrees on
what runs; where the switch is the project's, the user's guard it switched off is reported
``switched-off`` (not decided) rather than silently (docs/compatibility.md)."""

from __future__ import annotations

import json

import pytest

from tests.conformance.disable_all_hooks import CASES, load, plugin_setup, setup

RECORDED = load()
PLUGIN_RECORDED = load(plugin=True)


@pytest.mark.parametrize("recorded", [RECORDED, PLUGIN_RECORDED], ids=["disable-all-hooks", "plugin-guard-off"])
def test_every_case_is_recorded(recorded):
    entry = recorded["claude"]
    assert entry["version"].count(".") == 2 and set(entry["cases"]) == {c[0] for c in CASES}


def _run(wsctl, project, marker, recorded: dict, cid: str):
    r = wsctl("hooks", "run", "UserPromptSubmit", str(project), json=True)
    answer = "ran" if marker.exists() else "off"
    assert answer == recorded["claude"]["cases"][cid], r.output
    data = json.loads(r.stdout)
    return r, data, [s["state"] for s in data["skipped"]]


@pytest.mark.parametrize(("cid", "where"), CASES, ids=[c[0] for c in CASES])
def test_wskit_runs_the_users_hook_when_claude_code_does(cid, where, wsctl, wskit_home, tmp_path):
    home, project, marker = setup(tmp_path, where)
    assert home == wskit_home  # the case's home is the test's scratch home
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    r, data, states = _run(wsctl, project, marker, RECORDED, cid)
    if where is None:
        assert states == [] and r.exit_code == 0
    elif where.startswith("project:"):  # off as in Claude Code, but never silently
        assert states == ["switched-off"] and data["undecided"] == 1 and r.exit_code == 3
    else:  # the user's own switch: a decision
        assert states == ["disabled"] and data["undecided"] == 0 and r.exit_code == 0


@pytest.mark.parametrize(("cid", "where"), CASES, ids=[c[0] for c in CASES])
def test_wskit_runs_the_plugins_hook_when_claude_code_does(cid, where, wsctl, wskit_home, tmp_path):
    home, project, marker = plugin_setup(tmp_path, where)
    assert home == wskit_home
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    st = json.loads(wsctl("hooks", "status", str(project), json=True).stdout)
    if st["digest"]:  # a plugin's hooks run once approved (docs/hooks.md): approve what awaits
        assert wsctl("hooks", "trust", str(project), "--digest", st["digest"]).exit_code == 0
    r, data, states = _run(wsctl, project, marker, PLUGIN_RECORDED, cid)
    if where is None:
        assert states == [] and r.exit_code == 0
    elif where.startswith("project:"):  # off as in Claude Code, but never silently, the file named
        assert states == ["switched-off"] and data["undecided"] == 1 and r.exit_code == 3
        assert where.split(":", 1)[1] in data["skipped"][0]["message"]
    else:  # the user's own switch: a decision, the plugin is not loaded
        assert states == [] and data["undecided"] == 0 and r.exit_code == 0
    # the plugin's command follows the host either way: off whenever the plugin is
    commands = json.dumps(json.loads(wsctl("commands", "list", str(project), json=True).stdout))
    assert ("guard:c-guard" in commands) == (where is None)
