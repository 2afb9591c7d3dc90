"""The Claude Code layout project every export test (and the export conformance cases) uses:
a nested ``CLAUDE.md`` with an ``@`` import, ``.claude/rules`` with and without ``paths``,
a skill with a script, commands with ``$ARGUMENTS`` and ``$1``, an agent and ``.mcp.json``
with a stdio and an HTTP server. Each instruction line carries a marker ``S:<label>``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

__all__ = ["FILES", "TARGETS", "make_project"]

TARGETS = "codex,gemini,opencode,cursor,copilot"

FILES = {
    "CLAUDE.md": "# Project\n\nUse Python 3.11. S:root\n@docs/style.md\n",
    "docs/style.md": "Style: four spaces, no tabs. S:style\n",
    "pkg/CLAUDE.md": "Package rules: keep the API stable. S:pkg\n",
    "pkg/api/handlers.py": "\n",
    ".claude/rules/testing.md": "Always run pytest before committing. S:testing\n",
    ".claude/rules/api.md": '---\npaths:\n  - "pkg/api/**/*.py"\n---\nAPI handlers validate input with pydantic. S:api\n',
    ".claude/rules/ts.md": '---\npaths: "**/*.ts"\n---\nTypeScript: strict mode. S:ts\n',
    ".claude/skills/pdf-tools/SKILL.md": ("---\nname: pdf-tools\ndescription: Extract text and tables from PDF files. "
                                          "SKILLNAME-pdf-tools\n---\nRun scripts/extract.py on the file.\n"),
    ".claude/skills/pdf-tools/scripts/extract.py": 'print("extract")\n',
    ".claude/commands/review.md": ('---\ndescription: Review a file\nargument-hint: "[file]"\n---\n'
                                   "Review $ARGUMENTS carefully and list problems.\n"),
    ".claude/commands/git/fixissue.md": "---\ndescription: Fix a GitHub issue\n---\nFix issue #$0 with priority $1.\n",
    ".claude/agents/reviewer.md": ("---\nname: reviewer\ndescription: Reviews code for bugs\ntools: Read, Grep, Glob\n"
                                   "model: sonnet\n---\nYou are a careful code reviewer.\n"),
    ".mcp.json": json.dumps({"mcpServers": {
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
                  "env": {"LOG": "1"}},
        "docs": {"type": "http", "url": "https://example.com/mcp",
                 "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}}}),
}


def make_project(root: Path, *, git: bool = True, extra: dict[str, str] | None = None) -> Path:
    """Write the project under ``root`` (a git repository with one commit when ``git``)."""
    for rel, text in {**FILES, **(extra or {})}.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    if git:
        env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_SYSTEM": "/dev/null", "PATH": "/usr/bin:/bin"}
        for cmd in (["git", "init", "-q"], ["git", "add", "-A"],
                    ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]):
            subprocess.run(cmd, cwd=root, env=env, check=True)
    return root
