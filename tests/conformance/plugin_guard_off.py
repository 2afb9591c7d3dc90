"""Whether a project's ``enabledPlugins: {"name@market": false}`` switches off the hooks of a
plugin the user enabled, against Claude Code.

Each case lays out a home whose ``~/.claude/settings.json`` declares a local directory
marketplace ``mk`` (``extraKnownMarketplaces``) and enables its plugin ``guard``
(``enabledPlugins: {"guard@mk": true}``); the plugin's ``hooks/hooks.json`` has a
``SessionStart`` and a ``UserPromptSubmit`` hook, each writing a marker file, and a
command ``c-guard``. One settings file of the case then says ``{"guard@mk": false}``.
Claude Code runs ``claude -p hi`` in the trusted project (an unreachable model: the hooks of
the start and of the prompt run before any request); the answer is ``ran`` when a marker
exists afterwards, else ``off``. wskit's answer is whether ``wsctl hooks run
UserPromptSubmit`` ran the same hook (a skip of state ``disabled`` or ``switched-off`` is
``off``; docs/hooks.md says how wskit reports a project's switch).

``python -m tests.conformance.plugin_guard_off`` re-asks the installed Claude Code and
rewrites ``plugin_guard_off_recorded.json``; ``test_plugin_guard_off.py`` compares.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.conformance import oracles
from tests.conformance.standin import record_claude

__all__ = ["CASES", "RECORDED", "ask_claude", "load", "main", "setup"]

RECORDED = Path(__file__).with_name("plugin_guard_off_recorded.json")

#: (id, the settings file that holds ``enabledPlugins: {"guard@mk": false}``, or None)
CASES: tuple[tuple[str, str | None], ...] = (
    ("none", None),
    ("project-settings", "project:.claude/settings.json"),
    ("project-local-settings", "project:.claude/settings.local.json"),
    ("user-settings", "home:.claude/settings.json"),
)


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def setup(base: Path, where: str | None) -> tuple[Path, Path, Path]:
    """``(home, project, marker)`` of one case under ``base`` (the project is a git
    repository; folder trust is the caller's)."""
    home, project, market, marker = base / "home", base / "p", base / "market", base / "ran"
    (home / ".claude").mkdir(parents=True)
    (project / ".claude").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    _write(market / ".claude-plugin/marketplace.json",
           {"name": "mk", "owner": {"name": "t"}, "plugins": [{"name": "guard", "source": "./plugins/guard"}]})
    plugin = market / "plugins/guard"
    _write(plugin / ".claude-plugin/plugin.json", {"name": "guard", "version": "1.0.0"})
    hook = [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]
    _write(plugin / "hooks/hooks.json", {"hooks": {"SessionStart": hook, "UserPromptSubmit": hook}})
    (plugin / "commands").mkdir()
    (plugin / "commands/c-guard.md").write_text("---\ndescription: a command\n---\nbody\n")
    user: dict = {"extraKnownMarketplaces": {"mk": {"source": {"source": "directory", "path": str(market)}}},
                  "enabledPlugins": {"guard@mk": True}}
    if where == "home:.claude/settings.json":
        user["enabledPlugins"] = {"guard@mk": False}
    _write(home / ".claude/settings.json", user)
    if where and where.startswith("project:"):
        _write(project / where.split(":", 1)[1], {"enabledPlugins": {"guard@mk": False}})
    return home, project, marker


def ask_claude(where: str | None) -> str:
    """``ran`` or ``off``: whether Claude Code ran the user-enabled plugin's hook."""
    base = Path(tempfile.mkdtemp(prefix="wskit-plugin-guard-"))
    try:
        home, project, marker = setup(base, where)
        _write(home / ".claude.json", {"projects": {str(project): {"hasTrustDialogAccepted": True}}})
        env = oracles._env(home, ANTHROPIC_BASE_URL="http://127.0.0.1:9", ANTHROPIC_API_KEY="x",
                           CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
        oracles._run([str(oracles.binary("claude")), "-p", "hi", "--output-format", "stream-json", "--verbose"],
                     project, env, until=lambda out: '"subtype":"init"' in out, timeout=60)
        return "ran" if marker.exists() else "off"
    finally:
        shutil.rmtree(base, ignore_errors=True)


def load() -> dict:
    return json.loads(RECORDED.read_text())


def main() -> int:
    return record_claude(RECORDED, [(cid, lambda w=where: ask_claude(w)) for cid, where in CASES])


if __name__ == "__main__":
    sys.exit(main())
