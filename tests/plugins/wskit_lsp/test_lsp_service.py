"""A real pygls language server driven through the session: start on first
didOpen, initialise with the execution root, hover, diagnostics, restart up to
the limit, shutdown with the session (no process left running)."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from wskit.binding import Binding
from wskit.plugin.facade import WskitHooks
from wskit.plugin.manager import make_plugin_manager
from wskit.resources.servers import LspServer
from wskit.session.build import provenance, session_from_resources

SERVER = Path(__file__).resolve().parent / "lsp_server.py"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def wait_dead(pid: int) -> bool:
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def lsp_def(name="pyls", pid_file=None, **fields) -> LspServer:
    fields.setdefault("extension_to_language", {".py": "python"})
    env = {"PID_FILE": str(pid_file)} if pid_file else {}
    prov = provenance("user", "/home", ".lsp.json", {name: fields})
    return LspServer(id=f"user:{name}", name=name, command=sys.executable, args=(str(SERVER),), env=env,
                     provenance=prov, **fields)


@pytest.fixture
def session_for(tmp_path: Path):
    import wskit_lsp

    pm = make_plugin_manager(load_entrypoints=False, env={})
    if not pm.is_registered(wskit_lsp):
        pm.register(wskit_lsp, name="lsp-client")
    src, exe = tmp_path / "src", tmp_path / "exec-root"
    src.mkdir()
    exe.mkdir()
    (exe / "app.py").write_text("import os\nvalue = 1  # TODO fix\n", encoding="utf-8")
    (exe / "notes.txt").write_text("plain\n", encoding="utf-8")
    made = []

    def _make(*defs):
        s = session_from_resources(Binding(source_root=src, execution_root=exe, cwd=exe, worktree=True), defs,
                                   hooks=WskitHooks(pm))
        made.append(s)
        return s

    yield _make
    for s in made:
        s.close()


def pids(pid_file: Path) -> list[int]:
    return [int(x) for x in pid_file.read_text().split()] if pid_file.exists() else []


def test_round_trip_started_on_first_did_open(session_for, tmp_path):
    pid_file = tmp_path / "pids"
    s = session_for(lsp_def(pid_file=pid_file))
    assert s.lsp.did_open("notes.txt") is None  # no server serves .txt
    assert pids(pid_file) == []
    assert s.lsp.did_open("app.py") == "user:pyls"
    assert len(pids(pid_file)) == 1
    assert s.lsp.hover("app.py", 1, 2) == "value @ exec-root (cwd exec-root)"
    diags = s.lsp.diagnostics("app.py", wait=5)
    assert diags == [{"line": 1, "character": 13, "message": "TODO left in code", "severity": 2, "source": "wskit-test"}]
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
