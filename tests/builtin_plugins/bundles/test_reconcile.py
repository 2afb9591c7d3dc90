"""Namespacing of plugin resources and reconcile() against earlier snapshots."""

from __future__ import annotations

import json

import pytest

from tests.builtin_plugins._bundle_helpers import load, plugin, skill
from wskit.builtin_plugins.bundles.active import reconcile
from wskit.errors import AmbiguousNameError
from wskit.session import snapshot


def test_plugin_ids_lookup_and_native_wins_bare_name(tmp_path, wskit_pm, wskit_profile, make_tree):
    a = plugin(tmp_path / "a", "alpha", {"skills/review/SKILL.md": skill(), "skills/only/SKILL.md": skill()})
    b = plugin(tmp_path / "b", "beta", {"skills/review/SKILL.md": skill()})
    ws = make_tree({".claude/skills/only/SKILL.md": skill("native one")})
    w = load(wskit_pm, ws, wskit_profile, plugin_dirs=[str(a), str(b)])
    reg = w.registry("skill")
    assert reg.get("plugin:alpha:review").provenance.plugin == "alpha"
    assert reg.get("beta:review").id == "plugin:beta:review"
    with pytest.raises(AmbiguousNameError):
        reg.get("review")
    assert reg.get("only").scope.value == "project"  # native keeps the bare name
    assert reg.get("alpha:only").id == "plugin:alpha:only"


def test_mcp_alias_is_identifier_safe(tmp_path, wskit_pm, wskit_profile, make_tree):
    p = plugin(tmp_path / "p", "my-tools", {".mcp.json": {"db.main": {"command": "x"}}})
    w = load(wskit_pm, make_tree({"a": "b"}), wskit_profile, plugin_dirs=[str(p)])
    srv = w.registry("mcp_server").get("plugin:my-tools:db.main")
    assert srv.alias == "my-tools__db_main"


def test_reconcile_replaces_and_keeps_snapshots(wskit_pm, wskit_profile, make_tree):
    home = wskit_profile.home
    plugin(home / ".claude/plugins/p", "p", {"skills/s/SKILL.md": skill()})
    ws = make_tree({".claude/skills/mine/SKILL.md": skill()})
    w = load(wskit_pm, ws, wskit_profile)
    before = snapshot(w)
    old_registry = w.registry("skill")
    assert "plugin:p:s" in old_registry.ids()
    (home / ".wskit").mkdir(exist_ok=True)
    (home / ".wskit/settings.json").write_text(json.dumps({"enabledPlugins": {"p": False}}))
    reconcile(w)
    assert "plugin:p:s" not in w.registry("skill").ids()
    assert "project:mine" in w.registry("skill").ids()
    assert "plugin:p:s" in before.registry("skill").ids()  # the earlier snapshot is unchanged
    assert "plugin:p:s" in old_registry.ids()  # registries were replaced, not mutated
    (home / ".wskit/settings.json").write_text(json.dumps({"enabledPlugins": {"p": True}}))
    reconcile(w)
    assert "plugin:p:s" in w.registry("skill").ids()


def test_commands_agents_styles_of_a_bundle_are_namespaced(tmp_path, wskit_pm, wskit_profile, make_tree):
    p = plugin(tmp_path / "p", "kit", {
        "commands/ship.md": "---\ndescription: Ship it\n---\nShip $ARGUMENTS\n",
        "agents/helper.md": "---\nname: helper\ndescription: Helps\n---\nYou help.\n",
        "alt-styles/terse.md": "---\nname: terse\ndescription: Short answers\n---\nBe terse.\n",
    }, outputStyles="./alt-styles")
    w = load(wskit_pm, make_tree({"a": "b"}), wskit_profile, plugin_dirs=[str(p)])
    assert w.registry("command").get("kit:ship").id == "plugin:kit:ship"
    assert w.registry("agent").get("kit:helper").provenance.plugin == "kit"
    assert [s.id for s in w.registry("style").active()] == ["plugin:kit:terse"]
