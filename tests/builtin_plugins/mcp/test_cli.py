"""wsctl mcp list and lsp list (tested together on one tree), and the human output of the
mcp, lsp and hooks lists. wsctl hooks list|status|trust|revoke: tests/builtin_plugins/hooks/test_cli.py."""

from __future__ import annotations

import json

from tests.builtin_plugins._cli_trees import servers_workspace
from wskit.trust import TrustStore


def test_mcp_and_lsp_list(wsctl, wskit_home, make_tree):
    ws = servers_workspace(make_tree, wskit_home)
    data = json.loads(wsctl("mcp", "list", str(ws), json=True).output)
    (srv,) = data["servers"]
    assert srv["id"] == "project:db" and srv["alias"] == "db" and srv["args"] == ["--ro"]
    assert srv["cwd"] == str(ws) and srv["startable"] is True and srv["path"] == ".mcp.json"
    data = json.loads(wsctl("mcp", "list", str(ws), "--strict", "--mcp-config", '{"x": {"command": "y"}}',
                            json=True).output)
    assert [s["id"] for s in data["servers"]] == ["cli:x"]
    data = json.loads(wsctl("lsp", "list", str(ws), json=True).output)
    assert data["servers"][0]["id"] == "project:go"
    assert data["servers"][0]["extension_to_language"] == {".go": "go"}


def test_lists_show_their_diagnostics_in_human_output(wsctl, wskit_home, make_tree):
    """A broken .mcp.json, hooks block or .lsp.json is said in the human list too, not
    only with --json or in inspect: a shorter list alone gives no hint why."""
    ws = make_tree({
        ".mcp.json": "{not json",
        ".lsp.json": json.dumps({"go": {"command": 5}}),
        ".claude/settings.json": json.dumps({"hooks": {"PreToolUse": 5}}),
    })
    TrustStore.for_home(wskit_home).grant(ws)
    for group, code in (("mcp", "invalid-json"), ("hooks", "hooks-invalid"), ("lsp", "lsp")):
        res = wsctl(group, "list", str(ws))
        assert res.exit_code == 0, res.output
        data = json.loads(wsctl(group, "list", str(ws), json=True).stdout)
        assert data["diagnostics"], (group, data)
        assert "diagnostics (" in res.stdout and code in res.stdout, (group, res.stdout)


def test_mcp_list_json_keys_are_the_documented_ones(wsctl, wskit_home, make_tree):
    """docs/wsctl.md lists every key of an ``mcp list`` server (``incomplete`` was missing)."""
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[3] / "docs" / "wsctl.md").read_text()
    block = doc[doc.index("- `mcp list [PATH]"):]
    documented = set(re.findall(r'"(\w+)"', block[block.index('"servers": [{'):block.index("}], \"diagnostics\"")]))
    ws = servers_workspace(make_tree, wskit_home)
    (srv,) = json.loads(wsctl("mcp", "list", str(ws), json=True).output)["servers"]
    assert set(srv) == documented - {"servers"}
    assert srv["incomplete"] == []
