"""Plugins Claude Code installed are loaded, as Claude Code loads them.

The home below is laid out as Claude Code 2.1.332 left it after
``claude plugin marketplace add <dir>`` and ``claude plugin install hello@localmkt``
(files copied from that run): ``~/.claude/plugins/{installed_plugins.json,
known_marketplaces.json, cache/, marketplaces/, store/}`` and ``enabledPlugins`` /
``extraKnownMarketplaces`` in ``~/.claude/settings.json``. Its ``system/init`` line then
listed the plugin ``hello`` and the skill ``hello:sk-hello``; with
``enabledPlugins["hello@localmkt"] = false`` neither."""

from __future__ import annotations

import json

import pytest

from wskit import HostProfile, WorkspaceCache
from wskit.plugin.manager import make_plugin_manager
from wskit.trust import TrustStore


@pytest.fixture(scope="module")
def pm():
    return make_plugin_manager(load_entrypoints=True, env={})


def _home(tmp_path, enabled: bool = True, install_path: str | None = None):
    home, mkt, proj = tmp_path / "h", tmp_path / "mkt", tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    cache = home / ".claude/plugins/cache/localmkt/hello/1.0.0"
    (cache / ".claude-plugin").mkdir(parents=True)
    (cache / ".claude-plugin/plugin.json").write_text('{"name": "hello", "version": "1.0.0", "description": "d"}')
    (cache / "skills/sk-hello").mkdir(parents=True)
    (cache / "skills/sk-hello/SKILL.md").write_text("---\nname: sk-hello\ndescription: hi\n---\nb\n")
    (home / ".claude/plugins/marketplaces").mkdir()
    (home / ".claude/plugins/store/x.json.lock").mkdir(parents=True)
    (home / ".claude/plugins/installed_plugins.json").write_text(json.dumps({"version": 2, "plugins": {
        "hello@localmkt": [{"scope": "user", "installPath": install_path or str(cache), "version": "1.0.0",
                            "installedAt": "2026-12-04T18:20:09.768Z", "lastUpdated": "2026-12-04T18:20:09.768Z"}]}}))
    (home / ".claude/plugins/known_marketplaces.json").write_text(json.dumps({"localmkt": {
        "source": {"source": "directory", "path": str(mkt)}, "installLocation": str(mkt),
        "lastUpdated": "2026-12-04T18:20:09.465Z"}}))
    (home / ".claude/settings.json").write_text(json.dumps({
        "extraKnownMarketplaces": {"localmkt": {"source": {"source": "directory", "path": str(mkt)}}},
        "enabledPlugins": {"hello@localmkt": enabled}}))
    TrustStore.for_home(home).grant(proj)
    return home, proj


def _load(pm, home, proj, host="claude"):
    return WorkspaceCache(HostProfile(name=host, home=home), pm).resolve(str(proj))


@pytest.mark.parametrize("host", ["claude", "wskit"])
def test_an_installed_and_enabled_plugin_loads_and_bookkeeping_is_no_plugin(pm, tmp_path, host):
    home, proj = _home(tmp_path)
    ws = _load(pm, home, proj, host)
    assert "plugin:hello:sk-hello" in {s.id for s in ws.registry("skill").active()}
    assert not [d for d in ws.diagnostics if d.code == "plugin-failed"]


def test_a_disabled_installed_plugin_does_not_load(pm, tmp_path):
    home, proj = _home(tmp_path, enabled=False)
    ws = _load(pm, home, proj)
    assert "plugin:hello:sk-hello" not in {s.id for s in ws.registry("skill").active()}


def test_an_install_path_outside_the_plugins_folder_is_refused(pm, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / ".claude-plugin").mkdir(parents=True)
    (elsewhere / ".claude-plugin/plugin.json").write_text('{"name": "hello"}')
    home, proj = _home(tmp_path, install_path=str(elsewhere))
    ws = _load(pm, home, proj)
    bad = [d for d in ws.diagnostics if d.code == "claude-installed-invalid"]
    assert bad and str(elsewhere) in bad[0].message
    assert "plugin:hello:sk-hello" not in {s.id for s in ws.registry("skill").active()}


