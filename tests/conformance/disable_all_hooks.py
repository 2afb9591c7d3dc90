"""Whose hooks a trusted project's settings switch off, against Claude Code: its
``disableAllHooks`` (the user's own hooks), and its ``enabledPlugins: {"guard@mk": false}``
(the hooks of a plugin the user enabled).

``disableAllHooks`` cases write a user hook in ``~/.claude/settings.json``
(``SessionStart`` and ``UserPromptSubmit``, each writing a marker file) and the switch in
one settings file (:func:`setup`). Plugin cases (:func:`plugin_setup`) write, in the user's
settings, a local directory marketplace ``mk`` (``extraKnownMarketplaces``) whose plugin
``guard`` the user enables; the plugin's ``hooks/hooks.json`` has the same two hooks, and
one settings file of the case says ``{"guard@mk": false}``; the project is trusted. Claude
Code runs ``claude -p hi`` in the project (an unreachable model: the hooks of the start and
of the prompt run before any request); the answer is ``ran`` when a marker exists
afterwards, else ``off``. wskit's answer is whether ``wsctl hooks run UserPromptSubmit``
ran the same hook (a skip of state ``disabled`` or ``switched-off`` is ``off``;
docs/hooks.md says how wskit reports a switch of the project's).

``python -m tests.conformance.disable_all_hooks`` re-asks the installed Claude Code and
rewrites ``disable_all_hooks_recorded.json`` and ``plugin_guard_off_recorded.json``;
``test_disable_all_hooks.py`` compares.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conformance.standin import claude_ran_marker, record_claude

__all__ = ["CASES", "PLUGIN_RECORDED", "RECORDED", "ask_claude", "load", "main", "plugin_setup", "setup"]

RECORDED = Path(__file__).with_name("disable_all_hooks_recorded.json")
PLUGIN_RECORDED = Path(__file__).with_name("plugin_guard_off_recorded.json")

#: (id, the settings file that holds the switch, or None)
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
    """``(home, project, marker)`` of one ``disableAllHooks`` case under ``base``."""
    home, project, marker = base / "home", base / "p", base / "ran"
    (home / ".claude").mkdir(parents=True)
    (project / ".claude").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / ".git/HEAD").write_text("ref: refs/heads/main\n")
    hook = [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]
    user: dict = {"hooks": {"SessionStart": hook, "UserPromptSubmit": hook}}
    if where == "home:.claude/settings.json":
        user["disableAllHooks"] = True
    (home / ".claude/settings.json").write_text(json.dumps(user))
    if where and where.startswith("project:"):
        (project / where.split(":", 1)[1]).write_text(json.dumps({"disableAllHooks": True}))
    return home, project, marker


def plugin_setup(base: Path, where: str | None) -> tuple[Path, Path, Path]:
    """``(home, project, marker)`` of one ``enabledPlugins`` case under ``base`` (the project
    is a git repository; folder trust is the caller's). The plugin also has a command,
    ``c-guard``."""
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
                  "enabledPlugins": {"guard@mk": where != "home:.claude/settings.json"}}
    _write(home / ".claude/settings.json", user)
    if where and where.startswith("project:"):
        _write(project / where.split(":", 1)[1], {"enabledPlugins": {"guard@mk": False}})
    return home, project, marker


def ask_claude(where: str | None, plugin: bool = False) -> str:
    """``ran`` or ``off``: whether Claude Code ran the user's hook (``plugin``: the hook of
    the plugin the user enabled, in a trusted project)."""
    return claude_ran_marker(plugin_setup if plugin else setup, where, trusted=plugin)


def load(plugin: bool = False) -> dict:
    """The recorded answers (``plugin``: of the ``enabledPlugins`` cases)."""
    return json.loads((PLUGIN_RECORDED if plugin else RECORDED).read_text())


def main() -> int:
    return max(record_claude(path, [(cid, lambda w=where, p=plugin: ask_claude(w, p)) for cid, where in CASES])
               for path, plugin in ((RECORDED, False), (PLUGIN_RECORDED, True)))


if __name__ == "__main__":
    sys.exit(main())
