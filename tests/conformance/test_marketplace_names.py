"""wskit gives every marketplace name of ``marketplace_names_recorded.json`` the verdict
Claude Code 2.1.332 gave a local folder of that name: ``wsctl plugins validate DIR``
passes where ``claude plugin validate DIR`` passed, ``wsctl plugins install p1@NAME
--from DIR`` installs where ``claude plugin marketplace add DIR`` added it, and a refusal
names the marketplace file and says Claude Code's rule in its words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.marketplace_names import NAMES, RECORDED_FILE, lay_out

RECORDED = json.loads(RECORDED_FILE.read_text())


def test_the_recording_names_its_host_and_covers_every_name():
    assert RECORDED["host"] == "claude" and RECORDED["version"].count(".") == 2
    assert set(RECORDED["verdicts"]) == set(NAMES)
    oks = [v["add"]["ok"] for v in RECORDED["verdicts"].values()]
    assert True in oks and False in oks


@pytest.mark.parametrize("name", NAMES)
def test_wskit_gives_the_verdict_claude_code_gave(name, wsctl, tmp_path: Path):
    expected = RECORDED["verdicts"][name]
    d = lay_out(tmp_path, name)
    res = wsctl("plugins", "validate", str(d), json=True)
    data = json.loads(res.output)
    assert data["ok"] is expected["validate"]["ok"], data["diagnostics"]
    if not expected["validate"]["ok"]:
        refused = [x for x in data["diagnostics"] if x["code"] == "marketplace-name-reserved"]
        assert refused and expected["validate"]["error"] in refused[0]["message"]
        assert refused[0]["path"].endswith(".claude-plugin/marketplace.json")
    res = wsctl("plugins", "install", f"p1@{name}", "--from", str(d))
    assert (res.exit_code == 0) is expected["add"]["ok"], res.output
    if not expected["add"]["ok"]:
        assert expected["add"]["error"] in res.output and "marketplace.json" in res.output
        assert "nothing installed" in res.output
