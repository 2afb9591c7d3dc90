"""Built-in loaders that import nothing when the source holds nothing for them
(:func:`wskit.util.deferred.idle_unless`, :func:`~wskit.util.deferred.definitions_present`):
each declaration is exact — for every source it calls "idle" the engine itself answers an
empty result — and where it is not idle the hook answers what the engine answers."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wskit.host import HOST_PRESETS
from wskit.models import ResourceSource, Scope
from wskit.util.deferred import definitions_present, folders_present


def _engines():
    """(name, the hook as registered, the engine called directly, the idle declaration)."""
    from wskit.builtin_plugins import hooks, lsp, mcp
    from wskit.builtin_plugins.agents import AGENTS
    from wskit.builtin_plugins.agents.loader import load_agents
    from wskit.builtin_plugins.commands import COMMANDS
    from wskit.builtin_plugins.commands.loader import load_commands
    from wskit.builtin_plugins.hooks.definitions import load_hook_definitions
    from wskit.builtin_plugins.lsp.loader import load_lsp_servers
    from wskit.builtin_plugins.mcp.loader import load_claude_json, load_mcp_servers
    from wskit.builtin_plugins.styles import STYLES
    from wskit.builtin_plugins.styles.loader import load_styles

    def mcp_engine(source):
        if not source.plugin and source.components.get("mcp_server", ())[:1] == (".claude.json",):
            return load_claude_json(source)
        return load_mcp_servers(source)

    def mcp_idle(source):
        if not source.plugin and source.components.get("mcp_server", ())[:1] == (".claude.json",):
            return not os.path.lexists(os.path.join(source.base, ".claude.json"))
        return not definitions_present(source, ".mcp.json")

    from wskit.builtin_plugins.agents import AGENT_FOLDERS
    from wskit.builtin_plugins.commands import COMMAND_FOLDERS
    from wskit.builtin_plugins.styles import STYLE_FOLDERS

    return [
        ("agents", AGENTS.load, load_agents, lambda s: not folders_present(AGENT_FOLDERS)(s)),
        ("commands", COMMANDS.load, load_commands, lambda s: not folders_present(COMMAND_FOLDERS)(s)),
        ("styles", STYLES.load, load_styles, lambda s: not folders_present(STYLE_FOLDERS)(s)),
        ("mcp", mcp.wskit_mcp_servers, mcp_engine, mcp_idle),
        ("lsp", lsp.wskit_lsp_servers, load_lsp_servers, lambda s: not definitions_present(s, ".lsp.json")),
        ("hooks", hooks.wskit_hook_definitions, load_hook_definitions,
         lambda s: not definitions_present(s, (s.components.get("hook") or ("hooks/hooks.json",))[0])),
    ]


def _sources(tmp: Path) -> list[ResourceSource]:
    """Config folders, project roots and home files, missing and present, in every scope,
    host and link setting the built-ins make."""
    home = tmp / "home"
    proj = tmp / "proj"
    (proj / ".git").mkdir(parents=True)
    (home / ".claude" / "agents").mkdir(parents=True)
    (home / ".claude" / "agents" / "a.md").write_text("---\nname: a\ndescription: d\n---\nbody\n")
    (home / ".claude" / "commands").mkdir()
    (home / ".claude" / "commands" / "c.md").write_text("do it\n")
    (home / ".claude" / "output-styles").mkdir()
    (home / ".claude" / "output-styles" / "s.md").write_text("---\nname: s\ndescription: d\n---\nbe brief\n")
    (home / ".claude" / "settings.json").write_text(json.dumps({
        "mcpServers": {"m": {"command": "x"}},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}))
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"u": {"command": "y"}}}))
    (proj / ".mcp.json").write_text("{not json")
    (proj / ".lsp.json").write_text(json.dumps({"py": {"command": "pylsp", "extensionToLanguage": {".py": "python"}}}))
    (proj / ".gemini").symlink_to(tmp / "nowhere")  # a broken link: present, and reported
    (tmp / "empty-target").mkdir()
    (proj / ".codex").symlink_to(tmp / "empty-target")  # a link to an empty folder: reported where links are refused
    (home / ".wskit").mkdir()  # the state folder (trust store) without any resource folder
    (home / ".wskit" / "trusted-folders.toml").write_text("")
    (proj / ".claude" / "agents").mkdir(parents=True)  # a kind's folder, empty
    (proj / ".claude" / "settings.local.json").write_text(json.dumps({"mcpServers": {"l": {"command": "z"}},
                                                                      "hooks": {"Stop": "not a list"}}))
    (proj / "hooks").mkdir()
    (proj / "hooks" / "hooks.json").write_text(json.dumps({"hooks": {"NoSuchEvent": []}}))  # a warning
    bare = tmp / "bare"
    bare.mkdir()
    out = []
    for base, (scope, follow), host in itertools.product(
            (home, proj, bare, tmp / "missing-base"),
            ((Scope.USER, True), (Scope.PROJECT, False), (Scope.LOCAL, False)),
            ("wskit", "blade", *HOST_PRESETS)):
        for rel in (".claude", ".agents", ".gemini", ".wskit", ".codex"):
            out.append(ResourceSource(scope=scope, root=str(base / rel), base=str(base), rank=20,
                                      label=f"{scope.value}:{rel}", follow_links=follow, host=host))
        out.append(ResourceSource(scope=scope, root=str(base), base=str(base), rank=19, label="root",
                                  follow_links=follow, host=host))
        out.append(ResourceSource(scope=Scope.USER, root=str(base), base=str(base), rank=13, label="user:~/.claude.json",
                                  follow_links=True, host=host, components={"mcp_server": (".claude.json",)}))
    return out


def _shape(result) -> tuple:
    return (tuple(r.id for r in result.resources),
            tuple((d.level, d.code, d.path, d.message) for d in result.diagnostics))


def test_every_idle_declaration_is_exact_and_the_rest_answers_as_the_engine(tmp_path):
    sources = _sources(tmp_path)
    idle_seen = {}
    for name, hook, engine, idle in _engines():
        for src in sources:
            direct = _shape(engine(src))
            assert _shape(hook(src)) == direct, (name, src.label, src.root)
            if idle(src):
                idle_seen[name] = idle_seen.get(name, 0) + 1
                assert direct == ((), ()), (name, src.label, src.root)  # the engine finds nothing there either
    assert set(idle_seen) == {"agents", "commands", "styles", "mcp", "lsp", "hooks"}


def test_the_agents_filter_answers_nothing_alike_for_no_agents():
    from wskit.builtin_plugins.agents import AGENTS
    from wskit.builtin_plugins.agents.loader import agents_filter
    from wskit.host import HostProfile

    profile = HostProfile(name="claude")
    assert AGENTS.kind.filter([], profile) == agents_filter([], profile) == ([], [])


_PROBE = """
import json, sys
from wskit.cache import WorkspaceCache
from wskit.host import HostProfile
from wskit.plugin.manager import make_plugin_manager
from wskit.trust import TrustStore
home, ws = sys.argv[1], sys.argv[2]
TrustStore.for_home(home).grant(ws)
for host in ("wskit", "claude"):
    WorkspaceCache(HostProfile(name=host).with_home(home), make_plugin_manager(load_entrypoints=False)).resolve(ws)
