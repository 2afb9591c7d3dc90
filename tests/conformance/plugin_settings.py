"""Claude Code's plugin enablement without ``claude plugin install``, and a manifest it
rejects, asked of its ``system/init`` line beside wskit's answer under ``--host claude``.

Each case lays out a home, a git project and a local marketplace ``mk`` (plugins ``p1``
and ``p2``, each with a command, a skill and an agent) in a temporary folder, writes the
settings files the case names (``{M}`` in them is the marketplace folder), and asks Claude
Code what its init line lists beyond its own built-ins: ``plugins`` (names), ``skills``,
``slash_commands`` and ``agents`` of plugins (``<plugin>:<name>``). ``trusted`` marks the
project trusted in both (Claude Code: ``projects[<path>].hasTrustDialogAccepted`` in
``~/.claude.json``; wskit: its trust store); ``plugin_dirs`` are folders given with
``--plugin-dir`` (``settings["plugin_dirs"]`` for wskit).

``python -m tests.conformance.plugin_settings`` asks the installed Claude Code and rewrites
``plugin_settings_recorded.json``.
"""

from __future__ import annotations

import datetime
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CASES", "COMPARED", "RECORDED_FILE", "SettingsCase", "ask_claude", "record", "wskit_answer"]

RECORDED_FILE = Path(__file__).with_name("plugin_settings_recorded.json")
COMPARED = ("plugins", "skills", "slash_commands", "agents")


@dataclass(frozen=True)
class SettingsCase:
    """Settings files (path -> JSON object; ``~/`` in the home, else in the project) and
    plugin folders of one run (``name -> plugin.json`` object, laid out beside the project)."""

    id: str
    files: dict[str, dict] = field(default_factory=dict)
    trusted: bool = True
    plugin_dirs: dict[str, dict | None] = field(default_factory=dict)
    what: str = ""

    def lay_out(self, base: Path) -> tuple[Path, Path, list[Path]]:
        """Create project ``base/p``, home ``base/h``, marketplace ``base/market`` and the
        plugin folders; returns (project, home, plugin folders)."""
        project, home, market = base / "p", base / "h", base / "market"
        project.mkdir(parents=True)
        home.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        _write(market / ".claude-plugin/marketplace.json", {
            "name": "mk", "owner": {"name": "t"},
            "plugins": [{"name": p, "source": f"./plugins/{p}"} for p in ("p1", "p2")]})
        for p in ("p1", "p2"):
            _plugin(market / "plugins" / p, {"name": p, "version": "1.0.0"})
        for path, data in self.files.items():
            where = home / path[2:] if path.startswith("~/") else project / path
            _write(where, json.loads(json.dumps(data).replace("{M}", str(market))))
        dirs = []
        for name, manifest in self.plugin_dirs.items():
            _plugin(base / name, manifest)
            dirs.append(base / name)
        return project, home, dirs


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def _plugin(root: Path, manifest: dict | None) -> None:
    name = root.name
    if manifest is not None:  # None: a folder without plugin.json
        _write(root / ".claude-plugin/plugin.json", manifest)
    for rel, text in ((f"commands/c-{name}.md", "---\ndescription: a command\n---\nbody\n"),
                      (f"skills/s-{name}/SKILL.md", f"---\nname: s-{name}\ndescription: a skill\n---\nbody\n"),
                      (f"agents/a-{name}.md", f"---\nname: a-{name}\ndescription: an agent\n---\nbody\n")):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


_EXTRA = {"mk": {"source": {"source": "directory", "path": "{M}"}}}
_KNOWN = {"mk": {"source": {"source": "directory", "path": "{M}"}, "installLocation": "{M}",
                 "lastUpdated": "2026-12-06T00:00:00.000Z"}}
_ON = {"p1@mk": True}

