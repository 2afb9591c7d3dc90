"""Runtime faults (docs/runtime.md): hostile hooks and servers end within their
timeouts with a clear error, leave no process behind, and the session keeps
working. (Redirects, 300 KB responses and plain timeouts are covered by
tests/builtin_plugins/hooks; these are the nastier combinations.)"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.security.harness import bounded
from wskit.binding import Binding
from wskit.builtin_plugins.hooks.http import UrlPolicy
from wskit.builtin_plugins.hooks.runner import HookRunnerConfig
from wskit.resources.hooks import HookDefinition
from wskit.session.build import provenance, session_from_resources
from wskit.session.runtime import RuntimeOptions, attach
from wskit.session.testing import live_children


def _hook(event: str, name: str, **fields) -> HookDefinition:
    prov = provenance("user", Path("/nonexistent-home"), ".claude/settings.json", {"event": event, **fields})
    return HookDefinition(id=f"user:{name}", name=name, event=event, provenance=prov, **fields)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (ProcessLookupError, FileNotFoundError):
        return False


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "project"
    p.mkdir()
    return p


def _session(project: Path, *resources, hooks=None):
    b = Binding(source_root=project, execution_root=project, cwd=project)
    return session_from_resources(b, resources, hooks=hooks)


def _no_children_left(before: set[int], seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while True:
        left = {p: c for p, c in live_children().items() if p not in before}
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    for p in left:
        os.kill(p, signal.SIGKILL)
    assert not left, f"left running: {left}"


def test_hook_ignoring_sigterm_forking_and_flooding_is_killed_in_time(project):
    """The hook traps TERM, starts a grandchild that also traps TERM, and floods
    stdout: it ends as a timeout, output capped, no process survives."""
    cmd = ("trap '' TERM; sh -c 'trap \"\" TERM; echo $$ > grandchild.pid; exec sleep 300' & "
           "echo $$ > hook.pid; head -c 50000000 /dev/zero | tr '\\0' x; sleep 300")
    before = set(live_children())
    s = _session(project, _hook("PreToolUse", "nasty", command=cmd, timeout=1))
    attach(s, RuntimeOptions(hooks=HookRunnerConfig(output_cap=4096)))
    t0 = time.monotonic()
    out = bounded(lambda: s.runtime.hooks.run("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}}),
                  60)
    elapsed = time.monotonic() - t0
    r = out.results[0]
    assert r.status == "timeout", r
    assert len(r.message or "") <= 4096
    assert elapsed < 60
    for f in ("hook.pid", "grandchild.pid"):
        text = (project / f).read_text().strip() if (project / f).exists() else ""
        if text:
            pid = int(text)
            deadline = time.monotonic() + 5
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not _alive(pid), f"{f} survived"
    _no_children_left(before)
    # the session keeps working
    s2 = _session(project, _hook("PreToolUse", "fine", command="exit 0"))
    attach(s2, RuntimeOptions())
    assert s2.runtime.hooks.run("PreToolUse", {"tool_name": "Read"}).results[0].status == "success"


@pytest.fixture
def silent_server():
    """A loopback TCP server that accepts connections and never answers."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    conns = []
    stop = threading.Event()

    def accept():
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conns.append(srv.accept()[0])
            except OSError:
                continue

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.getsockname()[1]}/hook"
    stop.set()
    t.join(5)
    for c in conns:
        c.close()
    srv.close()


