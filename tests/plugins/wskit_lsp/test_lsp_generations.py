"""Process generations (a crashed server restarted with its documents reopened, up
to the limit), child sessions sharing the parent's running servers with their own
documents, and the LSP tool offered only while a server runs."""

from __future__ import annotations

import os
import signal
import time

import pytest

from .conftest import alive, lsp_def, pids, wait_dead


def test_crash_mid_request_restarts_a_new_generation_with_documents_reopened(session_for, tmp_path):
    pid_file = tmp_path / "pids"
    s = session_for(lsp_def(pid_file=pid_file, env={"CRASH_ONCE": str(tmp_path / "crashed"), "VERSIONED": "1"}))
    s.lsp.did_open("app.py")
    s.lsp.did_change("app.py", "crash = 1  # TODO after\n")
    assert s.lsp.running()["user:pyls"]["generation"] == 1
    # the server exits while answering: the call is retried on generation 2, which has the document
    assert s.lsp.hover("app.py", 0, 1) == "crash @ exec-root (cwd exec-root)"
    info = s.lsp.running()["user:pyls"]
    assert info["generation"] == 2 and info["restarts"] == 1 and info["documents"] == 1
    first, second = pids(pid_file)
    assert wait_dead(first) and info["pid"] == second
    # reopened at its current version, and its diagnostics are those of that text
    assert s.lsp.version("app.py") == 2
    assert [d["message"] for d in s.lsp.diagnostics("app.py", wait=10)] == [
        "TODO left in code: crash = 1  # TODO after"]


def test_no_restart_when_restart_on_crash_is_false(session_for, tmp_path):
    from wskit_lsp import LspError

    pid_file = tmp_path / "pids"
    s = session_for(lsp_def(pid_file=pid_file, restart_on_crash=False))
    s.lsp.did_open("app.py")
    os.kill(pids(pid_file)[0], signal.SIGKILL)
    assert wait_dead(pids(pid_file)[0])
    with pytest.raises(LspError, match="restartOnCrash is false"):
        s.lsp.hover("app.py", 0, 1)
    assert len(pids(pid_file)) == 1


def test_child_session_shares_the_parents_server_with_its_own_documents(session_for, tmp_path):
    from wskit_lsp import LspError

    pid_file = tmp_path / "pids"
    parent = session_for(lsp_def(pid_file=pid_file))
    root = parent.binding.execution_root
    (root / "other.py").write_text("other = 1\n", encoding="utf-8")
    parent.lsp.did_open("app.py")
    child = parent.child()
    assert child.parent is parent and child.lsp.shared and not parent.lsp.shared
    assert child.lsp.hover("other.py", 0, 1) == "other @ exec-root (cwd exec-root)"  # opened by the child
    assert len(pids(pid_file)) == 1                                                 # no second server
    assert child.lsp.running()["user:pyls"]["pid"] == parent.lsp.running()["user:pyls"]["pid"]
    assert parent.lsp.documents() == {"app.py": 1} and child.lsp.documents() == {"other.py": 1}
    child.lsp.did_open("app.py")
    child.lsp.did_close("app.py")                       # the parent still has it open
    assert parent.lsp.hover("app.py", 1, 2) == "value @ exec-root (cwd exec-root)"
    assert child.close() == []                          # a child stops no server
    pid = pids(pid_file)[0]
    assert alive(pid) and parent.lsp.documents() == {"app.py": 1}
    assert parent.lsp.running()["user:pyls"]["documents"] == 1   # the child's other.py was closed
    grandchild = parent.child()
    assert grandchild.lsp.hover("app.py", 1, 2).startswith("value @")
    parent.close()                                      # the owner stops the servers for everyone
    assert wait_dead(pid)
    with pytest.raises(LspError):
        grandchild.lsp.hover("app.py", 1, 2)


def test_child_with_another_execution_root_gets_its_own_servers(session_for, tmp_path):
    from wskit.binding import Binding
    from wskit.session import snapshot

    pid_file = tmp_path / "pids"
    parent = session_for(lsp_def(pid_file=pid_file))
    parent.lsp.did_open("app.py")
    other = tmp_path / "worktree"
    other.mkdir()
    (other / "app.py").write_text("wt = 1\n", encoding="utf-8")
    kid = snapshot(parent, Binding(source_root=parent.binding.source_root, execution_root=other, cwd=other,
                                   worktree=True))
    assert kid.parent is None and not kid.lsp.shared
    assert kid.lsp.hover("app.py", 0, 1) == "wt @ worktree (cwd worktree)"
    assert len(pids(pid_file)) == 2
    kid.close()
    assert wait_dead(pids(pid_file)[1])


def test_lsp_tool_is_offered_only_while_a_server_runs(session_for, tmp_path):
    pid_file = tmp_path / "pids"
    s = session_for(lsp_def(pid_file=pid_file, max_restarts=0))
    assert s.lsp.tool_definitions() == []
    s.lsp.did_open("app.py")
    (tool,) = s.lsp.tool_definitions()
    assert tool["name"] == "LSP" and ".py" in tool["description"]
    assert tool["input_schema"]["properties"]["operation"]["enum"] == ["hover"]   # all the test server offers
    assert "query" not in tool["input_schema"]["properties"]
    ok = s.lsp.call_tool("LSP", {"operation": "hover", "filePath": "app.py", "line": 2, "character": 3})
    assert ok == {"is_error": False, "text": "value @ exec-root (cwd exec-root)"}
    bad = s.lsp.call_tool("LSP", {"operation": "goToDefinition", "filePath": "app.py", "line": 1, "character": 1})
    assert bad["is_error"] and "must be one of hover" in bad["text"]
    txt = s.lsp.call_tool("LSP", {"operation": "hover", "filePath": "notes.txt", "line": 1, "character": 1})
    assert txt["is_error"] and "no language server is running for .txt" in txt["text"]
    zero = s.lsp.call_tool("LSP", {"operation": "hover", "filePath": "app.py", "line": 0, "character": 1})
    assert zero["is_error"] and "line must be an integer of at least 1" in zero["text"]
    os.kill(pids(pid_file)[0], signal.SIGKILL)
    assert wait_dead(pids(pid_file)[0])
    deadline = time.monotonic() + 10                    # the exit is seen once the loop reaps it
    while s.lsp.tool_definitions() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert s.lsp.tool_definitions() == []               # it died, past its restart limit of 0
