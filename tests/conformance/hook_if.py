"""A hook's ``if`` condition on compound Bash commands, against Claude Code.

Each case is one ``if`` rule and one Bash command. Claude Code runs in a temporary
project whose ``.claude/settings.json`` holds one ``PreToolUse`` handler (matcher
``Bash``) with that ``if``; the handler writes a marker file. A stand-in model calls the
``Bash`` tool with the command once (:func:`tests.conformance.standin.claude_tool_round`);
the answer is ``fired`` when the marker exists afterwards, else ``skipped``. (The tool
call itself is not allowed in ``-p`` mode without ``--allowedTools``: the hook runs
before the permission check, the command never does.)

wskit's answer is :func:`wskit.builtin_plugins.hooks.conditions.if_matches` for the same
rule and call. ``python -m tests.conformance.hook_if`` re-asks the installed Claude Code
and rewrites ``hook_if_recorded.json``; ``test_hook_if.py`` compares in the default run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.conformance.standin import claude_tool_round, record_claude

__all__ = ["CASES", "RECORDED", "STRICTER", "ask_claude", "load", "main", "wskit_answer"]

RECORDED = Path(__file__).with_name("hook_if_recorded.json")

#: (id, if rule, command); every command is harmless and is never run (no permission)
CASES: tuple[tuple[str, str, str], ...] = (
    ("plain", "Bash(touch *)", "touch b.txt"),
    ("other", "Bash(touch *)", "echo a"),
    ("and", "Bash(touch *)", "echo a && touch b.txt"),
    ("or", "Bash(touch *)", "false || touch b.txt"),
    ("semicolon", "Bash(touch *)", "echo a; touch b.txt"),
    ("pipe", "Bash(touch *)", "echo a | touch b.txt"),
    ("background", "Bash(touch *)", "sleep 0 & touch b.txt"),
    ("newline", "Bash(touch *)", "echo a\ntouch b.txt"),
    ("subshell", "Bash(touch *)", "(touch b.txt)"),
    ("nested-subshell", "Bash(touch *)", "echo a && (echo b; touch b.txt)"),
    ("braces", "Bash(touch *)", "{ touch b.txt; }"),
    ("backquotes", "Bash(touch *)", "echo `touch b.txt`"),
    ("substitution", "Bash(touch *)", "echo $(touch b.txt)"),
    ("substitution-quoted", "Bash(touch *)", "echo \"$(touch b.txt)\""),
    ("process-substitution", "Bash(touch *)", "cat <(touch b.txt)"),
    ("assignment", "Bash(touch *)", "FOO=1 touch b.txt"),
    ("double-quoted", "Bash(touch *)", "echo \"a && touch b.txt\""),
    ("single-quoted", "Bash(touch *)", "echo 'x; touch b.txt'"),
    ("escaped-semicolon", "Bash(touch *)", "echo a\\; touch b.txt"),
    ("comment", "Bash(touch *)", "echo a # ; touch b.txt"),
    ("if-then", "Bash(touch *)", "if true; then touch b.txt; fi"),
    ("while-do", "Bash(touch *)", "while false; do touch b.txt; done"),
    ("negation", "Bash(touch *)", "! touch b.txt"),
    ("bash-c", "Bash(touch *)", "bash -c 'touch b.txt'"),
    ("timeout-wrapper", "Bash(touch *)", "timeout 5 touch b.txt"),
    ("redirect-dup", "Bash(touch *)", "echo a 2>&1 && touch b.txt"),
    ("for-do", "Bash(touch *)", "for f in a; do touch b.txt; done"),
    ("else", "Bash(touch *)", "if false; then :; else touch b.txt; fi"),
    ("case", "Bash(touch *)", "case x in x) touch b.txt;; esac"),
    ("double-brackets", "Bash(touch *)", "[[ -n x ]] && touch b.txt"),
    ("arithmetic", "Bash(touch *)", "(( 1 )) && touch b.txt"),
    ("function", "Bash(touch *)", "f() { touch b.txt; }; f"),
    ("hash-in-word", "Bash(touch *)", "echo a#b; touch b.txt"),
    ("assignments", "Bash(touch *)", "A=1 B='x y' touch b.txt"),
    ("time", "Bash(touch *)", "time touch b.txt"),
    ("backquotes-quoted", "Bash(touch *)", "echo \"`touch b.txt`\""),
    ("pipe-stderr", "Bash(touch *)", "echo a |& touch b.txt"),
    ("heredoc", "Bash(touch *)", "cat <<EOF\ntouch b.txt\nEOF"),
    ("whole-literal", "Bash(echo a && touch b.txt)", "echo a && touch b.txt"),
    ("whole-prefix", "Bash(echo a && *)", "echo a && touch b.txt"),
)


#: cases where wskit fires and Claude Code 2.1.337 skips: the ``if``'s command runs through a
#: wrapper or a shell's ``-c`` script, which the one normaliser the permission rules share
#: reads through (a guard written for ``touch`` is not passed by ``timeout 5 touch``);
#: rows of docs/compatibility.md
STRICTER: dict[str, str] = {
    cid: "wskit reads the command a wrapper or a shell's -c script runs; Claude Code's if does not"
    for cid in ("bash-c", "timeout-wrapper", "time")
}


def load() -> dict:
    """The committed recording: ``{"claude": {"version", "recorded", "cases": {id: answer}}}``."""
    return json.loads(RECORDED.read_text()) if RECORDED.exists() else {}


def _settings(rule: str) -> dict:
    hook = {"type": "command", "if": rule, "command": 'touch "$CLAUDE_PROJECT_DIR/.hook-fired"'}
    return {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}


def ask_claude(rule: str, command: str) -> str:
    """``fired`` when Claude Code ran the handler whose ``if`` is ``rule`` for ``command``, else ``skipped``."""
    base = Path(tempfile.mkdtemp(prefix="wskit-oracle-hookif-"))
    try:
        project, home = base / "p", base / "h"
        (project / ".claude").mkdir(parents=True)
        home.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=project, check=True)
        (project / ".claude" / "settings.json").write_text(json.dumps(_settings(rule)))
        claude_tool_round(project, home, "Bash", {"command": command, "description": "run"})
        return "fired" if (project / ".hook-fired").exists() else "skipped"
    finally:
        shutil.rmtree(base, ignore_errors=True)


def wskit_answer(rule: str, command: str, cwd: str) -> str:
    """``fired`` when wskit's ``if`` evaluation runs the handler for ``command``, else ``skipped``."""
    from wskit.builtin_plugins.hooks.conditions import if_matches, parse_if

    hit = if_matches(parse_if(rule), "Bash", {"command": command}, cwd=cwd, project_dir=cwd)
    return "fired" if hit else "skipped"


def main(argv: list[str] | None = None) -> int:
    """Ask the installed Claude Code every case (or the ids in ``argv``) and rewrite the recording."""
    wanted = set(argv if argv is not None else sys.argv[1:])
    return record_claude(RECORDED, ((cid, lambda r=rule, c=command: ask_claude(r, c))
                                    for cid, rule, command in CASES if not wanted or cid in wanted))


if __name__ == "__main__":
    sys.exit(main())
