"""Claude plugins enabled without ``claude plugin install`` (a marketplace Claude Code knows
with a folder, and ``enabledPlugins``), and manifests Claude Code rejects. The host's own
answers for these layouts are the recorded conformance cases of
``tests/conformance/plugin_settings.py``; these tests pin what wskit adds: the diagnostics,
the safety rule for a project's own marketplace, and every host's reading."""

from __future__ import annotations

import json

import pytest

from wskit import HostProfile, WorkspaceCache
from wskit.plugin.manager import make_plugin_manager
from wskit.trust import TrustStore


@pytest.fixture(scope="module")
def pm():
    return make_plugin_manager(load_entrypoints=True, env={})


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


def _market(root, name="mk"):
    _write(root / ".claude-plugin/marketplace.json", {"name": name, "owner": {"name": "t"},
                                                      "plugins": [{"name": "p1", "source": "./plugins/p1"}]})
    _write(root / "plugins/p1/.claude-plugin/plugin.json", {"name": "p1"})
    _write(root / "plugins/p1/skills/s1/SKILL.md", "---\nname: s1\ndescription: d\n---\nb\n")
    return root


def _load(pm, tmp_path, files: dict, host="claude", trusted=True):
    home, proj, mk = tmp_path / "h", tmp_path / "p", _market(tmp_path / "m")
    (proj / ".git").mkdir(parents=True)
    home.mkdir(exist_ok=True)
    for rel, data in files.items():
        where = home / rel[2:] if rel.startswith("~/") else proj / rel
        _write(where, json.dumps(data).replace("{M}", str(mk)))
    if trusted:
        TrustStore.for_home(home).grant(proj)
    return WorkspaceCache(HostProfile(name=host, home=home), pm).resolve(str(proj))


_EXTRA = {"extraKnownMarketplaces": {"mk": {"source": {"source": "directory", "path": "{M}"}}}}


@pytest.mark.parametrize("host", ["claude", "wskit", "opencode"])
def test_a_plugin_enabled_from_a_known_directory_marketplace_loads_for_hosts_with_claude_conventions(pm, tmp_path, host):
    ws = _load(pm, tmp_path, {"~/.claude/settings.json": {**_EXTRA, "enabledPlugins": {"p1@mk": True}}}, host)
    assert "plugin:p1:s1" in {s.id for s in ws.registry("skill").active()}
    assert not [d for d in ws.diagnostics if d.level == "error"]


def test_codex_reads_no_claude_marketplace(pm, tmp_path):
    ws = _load(pm, tmp_path, {"~/.claude/settings.json": {**_EXTRA, "enabledPlugins": {"p1@mk": True}}}, "codex")
    assert "plugin:p1:s1" not in {s.id for s in ws.registry("skill").active()}


def test_a_known_marketplace_alone_enables_nothing(pm, tmp_path):
    ws = _load(pm, tmp_path, {"~/.claude/settings.json": _EXTRA})
    assert not [s for s in ws.registry("skill").active() if s.plugin == "p1"]


def test_a_project_that_declares_a_marketplace_and_enables_its_plugin_gets_nothing_and_is_told(pm, tmp_path):
    ws = _load(pm, tmp_path, {".claude/settings.json": {**_EXTRA, "enabledPlugins": {"p1@mk": True}}})
    assert not [s for s in ws.registry("skill").active() if s.plugin == "p1"]
    (d,) = [d for d in ws.diagnostics if d.code == "marketplace-project-declared"]
    assert d.path.endswith(".claude/settings.json") and "~/.claude/settings.json" in d.message


def test_a_relative_directory_source_is_named_and_not_read(pm, tmp_path):
    ws = _load(pm, tmp_path, {"~/.claude/settings.json": {
        "extraKnownMarketplaces": {"mk": {"source": {"source": "directory", "path": "m"}}},
        "enabledPlugins": {"p1@mk": True}}})
    assert not [s for s in ws.registry("skill").active() if s.plugin == "p1"]
    assert any(d.code == "marketplace-source-invalid" and "'m'" in d.message for d in ws.diagnostics)


def test_an_install_record_wins_over_the_marketplace_folder(pm, tmp_path):
    """Claude Code loads a directory marketplace's plugin from the marketplace folder; when
    ``installed_plugins.json`` has a record, wskit keeps loading the installed copy
    (docs/compatibility.md) and does not load the plugin twice."""
    home = tmp_path / "h"
    cache = home / ".claude/plugins/cache/mk/p1/1.0.0"
    _write(cache / ".claude-plugin/plugin.json", {"name": "p1"})
    _write(cache / "skills/s-cached/SKILL.md", "---\nname: s-cached\ndescription: d\n---\nb\n")
    _write(home / ".claude/plugins/installed_plugins.json", {"version": 2, "plugins": {
        "p1@mk": [{"scope": "user", "installPath": str(cache), "version": "1.0.0"}]}})
    ws = _load(pm, tmp_path, {"~/.claude/settings.json": {**_EXTRA, "enabledPlugins": {"p1@mk": True}}})
    ids = {s.id for s in ws.registry("skill").active()}
    assert "plugin:p1:s-cached" in ids and "plugin:p1:s1" not in ids
    assert not [d for d in ws.diagnostics if d.code == "plugin-shadowed"]


def _rejected_plugin(tmp_path):
    p = tmp_path / "pa"
    _write(p / ".claude-plugin/plugin.json", {"name": "pa", "agents": "./agents/"})
    _write(p / "agents/a.md", "---\nname: a\ndescription: d\n---\nb\n")
    return p


@pytest.mark.parametrize(("host", "loads"), [("claude", False), ("wskit", True)])
def test_a_manifest_claude_code_rejects_is_not_loaded_for_claude_and_warned_elsewhere(pm, tmp_path, host, loads):
    p = _rejected_plugin(tmp_path)
    (tmp_path / "proj/.git").mkdir(parents=True)
    ws = WorkspaceCache(HostProfile(name=host, home=tmp_path / "h", settings={"plugin_dirs": [str(p)]}),
                        pm).resolve(str(tmp_path / "proj"))
    assert bool([a for a in ws.registry("agent").active() if a.plugin == "pa"]) is loads
    found = [d for b in [ws] for d in b.diagnostics if "must end with \".md\"" in d.message]
    assert found and all(d.level == ("warning" if loads else "error") for d in found)


def test_validate_fails_a_manifest_claude_code_rejects(tmp_path, wsctl):
    r = wsctl("plugins", "validate", str(_rejected_plugin(tmp_path)), json=True)
    data = json.loads(r.output)
    assert r.exit_code == 1 and not data["ok"]
    assert [d["level"] for d in data["diagnostics"] if d["code"] == "claude-manifest-rejected"] == ["error"]
