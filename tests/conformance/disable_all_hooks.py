"""Whose hooks a trusted project's ``disableAllHooks`` switches off, against Claude Code.

Each case writes a user hook in ``~/.claude/settings.json`` (``SessionStart`` and
``UserPromptSubmit``, each writing a marker file) and a ``disableAllHooks`` switch in one
settings file. Claude Code runs ``claude -p hi`` in the project (an unreachable model: the
hooks of the start and of the prompt run before any request); the answer is ``ran`` when a
marker exists afterwards, else ``off``. wskit's answer is whether ``wsctl hooks run
UserPromptSubmit`` ran the same user hook (a skip of state ``disabled`` or ``switched-off``
is ``off``; docs/hooks.md says how wskit reports a switch of the project's).

``python -m tests.conformance.disable_all_hooks`` re-asks the installed Claude Code and
rewrites ``disable_all_hooks_recorded.json``; ``test_disable_all_hooks.py`` compares.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

from tests.conformance import oracles
from tests.conformance.standin import record_claude

__all__ = ["CASES", "RECORDED", "ask_claude", "load", "main", "setup"]

RECORDED = Path(__file__).with_name("disable_all_hooks_recorded.json")

#: (id, the settings file that holds ``disableAllHooks: true``, or None)
CASES: tuple[tuple[str, str | None], ...] = (
    ("none", None),
    ("project-settings", "project:.claude/settings.json"),
    ("project-local-settings", "project:.claude/settings.local.json"),
    ("user-settings", "home:.claude/settings.json"),
)


def setup(base: Path, where: str | None) -> tuple[Path, Path, Path]:
    """``(home, project, marker)`` of one case under ``base``."""
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


def ask_claude(where: str | None) -> str:
    """``ran`` or ``off``: whether Claude Code ran the user's hook."""
    base = Path(tempfile.mkdtemp(prefix="wskit-disable-"))
    try:
        home, project, marker = setup(base, where)
        env = oracles._env(home, ANTHROPIC_BASE_URL="http://127.0.0.1:9", ANTHROPIC_API_KEY="x")
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
