"""The ``mcp`` SDK's log records (``logger.exception`` on a line the server wrote that is
not JSON-RPC, quoting it) never reach the terminal, whatever the entry point, and reach a
host's own logging only as one masked line (wskit_mcp.sdklog; docs/security.md, "MCP
servers")."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

import pytest

from wskit.trust import TrustStore

pytest.importorskip("wskit_mcp")

SECRET = "s3cr3t-canary-4411"
#: writes the substituted value on stdout (not JSON-RPC), then stays a moment
NOISY = "import sys, time; print('token=' + sys.argv[1], flush=True); time.sleep(1)"


@pytest.mark.parametrize("command", [("mcp", "list", "--status"), ("mcp", "check", "noisy")])
def test_a_server_writing_non_json_prints_no_traceback_and_no_secret(tmp_path, command):
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"noisy": {
        "command": sys.executable, "args": ["-c", NOISY, "${WSKIT_TEST_MCP_SECRET}"]}}}))
    TrustStore.for_home(home).grant(project)  # `python -c` imports from the project: it must be trusted
    env = {**os.environ, "WSKIT_TEST_MCP_SECRET": SECRET}
    env.pop("WSKIT_TRACEBACK", None)
    res = subprocess.run([sys.executable, "-m", "wskit", "--home", str(home), *command], cwd=project, env=env,
                         capture_output=True, text=True, timeout=120)
    both = res.stdout + res.stderr
    assert "noisy" in both, both  # the command did reach the server
    assert "Traceback" not in both and "JSONRPC" not in both and "input_value" not in both, res.stderr
    assert SECRET not in both
    if command[1] == "check":
        assert res.returncode == 1 and len(res.stderr.strip().splitlines()) == 1, res.stderr
    else:
        assert res.returncode == 0 and res.stderr == "", res.stderr


def test_a_hosts_logging_gets_one_masked_line_without_the_traceback():
    """What a host's root handler receives (not caplog: pytest may attach its own handlers
    to the ``mcp`` logger itself)."""
    from wskit_mcp.sdklog import SDK_LOGGER, route_sdk_logging, watch_secrets

    class Holder:
        secrets = (SECRET,)

    class Collect(logging.Handler):
        def __init__(self):
            super().__init__(logging.DEBUG)
            self.records = []

        def emit(self, record):
            self.records.append(record)

    holder, host = Holder(), Collect()
    route_sdk_logging()
    watch_secrets(holder)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(host)
    root.setLevel(logging.DEBUG)
    try:
        try:
            raise ValueError(f"input_value='token={SECRET}'")
        except ValueError:
            logging.getLogger("mcp.client.stdio").exception("Failed to parse message %s", f"token={SECRET}")
    finally:
        root.removeHandler(host)
        root.setLevel(old_level)
    (line,) = host.records  # the raw record did not reach the host; the relayed one did
    assert line.name == SDK_LOGGER and line.exc_info is None
    assert line.getMessage() == "mcp.client.stdio: Failed to parse message token=***: ValueError"
    assert SECRET not in logging.Formatter().format(line)
