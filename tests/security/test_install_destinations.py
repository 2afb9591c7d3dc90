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
