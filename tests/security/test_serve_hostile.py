"""``wsctl serve --mcp --http`` against hostile local clients, as real processes over
raw loopback HTTP: a page reaching the server through DNS rebinding (a foreign
``Host``/``Origin``) on every loopback spelling of the bind address, a flood of
half-open connections, connections that never finish their headers, a stderr
nobody reads, SIGTERM, clients that vanish without closing their session.

Every request goes to 127.0.0.0/8 or ::1; every loop is bounded in count and time.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp")
pytest.importorskip("wskit_serve")

SECRET = "SECRET-SKILL-BODY-7d1f"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}


def _project(tmp_path: Path) -> tuple[Path, Path]:
    home, proj = tmp_path / "home", tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    home.mkdir()
    skill = proj / ".claude" / "skills" / "secret"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(f"---\nname: secret\ndescription: d\n---\n{SECRET}\n")
    subprocess.run([sys.executable, "-m", "wskit", "--home", str(home), "trust", "grant", str(proj)],
                   check=True, capture_output=True, timeout=60)
    return home, proj


def _serve(home: Path, proj: Path, spec: str, *extra: str, stderr=subprocess.PIPE) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "wskit", "--home", str(home), "serve", str(proj), "--mcp",
                             "--poll", "0", "--http", spec, *extra], stderr=stderr, start_new_session=True)


def _ready(proc: subprocess.Popen) -> tuple[str, int]:
    """(host as written in the URL, port) from the server's ready line."""
    line = proc.stderr.readline().decode()
    assert "serving" in line, line
    hostport = line.strip().rsplit(" ", 1)[1].removeprefix("http://").removesuffix("/mcp")
    host, _, port = hostport.rpartition(":")
    return host, int(port)


def _stop(proc: subprocess.Popen) -> int:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        return proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _connect(addr: str, port: int, timeout: float = 10.0) -> socket.socket:
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect((addr, port))
    return sock


def _request(addr: str, port: int, body: dict | None, headers: dict[str, str],
             method: str = "POST") -> tuple[int, dict[str, str], str]:
    """One raw HTTP/1.1 request (``Connection: close``): (status, headers, body)."""
    data = json.dumps(body).encode() if body is not None else b""
    head = [f"{method} /mcp HTTP/1.1", "Connection: close", "Content-Type: application/json",
            "Accept: application/json, text/event-stream", f"Content-Length: {len(data)}"]
    head += [f"{k}: {v}" for k, v in headers.items()]
    with _connect(addr, port) as sock:
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        chunks = []
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            got = sock.recv(65536)
            if not got:
                break
            chunks.append(got)
            raw = b"".join(chunks)
            if b"\r\n\r\n" in raw and (b"event: message" in raw or b"content-length" in raw.lower()):
                head_end = raw.index(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in raw[:head_end].split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), None)
                if length is not None and len(raw) - head_end - 4 >= length:
                    break
                if length is None and raw.rstrip().endswith(b"}"):
                    break
    raw = b"".join(chunks)
    head_b, _, rest = raw.partition(b"\r\n\r\n")
    lines = head_b.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    hdrs = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return status, hdrs, rest.decode("utf-8", "replace")


def _read_skill(addr: str, port: int, host_header: str, origin: str | None = None) -> tuple[int, str]:
    """What a page could do: initialize, then load the skill. (first refused status or 200, text)."""
    extra = {"Host": host_header, **({"Origin": origin} if origin else {})}
    status, hdrs, body = _request(addr, port, INIT, extra)
    if status != 200:
        return status, body
    sid = hdrs["mcp-session-id"]
    extra["Mcp-Session-Id"] = sid
    extra["Mcp-Protocol-Version"] = "2025-06-18"
    _request(addr, port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, extra)
    status, _, body = _request(addr, port, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                            "params": {"name": "skill_load", "arguments": {"name": "secret"}}}, extra)
    return status, body


def _can_bind(addr: str) -> bool:
    try:
        with socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET) as s:
            s.bind((addr, 0))
        return True
    except OSError:
        return False


#: --http spelling -> (address to connect to, the Host spellings a client may use)
SPELLINGS = {
    "127.0.0.2": ("127.0.0.2", ["127.0.0.2:{port}", "localhost:{port}"]),
    "127.1": ("127.0.0.1", ["127.1:{port}", "127.0.0.1:{port}", "[::ffff:127.0.0.1]:{port}"]),
    "[0:0:0:0:0:0:0:1]": ("::1", ["[::1]:{port}", "[0:0:0:0:0:0:0:1]:{port}", "localhost:{port}"]),
    "[::ffff:127.0.0.1]": ("127.0.0.1", ["127.0.0.1:{port}", "[::ffff:127.0.0.1]:{port}"]),
    "localhost": (None, ["localhost:{port}"]),
}


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_dns_rebinding_guard_holds_for_every_loopback_spelling(tmp_path, spelling):
    addr, good_hosts = SPELLINGS[spelling]
    if addr is not None and not _can_bind(addr):
        pytest.skip(f"{addr} cannot be bound on this machine")
    home, proj = _project(tmp_path)
    proc = _serve(home, proj, f"{spelling}:0")
    try:
        _, port = _ready(proc)
        addr = addr or socket.getaddrinfo("localhost", port, type=socket.SOCK_STREAM)[0][4][0]
        # a page whose name rebinds to this address: foreign Host, foreign Origin, other port
        for host, origin in ((f"evil.example:{port}", None), (f"evil.example:{port}", f"http://evil.example:{port}"),
                             (good_hosts[0].format(port=port), "http://evil.example"),
                             (good_hosts[0].format(port=port), f"https://{good_hosts[0].format(port=port)}"),
                             (good_hosts[0].format(port=port + 1 if port < 65535 else 1), None),
                             ("localhost.evil.example", None), ("", None)):
            status, body = _read_skill(addr, port, host, origin)
            assert status in (421, 403, 400), (host, origin, status)
            assert SECRET not in body
        # the same requests with the server's own names are served (so the refusals above mean something)
        for host in good_hosts:
            status, body = _read_skill(addr, port, host.format(port=port), f"http://{host.format(port=port)}")
            assert status == 200 and SECRET in body, (host, status, body[:300])
    finally:
        _stop(proc)
    err = proc.stderr.read().decode()
    assert "foreign Host header" in err and "Traceback" not in err


