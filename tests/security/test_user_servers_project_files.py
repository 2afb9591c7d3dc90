"""The user's own MCP and LSP servers never run files of a project that is not trusted
(issue 32 item 4, red-team F15): a server of the user's settings or of a user plugin starts
in the execution root, so ``python3 srv.py`` would run the cloned repository's ``srv.py``
and ``npx …``/``uv run …`` read its ``.npmrc``/``package.json``/``pyproject.toml``. Such a
server is ``untrusted-project`` (the rule the user's hooks follow, one function:
:func:`wskit.approval.entries.untrusted_project_reason`) in ``mcp list``, ``lsp list``,
``mcp check``, ``lsp check`` and the session's services alike; in a trusted project a user
server that runs project files is approved per entry for that project, like the project's
own. Real ``wsctl``, a real official-SDK MCP server and a real pygls language server (the
project's file runs them after writing a marker: the marker proves whether it started), a
scratch home per test."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from wskit.session.testing import no_leaked_children  # noqa: F401  (autouse)
from wskit.trust import TrustStore

TESTS = Path(__file__).resolve().parents[1]
MCP_SERVER = TESTS / "plugins/wskit_mcp/mcp_server.py"
LSP_SERVER = TESTS / "plugins/wskit_lsp/lsp_server.py"


def _planted(marker: Path, server: Path) -> str:
    """A project file that writes ``marker`` and then serves as the real ``server`` does."""
    return (f"import runpy\nopen({str(marker)!r}, 'a').write('ran\\n')\n"
            f"runpy.run_path({str(server)!r}, run_name='__main__')\n")


def _project(tmp_path: Path, marker: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".git/HEAD").write_text("ref: refs/heads/main\n")
    (project / "srv.py").write_text(_planted(marker, MCP_SERVER))
    (project / "lsp.py").write_text(_planted(marker, LSP_SERVER))
    (project / "a.py").write_text("x = 1\n# TODO one\n")
    return project


def _user_settings(home: Path, **servers) -> None:
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude/settings.json").write_text(json.dumps(servers))


def _rows(wsctl, kind: str, project: Path) -> dict[str, dict]:
    data = json.loads(wsctl(kind, "list", str(project), json=True).stdout)
    return {r["id"]: r for r in data["servers"]}


@pytest.fixture
def mcp_client(wskit_pm):
    wskit_pm.register(pytest.importorskip("wskit_mcp"), name="mcp-client")
    return wskit_pm


@pytest.fixture
def lsp_client(wskit_pm):
    wskit_pm.register(pytest.importorskip("wskit_lsp"), name="lsp-client")
    return wskit_pm


def test_a_user_mcp_server_runs_nothing_of_an_untrusted_project(wsctl, mcp_client, wskit_home, tmp_path):
    marker = tmp_path / "ran"
    project = _project(tmp_path, marker)
    _user_settings(wskit_home, mcpServers={
        "rel": {"command": sys.executable, "args": ["srv.py"]},
        "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]},
        "abs": {"command": sys.executable, "args": [str(MCP_SERVER)]}})
    rows = _rows(wsctl, "mcp", project)
    assert rows["user:rel"]["approval"] == "untrusted-project", rows["user:rel"]
    assert rows["user:rel"]["approval_reason"] == "runs srv.py of a project that is not trusted"
    assert rows["user:fs"]["approval"] == "untrusted-project" and "npx" in rows["user:fs"]["approval_reason"]
    # a server that reaches nothing of the project is the user's own, as before
    assert rows["user:abs"]["approval"] == "not-required"
    listed = wsctl("mcp", "list", str(project))
    assert "untrusted-project (runs srv.py of a project that is not trusted)" in listed.stdout
    for name in ("rel", "fs"):
        r = wsctl("mcp", "check", name, str(project))
        assert r.exit_code == 1 and "not trusted" in r.stderr and "nothing was started" in r.stderr, r.output
    refused = wsctl("mcp", "approve", "rel", str(project), "--digest", rows["user:rel"]["digest"])
    assert refused.exit_code == 1 and "trust grant" in refused.stderr
    assert not marker.exists()  # nothing of the untrusted project ran
    assert wsctl("mcp", "check", "abs", str(project)).exit_code == 0  # the real server does start


def test_the_session_service_refuses_it_even_when_the_host_would_approve(mcp_client, wskit_home, tmp_path):
    """``session.mcp`` takes the same decision; the host's approval callback is not asked for
    a server that would run files of a project nobody trusted."""
    import wskit_mcp
    from tests.builtin_plugins._bundle_helpers import load
    from wskit.host import HostProfile
    from wskit.session import snapshot
    from wskit.session.runtime import RuntimeOptions, attach
    from wskit_mcp import McpApprovalError, McpOptions, McpService

    marker = tmp_path / "ran"
    project = _project(tmp_path, marker)
    _user_settings(wskit_home, mcpServers={"rel": {"command": sys.executable, "args": ["srv.py"]}})
    assert wskit_mcp
    s = snapshot(load(mcp_client, project, HostProfile(name="wskit", home=wskit_home), trusted=False))
    attach(s, RuntimeOptions(services={"mcp": McpService.factory(McpOptions(approve=lambda srv: True))}))
    try:
        with pytest.raises(McpApprovalError, match="not trusted"):
            s.mcp.connect("user:rel")
        assert s.mcp.status("user:rel")[0].status == "untrusted-project"
    finally:
        s.close()
    assert not marker.exists()


def test_a_user_plugin_server_with_a_relative_script_runs_nothing_of_it(wsctl, mcp_client, wskit_home, tmp_path):
    marker = tmp_path / "ran"
    project = _project(tmp_path, marker)
    plugin = tmp_path / "up"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin/plugin.json").write_text(json.dumps({"name": "up", "version": "1.0.0"}))
    (plugin / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "rel": {"command": sys.executable, "args": ["srv.py"]}}}))
    rows = {r["id"]: r for r in json.loads(wsctl("--plugin-dir", str(plugin), "mcp", "list", str(project),
                                                 json=True).stdout)["servers"]}
    assert rows["plugin:up:rel"]["approval"] == "untrusted-project", rows
    r = wsctl("--plugin-dir", str(plugin), "mcp", "check", "rel", str(project))
    assert r.exit_code == 1 and "not trusted" in r.stderr, r.output
    assert not marker.exists()


def test_a_user_lsp_server_runs_nothing_of_an_untrusted_project(wsctl, lsp_client, wskit_home, tmp_path):
    marker = tmp_path / "ran"
    project = _project(tmp_path, marker)
    _user_settings(wskit_home, lspServers={"ul": {"command": sys.executable, "args": ["lsp.py"],
                                                  "extensionToLanguage": {".py": "python"}}})
    (row,) = _rows(wsctl, "lsp", project).values()
    assert row["approval"] == "untrusted-project"
    assert row["approval_reason"] == "runs lsp.py of a project that is not trusted"
    r = wsctl("lsp", "check", "ul", str(project / "a.py"), "--wait", "0")
    assert r.exit_code == 1 and "not trusted" in r.stderr, r.output
    assert not marker.exists()


def test_in_a_trusted_project_a_user_server_running_project_files_is_approved_per_entry(
        wsctl, mcp_client, lsp_client, wskit_home, tmp_path):
    """The trusted side of the same rule (the user's hooks follow it too): the project may
    change ``srv.py`` at any time, so the user approves it for this project, and an edit
    makes it ``modified``."""
    marker = tmp_path / "ran"
    project = _project(tmp_path, marker)
    _user_settings(wskit_home, mcpServers={"rel": {"command": sys.executable, "args": ["srv.py"]}},
                   lspServers={"ul": {"command": sys.executable, "args": ["lsp.py"],
                                      "extensionToLanguage": {".py": "python"}}})
    TrustStore.for_home(wskit_home).grant(project)
    row = _rows(wsctl, "mcp", project)["user:rel"]
    assert row["approval"] == "awaiting" and "srv.py" in row["approval_reason"], row
    r = wsctl("mcp", "check", "rel", str(project))
    assert r.exit_code == 1 and "not approved" in r.stderr and not marker.exists(), r.output
    assert wsctl("mcp", "approve", "rel", str(project), "--digest", row["digest"]).exit_code == 0
    assert _rows(wsctl, "mcp", project)["user:rel"]["approval"] == "approved"
    ok = wsctl("mcp", "check", "rel", str(project))
    assert ok.exit_code == 0, ok.output
    assert marker.read_text() == "ran\n"  # the approved server is the real one, and it ran
    (project / "srv.py").write_text(_planted(tmp_path / "edited", MCP_SERVER))
    assert _rows(wsctl, "mcp", project)["user:rel"]["approval"] == "modified"
    assert wsctl("mcp", "check", "rel", str(project)).exit_code == 1
    assert not (tmp_path / "edited").exists()
    (lsp,) = _rows(wsctl, "lsp", project).values()
    assert lsp["approval"] == "awaiting" and "lsp.py" in lsp["approval_reason"]
