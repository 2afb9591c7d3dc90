"""``wsctl mcp check NAME`` against a real stdio server: connects, lists tools, disconnects."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from wskit.resources.servers import McpServer
from wskit.session.build import provenance, register_definitions

SERVER = Path(__file__).resolve().parent / "mcp_server.py"


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
    assert set(data) == {"server", "transport", "server_info", "ok", "tools", "close_errors"}
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
    missing = wsctl("mcp", "check", "nope", str(ws))
    assert missing.exit_code == 1 and "unknown mcp_server 'nope'" in missing.stderr
