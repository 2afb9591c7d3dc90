"""Claude Code's ``system/init`` line for every plugin of the published marketplace in
``../shared/corpus``, beside wskit's answer under ``--host claude``.

Each plugin folder is given to Claude Code with ``--plugin-dir`` in an empty git
repository with an empty home (shared/reference/host-oracles.md, "Claude Code"); the
answer is what the init line lists beyond what the same run without the plugin lists:
``plugins`` (names), ``skills``, ``slash_commands``, ``agents`` and ``mcp_servers``
(names and status). wskit's answer is the same load with ``HostProfile(name="claude")``
and ``settings["plugin_dirs"] = [folder]``: the active skills, commands and agents of
the plugin as ``<plugin>:<name>``, its MCP servers as ``plugin:<plugin>:<name>``.

Recording runs Claude Code with ``PATH`` holding only ``git``, so a plugin's stdio MCP
server (``npx …``, ``bun …``) cannot start a program; offline every server is
``failed`` in the init line, so statuses are recorded but only names are compared.
``python -m tests.conformance.plugin_init`` rewrites ``plugin_init_recorded.json``.
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["COMPARED", "RECORDED_FILE", "corpus", "plugin_folders", "record", "wskit_answer"]

RECORDED_FILE = Path(__file__).with_name("plugin_init_recorded.json")
COMPARED = ("plugins", "skills", "slash_commands", "agents", "mcp_servers")
_MARKET = "claude-plugins-official"


def corpus() -> Path | None:
    """The published marketplace folder beside the repository, or None when absent."""
    for base in (Path(__file__).parents[2] / ".." / "shared" / "corpus", Path("/work/shared/corpus")):
        if (base / _MARKET).is_dir():
            return (base / _MARKET).resolve()
    return None


def plugin_folders(root: Path) -> list[str]:
    """Every plugin folder of the marketplace, relative to it (``plugins/x``, ``external_plugins/y``)."""
    return sorted(f"{group}/{p.name}" for group in ("plugins", "external_plugins")
                  for p in (root / group).iterdir() if p.is_dir())


def _project(base: Path) -> tuple[Path, Path]:
    project, home = base / "p", base / "h"
    project.mkdir(parents=True)
    home.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return project, home


def wskit_answer(folder: Path, base: Path) -> dict:
    """wskit's answer for one plugin folder under ``--host claude`` (the shape of :func:`record`'s)."""
    from tests.conformance.answers import _plugin_manager
    from wskit import HostProfile, WorkspaceCache
    from wskit.trust import TrustStore

    project, home = _project(base)
    TrustStore.for_home(home).grant(project)
    ws = WorkspaceCache(HostProfile(name="claude", home=home, settings={"plugin_dirs": [str(folder)]}),
                        _plugin_manager()).resolve(str(project))

    def named(kind: str) -> list[str]:
        return sorted(f"{r.plugin}:{r.name}" for r in ws.registry(kind).active() if r.plugin)

    skills, commands, agents = named("skill"), named("command"), named("agent")
    servers = sorted(f"plugin:{r.plugin}:{r.name}" for r in ws.registry("mcp_server").active() if r.plugin)
    # a definition that cannot start yet (an empty url, an undefined ${VAR}): Claude Code reports it failed
    not_startable = sorted(f"plugin:{r.plugin}:{r.name}" for r in ws.registry("mcp_server").active()
                           if r.plugin and not r.startable)
    # the init line names a plugin only when it contributes one of the listed kinds (observed:
    # hooks-only plugins and folders with nothing in them are absent from ``plugins``)
    plugins = sorted({n.split(":")[0] for n in (*skills, *commands, *agents)} | {s.split(":")[1] for s in servers})
    return {"plugins": plugins, "skills": skills, "slash_commands": sorted({*commands, *skills}),
            "agents": agents, "mcp_servers": servers, "mcp_not_startable": not_startable}


def _init_line(claude: Path, project: Path, home: Path, bin_dir: Path, extra: list[str]) -> dict:
    from tests.conformance import oracles

    env = oracles._env(home, ANTHROPIC_BASE_URL="http://127.0.0.1:9", ANTHROPIC_API_KEY="x",
                       CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", PATH=str(bin_dir))
    out = oracles._run([str(claude), "-p", "hi", "--output-format", "stream-json", "--verbose", *extra],
                       project, env, until=lambda s: "\n" in s, timeout=90)
    return json.loads(out.splitlines()[0])


def _claude_answer(init: dict, baseline: dict) -> dict:
    def new(key: str) -> list:
        return [x for x in init.get(key, []) if x not in baseline.get(key, [])]

    return {"plugins": sorted(p["name"] for p in new("plugins")), "skills": sorted(new("skills")),
            "slash_commands": sorted(new("slash_commands")), "agents": sorted(new("agents")),
            "mcp_servers": sorted(s["name"] for s in new("mcp_servers")),
            "mcp_status": {s["name"]: s["status"] for s in new("mcp_servers")}}


def record(argv: list[str] | None = None) -> int:
    """Ask the installed Claude Code about every corpus plugin and rewrite the recording."""
    from tests.conformance import oracles

    claude, root = oracles.binary("claude"), corpus()
    if claude is None or root is None:
        print("Claude Code or ../shared/corpus is missing: recording kept", file=sys.stderr)
        return 1
    only = set(argv or ())
    data = json.loads(RECORDED_FILE.read_text()) if RECORDED_FILE.exists() else {"cases": {}}
    base = Path(tempfile.mkdtemp(prefix="wskit-plugin-init-"))
    try:
        bin_dir = base / "bin"
        bin_dir.mkdir()
        os.symlink(shutil.which("git"), bin_dir / "git")
        project, home = _project(base / "run")
        baseline = _init_line(claude, project, home, bin_dir, [])
        for rel in plugin_folders(root):
            if only and rel not in only:
                continue
            init = _init_line(claude, project, home, bin_dir, ["--plugin-dir", str(root / rel)])
            data["cases"][rel] = _claude_answer(init, baseline)
            print(rel, json.dumps(data["cases"][rel]), flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    data.update(host="claude", version=oracles.host_version("claude"), corpus=_MARKET,
                recorded=datetime.date.today().isoformat())
    RECORDED_FILE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(record(sys.argv[1:]))
