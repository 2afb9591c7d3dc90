"""wskit under ``--host claude`` lists, for every plugin of the published marketplace in
``../shared/corpus``, the plugin, skills, slash commands, agents and MCP servers that
Claude Code's ``system/init`` line listed for the same folder given with ``--plugin-dir``
(recorded in ``plugin_init_recorded.json`` with Claude Code's version; skipped without
the corpus). Deliberate differences are in :data:`DIFFERENT` and docs/compatibility.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.plugin_init import COMPARED, RECORDED_FILE, corpus, wskit_answer

RECORDED = json.loads(RECORDED_FILE.read_text())
ROOT = corpus()
CASES = sorted(RECORDED["cases"])

#: ``(plugin folder, field) -> why`` (rows of docs/compatibility.md, "Claude Code").
DIFFERENT = {
    ("plugins/cwc-makers", "skills"): (
        "Claude Code 2.1.337's init line lists a command whose frontmatter says "
        "`disable-model-invocation: true` under `skills` as well (checked on a plugin of four "
        "commands: only that one); wskit keeps it a command, offered as /cwc-makers:maker-setup"),
}


def test_the_recording_names_its_host_and_covers_the_whole_marketplace():
    assert RECORDED["host"] == "claude" and RECORDED["version"].count(".") == 2
    if ROOT is not None:
        from tests.conformance.plugin_init import plugin_folders

        assert set(CASES) == set(plugin_folders(ROOT))
    assert len(CASES) >= 50


@pytest.mark.skipif(ROOT is None, reason="../shared/corpus is absent")
@pytest.mark.parametrize("rel", CASES)
def test_wskit_lists_what_claude_codes_init_line_listed(rel, tmp_path: Path):
    expected = RECORDED["cases"][rel]
    got = wskit_answer(ROOT / rel, tmp_path)
    # MCP status: offline every server of the init line is ``failed`` (its program is not on
    # PATH), so only one direction says something: what wskit finds not startable, Claude Code
    # reported failed too
    for name in got["mcp_not_startable"]:
        assert expected["mcp_status"][name] == "failed", f"{rel}: {name} is not startable in wskit"
    for field in COMPARED:
        if (rel, field) in DIFFERENT:
            assert got[field] != expected[field], f"{rel} {field} is listed as different but now agrees"
        else:
            assert got[field] == expected[field], f"{rel}: {field}"


def test_every_difference_is_in_the_compatibility_page():
    page = (Path(__file__).parents[2] / "docs" / "compatibility.md").read_text()
    for (rel, _field) in DIFFERENT:
        assert f"`{rel}`" in page
