"""Discovery precedence, failing plugins, enablement layers and dependencies."""

from __future__ import annotations

import json

from tests.builtin_plugins._bundle_helpers import codes, load, plugin, skill
from wskit.binding import Binding
from wskit.builtin_plugins.bundles.active import find_bundles
from wskit.trust import TrustDecision

TRUSTED = TrustDecision(path="/", state="trusted")
UNTRUSTED = TrustDecision(path="/", state="untrusted")


def _names(bundles):
    return {b.name: b for b in bundles}


def test_ranking_user_managed_project_cli(tmp_path, wskit_profile, make_tree):
    home = wskit_profile.home
    plugin(home / ".claude/plugins/p", "p", version="1.0.0")
    plugin(home / ".wskit/plugins/p", "p", version="2.0.0")
    ws = make_tree({"x": "y"})
    plugin(ws / ".claude/plugins/p", "p", version="3.0.0")
    plugin(ws / ".wskit/plugins/p", "p", version="4.0.0")
    b = Binding.discover(ws)
    bundles, diags = find_bundles(b, wskit_profile, TRUSTED)
    assert _names(bundles)["p"].version == "4.0.0" and _names(bundles)["p"].origin == "project"
    assert codes(diags).count("plugin-shadowed") == 3
    cli = plugin(tmp_path / "cli/p", "p", version="5.0.0")
    bundles, _ = find_bundles(b, wskit_profile, TRUSTED, explicit=[str(cli)])
    assert _names(bundles)["p"].version == "5.0.0" and _names(bundles)["p"].origin == "cli"
    bundles, diags = find_bundles(b, wskit_profile, UNTRUSTED)
    assert _names(bundles)["p"].version == "2.0.0"
    assert "plugin-dir-untrusted" in codes(diags)


def test_failing_plugin_reported_others_load(tmp_path, wskit_pm, wskit_profile, make_tree):
    home = wskit_profile.home
    plugin(home / ".claude/plugins/good", "good", {"skills/s/SKILL.md": skill()})
    (home / ".claude/plugins/bad/.claude-plugin").mkdir(parents=True)
    (home / ".claude/plugins/bad/.claude-plugin/plugin.json").write_text("{not json")
    w = load(wskit_pm, make_tree({"a": "b"}), wskit_profile)
    assert w.registry("skill").get("good:s")
    failed = [d for d in w.diagnostics if d.code == "plugin-failed"]
    assert len(failed) == 1 and failed[0].path == str(home / ".claude/plugins/bad")
    assert "invalid JSON" in failed[0].message


def _settings(root, rel, data):
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(data))


def test_enabled_plugins_layers_later_wins(wskit_profile, make_tree):
    home = wskit_profile.home
    plugin(home / ".claude/plugins/a", "a")
    plugin(home / ".claude/plugins/b", "b", defaultEnabled=False)
    ws = make_tree({"x": "y"})
    _settings(home, ".claude/settings.json", {"enabledPlugins": {"a": False, "b": True}})
    b = Binding.discover(ws)
    states = {x.name: x.state for x in find_bundles(b, wskit_profile, TRUSTED)[0]}
    assert states == {"a": "inactive", "b": "active"}
    _settings(ws, ".wskit/settings.json", {"enabledPlugins": {"a": True}})
    _settings(ws, ".claude/settings.local.json", {"enabledPlugins": {"b@somewhere": False}})
    states = {x.name: x.state for x in find_bundles(b, wskit_profile, TRUSTED)[0]}
    assert states == {"a": "active", "b": "inactive"}
    inv = wskit_profile.model_copy(update={"settings": {"enabled_plugins": {"b": True}}})
    states = {x.name: x.state for x in find_bundles(b, inv, TRUSTED)[0]}
    assert states == {"a": "active", "b": "active"}


