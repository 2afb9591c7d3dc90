"""``plugins install`` never writes into a folder Claude Code keeps for itself under
``~/.claude/plugins`` (its marketplace clones, cache, data…): a plugin named like one is
refused for every host, with an error that says why (docs/plugins.md)."""

from __future__ import annotations

import json

import pytest

from wskit.builtin_plugins.bundles.discovery import CLAUDE_BOOKKEEPING


@pytest.mark.parametrize("name", sorted(CLAUDE_BOOKKEEPING))
@pytest.mark.parametrize("host", ["claude", "wskit"])
def test_a_plugin_named_like_claude_codes_own_folder_is_refused(name, host, wsctl, wskit_home, tmp_path):
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
    res = wsctl("--host", host, "plugins", "install", f"{name}@m", "--from", str(m), "--force")
    assert res.exit_code == 1 and "Claude Code keeps" in res.output, res.output
    assert [p.name for p in claude_own.iterdir()] == ["keep.json"]
    assert not list(wskit_home.rglob("SKILL.md"))
