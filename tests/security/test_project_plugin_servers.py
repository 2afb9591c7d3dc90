"""Servers a project ships in a plugin of its own (issue 32, red-team F7): whether a server
needs approval follows where its definition lives, not the kind of its source. A trusted
project's ``.claude/plugins/X/`` ``.mcp.json``, ``.lsp.json`` or manifest servers await
approval exactly like the project's own ``.mcp.json``; a plugin the user named outside the
project stays the user's own. Real ``wsctl``, real server processes (a marker file they
write proves whether they started), a scratch home per test."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest


def _project_with_plugin(tmp_path: Path, marker: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".git/HEAD").write_text("ref: refs/heads/main\n")
    plugin = project / ".claude/plugins/helper"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin/plugin.json").write_text(json.dumps({
        "name": "helper", "version": "1.0.0",
        "mcpServers": {"manif": {"command": "sh", "args": ["${CLAUDE_PLUGIN_ROOT}/srv.sh", "manif"]}}}))
    (plugin / "srv.sh").write_text(f'echo "$1" >> {marker}\nexit 0\n')
    (plugin / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "plug": {"command": "sh", "args": ["${CLAUDE_PLUGIN_ROOT}/srv.sh", "plug"]}}}))
    (plugin / ".lsp.json").write_text(json.dumps({"plsp": {
        "command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'a').write('plsp\\n')"],
        "extensionToLanguage": {".py": "python"}}}))
    (project / "a.py").write_text("x = 1\n")
    return project


def _rows(wsctl, kind: str, project: Path, *pre: str) -> dict[str, dict]:
    data = json.loads(wsctl(*pre, kind, "list", str(project), json=True).stdout)
    return {r["id"]: r for r in data["servers"]}


def test_mcp_servers_of_a_project_plugin_await_approval_and_do_not_start(wsctl, wskit_pm, wskit_home, tmp_path):
    wskit_pm.register(pytest.importorskip("wskit_mcp"), name="mcp-client")
    marker = tmp_path / "ran"
    project = _project_with_plugin(tmp_path, marker)
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    rows = _rows(wsctl, "mcp", project)
    assert {i: r["approval"] for i, r in rows.items()} == {"plugin:helper:plug": "awaiting",
                                                          "plugin:helper:manif": "awaiting"}
    assert "<plugin>/srv.sh" in rows["plugin:helper:plug"]["covers"]
    for name in ("plug", "manif"):
        r = wsctl("mcp", "check", name, str(project))
        assert r.exit_code == 1 and "not approved" in r.stderr, r.output
    assert not marker.exists()  # folder trust alone started nothing of the project
    unreviewed = wsctl("mcp", "approve", "plug", str(project))
    assert unreviewed.exit_code == 1 and "--digest" in unreviewed.stderr
    ok = wsctl("mcp", "approve", "plug", str(project), "--digest", rows["plugin:helper:plug"]["digest"])
    assert ok.exit_code == 0, ok.output
    assert _rows(wsctl, "mcp", project)["plugin:helper:manif"]["approval"] == "awaiting"  # one entry each
    wsctl("mcp", "check", "plug", str(project))
    assert marker.read_text().split() == ["plug"]  # the approved one started, only it
    (project / ".claude/plugins/helper/srv.sh").write_text(f"touch {tmp_path / 'edited'}\n")
    assert _rows(wsctl, "mcp", project)["plugin:helper:plug"]["approval"] == "modified"


def test_an_lsp_server_of_a_project_plugin_awaits_approval_and_does_not_start(wsctl, wskit_pm, wskit_home, tmp_path):
    wskit_pm.register(pytest.importorskip("wskit_lsp"), name="lsp-client")
    marker = tmp_path / "ran"
    project = _project_with_plugin(tmp_path, marker)
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    (row,) = _rows(wsctl, "lsp", project).values()
    assert row["approval"] == "awaiting" and row["digest"].startswith("sha256:")
    r = wsctl("lsp", "check", "plsp", str(project / "a.py"), "--wait", "0")
    assert r.exit_code == 1 and "awaiting" in r.stderr and not marker.exists()
    assert wsctl("lsp", "approve", "plsp", str(project), "--digest", row["digest"]).exit_code == 0
    assert _rows(wsctl, "lsp", project)["plugin:helper:plsp"]["approval"] == "approved"


def test_a_plugin_the_user_names_outside_the_project_stays_the_users_own(wsctl, wskit_pm, wskit_home, tmp_path):
    wskit_pm.register(pytest.importorskip("wskit_mcp"), name="mcp-client")
    marker = tmp_path / "ran"
    outside = _project_with_plugin(tmp_path / "elsewhere", marker) / ".claude/plugins/helper"
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".git/HEAD").write_text("ref: refs/heads/main\n")
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    rows = _rows(wsctl, "mcp", project, "--plugin-dir", str(outside))
    assert {r["approval"] for r in rows.values()} == {"not-required"}
