"""wskit ``--host claude`` installs and loads the plugins whose names Claude Code's
validator reserves, as Claude Code 2.1.337 did when asked again
(:mod:`tests.conformance.reserved_names`, ``reserved_names_recorded.json``): a marketplace
the user added, ``plugin install`` of each, what the init line then lists.
``WSKIT_HOST_ORACLES=1`` asks the installed Claude Code too."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conformance.reserved_names import CORPUS, NAMES, RECORDED_FILE, ask_claude, wskit_answer

RECORDED = json.loads(RECORDED_FILE.read_text())
LIVE = os.environ.get("WSKIT_HOST_ORACLES") == "1"
pytestmark = pytest.mark.corpus


def test_the_recording_is_claude_codes_and_installs_every_name():
    assert RECORDED["host"] == "claude" and RECORDED["version"].count(".") == 2
    assert RECORDED["answer"]["installed"] == {n: 0 for n in NAMES}
    assert RECORDED["answer"]["plugins"] == sorted(NAMES)


def test_wskit_installs_and_loads_them_as_claude_code_did(tmp_path: Path):
    if not CORPUS.is_dir():
        pytest.skip("shared/corpus is not available")
    expected = RECORDED["answer"]
    if LIVE:
        from tests.conformance import oracles

        if oracles.binary("claude") is None:
            pytest.skip("claude is not installed")
        assert ask_claude(tmp_path / "host") == expected, "Claude Code answers otherwise than the recording"
    assert wskit_answer(tmp_path / "wskit") == expected
