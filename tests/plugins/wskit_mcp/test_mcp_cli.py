"""``wsctl mcp check NAME`` against a real stdio server: connects, lists tools, disconnects."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from wskit.resources.servers import McpServer
from wskit.session.build import provenance, register_definitions

SERVER = Path(__file__).resolve().parent / "mcp_server.py"


def _approve(wsctl, name, ws):
    """``mcp approve NAME --digest D`` with the digest ``mcp list`` shows (what was reviewed),
    accepting the words it lists as unverified (a ``${VAR}`` argument, a program wskit does not know)."""
    rows = json.loads(wsctl("mcp", "list", str(ws), json=True).stdout)["servers"]
    row = next(r for r in rows if r["name"] == name)
    return wsctl("mcp", "approve", name, str(ws), "--digest", row["digest"],
                 *(["--accept-unverified"] if row["unverified"] else []))


def test_mcp_check_json(wsctl, wskit_pm, tmp_path):
    import wskit_mcp

    wskit_pm.register(wskit_mcp, name="mcp-client")
    pid_file = tmp_path / "pid"
    d = McpServer(id="user:tester", name="tester", alias="tester", command=sys.executable, args=(str(SERVER),),
                  env={"PID_FILE": str(pid_file)}, provenance=provenance("user", "/h", ".mcp.json", {}))
    register_definitions(wskit_pm, [d])
    ws = tmp_path / "ws"
    ws.mkdir()
    res = wsctl("mcp", "check", "tester", str(ws), "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert set(data) == {"server", "transport", "server_info", "ok", "tools", "close_errors", "problems"}
    assert data["server"] == "user:tester" and data["ok"] and data["close_errors"] == []
    assert {"echo", "where", "roots"} <= {t["name"] for t in data["tools"]}
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("server still running after mcp check")
    assert any("wordy: description" in p for p in data["problems"])
    missing = wsctl("mcp", "check", "nope", str(ws))
    assert missing.exit_code == 1 and "unknown mcp_server 'nope'" in missing.stderr


def _project(make_tree, wskit_home, servers: dict):
    from wskit.trust import TrustStore

    ws = make_tree({".mcp.json": json.dumps({"mcpServers": servers})})
    TrustStore.for_home(wskit_home).grant(ws)
    return ws


def _with_client(wskit_pm):
    import wskit_mcp

    wskit_pm.register(wskit_mcp, name="mcp-client")


def test_mcp_call_args_elicitation_bounds_and_json(wsctl, wskit_pm, tmp_path):
    _with_client(wskit_pm)
    d = McpServer(id="user:tester", name="tester", alias="tester", command=sys.executable, args=(str(SERVER),),
                  provenance=provenance("user", "/h", ".mcp.json", {}))
    register_definitions(wskit_pm, [d])
    ws = tmp_path / "ws"
    ws.mkdir()
    res = wsctl("mcp", "call", "tester", "echo", str(ws), "--arg", "text=hello")
    assert res.exit_code == 0, res.output
    assert res.stdout == "olleh\n"
    res = wsctl("mcp", "call", "tester", "ask", str(ws), "--elicit-response", '{"name": "dora"}', "--json")
    data = json.loads(res.stdout)
    assert data["text"] == "accept:dora" and data["server"] == "user:tester" and data["projection"] == []
    assert json.loads(wsctl("mcp", "call", "tester", "ask", str(ws), json=True).stdout)["text"] == "decline:"
    big = json.loads(wsctl("mcp", "call", "tester", "big", str(ws), "--arg", "mib=5", json=True).stdout)
    assert len(big["text"]) < 200_000 and big["projection"][0]["bytes"] == 5 << 20
    bad = wsctl("mcp", "call", "tester", "echo", str(ws), "--arg", "novalue")
    assert bad.exit_code == 2 and "--arg takes key=value" in bad.stderr


def test_mcp_check_failure_is_one_error_line(wsctl, wskit_pm, tmp_path):
    """A server that writes garbage and exits: one `error:` line, no SDK traceback."""
    _with_client(wskit_pm)
    d = McpServer(id="user:junk", name="junk", alias="junk", command=sys.executable,
                  args=("-c", "import sys; sys.stdout.write('not json\\n' * 3); sys.stdout.flush()"),
                  provenance=provenance("user", "/h", ".mcp.json", {}))
    register_definitions(wskit_pm, [d])
    ws = tmp_path / "ws"
    ws.mkdir()
    res = wsctl("mcp", "check", "junk", str(ws))
    assert res.exit_code == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: MCP server user:junk"), res.stderr
    assert "Traceback" not in res.output


def test_project_servers_need_approval_and_list_status(wsctl, wskit_pm, wskit_home, make_tree, monkeypatch):
    _with_client(wskit_pm)
    monkeypatch.setenv("WSKIT_TEST_SECRET", "s3cr3t-value")
    ws = _project(make_tree, wskit_home, {
        "tester": {"command": sys.executable, "args": [str(SERVER), "${WSKIT_TEST_SECRET}"]}})
    listed = wsctl("mcp", "list", str(ws), json=True)
    assert "s3cr3t-value" not in listed.stdout  # printed as written, never expanded
    (row,) = json.loads(listed.stdout)["servers"]
    assert row["args"][-1] == "${WSKIT_TEST_SECRET}" and row["variables"] == ["WSKIT_TEST_SECRET"]
    assert row["approval"] == "awaiting"
    status = json.loads(wsctl("mcp", "list", str(ws), "--status", json=True).stdout)["servers"][0]
    assert status["status"] == "needs-approval" and status["tools"] is None
    refused = wsctl("mcp", "check", "tester", str(ws))
    assert refused.exit_code == 1 and f"wsctl --home {wskit_home} mcp approve tester" in refused.stderr  # keeps --home

    unreviewed = wsctl("mcp", "approve", "tester", str(ws))  # without the digest it was shown: refused
    assert unreviewed.exit_code == 1 and "--digest sha256:" in unreviewed.stderr
    ok = _approve(wsctl, "tester", ws)
    assert ok.exit_code == 0 and "approved" in ok.stdout and "s3cr3t-value" not in ok.stdout, ok.output
    human = wsctl("mcp", "list", str(ws), "--status")
    assert "APPROVAL" in human.stdout and "STATUS" in human.stdout and "connected" in human.stdout, human.stdout
    status = json.loads(wsctl("mcp", "list", str(ws), "--status", json=True).stdout)["servers"][0]
    assert status["status"] == "connected" and status["tools"] >= 5 and status["approval"] == "approved"
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": {"tester": {"command": sys.executable,
                                                                         "args": [str(SERVER), "--changed"]}}}))
    assert json.loads(wsctl("mcp", "list", str(ws), json=True).stdout)["servers"][0]["approval"] == "modified"
    assert wsctl("mcp", "deny", "tester", str(ws)).exit_code == 0
    assert json.loads(wsctl("mcp", "list", str(ws), json=True).stdout)["servers"][0]["approval"] == "denied"


def test_disabled_mcpjson_servers_always_rejects_and_user_settings_approve(wsctl, wskit_pm, wskit_home, make_tree):
    """Claude Code's settings keys: the user's enableAllProjectMcpServers / enabledMcpjsonServers
    approve; disabledMcpjsonServers (any layer) rejects; the project's own settings cannot approve."""
    ws = _project(make_tree, wskit_home, {"a": {"command": "x"}, "b": {"command": "y"}, "c": {"command": "z"}})
    (ws / ".claude").mkdir()
    (ws / ".claude/settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True,
                                                          "disabledMcpjsonServers": ["c"]}))
    rows = {r["name"]: r["approval"] for r in json.loads(wsctl("mcp", "list", str(ws), json=True).stdout)["servers"]}
    assert rows == {"a": "awaiting", "b": "awaiting", "c": "denied"}
    (wskit_home / ".claude").mkdir()
    (wskit_home / ".claude/settings.json").write_text(json.dumps({"enabledMcpjsonServers": ["a", "c"]}))
    rows = {r["name"]: r["approval"] for r in json.loads(wsctl("mcp", "list", str(ws), json=True).stdout)["servers"]}
    assert rows == {"a": "approved", "b": "awaiting", "c": "denied"}
    res = wsctl("mcp", "approve", "nope", str(ws))
    assert res.exit_code == 1 and "unknown mcp_server 'nope'" in res.stderr


