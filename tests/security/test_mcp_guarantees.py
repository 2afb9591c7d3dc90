"""MCP guarantees against a hostile repository: a trusted project's ``.mcp.json`` command
never runs before the user approved that server (as it is now), a repository cannot
approve itself, ``${VAR}`` never pulls host environment values into what wsctl prints or
into error messages, and a broken approval store fails closed."""

from __future__ import annotations

import json
import os
import sys

import pytest

from wskit.session.testing import no_leaked_children  # noqa: F401  (autouse)
from wskit.trust import TrustStore

pytest.importorskip("wskit_mcp")

SECRET = "canary-7f3a9-secret"


@pytest.fixture
def client(wskit_pm):
    import wskit_mcp

    wskit_pm.register(wskit_mcp, name="mcp-client")
    return wskit_pm


def _trusted(make_tree, home, files):
    ws = make_tree(files)
    TrustStore.for_home(home).grant(ws)
    return ws


def _marker_server(marker) -> dict:
    return {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w').write('ran')"]}


def _approve(wsctl, name, ws):
    """``mcp approve NAME --digest D`` with the digest ``mcp list`` shows (what was reviewed),
    accepting the words it lists as unverified (a ``${VAR}`` argument, a program wskit does not know)."""
    rows = json.loads(wsctl("mcp", "list", str(ws), json=True).stdout)["servers"]
    row = next(r for r in rows if r["name"] == name)
    return wsctl("mcp", "approve", name, str(ws), "--digest", row["digest"],
                 *(["--accept-unverified"] if row["unverified"] else []))


def test_a_trusted_projects_server_runs_only_after_approval_of_what_it_is_now(
        wsctl, client, wskit_home, make_tree, tmp_path):
    marker = tmp_path / "ran"
    ws = _trusted(make_tree, wskit_home, {".mcp.json": json.dumps({"mcpServers": {"evil": _marker_server(marker)}})})
    for args in (("mcp", "check", "evil", str(ws)), ("mcp", "call", "evil", "x", str(ws)),
                 ("mcp", "list", str(ws), "--status")):
        res = wsctl(*args)
        assert not marker.exists(), args
        assert "Traceback" not in res.output
    assert wsctl("mcp", "check", "evil", str(ws)).stderr.count("\n") == 1
    assert _approve(wsctl, "evil", ws).exit_code == 0
    wsctl("mcp", "check", "evil", str(ws))  # the command is not an MCP server: it runs, then fails
    assert marker.read_text() == "ran"
    marker.unlink()
    changed = _marker_server(marker)
    changed["args"] = changed["args"] + ["--now-different"]
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": {"evil": changed}}))
    res = wsctl("mcp", "check", "evil", str(ws))
    assert res.exit_code == 1 and "changed since it was approved" in res.stderr and not marker.exists()


@pytest.mark.parametrize("settings", [
    {"enableAllProjectMcpServers": True},
    {"enabledMcpjsonServers": ["evil"]},
])
@pytest.mark.parametrize("where", [".claude/settings.json", ".claude/settings.local.json",
                                   ".wskit/settings.json", ".wskit/settings.local.json"])
def test_a_repository_cannot_approve_its_own_servers(wsctl, client, wskit_home, make_tree, tmp_path, settings, where):
    marker = tmp_path / "ran"
    ws = _trusted(make_tree, wskit_home, {".mcp.json": json.dumps({"mcpServers": {"evil": _marker_server(marker)}}),
                                          where: json.dumps(settings)})
    row = json.loads(wsctl("mcp", "list", str(ws), json=True).stdout)["servers"][0]
    assert row["approval"] == "awaiting"
    res = wsctl("mcp", "check", "evil", str(ws))
    assert res.exit_code == 1 and not marker.exists()


def test_host_environment_values_are_never_printed(wsctl, client, wskit_home, make_tree, monkeypatch):
    monkeypatch.setenv("WSKIT_CANARY", SECRET)
    ws = _trusted(make_tree, wskit_home, {".mcp.json": json.dumps({"mcpServers": {
        "leak": {"type": "http", "url": "http://127.0.0.1:9/mcp?k=${WSKIT_CANARY}",
                 "headers": {"Authorization": "Bearer ${WSKIT_CANARY}"}},
        "argv": {"command": "${WSKIT_CANARY}", "args": ["--token=${WSKIT_CANARY}"], "env": {"T": "${WSKIT_CANARY}"}},
    }})})
    outputs = [wsctl("mcp", "list", str(ws)).output, wsctl("mcp", "list", str(ws), json=True).output,
               wsctl("inspect", str(ws), json=True).output, wsctl("snapshot", str(ws)).output]
    for out in outputs:
        assert SECRET not in out
    assert "${WSKIT_CANARY}" in outputs[1]
    for name in ("leak", "argv"):
        assert _approve(wsctl, name, ws).exit_code == 0
        res = wsctl("mcp", "check", name, str(ws))
        assert res.exit_code == 1 and SECRET not in res.output, res.output


def test_values_are_substituted_at_start_and_masked_in_errors(wskit_pm, wskit_home, make_tree, monkeypatch):
    """The service does substitute (published plugins rely on it), and an error that
    would carry the value shows ``***``."""
    import wskit_mcp  # noqa: F401
    from wskit.builtin_plugins.mcp.loader import expand_server
    from wskit.session import snapshot
    from wskit.session.runtime import RuntimeOptions, attach
    from wskit_mcp import McpConnectError, McpOptions, McpService

    monkeypatch.setenv("WSKIT_CANARY", SECRET)
    wskit_pm.register(wskit_mcp, name="mcp-client")
    ws = _trusted(make_tree, wskit_home, {".mcp.json": json.dumps({"mcpServers": {
        "argv": {"command": f"/nonexistent/{'${WSKIT_CANARY}'}"}}})})
    from tests.builtin_plugins._bundle_helpers import load
    from wskit.host import HostProfile

    w = load(wskit_pm, ws, HostProfile(name="wskit", home=wskit_home))
    s = snapshot(w)
    server = s.registry("mcp_server").get("argv")
    assert server.command == "/nonexistent/${WSKIT_CANARY}"
    assert expand_server(server, dict(os.environ))[0].command == f"/nonexistent/{SECRET}"
    attach(s, RuntimeOptions(services={"mcp": McpService.factory(McpOptions(approve=lambda srv: True))}))
    try:
        with pytest.raises(McpConnectError) as err:
            s.mcp.connect("argv")
        assert SECRET not in str(err.value)
        assert SECRET not in (s.mcp.status("argv")[0].error or "")
    finally:
        s.close()


@pytest.mark.parametrize("damage", ["mode", "link", "garbage"])
def test_a_damaged_approval_store_starts_nothing(wsctl, client, wskit_home, make_tree, tmp_path, damage):
    from wskit.approval.store import ApprovalStore

    marker = tmp_path / "ran"
    ws = _trusted(make_tree, wskit_home, {".mcp.json": json.dumps({"mcpServers": {"evil": _marker_server(marker)}})})
    assert _approve(wsctl, "evil", ws).exit_code == 0
    store = ApprovalStore.for_home(wskit_home).path
    if damage == "mode":
        os.chmod(store, 0o666)
    elif damage == "link":
        real = tmp_path / "elsewhere.json"
        real.write_bytes(store.read_bytes())
        os.chmod(real, 0o600)
        store.unlink()
        store.symlink_to(real)
    else:
        store.write_text("{not json")
    row = json.loads(wsctl("mcp", "list", str(ws), json=True).stdout)["servers"][0]
    assert row["approval"] == "error"
    res = wsctl("mcp", "check", "evil", str(ws))
    assert res.exit_code == 1 and not marker.exists() and "Traceback" not in res.output
    again = wsctl("mcp", "approve", "evil", str(ws), "--digest", row["digest"])  # never overwritten while unusable
    assert again.exit_code == 1 and again.stderr.startswith("error: approval store")