CASES: tuple[SettingsCase, ...] = (
    SettingsCase("extra-user", {"~/.claude/settings.json": {"extraKnownMarketplaces": _EXTRA, "enabledPlugins": _ON}},
                 what="a directory marketplace and an enabled plugin in the user settings"),
    SettingsCase("extra-user-enabled-project", {"~/.claude/settings.json": {"extraKnownMarketplaces": _EXTRA},
                                                ".claude/settings.json": {"enabledPlugins": _ON}},
                 what="the marketplace in the user settings, the plugin enabled by the project"),
    SettingsCase("extra-user-enabled-local", {"~/.claude/settings.json": {"extraKnownMarketplaces": _EXTRA},
                                              ".claude/settings.local.json": {"enabledPlugins": _ON}},
                 what="the marketplace in the user settings, the plugin enabled by the local settings"),
    SettingsCase("extra-user-disabled-local", {"~/.claude/settings.json": {"extraKnownMarketplaces": _EXTRA,
                                                                           "enabledPlugins": _ON},
                                               ".claude/settings.local.json": {"enabledPlugins": {"p1@mk": False}}},
                 what="enabled by the user, disabled by the local settings"),
    SettingsCase("extra-user-not-enabled", {"~/.claude/settings.json": {"extraKnownMarketplaces": _EXTRA}},
                 what="a known marketplace, nothing enabled"),
    SettingsCase("known-enabled-user", {"~/.claude/plugins/known_marketplaces.json": _KNOWN,
                                        "~/.claude/settings.json": {"enabledPlugins": _ON}},
                 what="the marketplace recorded in known_marketplaces.json, enabled by the user"),
    SettingsCase("known-enabled-project", {"~/.claude/plugins/known_marketplaces.json": _KNOWN,
                                           ".claude/settings.json": {"enabledPlugins": _ON}},
                 what="the marketplace recorded in known_marketplaces.json, enabled by the project"),
    SettingsCase("known-not-enabled", {"~/.claude/plugins/known_marketplaces.json": _KNOWN},
                 what="a recorded marketplace, nothing enabled"),
    SettingsCase("unknown-marketplace-enabled", {"~/.claude/settings.json": {"enabledPlugins": _ON}},
                 what="a plugin enabled from a marketplace nothing declares"),
    SettingsCase("extra-project-untrusted", {".claude/settings.json": {"extraKnownMarketplaces": _EXTRA,
                                                                       "enabledPlugins": _ON}},
                 trusted=False, what="a project that declares the marketplace and enables its plugin, untrusted"),
    SettingsCase("extra-project-trusted", {".claude/settings.json": {"extraKnownMarketplaces": _EXTRA,
                                                                     "enabledPlugins": _ON}},
                 what="a trusted project that declares the marketplace and enables its plugin"),
    SettingsCase("agents-folder", plugin_dirs={"pa": {"name": "pa", "agents": "./agents/"}},
                 what="a manifest whose agents names a folder (Claude Code's schema wants .md files)"),
    SettingsCase("agents-folder-array", plugin_dirs={"pb": {"name": "pb", "agents": ["./agents/"]}},
                 what="the same as an array"),
    SettingsCase("agents-file", plugin_dirs={"pc": {"name": "pc", "agents": "./agents/a-pc.md"}},
                 what="agents naming one .md file: loads"),
    SettingsCase("no-manifest", plugin_dirs={"bare": None},
                 what="a plugin folder without plugin.json but with components: named after its folder"),
    SettingsCase("no-manifest-bad-name", plugin_dirs={"Bare_Name": None},
                 what="the same, in a folder whose name is not kebab-case"),
)


def _env(home: Path):
    from tests.conformance import oracles

    return oracles._env(home, ANTHROPIC_BASE_URL="http://127.0.0.1:9", ANTHROPIC_API_KEY="x",
                        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")


def ask_claude(case: SettingsCase, base: Path) -> dict:
    """Lay ``case`` out under ``base`` and read the installed Claude Code's init line."""
    from tests.conformance import oracles

    project, home, dirs = case.lay_out(base)
    if case.trusted:
        _write(home / ".claude.json", {"projects": {str(project): {"hasTrustDialogAccepted": True}}})
    extra = [a for d in dirs for a in ("--plugin-dir", str(d))]
    out = oracles._run([str(oracles.binary("claude")), "-p", "hi", "--output-format", "stream-json", "--verbose",
                        *extra], project, _env(home), until=lambda s: "\n" in s, timeout=90)
    init = json.loads(out.splitlines()[0])
    plugins = sorted(p["name"] for p in init.get("plugins", []) if p.get("path") != "builtin")
    return {"plugins": plugins,
            "skills": sorted(s for s in init.get("skills", []) if ":" in s),
            "slash_commands": sorted(s for s in init.get("slash_commands", []) if ":" in s),
            "agents": sorted(a for a in init.get("agents", []) if ":" in a)}


def wskit_answer(case: SettingsCase, base: Path) -> dict:
    """wskit's answer for ``case`` under ``--host claude`` (the shape of :func:`ask_claude`'s)."""
    from tests.conformance.answers import _plugin_manager
    from wskit import HostProfile, WorkspaceCache
    from wskit.trust import TrustStore

    project, home, dirs = case.lay_out(base)
    if case.trusted:
        TrustStore.for_home(home).grant(project)
    ws = WorkspaceCache(HostProfile(name="claude", home=home, settings={"plugin_dirs": [str(d) for d in dirs]}),
                        _plugin_manager()).resolve(str(project))

    def named(kind: str) -> list[str]:
        return sorted(f"{r.plugin}:{r.name}" for r in ws.registry(kind).active() if r.plugin)

    skills, commands, agents = named("skill"), named("command"), named("agent")
    plugins = sorted({n.split(":")[0] for n in (*skills, *commands, *agents)})
    return {"plugins": plugins, "skills": skills, "slash_commands": sorted({*commands, *skills}), "agents": agents}


def record(argv: list[str] | None = None) -> int:
    """Ask the installed Claude Code about every case (or those named) and rewrite the recording."""
    from tests.conformance import oracles

    if oracles.binary("claude") is None:
        print("Claude Code is not installed: recording kept", file=sys.stderr)
        return 1
    only = set(argv or ())
    data = json.loads(RECORDED_FILE.read_text()) if RECORDED_FILE.exists() else {"cases": {}}
    for case in CASES:
        if only and case.id not in only:
            continue
        base = Path(tempfile.mkdtemp(prefix="wskit-plugin-settings-"))
        try:
            data["cases"][case.id] = ask_claude(case, base)
        finally:
            shutil.rmtree(base, ignore_errors=True)
        print(case.id, json.dumps(data["cases"][case.id]), flush=True)
    data.update(host="claude", version=oracles.host_version("claude"), recorded=datetime.date.today().isoformat())
    RECORDED_FILE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(record(sys.argv[1:]))
