"""A user's Bash deny rule against spellings of the denied command, against Claude Code.

Each case is one command. The user's settings deny ``Bash(rm:*)``; the project's settings
(a trusted project) allow ``Bash(*)``. Claude Code is asked with a stand-in model that
calls its ``Bash`` tool with the command once
(:func:`tests.conformance.standin.claude_tool_round`): the verdict is ``deny`` when the
tool result says the permission "has been denied", ``allow`` when the command ran (the
file ``v.txt`` it removes is gone), else ``ask`` (the tool result says it needs approval:
"This command requires approval", "'eval' evaluates arguments as shell code"…). Every
command only removes ``v.txt`` inside the temporary project, if it runs at all. wskit's
verdict is ``PermissionPolicy.check("Bash", {"command": ...})`` with the same settings
(red-team finding F5: wskit allowed every one of these through the project's rule).

``python -m tests.conformance.bash_deny`` re-asks the installed Claude Code and rewrites
``bash_deny_recorded.json``; ``test_bash_deny.py`` compares in the default test run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.conformance.standin import claude_tool_round, record_claude, tool_results

__all__ = ["CASES", "DENY", "RECORDED", "STRICTER", "ALLOW", "ask_claude", "load", "main", "wskit_verdict"]

RECORDED = Path(__file__).with_name("bash_deny_recorded.json")
DENY = ("Bash(rm:*)",)
ALLOW = ("Bash(*)",)

#: (id, command); each removes v.txt in the temporary project at most
CASES: tuple[tuple[str, str], ...] = (
    ("plain", "rm -f v.txt"),
    ("other", "echo hi"),
    ("if-then", "if true; then rm -f v.txt; fi"),
    ("for-do", "for i in 1; do rm -f v.txt; done"),
    ("while-do", "while true; do rm -f v.txt; break; done"),
    ("until-do", "until false; do rm -f v.txt; break; done"),
    ("case", "case x in x) rm -f v.txt;; esac"),
    ("function", "fn(){ rm -f v.txt; }; fn"),
    ("subshell", "(rm -f v.txt)"),
    ("brace-group", "{ rm -f v.txt; }"),
    ("or-group", "true || { rm -f v.txt; }"),
    ("and", "echo a && rm -f v.txt"),
    ("timeout", "timeout 5 rm -f v.txt"),
    ("timeout-options", "timeout -k 1 5 rm -f v.txt"),
    ("stdbuf", "stdbuf -o0 rm -f v.txt"),
    ("setsid", "setsid rm -f v.txt"),
    ("ionice", "ionice rm -f v.txt"),
    ("nice-n", "nice -n 5 rm -f v.txt"),
    ("sudo-u", "sudo -u root rm -f v.txt"),
    ("sudo-dashdash", "sudo -- rm -f v.txt"),
    ("doas", "doas rm -f v.txt"),
    ("strace", "strace rm -f v.txt"),
    ("flock", "flock /tmp/wskit-oracle-deny.lock rm -f v.txt"),
    ("taskset", "taskset 1 rm -f v.txt"),
    ("chroot", "chroot / rm -f v.txt"),
    ("builtin-command", "builtin command rm -f v.txt"),
    ("command-p", "command -p rm -f v.txt"),
    ("exec-a", "exec -a foo rm -f v.txt"),
    ("env-i", "env -i rm -f v.txt"),
    ("env-S", 'env -S "rm -f v.txt"'),
    ("usr-bin-env", "/usr/bin/env rm -f v.txt"),
    ("time", "time rm -f v.txt"),
    ("xargs", "echo v.txt | xargs rm -f"),
    ("bash-lc", 'bash -lc "rm -f v.txt"'),
    ("sh-c", 'sh -c "rm -f v.txt"'),
    ("bash-c-single", "bash -c 'rm -f v.txt'"),
    ("su-c", 'su -c "rm -f v.txt"'),
    ("pipe-to-sh", "echo hi | sh"),
    ("eval-literal", 'eval "rm -f v.txt"'),
    ("eval-variable", 'v="rm -f v.txt"; eval "$v"'),
    ("find-exec", "find . -name v.txt -exec rm {} \\;"),
    ("absolute-path", "/bin/rm -f v.txt"),
    ("ansi-c", "$'rm' -f v.txt"),
    ("ifs", "rm${IFS}-f v.txt"),
    ("variable-assigned", "x=rm; $x -f v.txt"),
    ("variable-unset", "$x -f v.txt"),
    ("substitution-program", "$(echo rm) -f v.txt"),
    ("backslash", "\\rm -f v.txt"),
    ("quoted", '"rm" -f v.txt'),
    ("split-quotes", "r''m -f v.txt"),
    ("comment", "rm -f v.txt # comment"),
)

#: cases where wskit denies and Claude Code 2.1.337 asks: the deny rule's command is
#: there, readable before it runs, and an ``ask`` lets the user approve the denied command
#: (Claude Code says so: "Approving runs the whole script, including that command").
#: Each is a row of docs/compatibility.md.
STRICTER: dict[str, str] = {
    cid: "the deny rule's command is read through it; Claude Code asks, so a denied command can be approved"
    for cid in ("bash-lc", "sh-c", "bash-c-single", "su-c", "chroot", "eval-literal", "eval-variable",
                "find-exec", "ansi-c", "ifs")
}


def load() -> dict:
    """The committed recording: ``{"claude": {"version", "recorded", "cases": {id: verdict}}}``."""
    return json.loads(RECORDED.read_text()) if RECORDED.exists() else {}


def _project(base: Path) -> tuple[Path, Path]:
    project, home = base / "p", base / "h"
    (project / ".claude").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "v.txt").write_text("x\n")
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": list(DENY)}}))
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": list(ALLOW)}}))
    return project, home


def ask_claude(command: str) -> str:
    """Claude Code's verdict for ``command`` (``deny``, ``ask`` or ``allow``, see the module doc)."""
    base = Path(tempfile.mkdtemp(prefix="wskit-oracle-deny-"))
    try:
        project, home = _project(base)
        bodies = claude_tool_round(project, home, "Bash", {"command": command, "description": "run"})
        results = " ".join(tool_results(bodies[-1]))
        if "has been denied" in results:
            return "deny"
        return "ask" if (project / "v.txt").exists() and command != "echo hi" else "allow"
    finally:
        shutil.rmtree(base, ignore_errors=True)


def wskit_verdict(command: str, base: Path) -> str:
    """wskit's decision for ``command`` with the same user and project settings."""
    from wskit import HostProfile, WorkspaceCache
    from wskit.trust import TrustStore

    project, home = _project(base)
    TrustStore.for_home(home).grant(project)
    ws = WorkspaceCache(HostProfile(name="claude", home=home)).resolve(str(project))
    return ws.catalog("permissions").check("Bash", {"command": command}, cwd=str(project)).decision


def main(argv: list[str] | None = None) -> int:
    """Ask the installed Claude Code every case (or the ids in ``argv``) and rewrite the recording."""
    wanted = set(argv if argv is not None else sys.argv[1:])
    return record_claude(RECORDED, ((cid, lambda c=command: ask_claude(c)) for cid, command in CASES
                                    if not wanted or cid in wanted))


if __name__ == "__main__":
    sys.exit(main())
