"""A byte bound on every MCP message over HTTP (issue 32, item 6d for the HTTP
transports): a JSON body or one SSE event over ``McpLimits.max_message_bytes``
closes the connection after reading at most about that much, and the error is one
line naming the server and the first bytes it sent; a long SSE stream of small
events is never cut.

The hostile servers are real loopback HTTP servers (``http.server``) speaking just
enough streamable HTTP; the normal path is the official SDK's server
(``tests/plugins/wskit_mcp/mcp_server.py``), over streamable HTTP and legacy SSE.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytest.importorskip("wskit_mcp")

from tests.process_helpers import free_port, start_listening  # noqa: E402
from wskit.binding import Binding  # noqa: E402
from wskit.resources.servers import McpServer  # noqa: E402
from wskit.session.build import provenance, session_from_resources  # noqa: E402
from wskit.session.runtime import RuntimeOptions, attach  # noqa: E402

SDK_SERVER = Path(__file__).resolve().parents[1] / "plugins" / "wskit_mcp" / "mcp_server.py"
BOUND = 1 << 20  # the bound the in-process tests set (the CLI test uses the 16 MiB default)
CHUNK = 64 << 10


class _Raw(BaseHTTPRequestHandler):
    """Streamable HTTP, enough of it: JSON answers to initialize and tools/list, 202 to
    notifications; ``tools/call`` and ``GET`` answered as ``server.mode`` says."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # quiet
        pass

    def _send_head(self, status: int, ctype: str | None, length: int | None = None, **extra: str) -> None:
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        self.send_header("mcp-session-id", "raw-session")
        for k, v in extra.items():
            self.send_header(k.replace("_", "-"), v)
        if length is not None:
            self.send_header("Content-Length", str(length))
        else:
            self.send_header("Connection", "close")
        self.end_headers()

    def _json(self, obj: dict, **extra: str) -> None:
        body = json.dumps(obj).encode()
        self._send_head(200, "application/json", len(body), **extra)
        self.wfile.write(body)

    def _stream(self, parts) -> None:
        """Write ``parts`` (bytes) one by one; count what the client took before it hung up."""
        try:
            for part in parts:
                self.wfile.write(part)
                self.wfile.flush()
                self.server.written += len(part)
        except (BrokenPipeError, ConnectionResetError):
            self.server.hung_up.set()
        self.close_connection = True

    def do_POST(self) -> None:  # noqa: N802 — http.server's name
        msg = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        method, mid = msg.get("method"), msg.get("id")
        if mid is None:
            self._send_head(202, None, 0)
            return
        if method == "initialize":
            self._json({"jsonrpc": "2.0", "id": mid, "result": {
                "protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                "serverInfo": {"name": "raw", "version": "1"}}})
            return
        if method == "tools/list":
            self._json({"jsonrpc": "2.0", "id": mid, "result": {"tools": [
                {"name": "t", "inputSchema": {"type": "object"}}]}})
            return
        if method != "tools/call":
            self._json({"jsonrpc": "2.0", "id": mid, "result": {}})
            return
        mode, size = self.server.mode, self.server.size
        head = json.dumps({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": ""}]}})
        head = head[:head.index('"text": "') + len('"text": "')].encode()
        tail = b'"}]}}'
        filler = (b"\x1b]52;c;ZXZpbA==\x07" + b"x" * (CHUNK - 16))[:CHUNK]
        body = [head] + [filler] * (size // CHUNK) + [tail]
        if mode == "json":
            self._send_head(200, "application/json", sum(map(len, body)))
            self._stream(body)
        elif mode == "sse":  # one event that never ends within the bound
            self._send_head(200, "text/event-stream")
            self._stream([b"event: message\ndata: "] + body + [b"\n\n"])
        elif mode == "sse-many":  # many small events (more than the bound in all), then the answer
            self._send_head(200, "text/event-stream")
            note = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                               "params": {"level": "info", "data": "y" * 4000}}).encode()
            events = [b"event: message\r\ndata: " + note + b"\r\n\r\n"] * (3 * BOUND // len(note))
            answer = json.dumps({"jsonrpc": "2.0", "id": mid, "result": {
                "content": [{"type": "text", "text": "after many events"}]}}).encode()
            self._stream(events + [b"event: message\ndata: " + answer + b"\n\n"])
        elif mode == "gzip":
            data = gzip.compress(json.dumps({"jsonrpc": "2.0", "id": mid, "result": {
                "content": [{"type": "text", "text": "z" * (8 * BOUND)}]}}).encode())
            self._send_head(200, "application/json", len(data), Content_Encoding="gzip")
            self._stream([data])

    def do_GET(self) -> None:  # noqa: N802
        if self.server.mode != "get-huge":
            self._send_head(405, None, 0)
            return
        self._send_head(200, "text/event-stream")
        self._stream([b": comment\n\ndata: {\"jsonrpc\": \"2.0\", \"method\": \"notifications/message\", "
                      b"\"params\": {\"level\": \"info\", \"data\": \""] + [b"g" * CHUNK] * (32 * BOUND // CHUNK))

    def do_DELETE(self) -> None:  # noqa: N802
        self._send_head(200, None, 0)


class RawServer:
    def __init__(self, mode: str, size: int) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Raw)
        self.httpd.daemon_threads = True
        self.httpd.mode, self.httpd.size = mode, size
        self.httpd.written, self.httpd.hung_up = 0, threading.Event()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/mcp"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "RawServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _session(tmp_path: Path, url: str, transport: str = "http", bound: int = BOUND):
    from wskit_mcp import McpService
    from wskit_mcp.options import McpLimits, McpOptions

    root = tmp_path / "proj"
    root.mkdir(exist_ok=True)
    fields = {"transport": transport, "url": url, "headers": {"Authorization": "Bearer t"}}
    d = McpServer(id="user:far", name="far", alias="far", provenance=provenance("user", "/src", ".mcp.json",
                                                                                {"far": fields}), **fields)
    s = session_from_resources(Binding(source_root=root, execution_root=root, cwd=root), [d])
    attach(s, RuntimeOptions(services={"mcp": McpService.factory(McpOptions(limits=McpLimits(
        max_message_bytes=bound)))}))
    return s


@pytest.mark.parametrize("mode", ["json", "sse"])
def test_a_message_over_the_bound_closes_the_connection_and_names_what_was_sent(tmp_path, mode):
    from wskit_mcp import McpConnectError

    with RawServer(mode, 32 << 20) as srv:
        s = _session(tmp_path, srv.url)
        try:
            with pytest.raises(McpConnectError) as caught:
                s.mcp.call_tool("far", "t")
            line = str(caught.value)
            assert "\n" not in line and line.startswith("MCP server user:far")
            what = "one SSE event" if mode == "sse" else "a response body"
            assert f"{what} over the {BOUND}-byte bound" in line
            start = "b'event: message\\ndata: {\"jsonrpc\"" if mode == "sse" else "b'{\"jsonrpc\": \"2.0\""
            assert f"starting {start}" in line, line
            assert "\x1b" not in line
            assert "connection closed" in line
            status = s.mcp.status("far")[0]
            assert status.status == "restarting" and f"over the {BOUND}-byte bound" in (status.error or "")
            # the client stopped reading: far less than the 32 MiB body left the server
            assert srv.httpd.hung_up.wait(30)
            assert srv.httpd.written < 12 << 20, srv.httpd.written
        finally:
            s.close()


def test_a_long_stream_of_small_events_is_not_cut(tmp_path):
    """Three times the bound in small SSE events (CRLF line endings) before the answer:
    the bound is per event, not per stream."""
    with RawServer("sse-many", 0) as srv:
        s = _session(tmp_path, srv.url)
        try:
            assert s.mcp.call_tool("far", "t")["text"] == "after many events"
            assert srv.httpd.written > 3 * BOUND - 8192
            assert s.mcp.status("far")[0].status == "connected"
        finally:
            s.close()


def test_an_event_over_the_bound_on_the_get_stream_closes_the_connection(tmp_path):
    with RawServer("get-huge", 0) as srv:
        s = _session(tmp_path, srv.url)
        try:
            s.mcp.connect("far")  # initialize, then the SDK opens the GET stream
            assert srv.httpd.hung_up.wait(30)
            deadline = time.monotonic() + 30
            while s.mcp.status("far")[0].status == "connected" and time.monotonic() < deadline:
                time.sleep(0.05)
            status = s.mcp.status("far")[0]
            assert srv.httpd.written < 12 << 20, srv.httpd.written
            assert status.status == "restarting", status
            assert f"one SSE event over the {BOUND}-byte bound" in status.error
            assert "starting b'data: {\"jsonrpc\"" in status.error
        finally:
            s.close()


def test_a_compressed_body_is_refused_before_it_is_inflated(tmp_path):
    from wskit_mcp import McpConnectError

    with RawServer("gzip", 0) as srv:
        s = _session(tmp_path, srv.url)
        try:
            with pytest.raises(McpConnectError, match=r"a compressed body \(Content-Encoding: b'gzip'\)"):
                s.mcp.call_tool("far", "t")
        finally:
            s.close()


@pytest.fixture(params=["http", "sse"])
def sdk_server(request):
    port = free_port()
    proc = start_listening([sys.executable, str(SDK_SERVER), request.param, str(port)], port, timeout=30)
    yield request.param, f"http://127.0.0.1:{port}/{'mcp' if request.param == 'http' else 'sse'}"
    proc.terminate()
    proc.wait(10)


def test_the_official_sdk_server_passes_under_the_bound_and_is_cut_over_it(tmp_path, sdk_server):
    """The SDK's own server: a 300 KB answer (600 KB with its structured copy) passes under the default bound (then cut to
    the item bound, as every result is); a 2 MiB one is refused with a 1 MiB bound, and
    the next call starts a new connection that works. The legacy SSE transport holds
    one event to 1 MiB whatever is asked (httpx2's parser): its default bound is that."""
    from wskit_mcp import McpConnectError

    transport, url = sdk_server
    s = _session(tmp_path, url, transport, bound=16 << 20)
    try:
        assert s.mcp.call_tool("far", "echo", {"text": "ab" * 150_000})["text"].startswith("baba")
        if transport == "sse":
            with pytest.raises(McpConnectError, match=f"one SSE event over the {1 << 20}-byte bound"):
                s.mcp.call_tool("far", "big", {"mib": 2})
    finally:
        s.close()
    s = _session(tmp_path, url, transport, bound=BOUND)
    try:
        with pytest.raises(McpConnectError, match=f"one SSE event over the {BOUND}-byte bound") as caught:
            s.mcp.call_tool("far", "big", {"mib": 2})
        assert "\n" not in str(caught.value)
        assert s.mcp.call_tool("far", "echo", {"text": "again"})["text"] == "niaga"
        assert s.mcp.status("far")[0].generation == 2
    finally:
        s.close()


def test_wsctl_reports_an_oversized_http_message_in_one_line(tmp_path):
    """Through the CLI with the default bound (16 MiB): ``wsctl mcp call`` on a server
    whose JSON answer is 24 MiB prints one error line naming the server and what it sent."""
    home, proj = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    proj.mkdir()
    with RawServer("json", 24 << 20) as srv:
        (home / ".claude.json").write_text(json.dumps({"mcpServers": {"far": {"type": "http", "url": srv.url,
                                                                              "headers": {"Authorization": "B t"}}}}))
        env = {k: v for k, v in os.environ.items() if k != "WSKIT_TRACEBACK"}
        res = subprocess.run([sys.executable, "-m", "wskit", "--home", str(home), "mcp", "call", "far", "t",
                              str(proj)], cwd=proj, env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 1, (res.returncode, res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert "user:far" in lines[0] and f"a response body over the {16 << 20}-byte bound" in lines[0]
    assert "starting b'{\"jsonrpc\": \"2.0\"" in lines[0]
    assert "\x1b" not in res.stderr
