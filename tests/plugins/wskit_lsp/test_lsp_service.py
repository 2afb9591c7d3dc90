"""A real pygls language server driven through the session: start on first
didOpen, initialise with the execution root, hover, diagnostics, restart up to
the limit, shutdown with the session (no process left running)."""

from __future__ import annotations

import os
import signal

import pytest

from .conftest import lsp_def, pids, wait_dead


def test_round_trip_started_on_first_did_open(session_for, tmp_path):
    pid_file = tmp_path / "pids"
    s = session_for(lsp_def(pid_file=pid_file))
    assert s.lsp.did_open("notes.txt") is None  # no server serves .txt
    assert pids(pid_file) == []
    assert s.lsp.did_open("app.py") == "user:pyls"
    assert len(pids(pid_file)) == 1
    assert s.lsp.hover("app.py", 1, 2) == "value @ exec-root (cwd exec-root)"
    diags = s.lsp.diagnostics("app.py", wait=5)
    assert diags == [{"line": 1, "character": 13, "message": "TODO left in code: value = 1  # TODO fix", "severity": 2,
                      "source": "wskit-test", "code": "todo"}]
    pid = pids(pid_file)[0]
    s.close()
    assert wait_dead(pid), "language server left running after session.close()"


def test_restart_up_to_the_limit(session_for, tmp_path):
    from wskit_lsp import LspError

    pid_file = tmp_path / "pids"
    s = session_for(lsp_def(pid_file=pid_file, max_restarts=1))
    s.lsp.did_open("app.py")
    first = pids(pid_file)[0]
    os.kill(first, signal.SIGKILL)
    assert wait_dead(first)
    assert s.lsp.hover("app.py", 0, 1) == "import @ exec-root (cwd exec-root)"  # restarted, document reopened
    assert len(pids(pid_file)) == 2 and s.lsp.running()["user:pyls"]["restarts"] == 1
    second = pids(pid_file)[1]
    os.kill(second, signal.SIGKILL)
    assert wait_dead(second)
    with pytest.raises(LspError, match="restart limit"):
        s.lsp.hover("app.py", 0, 1)


def test_priority_and_disabled(session_for):
    low = lsp_def(name="low", priority=1)
    high = lsp_def(name="high", priority=5)
    off = lsp_def(name="off", priority=9, enabled=False)
    s = session_for(low, high, off)
    assert s.lsp.server_for("x.PY").id == "user:high"


def test_file_outside_execution_root_refused(session_for, tmp_path):
    from wskit_lsp import LspError

    s = session_for(lsp_def())
    (tmp_path / "outside.py").write_text("x = 1\n")
    with pytest.raises(LspError, match="outside the execution root"):
        s.lsp.did_open(tmp_path / "outside.py")
