"""Claude Code as the client of ``wsctl serve --mcp`` (opt-in: needs its binary).

Run with ``WSKIT_CLAUDE_BIN=<path to claude>`` (or with ``claude-agent-sdk``
installed, whose wheel bundles the binary). Claude Code runs offline with a fresh
home: ``ANTHROPIC_BASE_URL`` points at a closed loopback port, and only its first
stdout line, the ``system/init`` object, is read before its process group is killed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("wskit_serve")

from .test_serve import _tree  # noqa: E402


def _claude() -> str | None:
    given = os.environ.get("WSKIT_CLAUDE_BIN")
    if given:
        return given
    try:
        import claude_agent_sdk
    except ImportError:
        return None
    exe = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    return str(exe) if exe.exists() else None


CLAUDE = _claude()


@pytest.mark.skipif(CLAUDE is None, reason="Claude Code binary not available (set WSKIT_CLAUDE_BIN)")
def test_claude_code_lists_the_server_connected_with_its_tools_and_prompts(tmp_path):
    home, proj = _tree(tmp_path)
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"wskit": {
        "command": sys.executable, "args": ["-m", "wskit", "--home", str(home), "serve", str(proj), "--mcp"]}}}))
    claude_home = tmp_path / "claude-home"
    claude_home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
    env.update(HOME=str(claude_home), ANTHROPIC_BASE_URL="http://127.0.0.1:9", ANTHROPIC_API_KEY="x")
    proc = subprocess.Popen([CLAUDE, "-p", "x", "--output-format", "stream-json", "--verbose",
                             "--mcp-config", str(config)], cwd=proj, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        line = proc.stdout.readline()
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    init = json.loads(line)
    assert init["type"] == "system" and init["subtype"] == "init"
    assert {"name": "wskit", "status": "connected"}.items() <= next(
        s for s in init["mcp_servers"] if s["name"] == "wskit").items()
    assert {f"mcp__wskit__{t}" for t in ("skills_list", "skill_load", "rules_for", "rules_explain",
                                         "static_rules")} <= set(init["tools"])
    assert {"mcp__wskit__review", "mcp__wskit__fix"} <= set(init["slash_commands"])
