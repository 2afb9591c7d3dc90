"""wskit ``--host claude`` against Claude Code on the instruction files added when a file
below the cwd is read (:mod:`tests.conformance.contextual`).

Default run: the recording in ``contextual_recorded.json``. With ``WSKIT_HOST_ORACLES=1``
the installed Claude Code is asked too and a drift from the recording fails.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conformance import oracles
from tests.conformance.contextual import CASES, OPENCODE_CASES, ask_case, ask_opencode_case, load, wskit_contextual

RECORDED = load()
LIVE = os.environ.get("WSKIT_HOST_ORACLES") == "1"


@pytest.mark.parametrize(("case", "target"), CASES, ids=[c.id for c, _ in CASES])
def test_wskit_adds_what_claude_code_added(case, target, tmp_path: Path):
    entry = RECORDED["claude"]
    assert entry["version"].count(".") == 2
    expected = entry["cases"][case.id]
    if LIVE:
        if oracles.binary("claude") is None:
            pytest.skip("claude is not installed")
        assert ask_case(case, target) == expected
    assert wskit_contextual(case, target, "claude", tmp_path) == expected


def test_the_default_host_adds_every_name(tmp_path: Path):
    """Host ``wskit`` keeps its cross-tool union below the cwd too: the folder's
    ``AGENTS.md`` beside its ``CLAUDE.md``, whatever the root holds."""
    case, target = next((c, t) for c, t in CASES if c.id == "ctx-both-in-one-folder")
    assert wskit_contextual(case, target, "wskit", tmp_path) == ["pkg/CLAUDE.md", "pkg/AGENTS.md",
                                                                 "pkg/sub/AGENTS.md"]


@pytest.mark.parametrize(("case", "target"), OPENCODE_CASES, ids=[c.id for c, _ in OPENCODE_CASES])
def test_wskit_adds_what_opencode_added(case, target, tmp_path: Path):
    """opencode 1.18.33 adds, per folder between the cwd and the file read, the first of its
    names (``AGENTS.md``, ``CLAUDE.md``, ``CONTEXT.md``), nearest first (issue 34 item 6)."""
    entry = RECORDED["opencode"]
    assert entry["version"].count(".") == 2
    expected = entry["cases"][case.id]
    if LIVE:
        if oracles.binary("opencode") is None:
            pytest.skip("opencode is not installed")
        assert ask_opencode_case(case, target) == expected
    assert wskit_contextual(case, target, "opencode", tmp_path) == expected