def _half_open(addr: str, port: int, count: int) -> list[socket.socket]:
    socks = []
    for _ in range(count):
        s = _connect(addr, port)
        s.sendall(f"POST /mcp HTTP/1.1\r\nHost: {addr}:{port}\r\nX-Slow: ".encode())  # never finished
        socks.append(s)
    return socks


def _closed_by_server(sock: socket.socket, wait: float) -> bool:
    sock.settimeout(wait)
    try:
        return sock.recv(1) == b""
    except (socket.timeout, TimeoutError):
        return False
    except OSError:
        return True


def test_half_open_flood_is_capped_and_a_client_still_gets_in(tmp_path):
    home, proj = _project(tmp_path)
    proc = _serve(home, proj, "127.0.0.1:0", "--max-connections", "8", "--header-timeout", "60")
    socks: list[socket.socket] = []
    try:
        _, port = _ready(proc)
        socks = _half_open("127.0.0.1", port, 40)
        status, body = _read_skill("127.0.0.1", port, f"127.0.0.1:{port}")
        assert status == 200 and SECRET in body
        still_open = [s for s in socks if not _closed_by_server(s, 0.05)]
        assert len(still_open) <= 8  # the server holds at most its cap; the rest were closed
    finally:
        for s in socks:
            s.close()
        _stop(proc)
    err = proc.stderr.read().decode()
    assert err.count("connections open") <= 2 and "Traceback" not in err  # one line per condition, rate-limited


def test_connections_that_never_finish_their_headers_are_closed(tmp_path):
    home, proj = _project(tmp_path)
    proc = _serve(home, proj, "127.0.0.1:0", "--header-timeout", "1")
    socks: list[socket.socket] = []
    try:
        _, port = _ready(proc)
        socks = _half_open("127.0.0.1", port, 3)
        idle = _connect("127.0.0.1", port)  # nothing sent at all
        socks.append(idle)
        deadline = time.monotonic() + 20
        for s in socks:
            assert _closed_by_server(s, max(0.1, deadline - time.monotonic()))
        assert proc.poll() is None
    finally:
        for s in socks:
            s.close()
        _stop(proc)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_stderr_nobody_reads_never_blocks_the_server_and_sigterm_is_honoured(tmp_path):
    home, proj = _project(tmp_path)
    r, w = os.pipe()
    try:
        F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
        try:
            fcntl.fcntl(w, F_SETPIPE_SZ, 4096)
        except OSError:
            pass
        os.set_blocking(w, False)
        try:  # fill the pipe: every write to it now blocks
            while True:
                os.write(w, b"x" * 4096)
        except BlockingIOError:
            pass
        os.set_blocking(w, True)
        port = _free_port()
        proc = _serve(home, proj, f"127.0.0.1:{port}", "--max-connections", "4", "--header-timeout", "1",
                      stderr=w)
        socks: list[socket.socket] = []
        try:
            deadline = time.monotonic() + 60
            while True:  # served although its ready line cannot be written
                try:
                    status, body = _read_skill("127.0.0.1", port, f"127.0.0.1:{port}")
                    break
                except (ConnectionRefusedError, ConnectionResetError):
                    assert time.monotonic() < deadline, "the server never answered"
                    time.sleep(0.2)
            assert status == 200 and SECRET in body
            for _ in range(20):  # conditions to say: foreign hosts, the connection cap
                assert _read_skill("127.0.0.1", port, "evil.example")[0] == 421
            socks = _half_open("127.0.0.1", port, 12)
            assert _read_skill("127.0.0.1", port, f"127.0.0.1:{port}")[0] == 200
            t0 = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            rc = proc.wait(timeout=30)
            assert rc in (-signal.SIGTERM, 0, 128 + signal.SIGTERM), rc
            assert time.monotonic() - t0 < 30
        finally:
            for s in socks:
                s.close()
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
    finally:
        os.close(r)
        os.close(w)


def test_vanished_clients_are_evicted_by_the_session_cap_and_idle_timeout(tmp_path):
    home, proj = _project(tmp_path)
    proc = _serve(home, proj, "127.0.0.1:0", "--max-sessions", "4", "--session-idle-timeout", "2")
    try:
        _, port = _ready(proc)
        host = {"Host": f"127.0.0.1:{port}"}
        sids = []
        for _ in range(10):  # each client initializes, then vanishes without DELETE
            status, hdrs, _ = _request("127.0.0.1", port, INIT, host)
            assert status == 200
            sids.append(hdrs["mcp-session-id"])

        def alive(sid: str) -> int:
            return _request("127.0.0.1", port, {"jsonrpc": "2.0", "id": 9, "method": "ping"},
                            {**host, "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-06-18"})[0]

        assert alive(sids[0]) == 404          # the oldest idle sessions made room
        assert alive(sids[-1]) == 200         # the newest is served
        time.sleep(3.5)                        # past the idle timeout
        assert alive(sids[-1]) == 404
    finally:
        _stop(proc)
    assert "Traceback" not in proc.stderr.read().decode()
