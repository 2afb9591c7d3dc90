"""``plugins install`` never writes into a folder Claude Code keeps for itself under
``~/.claude/plugins`` (its marketplace clones, cache, data…): installs go to wskit's own
state, ``~/.wskit/installs/<host>/<name>``, so a plugin named like one of those folders
(``data@…``) installs there for every host and Claude Code's folder is untouched
(docs/plugins.md; issue 34 item 3)."""

from __future__ import annotations

import json

import pytest

from wskit.builtin_plugins.bundles.discovery import CLAUDE_BOOKKEEPING


@pytest.mark.parametrize("name", sorted(CLAUDE_BOOKKEEPING))
@pytest.mark.parametrize("host", ["claude", "wskit"])
def test_a_plugin_named_like_claude_codes_own_folder_installs_in_wskits_state(name, host, wsctl, wskit_home,
                                                                             tmp_path):
    m = tmp_path / "m"
    (m / ".claude-plugin").mkdir(parents=True)
    (m / "p" / ".claude-plugin").mkdir(parents=True)
    (m / "p" / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": name, "version": "1.0.0"}))
    (m / "p" / "skills" / "s").mkdir(parents=True)
    (m / "p" / "skills" / "s" / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\nbody\n")
    (m / ".claude-plugin" / "marketplace.json").write_text(json.dumps(
        {"name": "m", "owner": {"name": "x"}, "plugins": [{"name": name, "source": "./p"}]}))
    claude_own = wskit_home / ".claude" / "plugins" / name
    claude_own.mkdir(parents=True)
    (claude_own / "keep.json").write_text("{}")
    res = wsctl("--host", host, "plugins", "install", f"{name}@m", "--from", str(m), json=True)
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["root"] == str(wskit_home / ".wskit" / "installs" / host / name)
    assert [p.name for p in claude_own.iterdir()] == ["keep.json"]
    assert [p.relative_to(wskit_home).as_posix() for p in wskit_home.rglob("SKILL.md")] == [
        f".wskit/installs/{host}/{name}/skills/s/SKILL.md"]


def test_migration_never_follows_a_legacy_install_swapped_for_a_link(wsctl, wskit_home, tmp_path):
    """An install an earlier version left in ``~/.wskit/plugins/<name>`` that was replaced by
    a link to a folder elsewhere is not moved (nothing outside the home is touched); the
    ledger keeps naming the old place and the plugin is reported, not silently dropped."""
    m = tmp_path / "m"
    (m / ".claude-plugin").mkdir(parents=True)
    (m / "p" / ".claude-plugin").mkdir(parents=True)
    (m / "p" / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "tool", "version": "1.0.0"}))
    (m / ".claude-plugin" / "marketplace.json").write_text(json.dumps(
        {"name": "m", "owner": {"name": "x"}, "plugins": [{"name": "tool", "source": "./p"}]}))
    assert wsctl("plugins", "install", "tool@m", "--from", str(m)).exit_code == 0
    ledger = wskit_home / ".wskit" / "plugin-ledger.json"
    doc = json.loads(ledger.read_text())
    legacy = wskit_home / ".wskit" / "plugins" / "tool"
    legacy.parent.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("not the plugin's")
    legacy.symlink_to(elsewhere)
    doc["plugins"]["tool"]["root"] = str(legacy)
    ledger.write_text(json.dumps(doc))
    installed = wskit_home / ".wskit" / "installs" / "wskit" / "tool"
    import shutil

    shutil.rmtree(installed)
    (moved,) = json.loads(wsctl("plugins", "migrate", json=True).output)["migrated"]
    assert moved["status"] == "missing"
    assert legacy.is_symlink() and (elsewhere / "keep.txt").read_text() == "not the plugin's"
    assert not installed.exists()
    assert json.loads(ledger.read_text())["plugins"]["tool"]["root"] == str(legacy)
