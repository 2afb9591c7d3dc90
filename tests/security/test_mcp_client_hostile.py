"""wskit's MCP client (``wsctl mcp check|call``, real processes) against hostile stdio
servers: one that prints something that is not JSON-RPC, one that answers with a
JSON-RPC message that is not a valid MCP result, one that sends a 64 MiB line, and
``wsctl mcp call`` stopped by SIGTERM or SIGHUP while its server (and the server's
own child) runs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wskit.trust import TrustStore

pytest.importorskip("wskit_mcp")

#: prints a terminal escape (OSC 52: set the clipboard) and markup, then exits
GARBAGE = ("import sys; sys.stdin.readline(); "
           "sys.stdout.write('\\x1b]52;c;ZXZpbA==\\x07<html>not json</html>\\n'); sys.stdout.flush()")
#: answers initialize with a JSON-RPC result that is no InitializeResult
WRONG_RESULT = ("import sys, json, time; m = json.loads(sys.stdin.readline()); "
                "sys.stdout.write(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': {'junk': [1, 2]}}) + '\\n'); "
                "sys.stdout.flush(); time.sleep(5)")
#: answers with one 64 MiB line, written 1 MiB at a time
HUGE = ("import sys; sys.stdin.readline(); chunk = b'x' * (1 << 20)\n"
        "try:\n    [sys.stdout.buffer.write(chunk) for _ in range(64)]; sys.stdout.buffer.write(b'\\n')\n"
        "    sys.stdout.flush()\nexcept BrokenPipeError:\n    pass\n")
QUICK_EXIT = "import sys; sys.stdin.readline()"


def _home(tmp_path: Path, name: str, code: str, **extra) -> tuple[Path, Path]:
    home, proj = tmp_path / "home", tmp_path / "proj"
    home.mkdir(exist_ok=True)
    proj.mkdir(exist_ok=True)
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {name: {
        "command": sys.executable, "args": ["-c", code], **extra}}}))
    # trusted: `python -c` imports from its working folder, so in a project nobody trusted the
    # user's server would be untrusted-project (tests/security/test_user_servers_project_files.py)
    TrustStore.for_home(home).grant(proj)
    return home, proj


def _wsctl(home: Path, proj: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "WSKIT_TRACEBACK"}
    return subprocess.run([sys.executable, "-m", "wskit", "--home", str(home), *args], cwd=proj, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _check_error_line(tmp_path: Path, code: str) -> tuple[str, str]:
    """``wsctl mcp check junk`` on a server running ``code``: (its one error line, stderr)."""
    home, proj = _home(tmp_path, "junk", code)
    res = _wsctl(home, proj, "mcp", "check", "junk", str(proj))
    assert res.returncode == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    return lines[0], res.stderr


def test_a_server_printing_garbage_is_one_line_naming_it_and_what_it_sent(tmp_path):
    line, err = _check_error_line(tmp_path, GARBAGE)
    assert line.startswith("error: MCP server user:junk") and "not JSON-RPC" in line
    assert "\\x1b]52;c;ZXZpbA==\\x07<html>not json" in line  # the first bytes, escaped
    assert "\x1b" not in err and "\x07" not in err


def test_a_result_that_is_not_valid_mcp_is_one_line_not_a_validation_dump(tmp_path):
    line, err = _check_error_line(tmp_path, WRONG_RESULT)
    assert "user:junk" in line and "not a valid MCP InitializeResult" in line
    assert '{"junk": [1, 2]}' in line  # what it sent
    assert "validation error" not in err and "pydantic.dev" not in err


def _peak_rss_kib(home: Path, proj: Path, *args: str) -> tuple[int, subprocess.CompletedProcess]:
    """Run wsctl under a fresh interpreter that reports its children's peak RSS (KiB):
    wsctl's own (the server it starts writes in 1 MiB chunks)."""
    probe = ("import json, resource, subprocess, sys; "
             "r = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=120); "
             "print(json.dumps([resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode, r.stderr]))")
    out = subprocess.run([sys.executable, "-c", probe, sys.executable, "-m", "wskit", "--home", str(home), *args],
                         cwd=proj, capture_output=True, text=True, timeout=180)
    peak, code, err = json.loads(out.stdout)
    return peak, subprocess.CompletedProcess(args, code, "", err)


@pytest.mark.slow  # a 64 MiB line and two wsctl runs: the heaviest case here
def test_a_huge_stdio_line_is_refused_after_the_byte_bound(tmp_path):
    home, proj = _home(tmp_path, "big", QUICK_EXIT)
    base, _ = _peak_rss_kib(home, proj, "mcp", "check", "big", str(proj))
    home, proj = _home(tmp_path, "big", HUGE)
    t0 = time.monotonic()
    peak, res = _peak_rss_kib(home, proj, "mcp", "check", "big", str(proj))
    assert res.returncode == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "user:big" in lines[0], res.stderr
    assert "over the 16777216-byte bound" in lines[0]
    # at most the 16 MiB bound was held (plus slack), not the 64 MiB line
    assert peak - base < 40 << 10, (peak, base)
    assert time.monotonic() - t0 < 120


SLOW = """
import json, os, subprocess, sys
open(os.environ["PID_FILE"], "w").write(str(os.getpid()))
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
open(os.environ["PID_FILE"] + ".child", "w").write(str(child.pid))
def send(o):
    sys.stdout.write(json.dumps(o) + "\\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "initialize":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": m["params"]["protocolVersion"],
              "capabilities": {"tools": {}}, "serverInfo": {"name": "slow", "version": "1"}}})
    elif m.get("method") == "tools/call":
        open(os.environ["PID_FILE"] + ".called", "w").write("1")  # and never answers
    elif "id" in m:
        send({"jsonrpc": "2.0", "id": m["id"], "result": {}})
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (not reaped by its parent yet) is gone for our purpose
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_mcp_call_stopped_by_a_signal_leaves_no_process(tmp_path, sig):
    pid_file = tmp_path / "pid"
    home, proj = _home(tmp_path, "slow", SLOW, env={"PID_FILE": str(pid_file)})
    proc = subprocess.Popen([sys.executable, "-m", "wskit", "--home", str(home), "mcp", "call", "slow", "t",
                             str(proj)], cwd=proj, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    pids: list[int] = []
    try:
        called = Path(str(pid_file) + ".called")
        deadline = time.monotonic() + 60
        while not called.exists():
            assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read() if proc.poll() else ""
            time.sleep(0.05)
        pids = [int(pid_file.read_text()), int(Path(str(pid_file) + ".child").read_text())]
        proc.send_signal(sig)
        rc = proc.wait(timeout=30)
        assert rc == -sig, (rc, proc.stderr.read())
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [p for p in pids if _alive(p)], "the server or its child outlived wsctl"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        for p in pids:
            if _alive(p):
                os.kill(p, signal.SIGKILL)


def test_mcp_call_has_a_time_limit_by_default(tmp_path):
    """No --timeout: the server definition's ``timeout`` (ms) bounds the call (else 300 s)."""
    pid_file = tmp_path / "pid"
    home, proj = _home(tmp_path, "slow", SLOW, env={"PID_FILE": str(pid_file)}, timeout=1500)
    t0 = time.monotonic()
    res = _wsctl(home, proj, "mcp", "call", "slow", "t", str(proj), timeout=120)
    assert res.returncode == 1 and "no answer within 1.5 s" in res.stderr, res.stderr
    assert time.monotonic() - t0 < 60
    pids = [int(pid_file.read_text()), int(Path(str(pid_file) + ".child").read_text())]
    assert not [p for p in pids if _alive(p)]
