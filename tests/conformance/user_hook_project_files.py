"""Whether the user's own hook runs a trusted project's files, against Claude Code.

Each case writes a user hook in ``~/.claude/settings.json`` (``SessionStart`` and
``UserPromptSubmit``) that reaches a file of the project: ``inline`` is ``python3 -c "import
json…"`` with the project's ``json.py`` first on ``sys.path`` (Python puts the working folder
there), ``script`` names ``"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh``; the project's file writes
a marker. Claude Code runs ``claude -p hi`` in the project (an unreachable model: the hooks of
the start and of the prompt run before any request); the answer is ``ran`` when the marker
exists afterwards, else ``off``. wskit differs on purpose (docs/compatibility.md): in a trusted
project such a hook is approved per entry, so before approval it does not run.

``python -m tests.conformance.user_hook_project_files`` re-asks the installed Claude Code and
rewrites ``user_hook_project_files_recorded.json``; ``test_user_hook_project_files.py`` compares.
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

RECORDED = Path(__file__).with_name("user_hook_project_files_recorded.json")

#: (id, the user's hook command)
CASES: tuple[tuple[str, str], ...] = (
    ("inline", "python3 -c \"import json,sys; sys.exit(0)\""),
    ("script", "sh \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/x.sh"),
)


def setup(base: Path, command: str) -> tuple[Path, Path, Path]:
    """``(home, project, marker)`` of one case under ``base``."""
    home, project, marker = base / "home", base / "p", base / "ran"
    (home / ".claude").mkdir(parents=True)
    (project / ".claude/hooks").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / ".git/HEAD").write_text("ref: refs/heads/main\n")
    (project / "json.py").write_text(f"import sys\nopen({str(marker)!r}, 'w').close()\nsys.exit(0)\n")
    (project / ".claude/hooks/x.sh").write_text(f"touch {marker}\n")
    hook = [{"hooks": [{"type": "command", "command": command}]}]
    (home / ".claude/settings.json").write_text(json.dumps({"hooks": {"SessionStart": hook,
                                                                     "UserPromptSubmit": hook}}))
    return home, project, marker


def ask_claude(command: str) -> str:
    """``ran`` or ``off``: whether Claude Code's run of the user's hook ran the project's file."""
    base = Path(tempfile.mkdtemp(prefix="wskit-userhook-"))
    try:
        home, project, marker = setup(base, command)
        env = oracles._env(home, ANTHROPIC_BASE_URL="http://127.0.0.1:9", ANTHROPIC_API_KEY="x")
        oracles._run([str(oracles.binary("claude")), "-p", "hi", "--output-format", "stream-json", "--verbose"],
                     project, env, until=lambda out: '"subtype":"init"' in out, timeout=60)
        return "ran" if marker.exists() else "off"
    finally:
        shutil.rmtree(base, ignore_errors=True)


def load() -> dict:
    return json.loads(RECORDED.read_text())


def main() -> int:
    return record_claude(RECORDED, [(cid, lambda c=command: ask_claude(c)) for cid, command in CASES])


if __name__ == "__main__":
    sys.exit(main())
