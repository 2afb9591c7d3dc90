"""Two plugins whose hooks have the same command text: wskit runs both, as Claude Code does
(:mod:`tests.conformance.same_hook_text`); the text is the same, the programs are not
(``${CLAUDE_PLUGIN_ROOT}`` differs)."""

from __future__ import annotations

import json

from tests.conformance.same_hook_text import PLUGINS, answer, load, setup

RECORDED = load()


def test_the_case_is_recorded():
    entry = RECORDED["claude"]
    assert entry["version"].count(".") == 2 and set(entry["cases"]) == {"two-plugins-same-text"}


def test_wskit_runs_what_claude_code_runs(wsctl, wskit_home, tmp_path):
    home, project, _ = setup(tmp_path)
    assert home == wskit_home
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    st = json.loads(wsctl("hooks", "status", str(project), json=True).stdout)
    if st["digest"]:  # a plugin's hooks run once approved (docs/hooks.md)
        assert wsctl("hooks", "trust", str(project), "--digest", st["digest"]).exit_code == 0
    r = wsctl("hooks", "run", "UserPromptSubmit", str(project), json=True)
    assert answer(tmp_path) == RECORDED["claude"]["cases"]["two-plugins-same-text"], r.output
    ran = sorted(x["hook_id"].split(":")[1] for x in json.loads(r.stdout)["results"])
    assert ran == sorted(PLUGINS)
