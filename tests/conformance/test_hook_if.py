"""A hook's ``if`` on compound Bash commands: wskit against Claude Code's answers
(:mod:`tests.conformance.hook_if`).

Default run: the recording in ``hook_if_recorded.json``. With ``WSKIT_HOST_ORACLES=1``
the installed Claude Code is asked too and a drift from the recording fails.
"""

from __future__ import annotations

import os

import pytest

from tests.conformance import oracles
from tests.conformance.hook_if import CASES, STRICTER, ask_claude, load, wskit_answer

RECORDED = load()
LIVE = os.environ.get("WSKIT_HOST_ORACLES") == "1"


def test_every_case_is_recorded():
    entry = RECORDED["claude"]
    assert entry["version"].count(".") == 2
    assert set(entry["cases"]) == {c[0] for c in CASES}
    assert {"fired", "skipped"} == set(entry["cases"].values())


@pytest.mark.parametrize(("cid", "rule", "command"), CASES, ids=[c[0] for c in CASES])
def test_wskit_fires_a_hook_if_when_claude_code_does(cid, rule, command, tmp_path):
    expected = RECORDED["claude"]["cases"][cid]
    if LIVE:
        if oracles.binary("claude") is None:
            pytest.skip("claude is not installed")
        assert ask_claude(rule, command) == expected
    got = wskit_answer(rule, command, str(tmp_path))
    if cid in STRICTER:  # docs/compatibility.md: wskit's if sees through wrappers and sh -c
        assert (expected, got) == ("skipped", "fired")
    else:
        assert got == expected