def test_http_hook_endpoint_that_never_answers_times_out(project, silent_server):
    s = _session(project, _hook("PreToolUse", "silent", type="http", url=silent_server, timeout=1))
    attach(s, RuntimeOptions(hooks=HookRunnerConfig(http_policy=UrlPolicy.local_testing())))
    out = bounded(lambda: s.runtime.hooks.run("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}}),
                  30)
    r = out.results[0]
    assert r.status in ("timeout", "error"), r
    assert not out.blocked or out.reason


@pytest.fixture
def mcp_hooks():
    wskit_mcp = pytest.importorskip("wskit_mcp")
    from wskit.plugin.facade import WskitHooks
    from wskit.plugin.manager import make_plugin_manager

    pm = make_plugin_manager(load_entrypoints=False, env={})
    if not pm.is_registered(wskit_mcp):
        pm.register(wskit_mcp, name="mcp-client")
    return WskitHooks(pm)


def _mcp(name: str, code: str):
    from wskit.resources.servers import McpServer

    fields = {"command": sys.executable, "args": ["-c", code]}
    # a user server: a project one would not start at all before approval
    # (tests/security/test_mcp_guarantees.py), and this is about servers that do start
    prov = provenance("user", "/src", ".mcp.json", {name: fields})
    return McpServer(id=f"user:{name}", name=name, alias=name, provenance=prov, **fields)


@pytest.mark.parametrize(("name", "code"), [
    ("crasher", "import sys; sys.stdin.readline(); sys.exit(3)"),  # dies during initialise
    ("hanger", "import time; time.sleep(300)"),  # never answers initialise
    ("garbage", "import sys, time; sys.stdout.write('x' * 1000000 + '\\n'); sys.stdout.flush(); time.sleep(300)"),
])
def test_mcp_server_failing_initialise_is_a_clear_error(name, code, project, mcp_hooks, monkeypatch):
    import wskit_mcp.service as service
    from wskit_mcp import McpConnectError

    monkeypatch.setattr(service, "CONNECT_TIMEOUT", 1.0)  # the default 30 s is too slow for a test
    before = set(live_children())
    s = _session(project, _mcp(name, code), _mcp("other", "import time; time.sleep(300)"), hooks=mcp_hooks)
    try:
        with pytest.raises(McpConnectError, match=name):
            bounded(lambda: s.mcp.connect(f"user:{name}"), 60)
        assert s.mcp.status(name)[0].status == "failed"
        # the session keeps working: it still answers for its other servers
        assert s.mcp.definition("user:other").name == "other"
    finally:
        bounded(s.close, 60)
    _no_children_left(before)


@pytest.fixture
def five_mb_server():
    """A loopback HTTP server that answers every POST with 5 MB (a streaming body, no Content-Length)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(200)
            self.end_headers()
            chunk = b"x" * 65536
            try:
                for _ in range(80):  # 5 MiB
                    self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading at its cap: what we want

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/hook"
    srv.shutdown()
    srv.server_close()


def test_http_hook_returning_5_mb_is_capped_and_an_error(project, five_mb_server):
    s = _session(project, _hook("PreToolUse", "flood", type="http", url=five_mb_server, timeout=10))
    attach(s, RuntimeOptions(hooks=HookRunnerConfig(http_policy=UrlPolicy.local_testing())))
    out = bounded(lambda: s.runtime.hooks.run("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}}),
                  30)
    r = out.results[0]
    assert r.status == "error" and "byte limit" in r.message
    assert not out.blocked
    s2 = _session(project, _hook("PreToolUse", "fine", command="exit 0"))  # the runtime keeps working
    attach(s2, RuntimeOptions())
    assert s2.runtime.hooks.run("PreToolUse", {"tool_name": "Read"}).results[0].status == "success"


def test_lsp_server_that_exits_immediately_is_a_clear_error(project):
    wskit_lsp = pytest.importorskip("wskit_lsp")
    from wskit.plugin.facade import WskitHooks
    from wskit.plugin.manager import make_plugin_manager
    from wskit.resources.servers import LspServer

    pm = make_plugin_manager(load_entrypoints=False, env={})
    pm.register(wskit_lsp, name="lsp-client")
    prov = provenance("user", Path("/nonexistent-home"), ".lsp.json", {"quitter": {}})
    quitter = LspServer(id="user:quitter", name="quitter", command=sys.executable, args=("-c", "raise SystemExit(3)"),
                        extension_to_language={".py": "python"}, max_restarts=1, startup_timeout=5000,
                        provenance=prov)
    (project / "a.py").write_text("x = 1\n")
    before = set(live_children())
    b = Binding(source_root=project, execution_root=project, cwd=project)
    s = session_from_resources(b, [quitter], hooks=WskitHooks(pm))
    try:
        with pytest.raises(wskit_lsp.LspError) as info:
            bounded(lambda: s.lsp.did_open(project / "a.py"), 60)
        assert "quitter" in str(info.value)
    finally:
        s.close()
    _no_children_left(before)
