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
