"""wskit under ``--host claude`` loads the plugins Claude Code's ``system/init`` line listed
for each case of :mod:`tests.conformance.plugin_settings`: enablement through
``extraKnownMarketplaces`` directory sources and ``known_marketplaces.json`` with
``enabledPlugins`` in user, project or local settings (no ``claude plugin install``), and a
manifest Claude Code rejects. Recorded in ``plugin_settings_recorded.json`` with Claude
Code's version; a case wskit deliberately answers otherwise is in :data:`DIFFERENT` and
docs/compatibility.md. With ``WSKIT_HOST_ORACLES=1`` the installed Claude Code is asked too."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conformance.plugin_settings import CASES, COMPARED, RECORDED_FILE, ask_claude, wskit_answer

RECORDED = json.loads(RECORDED_FILE.read_text())
LIVE = os.environ.get("WSKIT_HOST_ORACLES") == "1"

#: case id -> why (a row of docs/compatibility.md, "Claude Code")
DIFFERENT = {
    "extra-project-trusted": (
        "a project's own extraKnownMarketplaces is not read: a cloned repository would add a marketplace "
        "inside itself and enable its own plugins by folder trust alone; the user's settings or "
        "known_marketplaces.json must know the marketplace"),
    "no-manifest-bad-name": (
        "a plugin name must be kebab-case (it becomes the namespace of everything the plugin brings, "
        "an enabledPlugins key and an install folder): a folder named otherwise without a manifest is "
        "refused with manifest-invalid-name"),
}


def test_the_recording_names_its_host_and_covers_every_case():
    assert RECORDED["host"] == "claude" and RECORDED["version"].count(".") == 2
    assert set(RECORDED["cases"]) == {c.id for c in CASES}
    loaded = [c for c, a in RECORDED["cases"].items() if a["plugins"]]
    assert loaded and len(loaded) < len(CASES)  # the cases tell loading from not loading


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_wskit_loads_the_plugins_claude_code_loaded(case, tmp_path: Path):
    expected = {k: RECORDED["cases"][case.id][k] for k in COMPARED}
    if LIVE:
        from tests.conformance import oracles

        if oracles.binary("claude") is None:
            pytest.skip("claude is not installed")
        assert ask_claude(case, tmp_path / "host") == expected, "Claude Code answers otherwise than the recording"
    got = wskit_answer(case, tmp_path / "wskit")
    if case.id in DIFFERENT:
        assert got != expected, f"{case.id} is listed as a deliberate difference but now agrees"
        assert got["plugins"] == []
        return
    assert got == expected


def test_every_difference_is_in_the_compatibility_page():
    page = (Path(__file__).parents[2] / "docs" / "compatibility.md").read_text()
    for case_id in DIFFERENT:
        assert f"`{case_id}`" in page
