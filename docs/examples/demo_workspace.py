"""The throw-away workspace the framework adapters' examples run against
(``pydantic_ai_agent.py``…): a home and a trusted project with an ``AGENTS.md`` (a static
rule), a nested ``docs/AGENTS.md`` (a contextual rule for files under ``docs/``), a skill,
a command (``/tour <name>``, what the examples' user types), a project ``PreToolUse`` hook that blocks ``rm -rf`` (approved, as the user would with
``wsctl hooks trust``) and project permission rules (``Read(./.env)`` denied)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from wskit import (
    HostProfile,
    RuntimeOptions,
    SessionResources,
    ToolKind,
    ToolSpec,
    TrustStore,
    WorkspaceCache,
    snapshot,
)
from wskit import attach as attach_runtime

__all__ = ["PROMPT", "TOOLS", "make_tree", "open_session", "run_tool"]

#: what the examples' user types: the project's command ``/tour`` with an argument
PROMPT = "/tour Ada"

BLOCK_RM = "grep -q 'rm -rf' && { echo 'rm -rf is not allowed here' >&2; exit 2; } || exit 0"

#: the example agents' tools, as the gate sees them
TOOLS = [ToolSpec("read_file", matches_as="Read", kind=ToolKind.READ, path_args=("path",)),
         ToolSpec("shell", matches_as="Bash", kind=ToolKind.SHELL, command_arg="command")]


def make_tree(root: Path) -> tuple[Path, Path]:
    """Write the home and the project under ``root``; trust the project and approve its hooks."""
    home, project = root / "home", root / "project"
    files = {
        home / ".claude" / "settings.json": "{}",
        project / ".git" / "HEAD": "ref: refs/heads/main\n",
        project / "AGENTS.md": "Answer in one sentence.\n",
        project / "docs" / "AGENTS.md": "Docs use British spelling.\n",
        project / "docs" / "guide.md": "# Guide\nRun make colour.\n",
        project / ".env": "TOKEN=secret\n",
        project / ".claude" / "skills" / "greeting" / "SKILL.md":
            "---\nname: greeting\ndescription: How to greet the user\n---\nGreet with 'Ahoy'.\n",
        project / ".claude" / "commands" / "tour.md": "---\ndescription: Greet someone and sum up the guide\n---\n"
                                                      "Greet $ARGUMENTS as the greeting skill says, then tell them "
                                                      "what docs/guide.md says.\n",
        project / ".claude" / "settings.json": json.dumps({
            "permissions": {"allow": ["Read", "Bash(echo:*)", "Bash(rm:*)"], "deny": ["Read(./.env)"]},
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": BLOCK_RM}]}]}}),
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    TrustStore.for_home(home).grant(project)  # "trust this folder?" -> yes
    # the user reviewed the project's hooks and approved them (wsctl hooks status / trust)
    wsctl = [sys.executable, "-m", "wskit", "--home", str(home), "--json", "hooks"]
    status = json.loads(subprocess.run([*wsctl, "status", str(project)], capture_output=True, text=True,
                                       check=True).stdout)
    subprocess.run([*wsctl, "trust", str(project), "--digest", status["digest"]], capture_output=True, check=True)
    return home, project


def open_session(home: Path, project: Path) -> SessionResources:
    """A session of ``project`` with the example tools' table attached."""
    session = snapshot(WorkspaceCache(HostProfile(name="demo", home=home)).resolve(project))
    attach_runtime(session, RuntimeOptions(tools=TOOLS))
    return session


def run_tool(project: Path, name: str, args: dict[str, Any]) -> str:
    """The example agents' tools themselves (wskit never runs a tool)."""
    if name == "read_file":
        return (project / str(args["path"])).read_text()
    done = subprocess.run(["/bin/sh", "-c", str(args["command"])], cwd=project, capture_output=True, text=True,
                          timeout=30)
    return done.stdout.strip()