@pytest.mark.slow  # a server that takes 1.5 s to start, twice, behind four wsctl processes
def test_mcp_check_shows_what_it_waits_for_on_a_terminal_only(wskit_home, make_tree) -> None:
    """A server that takes a second to start: on a terminal a progress line names it and
    is erased; piped, stderr stays empty."""
    import subprocess

    from tests.process_helpers import in_pty

    slow = ("import runpy, sys, time; time.sleep(1.5); sys.argv = sys.argv[1:]; "
            "runpy.run_path(sys.argv[0], run_name='__main__')")
    ws = _project(make_tree, wskit_home, {"slow": {"command": sys.executable, "args": ["-c", slow, str(SERVER)]}})
    wsctl_bin = [str(Path(sys.executable).parent / "wsctl"), "--home", str(wskit_home)]
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "WSKIT_HOME", "WSKIT_HOST")}
    env["HOME"] = str(wskit_home)
    listed = subprocess.run([*wsctl_bin, "--json", "mcp", "list", str(ws)], env=env, capture_output=True,
                            timeout=60)
    digest = json.loads(listed.stdout)["servers"][0]["digest"]
    assert subprocess.run([*wsctl_bin, "mcp", "approve", "slow", str(ws), "--digest", digest, "--accept-unverified"],
                          env=env, capture_output=True, timeout=60).returncode == 0
    argv = [*wsctl_bin, "mcp", "check", "slow", str(ws)]
    tty, code = in_pty(argv, env, timeout=60)
    assert code == 0, tty
    assert "waiting for the MCP server project:slow (stdio)… " in tty and "\r\x1b[K" in tty
    assert "project:slow: ok (stdio" in tty
    piped = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert piped.returncode == 0 and "waiting for" not in piped.stderr and "waiting for" not in piped.stdout
