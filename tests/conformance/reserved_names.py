"""Plugins whose names Claude Code's validator reserves for Anthropic's own
(``claude-md-management``, ``claude-code-setup``, ``claude-security``), installed from a
marketplace the user added, asked of Claude Code itself beside wskit ``--host claude``.

Claude Code is asked as a user would: ``claude plugin marketplace add <folder>`` (a local
marketplace ``my-market`` holding copies of the three plugins from
``shared/corpus/claude-plugins-official``), ``claude plugin install <name>@my-market`` for
each (exit status recorded), then the ``system/init`` line of ``claude -p`` in an empty
repository: the plugins, skills, slash commands and agents it adds to an empty run's.
wskit is asked the same with ``wsctl --host claude plugins install <name>@my-market --from
<folder>`` and the workspace it then resolves.

``python -m tests.conformance.reserved_names`` asks the installed Claude Code and rewrites
``reserved_names_recorded.json``; ``test_reserved_names.py`` compares in the default run
(``WSKIT_HOST_ORACLES=1``: with the live host too).
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

__all__ = ["CORPUS", "MARKET", "NAMES", "RECORDED_FILE", "ask_claude", "lay_out", "record", "wskit_answer"]

RECORDED_FILE = Path(__file__).with_name("reserved_names_recorded.json")
CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "claude-plugins-official" / "plugins"
NAMES = ("claude-md-management", "claude-code-setup", "claude-security")
MARKET = "my-market"


def lay_out(base: Path) -> tuple[Path, Path, Path]:
    """Project ``base/p`` (a git repository), home ``base/h`` and the marketplace folder
    ``base/market`` with copies of the three plugins."""
    project, home, market = base / "p", base / "h", base / "market"
    project.mkdir(parents=True)
    home.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (market / ".claude-plugin").mkdir(parents=True)
    (market / ".claude-plugin/marketplace.json").write_text(json.dumps({
        "name": MARKET, "owner": {"name": "a user"},
        "plugins": [{"name": n, "source": f"./plugins/{n}"} for n in NAMES]}))
    for n in NAMES:
        shutil.copytree(CORPUS / n, market / "plugins" / n, symlinks=True)
    return project, home, market


def _init(project: Path, home: Path) -> dict:
    from tests.conformance import oracles

    env = oracles._env(home, ANTHROPIC_BASE_URL="http://127.0.0.1:9", ANTHROPIC_API_KEY="x",
                       CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    out = oracles._run([str(oracles.binary("claude")), "-p", "hi", "--output-format", "stream-json", "--verbose"],
                       project, env, until=lambda s: "\n" in s, timeout=90)
    return json.loads(out.splitlines()[0])


def ask_claude(base: Path) -> dict:
    """Claude Code's answer: ``installed`` (name -> exit status of ``claude plugin install``)
    and the plugins, skills, slash commands and agents its init line adds to an empty run's."""
    from tests.conformance import oracles

    project, home, market = lay_out(base)
    (home / ".claude.json").write_text(json.dumps({"projects": {str(project): {"hasTrustDialogAccepted": True}}}))
    before = _init(project, home)
    claude = str(oracles.binary("claude"))
    env = oracles._env(home)
    subprocess.run([claude, "plugin", "marketplace", "add", str(market)], cwd=project, env=env, check=True,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    installed = {n: subprocess.run([claude, "plugin", "install", f"{n}@{MARKET}"], cwd=project, env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   timeout=120).returncode for n in NAMES}
    after = _init(project, home)

    def added(key: str) -> list[str]:
        known = {json.dumps(x, sort_keys=True) for x in before.get(key, [])}
        return sorted(x if isinstance(x, str) else x.get("name") for x in after.get(key, [])
                      if json.dumps(x, sort_keys=True) not in known)

    return {"installed": installed, "plugins": added("plugins"), "skills": added("skills"),
            "slash_commands": added("slash_commands"), "agents": added("agents")}


def wskit_answer(base: Path) -> dict:
    """wskit ``--host claude``'s answer (the shape of :func:`ask_claude`'s): each plugin
    installed with ``wsctl plugins install <name>@my-market --from <folder>``, then the
    workspace of the project."""
    from tests.conformance.answers import _plugin_manager
    from wskit import HostProfile, WorkspaceCache
    from wskit.trust import TrustStore

    project, home, market = lay_out(base)
    TrustStore.for_home(home).grant(project)
    wsctl = [sys.executable, "-c", "import sys; from wskit._console import main; sys.exit(main())",
             "--home", str(home), "--host", "claude"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("WSKIT")}
    installed = {n: subprocess.run([*wsctl, "plugins", "install", f"{n}@{MARKET}", "--from", str(market)],
                                   cwd=project, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                                   timeout=120).returncode for n in NAMES}
    ws = WorkspaceCache(HostProfile(name="claude", home=home), _plugin_manager()).resolve(str(project))

    def named(kind: str) -> list[str]:
        return sorted(f"{r.plugin}:{r.name}" for r in ws.registry(kind).active() if r.plugin)

    skills, commands, agents = named("skill"), named("command"), named("agent")
    plugins = sorted({n.split(":")[0] for n in (*skills, *commands, *agents)})
    return {"installed": installed, "plugins": plugins, "skills": skills,
            "slash_commands": sorted({*commands, *skills}), "agents": agents}


def record() -> int:
    """Ask the installed Claude Code and rewrite the recording (1 when it is not installed)."""
    from tests.conformance import oracles

    if oracles.binary("claude") is None or not CORPUS.is_dir():
        print("Claude Code or shared/corpus is not available: recording kept", file=sys.stderr)
        return 1
    base = Path(tempfile.mkdtemp(prefix="wskit-reserved-"))
    try:
        answer = ask_claude(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    data = {"host": "claude", "version": oracles.host_version("claude"),
            "recorded": datetime.date.today().isoformat(), "answer": answer}
    RECORDED_FILE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(json.dumps(data, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(record())