def _scoped_home(tmp_path, scope: str, where: str, enable: dict | None, trusted: bool = True):
    """A home where ``claude plugin install hello@localmkt --scope SCOPE`` ran in ``proj``
    (records as Claude Code 2.1.332 wrote them: ``scope``, ``projectPath``), with
    ``enable`` written to ``where`` (``user``: ~/.claude/settings.json, ``project``:
    proj/.claude/settings.json, ``local``: proj/.claude/settings.local.json)."""
    home, proj = _home(tmp_path)
    data = json.loads((home / ".claude/plugins/installed_plugins.json").read_text())
    data["plugins"]["hello@localmkt"][0].update(scope=scope, projectPath=str(proj))
    (home / ".claude/plugins/installed_plugins.json").write_text(json.dumps(data))
    user = json.loads((home / ".claude/settings.json").read_text())
    user.pop("enabledPlugins")
    (home / ".claude/settings.json").write_text(json.dumps(user))
    if enable is not None:
        target = {"user": home / ".claude/settings.json", "project": proj / ".claude/settings.json",
                  "local": proj / ".claude/settings.local.json"}[where]
        target.parent.mkdir(parents=True, exist_ok=True)
        old = json.loads(target.read_text()) if target.exists() else {}
        target.write_text(json.dumps({**old, "enabledPlugins": enable}))
    if not trusted:
        TrustStore.for_home(home).revoke(proj)
    return home, proj


@pytest.mark.parametrize(("scope", "where"), [("project", "project"), ("local", "local"), ("user", "user")])
def test_an_install_of_any_scope_loads_where_a_settings_file_enables_it(pm, tmp_path, scope, where):
    """Claude Code 2.1.332: the record of any scope says where the plugin is; an
    ``enabledPlugins`` entry of the user, project or local settings loads it."""
    home, proj = _scoped_home(tmp_path, scope, where, {"hello@localmkt": True})
    ws = _load(pm, home, proj)
    assert "plugin:hello:sk-hello" in {s.id for s in ws.registry("skill").active()}


@pytest.mark.parametrize("scope", ["project", "local", "user"])
def test_an_install_no_settings_file_enables_stays_off_and_says_why(pm, tmp_path, scope):
    """Claude Code 2.1.332 leaves an installed plugin off when no settings file enables it
    (an install's ``{}`` local settings: not in the init line)."""
    home, proj = _scoped_home(tmp_path, scope, "local", None)
    ws = _load(pm, home, proj)
    assert "plugin:hello:sk-hello" not in {s.id for s in ws.registry("skill").active()}
    (hello,) = [b for b in _bundles(home, proj) if b.name == "hello"]
    notes = [d for d in hello.issues if d.code == "plugin-disabled"]
    assert hello.state == "inactive" and "enabledPlugins[\"hello@localmkt\"]" in notes[0].message


def test_an_untrusted_project_cannot_enable_an_installed_plugin(pm, tmp_path):
    """A clone's .claude/settings.json naming a plugin the user installed elsewhere loads it in
    Claude Code once the folder is trusted; wskit reads no settings of an untrusted project, so
    the plugin stays off there."""
    home, proj = _scoped_home(tmp_path, "project", "project", {"hello@localmkt": True}, trusted=False)
    ws = _load(pm, home, proj)
    assert "plugin:hello:sk-hello" not in {s.id for s in ws.registry("skill").active()}


def test_one_plugin_for_records_of_several_projects(pm, tmp_path):
    """Two projects installed the same plugin (two records, one cache folder): one plugin, no
    shadowing note."""
    home, proj = _scoped_home(tmp_path, "project", "project", {"hello@localmkt": True})
    data = json.loads((home / ".claude/plugins/installed_plugins.json").read_text())
    rec = dict(data["plugins"]["hello@localmkt"][0], projectPath=str(tmp_path / "other"))
    data["plugins"]["hello@localmkt"].append(rec)
    (home / ".claude/plugins/installed_plugins.json").write_text(json.dumps(data))
    bundles = _bundles(home, proj)
    assert [b.name for b in bundles].count("hello") == 1 and bundles[[b.name for b in bundles].index("hello")].state == "active"
    ws = _load(pm, home, proj)
    assert not [d for d in ws.diagnostics if d.code == "plugin-shadowed" and d.plugin == "hello"]


def _bundles(home, proj):
    from wskit.binding import Binding
    from wskit.builtin_plugins.bundles.active import find_bundles

    profile = HostProfile(name="claude", home=home)
    return find_bundles(Binding.discover(proj), profile, TrustStore.for_home(home).decide(proj))[0]