print(json.dumps(sorted(m for m in sys.modules if m.startswith("wskit.builtin_plugins"))))
"""


@pytest.mark.parametrize("with_content", [False, True])
def test_an_empty_workspace_imports_no_idle_loader(tmp_path, with_content):
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    if with_content:
        (ws / ".claude" / "agents").mkdir(parents=True)
        (ws / ".claude" / "plugins").mkdir()
        (ws / ".claude" / "settings.json").write_text("{}")
        (ws / ".mcp.json").write_text("{}")
    out = subprocess.run([sys.executable, "-c", _PROBE, str(tmp_path / "home"), str(ws)], check=True,
                         capture_output=True, text=True)
    mods = set(json.loads(out.stdout.strip().splitlines()[-1]))
    idle = {"wskit.builtin_plugins.agents.loader", "wskit.builtin_plugins.commands.loader",
            "wskit.builtin_plugins.styles.loader", "wskit.builtin_plugins.mcp.loader",
            "wskit.builtin_plugins.lsp.loader", "wskit.builtin_plugins.hooks.definitions",
            "wskit.builtin_plugins.bundles.active", "wskit.builtin_plugins.bundles.discovery"}
    if with_content:
        assert {"wskit.builtin_plugins.agents.loader", "wskit.builtin_plugins.mcp.loader",
                "wskit.builtin_plugins.hooks.definitions", "wskit.builtin_plugins.bundles.discovery"} <= mods
    else:
        assert not idle & mods


def _bundle_cases(tmp: Path):
    """(label, binding, profile, trust) over homes and projects with and without every
    place discovery looks (plugin folders, ledger, Claude's install records, settings with
    ``enabledPlugins``, ``plugin_dirs``, unusable managed settings, links), every host profile."""
    from tests.builtin_plugins._bundle_helpers import plugin
    from wskit.binding import Binding
    from wskit.host import HOST_PRESETS, HostProfile
    from wskit.trust import TrustDecision

    def home_variant(name: str) -> Path:
        h = tmp / f"home-{name}"
        h.mkdir()
        if name == "state":
            (h / ".wskit").mkdir()
            (h / ".wskit" / "trusted-folders.toml").write_text("")
        elif name == "empty-plugins":
            (h / ".claude" / "plugins").mkdir(parents=True)
        elif name == "plugin":
            plugin(h / ".wskit" / "plugins" / "p", "p")
        elif name == "ledger":
            for d in (".wskit", ".claude", ".codex", ".gemini", ".blade"):
                (h / d).mkdir()
                (h / d / "plugin-ledger.json").write_text("{not json")
        elif name == "linked":
            (tmp / f"elsewhere-{name}").mkdir()
            (h / ".claude").symlink_to(tmp / f"elsewhere-{name}")
        elif name == "broken-link":
            (h / ".wskit").symlink_to(tmp / "nowhere")
        elif name == "enabled":
            (h / ".claude").mkdir()
            (h / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": {"x@m": True}}))
        elif name == "marketplace":  # a marketplace the settings declare (its path refused), a plugin enabled from it
            (h / ".claude").mkdir()
            (h / ".claude" / "settings.json").write_text(json.dumps({
                "extraKnownMarketplaces": {"mk": {"source": {"source": "directory", "path": "relative/mk"}}},
                "enabledPlugins": {"x@mk": True}}))
        elif name == "bad-enabled":
            (h / ".wskit").mkdir()
            (h / ".wskit" / "settings.json").write_text(json.dumps({"enabledPlugins": "yes"}))
        elif name == "other-settings":
            (h / ".claude").mkdir()
            (h / ".claude" / "settings.json").write_text(json.dumps({"hooks": {}, "permissions": {"allow": ["Bash"]}}))
        elif name == "plugins-file":
            (h / ".claude").mkdir()
            (h / ".claude" / "plugins").write_text("not a folder")
        return h

    def project_variant(name: str) -> Path:
        p = tmp / f"proj-{name}"
        (p / ".git").mkdir(parents=True)
        if name == "plugins":
            plugin(p / ".claude" / "plugins" / "q", "q")
        elif name == "enabled":
            (p / ".claude").mkdir()
            (p / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": {"q": False}}))
        elif name == "settings":
            (p / ".claude").mkdir()
            (p / ".claude" / "settings.local.json").write_text("{}")
        elif name == "linked":
            (p / ".wskit").symlink_to(tmp / "nowhere")
        return p

    homes = [home_variant(n) for n in ("bare", "state", "empty-plugins", "plugin", "ledger", "linked", "broken-link",
                                       "enabled", "marketplace", "bad-enabled", "other-settings", "plugins-file")]
    projects = [project_variant(n) for n in ("bare", "plugins", "enabled", "settings", "linked")]
    trusts = (TrustDecision(path="/", state="trusted"), TrustDecision(path="/", state="untrusted"))
    hosts = ("wskit", "blade", *HOST_PRESETS)
    for home, host in itertools.product(homes, hosts):
        for settings in ({}, {"plugin_dirs": [str(tmp / "missing-plugin-dir")]},
                         {"managed_settings": str(tmp / "missing-managed.json")}):
            profile = HostProfile(name=host, settings=settings).with_home(home)
            yield f"{home.name}/{host}/none", None, profile, None
            for proj, trust in itertools.product(projects, trusts):
                yield f"{home.name}/{host}/{proj.name}/{trust.state}", Binding.discover(proj), profile, trust


def _bundle_shape(answer) -> tuple:
    from wskit.models import Diagnostic

    return (tuple((s.root, s.label, s.plugin, s.rank) for s in answer if not isinstance(s, Diagnostic)),
            tuple((d.level, d.code, d.path, d.message) for d in answer if isinstance(d, Diagnostic)))


def test_bundle_discovery_idle_is_exact_and_the_rest_answers_as_discovery(tmp_path):
    """The ``bundles`` built-in imports discovery only when there may be a plugin to find
    (:func:`~wskit.builtin_plugins.bundles.nothing_to_find`): wherever it says "nothing",
    discovery itself finds no plugin and says only what the settings layers say, and
    everywhere the hook answers what discovery answers."""
    from wskit.builtin_plugins import bundles
    from wskit.builtin_plugins.bundles.active import bundle_source, find_bundles
    from wskit.formats.settings import settings_layers
    from wskit.plugin.facade import builtin_kinds

    kinds = tuple(builtin_kinds())
    idle = busy = 0
    for label, binding, profile, trust in _bundle_cases(tmp_path):
        found, diags = find_bundles(binding, profile, trust, kinds=kinds)
        engine = [bundle_source(b, profile.name) for b in found if b.state == "active"] + diags
        assert _bundle_shape(bundles.wskit_plugin_bundles(binding, profile, trust, kinds)) == _bundle_shape(engine), \
            label
        layers, settings_diags = settings_layers(binding, profile, trust)
        if bundles.nothing_to_find(binding, profile, layers, settings_diags):
            idle += 1
            assert found == [] and _bundle_shape(diags) == _bundle_shape(settings_diags), label
        else:
            busy += 1
    assert idle and busy  # both sides were exercised


def test_an_empty_workspace_imports_no_bundle_discovery(tmp_path):
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    out = subprocess.run([sys.executable, "-c", _PROBE.replace("wskit.builtin_plugins\")", "wskit\")"),
                          str(tmp_path / "home"), str(ws)], check=True, capture_output=True, text=True)
    mods = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert not {"wskit.builtin_plugins.bundles.discovery", "wskit.builtin_plugins.bundles.ledger",
                "wskit.builtin_plugins.bundles.manifest", "wskit.builtin_plugins.hooks.definitions"} & mods
