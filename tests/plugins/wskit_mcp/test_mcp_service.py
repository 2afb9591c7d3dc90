"""MCP round trips with real servers: stdio (a subprocess the session starts)
and streamable HTTP on loopback; cwd and roots are the execution root; close
stops every server process."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.process_helpers import alive, free_port, start_listening, wait_listening
from wskit.binding import Binding
from wskit.plugin.facade import WskitHooks
from wskit.plugin.manager import make_plugin_manager
from wskit.resources.servers import McpServer
from wskit.session.build import provenance, session_from_resources
from wskit.session.runtime import RuntimeOptions, attach

HERE = Path(__file__).resolve().parent
SERVER = HERE / "mcp_server.py"


def mcp_def(name: str, scope: str = "user", **fields) -> McpServer:
    prov = provenance(scope, "/src", ".mcp.json", {name: fields})
    return McpServer(id=f"{scope}:{name}", name=name, alias=name, provenance=prov, **fields)


@pytest.fixture
def hooks_facade():
    import wskit_mcp

    pm = make_plugin_manager(load_entrypoints=False, env={})
    if not pm.is_registered(wskit_mcp):
        pm.register(wskit_mcp, name="mcp-client")
    return WskitHooks(pm)


@pytest.fixture
def worktree(tmp_path: Path):
    """A session whose execution root (a worktree) differs from its source project."""
    src, exe = tmp_path / "src", tmp_path / "wt"
    src.mkdir()
    (exe / "sub").mkdir(parents=True)
    return Binding(source_root=src, execution_root=exe, cwd=exe, worktree=True)


def test_stdio_round_trip_cwd_roots_and_close(worktree, hooks_facade, tmp_path):
    pid_file = tmp_path / "server.pid"
    d = mcp_def("tester", command=sys.executable, args=(str(SERVER),), env={"PID_FILE": str(pid_file)})
    s = session_from_resources(worktree, [d], hooks=hooks_facade)
    attach(s, RuntimeOptions(env={"SESSION_VAR": "from-session"}))
    assert s.runtime.started() == []  # nothing starts before it is asked for
    tools = {t["name"]: t for t in s.mcp.list_tools("tester")}
    assert set(tools) >= {"echo", "where", "roots", "env"}
    assert tools["echo"]["input_schema"]["properties"]["text"]["type"] == "string"
    assert s.mcp.call_tool("tester", "echo", {"text": "abc"})["text"] == "cba"
    assert s.mcp.call_tool("user:tester", "where")["text"] == str(worktree.execution_root)
    assert s.mcp.call_tool("tester", "roots")["text"] == worktree.execution_root.as_uri()
    assert s.mcp.call_tool("tester", "env", {"name": "SESSION_VAR"})["text"] == "from-session"
    pid = int(pid_file.read_text())
    assert alive(pid)
    assert s.close() == []
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pid), "MCP server process left running after session.close()"
    assert s.close() == []  # idempotent


def test_relative_cwd_is_resolved_against_execution_root(worktree, hooks_facade):
    d = mcp_def("tester", command=sys.executable, args=(str(SERVER),), cwd="sub")
    s = session_from_resources(worktree, [d], hooks=hooks_facade)
    try:
        assert s.mcp.call_tool("tester", "where")["text"] == str(worktree.execution_root / "sub")
    finally:
        s.close()


def test_unknown_server_and_bad_command(worktree, hooks_facade):
    from wskit.errors import UnknownResourceError
    from wskit_mcp import McpConnectError

    d = mcp_def("broken", command="/nonexistent/mcp-server-binary")
    s = session_from_resources(worktree, [d], hooks=hooks_facade)
    try:
        with pytest.raises(UnknownResourceError):
            s.mcp.connect("nope")
        with pytest.raises(McpConnectError, match="broken"):
            s.mcp.connect("broken")
    finally:
        s.close()


def test_a_definition_with_an_undefined_variable_is_never_started(worktree, hooks_facade, tmp_path):
    """What ``wsctl mcp list`` says ("no: UNDEFINED_XYZ", and the diagnostic "the server
    will not be started") holds for ``mcp check`` too: it never tries to start it."""
    from wskit_mcp import McpConnectError

    marker = tmp_path / "started"
    d = mcp_def("needsvar", command=sys.executable, args=("-c", f"open({str(marker)!r}, 'w')"),
                unresolved=("UNDEFINED_XYZ",))
    assert not d.startable
    s = session_from_resources(worktree, [d], hooks=hooks_facade)
    try:
        with pytest.raises(McpConnectError, match="not startable: undefined UNDEFINED_XYZ"):
            s.mcp.connect("needsvar")
        assert s.mcp.connected() == []
    finally:
        s.close()
    assert not marker.exists()  # no process ran


def _serve(kind: str):
    port = free_port()
    return start_listening([sys.executable, str(SERVER), kind, str(port)], port, timeout=20), port


@pytest.fixture
def http_server():
    proc, port = _serve("http")
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    proc.wait(10)


@pytest.fixture
def sse_server():
    proc, port = _serve("sse")
    yield f"http://127.0.0.1:{port}/sse"
    proc.terminate()
    proc.wait(10)


def test_streamable_http_round_trip(worktree, hooks_facade, http_server):
    d = mcp_def("remote", transport="http", url=http_server)
    s = session_from_resources(worktree, [d], hooks=hooks_facade)
    try:
        conn = s.mcp.connect("remote")
        assert conn.server_info["name"] == "wskit-test-server"
        assert "echo" in {t["name"] for t in s.mcp.list_tools("remote")}
        assert s.mcp.call_tool("remote", "echo", {"text": "http"})["text"] == "ptth"
        assert s.mcp.call_tool("remote", "roots")["text"] == worktree.execution_root.as_uri()
    finally:
        assert s.close() == []


def test_sse_round_trip(worktree, hooks_facade, sse_server):
    d = mcp_def("legacy", transport="sse", url=sse_server)
    s = session_from_resources(worktree, [d], hooks=hooks_facade)
    try:
        assert s.mcp.call_tool("legacy", "echo", {"text": "sse"})["text"] == "ess"
    finally:
        assert s.close() == []


def test_an_http_server_that_went_away_is_reconnected_on_the_next_call(worktree, hooks_facade):
    """The HTTP endpoint dies (its session is gone with it): the call that finds it gone
    fails and marks it ``restarting``; once the endpoint is back, the next call opens a new
    session (generation 2)."""
    from wskit_mcp import McpConnectError

    proc, port = _serve("http")
    d = mcp_def("remote", transport="http", url=f"http://127.0.0.1:{port}/mcp")
    s = session_from_resources(worktree, [d], hooks=hooks_facade)
    again = None
    try:
        assert s.mcp.call_tool("remote", "echo", {"text": "ab"})["text"] == "ba"
        proc.kill()
        proc.wait()
        with pytest.raises(McpConnectError, match="restarted on the next call"):
            s.mcp.call_tool("remote", "echo", {"text": "cd"})
        assert s.mcp.status()[0].status == "restarting"
        again = subprocess.Popen([sys.executable, str(SERVER), "http", str(port)], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        assert wait_listening(port, 30, again)
        assert s.mcp.call_tool("remote", "echo", {"text": "ef"})["text"] == "fe"
        st = s.mcp.status()[0]
        assert (st.status, st.generation, st.restarts) == ("connected", 2, 1)
    finally:
        assert s.close() == []
        if again is not None:
            again.terminate()
            again.wait(10)