def test_switched_off_by_names_a_project_layer_that_alone_turned_the_users_plugin_off(wskit_profile, make_tree):
    """Only a plugin a layer above the project's wants on (or on by default) and only a project
    or local layer turned off carries ``switched_off_by``; every other "off" is a decision."""
    home = wskit_profile.home
    plugin(home / ".claude/plugins/dflt", "dflt")                        # on by default
    plugin(home / ".claude/plugins/usr", "usr", defaultEnabled=False)   # on because the user says so
    plugin(home / ".claude/plugins/own", "own")                         # the user's own "off"
    plugin(home / ".claude/plugins/prj", "prj", defaultEnabled=False)   # on only because the project says so
    ws = make_tree({"x": "y"})
    plugin(ws / ".claude/plugins/shipped", "shipped")                   # the project's own plugin
    _settings(home, ".claude/settings.json", {"enabledPlugins": {"usr": True, "own": False}})
    _settings(ws, ".claude/settings.json", {"enabledPlugins": {"dflt": False, "own": False, "prj": True,
                                                               "shipped": False}})
    _settings(ws, ".claude/settings.local.json", {"enabledPlugins": {"usr": False, "prj": False}})
    got = {x.name: (x.state, x.switched_off_by) for x in find_bundles(Binding.discover(ws), wskit_profile, TRUSTED)[0]}
    assert got == {"dflt": ("inactive", str(ws / ".claude/settings.json")),
                   "usr": ("inactive", str(ws / ".claude/settings.local.json")),
                   "own": ("inactive", None), "prj": ("inactive", None), "shipped": ("inactive", None)}
    inv = wskit_profile.model_copy(update={"settings": {"enabled_plugins": {"dflt": True}}})
    got = {x.name: (x.state, x.switched_off_by) for x in find_bundles(Binding.discover(ws), inv, TRUSTED)[0]}
    assert got["dflt"] == ("active", None)  # the invocation layer, above the project's, has the last word


def test_untrusted_project_settings_change_no_plugin(wskit_profile, make_tree):
    home = wskit_profile.home
    plugin(home / ".claude/plugins/off", "off", defaultEnabled=False)
    plugin(home / ".claude/plugins/on", "on")
    ws = make_tree({".claude/settings.json": json.dumps({"enabledPlugins": {"off": True, "on": False}})})
    bundles, diags = find_bundles(Binding.discover(ws), wskit_profile, UNTRUSTED)
    states = {x.name: x.state for x in bundles}
    # neither enabling nor disabling applies: switching the user's plugin off is a change too
    assert states == {"off": "inactive", "on": "active"}
    warn = [d for d in diags if d.code == "settings-untrusted"]
    assert len(warn) == 1 and warn[0].path.endswith(".claude/settings.json")


def test_cli_plugins_cannot_be_disabled_by_settings(tmp_path, wskit_profile, make_tree):
    cli = plugin(tmp_path / "c", "c")
    _settings(wskit_profile.home, ".wskit/settings.json", {"enabledPlugins": {"c": False}})
    bundles, _ = find_bundles(Binding.discover(make_tree({"a": "b"})), wskit_profile, TRUSTED, explicit=[str(cli)])
    assert bundles[0].state == "active"


def test_dependency_chain_fails_transitively(wskit_profile, make_tree):
    home = wskit_profile.home
    plugin(home / ".claude/plugins/base", "base", version="1.4.0")
    plugin(home / ".claude/plugins/mid", "mid", version="2.1.0", dependencies={"base": "^2.0.0"})
    plugin(home / ".claude/plugins/top", "top", dependencies=[{"name": "mid", "version": "^2.0.0"}])
    plugin(home / ".claude/plugins/ok", "ok", dependencies={"base": "~1.4.0"})
    plugin(home / ".claude/plugins/lost", "lost", dependencies=["nowhere"])
    bundles, _ = find_bundles(Binding.discover(make_tree({"a": "b"})), wskit_profile, TRUSTED)
    by = _names(bundles)
    assert by["base"].state == "active" and by["ok"].state == "active"
    assert by["mid"].state == "error" and by["mid"].issues[-1].code == "dependency-version"
    assert by["top"].state == "error" and by["top"].issues[-1].code == "dependency-inactive"
    assert by["lost"].issues[-1].code == "dependency-missing"
    assert "Missing dependency nowhere@*" in by["lost"].issues[-1].message


def test_inactive_dependency_is_an_error(wskit_profile, make_tree):
    home = wskit_profile.home
    plugin(home / ".claude/plugins/dep", "dep", version="1.0.0", defaultEnabled=False)
    plugin(home / ".claude/plugins/user", "user", dependencies={"dep": "1.x"})
    by = _names(find_bundles(Binding.discover(make_tree({"a": "b"})), wskit_profile, TRUSTED)[0])
    assert by["dep"].state == "inactive"
    assert by["user"].state == "error" and "dep is inactive" in by["user"].issues[-1].message
