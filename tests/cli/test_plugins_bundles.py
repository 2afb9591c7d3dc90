"""wsctl plugins list|show|validate|install|uninstall|enable|disable and marketplace list|show."""

from __future__ import annotations

import json

from wskit.trust import TrustStore
from wskit.testing import write_tree

from ..core._bundle_helpers import plugin, skill


def _market(root):
    plugin(root / "plugins/tool", "tool", {"skills/s/SKILL.md": skill()}, version="1.0.0")
    write_tree(root, {".claude-plugin/marketplace.json": json.dumps({"name": "mk", "owner": {"name": "Me"}, "plugins": [
        {"name": "tool", "source": "./plugins/tool"},
        {"name": "net", "source": {"source": "npm", "package": "x"}}]})})
    return root


def test_plugins_list_json_keeps_plugins_and_adds_bundles(tmp_path, wsctl, make_tree):
    p = plugin(tmp_path / "p", "demo", {"skills/a/SKILL.md": skill()}, version="0.2.0")
    ws = make_tree({"x": "y"})
    r = wsctl("--plugin-dir", str(p), "plugins", "list", str(ws), json=True)
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert {"plugins", "bundles"} <= set(data)
    assert any(x["name"] == "bundles" and x["builtin"] for x in data["plugins"])
    (b,) = data["bundles"]
    assert set(b) == {"name", "version", "root", "scope", "state", "issues", "counts"}
    assert b["name"] == "demo" and b["version"] == "0.2.0" and b["scope"] == "cli" and b["state"] == "active"
    assert b["counts"] == {"skill": 1} and b["root"] == str(p)


def test_plugins_show(tmp_path, wsctl, make_tree):
    p = plugin(tmp_path / "p", "demo", {"skills/a/SKILL.md": skill()})
    r = wsctl("--plugin-dir", str(p), "plugins", "show", "demo", "--path", str(make_tree({"x": "y"})), json=True)
    data = json.loads(r.output)
    assert data["resources"] == ["plugin:demo:a"] and data["state"] == "active"
    r = wsctl("plugins", "show", "nope", "--path", str(tmp_path))
    assert r.exit_code == 1 and "no content plugin 'nope'" in r.output


def test_validate_reports_errors_with_exit_1(tmp_path, wsctl):
    good = plugin(tmp_path / "good", "good", {".mcp.json": {"s": {"command": "x"}}})
    r = wsctl("plugins", "validate", str(good), json=True)
    data = json.loads(r.output)
    assert r.exit_code == 0 and data["ok"] and data["counts"] == {"mcp_server": 1}
    bad = plugin(tmp_path / "bad", "bad", {".lsp.json": {"x": {"command": "c"}}})
    r = wsctl("plugins", "validate", str(bad), json=True)
    data = json.loads(r.output)
    assert r.exit_code == 1 and not data["ok"]
    assert any(d["code"] == "lsp-invalid" for d in data["diagnostics"])


def test_marketplace_list_and_install_uninstall(tmp_path, wsctl, wskit_home):
    mk = _market(tmp_path / "market")
    r = wsctl("marketplace", "list", str(mk), json=True)
    data = json.loads(r.output)
    assert data["name"] == "mk" and data["owner"] == {"name": "Me"}
    rows = {p["name"]: p for p in data["plugins"]}
    assert set(rows["tool"]) == {"name", "source", "installable", "reason"}
    assert rows["tool"]["installable"] and rows["tool"]["reason"] is None
    assert not rows["net"]["installable"] and "fetch" in rows["net"]["reason"]
    r = wsctl("marketplace", "show", str(mk), "net", json=True)
    assert json.loads(r.output)["source_kind"] == "npm"
    human = wsctl("marketplace", "show", str(mk), "net").output  # text without --json (newcomer finding)
    assert human.startswith("net in mk: npm source") and "not installable: " in human and "entry:" in human
    assert not human.lstrip().startswith("{")
    r = wsctl("plugins", "install", "net@mk", "--from", str(mk))
    assert r.exit_code == 1 and "needs a fetch" in r.output
    r = wsctl("plugins", "install", "tool@mk", "--from", str(mk), json=True)
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["digest"].startswith("sha256:")
    r = wsctl("plugins", "install", "tool@mk", json=True)  # known from the ledger now
    assert r.exit_code == 0, r.output
    r = wsctl("plugins", "list", str(tmp_path), json=True)
    assert [b["scope"] for b in json.loads(r.output)["bundles"]] == ["managed"]
    r = wsctl("plugins", "uninstall", "tool", json=True)
    assert json.loads(r.output)["removed"] is True
    assert not (wskit_home / ".wskit/plugins/tool").exists()


def test_enable_disable_write_settings(tmp_path, wsctl, wskit_home, make_tree):
    plugin(wskit_home / ".claude/plugins/demo", "demo")
    ws = make_tree({"x": "y"})
    r = wsctl("plugins", "disable", "demo", json=True)
    assert json.loads(r.output)["settings"] == str(wskit_home / ".wskit/settings.json")
    assert json.loads((wskit_home / ".wskit/settings.json").read_text()) == {"enabledPlugins": {"demo": False}}
    r = wsctl("plugins", "list", str(ws), json=True)
    assert json.loads(r.output)["bundles"][0]["state"] == "inactive"
    TrustStore.for_home(wskit_home).grant(ws)
    r = wsctl("plugins", "enable", "demo", "--scope", "local", "--path", str(ws), json=True)
    assert json.loads(r.output)["enabled"] is True
    assert (ws / ".wskit/settings.local.json").is_file()
    r = wsctl("plugins", "list", str(ws), json=True)
    assert json.loads(r.output)["bundles"][0]["state"] == "active"


def test_plugins_list_reports_a_missing_plugin_dir_and_keeps_errors_out_of_the_table(tmp_path, wsctl, make_tree):
    """Found by the newcomer test: a missing --plugin-dir showed only in inspect, and a
    long error in the STATE column stretched the whole table."""
    ws = make_tree({"x": "y"})
    r = wsctl("--plugin-dir", str(tmp_path / "nonexistent"), "plugins", "list", str(ws), json=True)
    assert r.exit_code == 0, r.output
    assert [d["code"] for d in json.loads(r.output)["diagnostics"]] == ["plugin-dir-missing"]
    assert "plugin-dir-missing" in wsctl("--plugin-dir", str(tmp_path / "nonexistent"), "plugins", "list",
                                         str(ws)).output
    from wskit.cli.bundles import human_bundles

    long = "x" * 300
    text = human_bundles([{"name": "b", "version": None, "root": "/r", "scope": "cli", "state": "invalid",
                           "issues": [{"level": "error", "message": long}], "counts": {}}])
    table_lines = text.split("\n\nerrors:\n")[0].splitlines()
    assert all(len(line) < 120 for line in table_lines), table_lines
    assert "invalid (1 error, below)" in text and f"  b: {long}" in text  # whole, under the table
