"""wskit's Bash allow rules against Claude Code's verdicts (:mod:`tests.conformance.bash_rules`).

Default run: the recording in ``bash_recorded.json``. With ``WSKIT_HOST_ORACLES=1`` the
installed Claude Code is asked too and a drift from the recording fails.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conformance import oracles
from tests.conformance.bash_rules import CASES, ask_claude, load, wskit_verdict

RECORDED = load()
LIVE = os.environ.get("WSKIT_HOST_ORACLES") == "1"


@pytest.mark.parametrize(("cid", "rules", "command"), CASES, ids=[c[0] for c in CASES])
def test_wskit_allows_what_claude_code_allows(cid, rules, command, tmp_path: Path):
    entry = RECORDED["claude"]
    assert entry["version"].count(".") == 2
    expected = entry["cases"][cid]
    if LIVE:
        if oracles.binary("claude") is None:
            pytest.skip("claude is not installed")
        assert ask_claude(rules, command) == expected
    assert wskit_verdict(rules, command, tmp_path) == expected
