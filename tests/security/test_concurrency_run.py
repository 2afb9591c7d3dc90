"""Smoke variant of the concurrency run (:mod:`tests.security.concurrency_run`):
8 real ``wsctl`` processes for a few seconds over trust, hook trust, plugin
install/enable/disable and workspaces, 30 % of them SIGKILLed; no change whose
command exited 0 may be lost. The full 30 s run is on demand
(``python -m tests.security.concurrency_run``); its figures are in docs/security.md."""

from __future__ import annotations

from tests.security.concurrency_run import PARTIAL, _allowed, run


def test_concurrency_smoke_loses_no_acknowledged_change(tmp_path):
    res = run(procs=8, seconds=4, seed=3, root=tmp_path)
    assert res.commands >= 8
    assert res.lost == [], res.lost
    assert res.failed == 0, res.failures
    assert res.exited_0 + res.killed + res.refused == res.commands


def test_allowed_states_follow_the_last_acknowledged_change():
    """The checker itself: a killed command after the last exit 0 may have landed or not."""
    assert _allowed("trust:/x", [("trusted", "ok"), ("untrusted", "ok")]) == {"untrusted"}
    assert _allowed("trust:/x", [("trusted", "ok"), ("untrusted", "killed")]) == {"trusted", "untrusted"}
    assert _allowed("trust:/x", [("trusted", "killed")]) == {None, "trusted"}
    assert _allowed("install:p", [(True, "killed"), (False, "ok")]) == {False}
    assert _allowed("install:p", [(True, "ok"), (False, "killed")]) == {True, False, PARTIAL}
    assert _allowed("install:p", [(True, "ok"), (False, "refused")]) == {True}
