"""``wsctl plugins install`` validates the plugin first, as ``plugins validate`` does, and a
marketplace with two entries of one name is an error whose name installs nothing (Claude
Code's validation: ``Duplicate plugin name "x" found in marketplace``)."""

from __future__ import annotations

import json

from wskit.builtin_plugins.bundles.marketplace import load_marketplace


def _marketplace(tmp_path):
    m = tmp_path / "m"
    (m / ".claude-plugin").mkdir(parents=True)
    (m / "broken" / ".claude-plugin").mkdir(parents=True)
    (m / "broken" / ".claude-plugin" / "plugin.json").write_text('{"name":"broken",')
    (m / "empty").mkdir()
    (m / "good" / ".claude-plugin").mkdir(parents=True)
    (m / "good" / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "good", "version": "1.0.0"}))
    (m / "good" / "skills" / "s").mkdir(parents=True)
    (m / "good" / "skills" / "s" / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\nbody\n")
    (m / ".claude-plugin" / "marketplace.json").write_text(json.dumps({"name": "m", "owner": {"name": "x"}, "plugins": [
        {"name": "broken", "source": "./broken"}, {"name": "empty", "source": "./empty"},
        {"name": "dup", "source": "./good"}, {"name": "dup", "source": "./broken"}, {"name": "good", "source": "./good"},
        {"name": "lonely", "source": "./empty"}]}))
    return m


def test_a_plugin_with_errors_is_refused_and_nothing_is_installed(wsctl, wskit_home, tmp_path):
    m = _marketplace(tmp_path)
    broken = wsctl("plugins", "install", "broken@m", "--from", str(m))
    assert broken.exit_code == 1 and "nothing installed" in broken.output
    assert "invalid-json" in broken.output and str(m / "broken" / ".claude-plugin" / "plugin.json") in broken.output
    lonely = wsctl("plugins", "install", "lonely@m", "--from", str(m))
    assert lonely.exit_code == 1 and "plugin-no-manifest" in lonely.output
    assert not (wskit_home / ".wskit" / "installs" / "wskit" / "broken").exists()
    assert not (wskit_home / ".wskit" / "installs" / "wskit" / "lonely").exists()
    assert not (wskit_home / ".wskit" / "plugin-ledger.json").exists()
    good = wsctl("plugins", "install", "good@m", "--from", str(m))
    assert good.exit_code == 0 and (wskit_home / ".wskit" / "installs" / "wskit" / "good" / "skills" / "s" / "SKILL.md").is_file()
    forced = wsctl("plugins", "install", "broken@m", "--from", str(m), "--force")
    assert forced.exit_code == 0 and (wskit_home / ".wskit" / "installs" / "wskit" / "broken").is_dir()


def test_duplicate_marketplace_names_are_an_error_and_install_neither(wsctl, wskit_home, tmp_path):
    m = _marketplace(tmp_path)
    mk = load_marketplace(m)
    dups = [d for d in mk.diagnostics if d.code == "marketplace-duplicate-name"]
    assert len(dups) == 1 and dups[0].level == "error" and "plugins[2], plugins[3]" in dups[0].message
    assert [e.reason_code for e in mk.plugins if e.name == "dup"] == ["duplicate", "duplicate"]
    listed = wsctl("marketplace", "list", str(m))
    assert "marketplace-duplicate-name" in listed.output and "no: duplicate" in listed.output
    validated = wsctl("plugins", "validate", str(m))
    assert validated.exit_code == 1 and "duplicate plugin name 'dup'" in validated.output
    for extra in ((), ("--force",)):
        res = wsctl("plugins", "install", "dup@m", "--from", str(m), *extra)
        assert res.exit_code == 1 and "ambiguous" in res.output
    assert not (wskit_home / ".wskit" / "installs" / "wskit" / "dup").exists()


def test_a_plugin_its_marketplace_entry_defines_still_installs(wsctl, wskit_home, tmp_path):
    """A ``strict: false`` entry with inline servers and a folder holding only a README
    (as the LSP plugins of Claude Code's official marketplace): the folder alone has no
    manifest, the entry defines the plugin, so it installs."""
    m = tmp_path / "m"
    (m / ".claude-plugin").mkdir(parents=True)
    (m / "inline").mkdir()
    (m / "inline" / "README.md").write_text("inline servers\n")
    (m / ".claude-plugin" / "marketplace.json").write_text(json.dumps({"name": "m", "owner": {"name": "x"}, "plugins": [
        {"name": "inline", "source": "./inline", "strict": False,
         "lspServers": {"xls": {"command": "xls", "extensionToLanguage": {".x": "x"}}}}]}))
    res = wsctl("plugins", "install", "inline@m", "--from", str(m))
    assert res.exit_code == 0, res.output
    assert (wskit_home / ".wskit" / "installs" / "wskit" / "inline" / "README.md").is_file()
