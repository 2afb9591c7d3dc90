"""Bash allow rules against Claude Code: which commands an allow rule lets run unasked.

Each case is an allow list (``--allowedTools``) and one command. Claude Code is asked
with a stand-in model that calls its ``Bash`` tool with the command once
(:func:`tests.conformance.standin.claude_tool_round`); the verdict is ``allow`` when
the command ran and ``ask`` when the tool result says it needs approval. wskit's verdict
is ``PermissionPolicy.check("Bash", {"command": ...})`` with the same rules as
``permissions.allow`` in the user's settings (``ask`` is the default mode's answer when
no rule allows).

``python -m tests.conformance.bash_rules`` re-asks the installed Claude Code and rewrites
``bash_recorded.json``; ``test_bash_rules.py`` compares in the default test run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.conformance.standin import claude_tool_round, record_claude, tool_results

__all__ = ["CASES", "RECORDED", "ask_claude", "load", "main", "wskit_verdict"]

RECORDED = Path(__file__).with_name("bash_recorded.json")

#: (id, allow rules, command); every command is harmless: it writes inside the temporary project at most
CASES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("plain", ("Bash(echo:*)",), "echo hi"),
    ("redirect-file", ("Bash(echo:*)",), "echo hi > out1.txt"),
    ("redirect-append", ("Bash(echo:*)",), "echo hi >> out2.txt"),
    ("redirect-stderr-file", ("Bash(echo:*)",), "echo hi 2> err.txt"),
    ("redirect-both", ("Bash(echo:*)",), "echo hi &> both.txt"),
    ("dup-stderr", ("Bash(echo:*)",), "echo hi 2>&1"),
    ("dev-null", ("Bash(echo:*)",), "echo hi > /dev/null"),
    ("stdin-file", ("Bash(cat:*)",), "cat < in.txt"),
    ("quoted-gt", ("Bash(echo:*)",), "echo 'a > b'"),
    ("and-other", ("Bash(echo:*)",), "echo hi && touch out3.txt"),
    ("and-both-allowed", ("Bash(echo:*)", "Bash(touch:*)"), "echo hi && touch out4.txt"),
    ("pipe-other", ("Bash(echo:*)",), "echo hi | tee out5.txt"),
    ("substitution", ("Bash(echo:*)",), "echo $(touch out6.txt)"),
)


def load() -> dict:
    """The committed recording: ``{"claude": {"version", "recorded", "cases": {id: verdict}}}``."""
    return json.loads(RECORDED.read_text()) if RECORDED.exists() else {}


def _project(base: Path) -> tuple[Path, Path]:
    project, home = base / "p", base / "h"
    project.mkdir(parents=True)
    home.mkdir(parents=True)
    (project / "in.txt").write_text("x\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    return project, home


def ask_claude(rules: tuple[str, ...], command: str) -> str:
    """``allow`` when Claude Code ran ``command`` under the allow ``rules`` unasked, else ``ask``."""
    base = Path(tempfile.mkdtemp(prefix="wskit-oracle-bash-"))
    try:
        project, home = _project(base)
        bodies = claude_tool_round(project, home, "Bash", {"command": command, "description": "run"},
                                   ("--allowedTools", ",".join(rules)))
        results = " ".join(tool_results(bodies[-1]))
        asked = "approval" in results or "can't be checked" in results or "permission" in results.lower()
        return "ask" if asked else "allow"
    finally:
        shutil.rmtree(base, ignore_errors=True)


def wskit_verdict(rules: tuple[str, ...], command: str, base: Path) -> str:
    """wskit's decision for ``command`` with ``rules`` as the user's ``permissions.allow``."""
    from wskit import HostProfile, WorkspaceCache
    from wskit.trust import TrustStore

    project, home = _project(base)
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": list(rules)}}))
    TrustStore.for_home(home).grant(project)
    ws = WorkspaceCache(HostProfile(name="claude", home=home)).resolve(str(project))
    return ws.catalog("permissions").check("Bash", {"command": command}, cwd=str(project)).decision


def main(argv: list[str] | None = None) -> int:
    """Ask the installed Claude Code every case and rewrite the recording."""
    return record_claude(RECORDED, ((cid, lambda r=rules, c=command: ask_claude(r, c)) for cid, rules, command in CASES))

if __name__ == "__main__":
    sys.exit(main())
