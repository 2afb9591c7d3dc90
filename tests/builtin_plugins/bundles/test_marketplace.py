"""Local marketplaces, managed installs, the digest ledger, tampering and uninstall."""

from __future__ import annotations

import json
import os

import pytest

from tests.builtin_plugins._bundle_helpers import load, plugin, skill
from wskit.binding import Binding
from wskit.builtin_plugins.bundles.active import find_bundles
from wskit.builtin_plugins.bundles.ledger import LedgerError, install, ledger_path, read_ledger, tree_digest, uninstall
from wskit.builtin_plugins.bundles.marketplace import MarketplaceError, find_entry_for, load_marketplace
from wskit.testing import write_tree
from wskit.trust import TrustDecision

TRUSTED = TrustDecision(path="/", state="trusted")


@pytest.fixture
def market(tmp_path):
    root = tmp_path / "market"
    plugin(root / "plugins/tool", "tool", {"skills/s/SKILL.md": skill()}, version="1.2.0")
    write_tree(root, {"plugins/py-lsp/README.md": "no manifest here"})
    entries = [
        {"name": "tool", "source": "./plugins/tool", "version": "1.2.0"},
        {"name": "py-lsp", "source": "./plugins/py-lsp", "strict": False, "version": "0.1.0",
         "lspServers": {"pyright": {"command": "pyright-langserver", "args": ["--stdio"],
                                    "extensionToLanguage": {".py": "python"}}}},
        {"name": "remote", "source": {"source": "github", "repo": "o/r"}},
        {"name": "gone", "source": "./plugins/missing"},
        {"name": "escape", "source": "../elsewhere"},
    ]
    write_tree(root, {".claude-plugin/marketplace.json": json.dumps(
        {"name": "local-market", "owner": {"name": "Me"}, "plugins": entries})})
    return root


def test_marketplace_lists_every_entry(market):
    mk = load_marketplace(market)
    assert mk.name == "local-market" and mk.owner == {"name": "Me"}
    by = {e.name: e for e in mk.plugins}
    assert by["tool"].installable and by["py-lsp"].installable and not by["py-lsp"].strict
    assert not by["remote"].installable and "fetch" in by["remote"].reason and by["remote"].source_kind == "github"
    assert "does not exist" in by["gone"].reason
    assert "leaves the marketplace" in by["escape"].reason


def test_bad_marketplace_raises(tmp_path):
    with pytest.raises(MarketplaceError):
        load_marketplace(tmp_path)


def test_install_records_ledger_and_loads_managed(market, wskit_profile, wskit_pm, make_tree):
    rec = install(wskit_profile, load_marketplace(market), "tool")
    root = wskit_profile.home / ".wskit/installs/wskit/tool"
    assert rec["root"] == str(root) and (root / "skills/s/SKILL.md").is_file()
    assert rec["digest"] == tree_digest(root) and rec["digest"].startswith("sha256:")
    led = read_ledger(wskit_profile)["tool"]
    assert led["version"] == "1.2.0" and led["marketplace"] == "local-market" and led["source"] == "./plugins/tool"
    assert os.stat(ledger_path(wskit_profile)).st_mode & 0o777 == 0o600
    w = load(wskit_pm, make_tree({"a": "b"}), wskit_profile)
    assert w.registry("skill").get("tool:s").id == "plugin:tool:s"


def test_strict_false_entry_installs_and_loads(market, wskit_profile, wskit_pm, make_tree):
    install(wskit_profile, load_marketplace(market), "py-lsp")
    w = load(wskit_pm, make_tree({"a": "b"}), wskit_profile)
    srv = w.registry("lsp_server").get("plugin:py-lsp:pyright")
    assert srv.extension_to_language == {".py": "python"} and srv.args == ("--stdio",)


def test_strict_false_folder_finds_its_entry(market):
    mk, entry = find_entry_for(market / "plugins/py-lsp")
    assert mk.name == "local-market" and entry.name == "py-lsp" and not entry.strict


def test_network_source_is_not_installed(market, wskit_profile):
    with pytest.raises(MarketplaceError, match="needs a fetch"):
        install(wskit_profile, load_marketplace(market), "remote")
    assert not (wskit_profile.home / ".wskit/installs/wskit/remote").exists()
    assert not ledger_path(wskit_profile).exists()


def test_tampered_managed_install_is_error(market, wskit_profile, make_tree):
    install(wskit_profile, load_marketplace(market), "tool")
    skill_file = wskit_profile.home / ".wskit/installs/wskit/tool/skills/s/SKILL.md"
    skill_file.write_text(skill("Now does something else."))
    bundles, diags = find_bundles(Binding.discover(make_tree({"a": "b"})), wskit_profile, TRUSTED)
    b = {x.name: x for x in bundles}["tool"]
    assert b.state == "error" and b.issues[-1].code == "managed-modified"
    assert any(d.code == "plugin-failed" and d.plugin == "tool" for d in diags)


def test_uninstall_removes_files_and_entry(market, wskit_profile):
    install(wskit_profile, load_marketplace(market), "tool")
    out = uninstall(wskit_profile, "tool")
    assert out["removed"] and not (wskit_profile.home / ".wskit/installs/wskit/tool").exists()
    assert read_ledger(wskit_profile) == {}
    with pytest.raises(LedgerError):
        uninstall(wskit_profile, "tool")


def test_unmanaged_folder_is_not_overwritten(market, wskit_profile):
    (wskit_profile.home / ".wskit/installs/wskit/tool").mkdir(parents=True)
    with pytest.raises(LedgerError, match="not a managed install"):
        install(wskit_profile, load_marketplace(market), "tool")


def test_reinstall_replaces(market, wskit_profile):
    mk = load_marketplace(market)
    first = install(wskit_profile, mk, "tool")
    (market / "plugins/tool/extra.txt").write_text("new")
    second = install(wskit_profile, mk, "tool")
    assert first["digest"] != second["digest"]
    assert (wskit_profile.home / ".wskit/installs/wskit/tool/extra.txt").read_text() == "new"
