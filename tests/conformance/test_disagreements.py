"""wskit ``--host claude`` against Claude Code 2.1.337's recorded answers to issue 34's
disagreements (:mod:`tests.conformance.disagreements`). A case wskit deliberately answers
otherwise is in :data:`DIFFERENT`, with its reason, and in docs/compatibility.md."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conformance import oracles
from tests.conformance.disagreements import CASES, ask_claude, load, wskit_answer

RECORDED = load()
LIVE = os.environ.get("WSKIT_HOST_ORACLES") == "1"

#: case id -> why wskit answers otherwise (each a row of docs/compatibility.md)
DIFFERENT: dict[str, str] = {}


def _project(answer: dict, case) -> dict:
    out = {k: answer.get(k, [] if k != "prompt_listing" else {}) for k in case.compare}
    if "mcp" in out and case.id == "claude-json-mcpjson-choices":
        # Claude Code could start none of them (no such program): compared are the names it lists
        out["mcp"] = sorted(n for n, _status in out["mcp"])
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_wskit_answers_as_claude_code_did(case, tmp_path: Path):
    entry = RECORDED["claude"]
    assert entry["version"].count(".") == 2
    expected = _project(entry["cases"][case.id], case)
    if LIVE:
        if oracles.binary("claude") is None:
            pytest.skip("claude is not installed")
        assert _project(ask_claude(case), case) == expected, "Claude Code answers otherwise than recorded"
    got = _project(wskit_answer(case, tmp_path), case)
    if case.id in DIFFERENT:
        assert got != expected
        return
    assert got == expected


def test_every_difference_is_in_the_compatibility_page():
    page = (Path(__file__).parents[2] / "docs" / "compatibility.md").read_text()
    for cid in DIFFERENT:
        assert f"`{cid}`" in page
