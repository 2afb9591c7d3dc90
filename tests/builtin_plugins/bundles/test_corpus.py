"""Real input: ../shared/corpus/claude-plugins-official (skipped when absent)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.builtin_plugins._bundle_helpers import corpus, load
from wskit.builtin_plugins.bundles.ledger import install
from wskit.builtin_plugins.bundles.marketplace import MarketplaceError, load_marketplace

pytestmark = pytest.mark.corpus


def _plugin_dirs():
    root = corpus()
    return sorted(p for sub in ("plugins", "external_plugins") for p in (root / sub).iterdir() if p.is_dir())


#: ``claude plugin validate DIR`` verdicts recorded from Claude Code (tests/conformance)
RECORDED = json.loads((Path(__file__).resolve().parents[2] / "conformance" / "validate_recorded.json").read_text())


def _claude_says_valid(d: Path) -> bool:
    return RECORDED["verdicts"][f"{d.parent.name}/{d.name}"] == "valid"


def test_validate_every_plugin_with_a_manifest_reports_no_errors_where_claude_code_does_not(wsctl):
    checked = 0
    for d in _plugin_dirs():
        if not (d / ".claude-plugin/plugin.json").is_file():
            continue
        r = wsctl("plugins", "validate", str(d), json=True)
        data = json.loads(r.output)
        errors = [x for x in data["diagnostics"] if x["level"] == "error"]
        assert data["manifest_source"] == "claude"
        if _claude_says_valid(d):
            assert r.exit_code == 0 and errors == [], (d.name, errors)
        else:  # a reserved name outside Anthropic's own marketplace source, as Claude Code says
            assert r.exit_code == 1 and {x["code"] for x in errors} == {"plugin-name-reserved"}, (d.name, errors)
        checked += 1
    assert checked >= 40


def test_lsp_directories_say_they_are_strict_false_entries(wsctl):
    """A ``strict: false`` entry's folder holds no manifest and no component: Claude Code's
    validate refuses the folder alone, and wskit agrees, while still naming the entry
    that defines it and loading its server from the marketplace entry."""
    lsp = [d for d in _plugin_dirs() if d.name.endswith("-lsp")]
    assert len(lsp) >= 10
    for d in lsp:
        assert not (d / ".claude-plugin").exists()
        data = json.loads(wsctl("plugins", "validate", str(d), json=True).output)
        (note,) = [x for x in data["diagnostics"] if x["code"] == "marketplace-defined"]
        assert "strict: false entry of marketplace 'claude-plugins-official'" in note["message"]
        assert data["manifest_source"] == "marketplace" and data["counts"] == {"lsp_server": 1}
        assert data["ok"] is _claude_says_valid(d)
        if not data["ok"]:
            (err,) = [x for x in data["diagnostics"] if x["level"] == "error"]
            assert err["code"] == "plugin-no-manifest"
            # the messages agree: the folder alone has none, the marketplace entry defines it
            assert "this folder alone has no manifest" in err["message"]
            assert "validate the marketplace instead" in err["message"] and "expected" not in err["message"]


def test_marketplace_lists_all_entries(wsctl):
    root = corpus()
    raw = json.loads((root / ".claude-plugin/marketplace.json").read_text())
    data = json.loads(wsctl("marketplace", "list", str(root), json=True).output)
    assert data["name"] == "claude-plugins-official"
    assert [p["name"] for p in data["plugins"]] == [p["name"] for p in raw["plugins"]]
    for p in data["plugins"]:
        # the name is Anthropic's: from a local folder nothing installs, and nothing is listed
        # as installable; the local entries say why, the remote ones that they need a fetch
        assert p["installable"] is False and p["reason"]
        assert p["reason_code"] == ("name-reserved" if isinstance(p["source"], str) else "needs-fetch")
    assert "marketplace-name-reserved" in {d["code"] for d in data["diagnostics"]}


def _renamed_copy(tmp_path: Path, *plugins: str) -> Path:
    """The corpus marketplace file and ``plugins`` under a marketplace name of one's own
    (how a local copy of the official marketplace is used, docs/plugins.md)."""
    root, out = corpus(), tmp_path / "my-mirror"
    (out / ".claude-plugin").mkdir(parents=True)
    raw = json.loads((root / ".claude-plugin/marketplace.json").read_text())
    (out / ".claude-plugin/marketplace.json").write_text(json.dumps({**raw, "name": "my-mirror"}))
    for name in plugins:
        shutil.copytree(root / "plugins" / name, out / "plugins" / name)
    return out


def test_install_clangd_yields_namespaced_lsp_server(wskit_pm, wskit_profile, make_tree, tmp_path):
    with pytest.raises(MarketplaceError, match="refused from a local folder"):
        install(wskit_profile, load_marketplace(corpus()), "clangd-lsp")
    mk = load_marketplace(_renamed_copy(tmp_path, "clangd-lsp"))
    rec = install(wskit_profile, mk, "clangd-lsp")
    assert rec["version"] == "1.0.0"
    w = load(wskit_pm, make_tree({"main.c": "int main;"}), wskit_profile)
    srv = w.registry("lsp_server").get("plugin:clangd-lsp:clangd")
    assert srv.command == "clangd" and srv.args == ("--background-index",)
    assert srv.extension_to_language[".cpp"] == "cpp" and srv.extension_to_language[".c"] == "c"
    assert srv.extension_to_language[".C"] == "cpp" and len(srv.extension_to_language) == 9


def test_plugin_mcp_json_is_namespaced_and_expanded(wskit_pm, wskit_profile, make_tree, monkeypatch):
    root = corpus()
    monkeypatch.setenv("CONTEXT7_API_KEY", "k-123")
    dirs = [str(root / "external_plugins/discord"), str(root / "external_plugins/context7")]
    w = load(wskit_pm, make_tree({"a": "b"}), wskit_profile, plugin_dirs=dirs)
    reg = w.registry("mcp_server")
    discord = reg.get("plugin:discord:discord")
    assert discord.alias == "discord__discord"
    assert discord.args[2] == str(root / "external_plugins/discord") and "${" not in " ".join(discord.args)
    ctx7 = reg.get("context7:context7")
    # a plugin definition keeps ${VAR} as written until the server starts (never printed expanded)
    assert ctx7.transport == "http" and ctx7.headers == {"Authorization": "${CONTEXT7_API_KEY:-}"} and ctx7.startable
    assert "CONTEXT7_API_KEY" in ctx7.variables
