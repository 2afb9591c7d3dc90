"""Plugin names become folder names: hostile marketplace names and tampered ledgers."""

import json
import os

import pytest

from wskit.builtin_plugins.bundles.ledger import LedgerError, install, ledger_path, plugins_dir, uninstall
from wskit.builtin_plugins.bundles.marketplace import load_marketplace


def marketplace(root, names):
    (root / ".claude-plugin").mkdir(parents=True)
    good = root / "plugins" / "good"
    (good / ".claude-plugin").mkdir(parents=True)
    (good / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "good"}))
    (good / "commands").mkdir()
    (good / "commands" / "hi.md").write_text("Say hi.\n")
    plugins = [{"name": n, "source": "./plugins/good"} for n in names] + [5, {"source": "./x"}]
    (root / ".claude-plugin" / "marketplace.json").write_text(json.dumps({"name": "mk", "owner": {"name": "o"},
                                                                          "plugins": plugins}))
    return load_marketplace(root)


@pytest.mark.parametrize("name", ["/../../../PWNED", "../../evil", "a/b", "UPPER", ".hidden"])
def test_hostile_names_are_not_installable(tmp_path, wskit_profile, name):
    mk = marketplace(tmp_path / "mk", [name, "good"])
    entry = mk.entry(name)
    assert not entry.installable and "kebab-case" in entry.reason
    with pytest.raises(Exception, match="kebab-case"):
        install(wskit_profile, mk, name)
    assert not (tmp_path / "PWNED").exists() and not os.path.exists("/PWNED")
    assert [d.code for d in mk.diagnostics] == ["marketplace-entry", "marketplace-entry"]
    assert install(wskit_profile, mk, "good")["root"] == str(plugins_dir(wskit_profile) / "good")


def test_uninstall_refuses_a_tampered_ledger_root(tmp_path, wskit_profile):
    mk = marketplace(tmp_path / "mk", ["good"])
    install(wskit_profile, mk, "good")
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious")
    path = ledger_path(wskit_profile)
    data = json.loads(path.read_text())
    data["plugins"]["good"]["root"] = str(victim)
    path.write_text(json.dumps(data))
    with pytest.raises(LedgerError, match="refusing to delete"):
        uninstall(wskit_profile, "good")
    assert (victim / "keep.txt").read_text() == "precious"
    assert (plugins_dir(wskit_profile) / "good").is_dir()
