"""A user's Bash deny rule against spellings of the denied command: wskit against Claude
Code's verdicts (:mod:`tests.conformance.bash_deny`).

Default run: the recording in ``bash_deny_recorded.json``. With ``WSKIT_HOST_ORACLES=1``
the installed Claude Code is asked too and a drift from the recording fails.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conformance import oracles
from tests.conformance.bash_deny import CASES, STRICTER, ask_claude, load, wskit_verdict

RECORDED = load()
LIVE = os.environ.get("WSKIT_HOST_ORACLES") == "1"


def test_every_case_is_recorded():
    entry = RECORDED["claude"]
    assert entry["version"].count(".") == 2
    assert set(entry["cases"]) == {c[0] for c in CASES}
    assert set(STRICTER) <= set(entry["cases"])
    # Claude Code never lets a spelling of the denied command run
    assert {cid for cid, v in entry["cases"].items() if v == "allow"} == {"other"}


@pytest.mark.parametrize(("cid", "command"), CASES, ids=[c[0] for c in CASES])
def test_wskit_denies_what_claude_code_denies(cid, command, tmp_path: Path):
    expected = RECORDED["claude"]["cases"][cid]
    if LIVE:
        if oracles.binary("claude") is None:
            pytest.skip("claude is not installed")
        assert ask_claude(command) == expected
    got = wskit_verdict(command, tmp_path)
    if cid in STRICTER:  # docs/compatibility.md: wskit denies where Claude Code asks
        assert (expected, got) == ("ask", "deny")
    else:
        assert got == expected
