"""A new user's project carrying one host's files, built from the published skills in
``shared/corpus/anthropic-skills``, asked of the host and of ``wsctl --host NAME inspect``.

GitHub Copilot CLI: six skills in ``.github/skills``, six in ``.agents/skills`` (one,
``claude-api``, has a description over Copilot's 1,024 characters), ``AGENTS.md``,
``.github/copilot-instructions.md``, ``sub/CLAUDE.md``, a ``.github/instructions`` file with
``applyTo: '**/*.py'`` and a ``.mcp.json`` server; asked from ``sub`` with ``copilot skill
list --json``, ``copilot instruction list --json`` and ``copilot mcp list --json``.
``python -m tests.conformance.corpus_hosts`` re-asks and rewrites
``corpus_hosts_recorded.json``; ``test_corpus_hosts.py`` compares (marked ``corpus``).
"""

from __future__ import annotations

import datetime
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.conformance import oracles

__all__ = ["CORPUS", "RECORDED", "ask_copilot", "lay_out_copilot", "main"]

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "anthropic-skills" / "skills"
RECORDED = Path(__file__).with_name("corpus_hosts_recorded.json")
_GITHUB = ("algorithmic-art", "brand-guidelines", "canvas-design", "claude-api", "frontend-design", "internal-comms")
_AGENTS = ("mcp-builder", "skill-creator", "slack-gif-creator", "theme-factory", "web-artifacts-builder",
           "webapp-testing")


def lay_out_copilot(base: Path) -> tuple[Path, Path, Path]:
    """The project (a git repository with one commit), the home and the cwd ``sub``."""
    project, home = base / "p", base / "h"
    (project / "sub").mkdir(parents=True)
    home.mkdir(parents=True)
    for folder, names in ((".github/skills", _GITHUB), (".agents/skills", _AGENTS)):
        for name in names:
            shutil.copytree(CORPUS / name, project / folder / name, symlinks=True)
    (project / "AGENTS.md").write_text("# repository rules\n")
    (project / ".github/copilot-instructions.md").write_text("# Copilot's own file\n")
    (project / "sub/CLAUDE.md").write_text("# rules of sub\n")
    (project / ".github/instructions").mkdir(parents=True)
    (project / ".github/instructions/py.instructions.md").write_text("---\napplyTo: '**/*.py'\n---\nPython rules\n")
    (project / ".mcp.json").write_text('{"mcpServers": {"docs": {"command": "npx", "args": ["docs-mcp"]}}}')
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "PATH": "/usr/bin:/bin", "HOME": str(home)}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x"]):
        subprocess.run(["git", *args], cwd=project, env=env, check=True)
    return project, home, project / "sub"


def ask_copilot() -> dict:
    """Copilot CLI's skills, instruction files (``[path, applyTo or None]``) and MCP servers."""
    base = Path(tempfile.mkdtemp(prefix="wskit-corpus-copilot-"))
    try:
        _project, home, cwd = lay_out_copilot(base)
        skills = oracles.copilot_json(["skill", "list"], cwd, home) or []
        instructions = oracles.copilot_json(["instruction", "list"], cwd, home) or []
        mcp = oracles.copilot_json(["mcp", "list"], cwd, home, COPILOT_ALLOW_ALL="true") or {}
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return {"skills": sorted(s["name"] for s in skills if s.get("source") != "builtin"),
            "instructions": [[i["sourcePath"], ", ".join(i["applyTo"]) if i.get("applyTo") else None]
                             for i in instructions],
            "mcp": sorted(mcp.get("mcpServers") or {})}


def main(argv: list[str] | None = None) -> int:
    """Ask the installed Copilot CLI and rewrite the recording."""
    if oracles.binary("copilot") is None:
        print("copilot: not installed, recording kept", file=sys.stderr)
        return 1
    data = {"copilot": {"version": oracles.host_version("copilot"), "recorded": datetime.date.today().isoformat(),
                        "answer": ask_copilot()}}
    RECORDED.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(json.dumps(data["copilot"]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
