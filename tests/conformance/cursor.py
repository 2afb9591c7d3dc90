"""Cursor's answers, recorded from its documentation and public bug reports.

Cursor's agent cannot be installed here (``cursor-agent`` is on no package registry), so
unlike :mod:`tests.conformance.record` nothing asks a running Cursor: each case below is
a tree and the answer Cursor's own statements give for it, with the statement it rests on
(``source``, a link; docs/compatibility.md, "Cursor", lists them and says where the docs
and the reports disagree and which was chosen). ``tests/conformance/test_cursor.py``
compares wskit ``--host cursor`` with these answers in the default test run.

Parts of an answer: ``instructions`` (the rule files delivered at start, in order, by
their marker ``S:<path>``), ``attached`` (files added when the agent reads ``read``),
``requested`` (rules offered to the agent by their description), ``manual`` (rules only a
user's ``@rule`` mention brings in), ``skills``, ``commands`` and ``mcp`` (names), ``hooks``
(``[Cursor's event, wskit's event, matcher, scope]`` of every hook loaded).
"""

from __future__ import annotations

from tests.conformance.cases import Case

__all__ = ["CASES", "DOCS", "VERSION"]

#: the documentation the answers were read from (the pages as stored on 2026-12-07)
VERSION = "cursor.com/docs, 2026-12"

#: the statements the cases rest on
DOCS = {
    "rules": "https://cursor.com/docs/context/rules",
    "skills": "https://cursor.com/docs/context/skills.md",
    "skills-agents": "https://skillscursor.com/blog/how-skills-work",
    "commands": "https://docs.admtoolk.it/docs/reference/cursor-commands-overview",
    "mcp": "https://cursor.com/docs/mcp.md",
    "mcp-locations": "https://code-js.in/?p=1185",
    "hooks": "https://cursor.com/docs/hooks.md",
    "hooks-protocol": "https://cupcake.eqtylab.io/reference/harnesses/cursor",
    "hooks-cwd": "https://app.unpkg.com/cursor-hooks@1.1.6/files/README.md",
    "nested-rules": "https://github.com/Chemaclass/agnostic-ai/issues/411",
    "agents-nested": "https://github.com/tugkanboz/awesome-cursorrules/issues/5",
    "legacy": "https://cameronbrooks11.github.io/agent-policy/reference/targets/cursor-rules",
}


def _mdc(marker: str, **keys: str) -> str:
    head = "".join(f"{k}: {v}\n" for k, v in keys.items())
    return (f"---\n{head}---\n" if head else "") + f"S:{marker}\n"


_SKILL = "---\nname: {0}\ndescription: SKILLNAME-{0} a test skill\n---\nBody.\n"

#: (case, the file read for ``attached``, expected answer, sources)
CASES: tuple[tuple[Case, str, dict, tuple[str, ...]], ...] = (
    (Case("cursor-rule-types", (), hosts=("cursor",), text={
        ".cursor/rules/always.mdc": _mdc("always", alwaysApply="true"),
        ".cursor/rules/globs.mdc": _mdc("globs", globs="src/**/*.ts", alwaysApply="false"),
        ".cursor/rules/requested.mdc": _mdc("requested", description="Use for database migrations"),
        ".cursor/rules/manual.mdc": _mdc("manual"),
        ".cursor/rules/both.mdc": _mdc("both", alwaysApply="true", globs="docs/**"),
        ".cursor/rules/group/nested.mdc": _mdc("nested", alwaysApply="true"),
        "src/app/main.ts": "code\n"},
        what="the four rule types: always, attached by globs, requested by description, manual; "
             "alwaysApply wins over globs; rules in a subfolder of .cursor/rules"),
     "src/app/main.ts",
     {"instructions": [".cursor/rules/always.mdc", ".cursor/rules/both.mdc", ".cursor/rules/group/nested.mdc"],
      "attached": [".cursor/rules/globs.mdc"], "requested": [".cursor/rules/requested.mdc"],
      "manual": [".cursor/rules/manual.mdc"]},
     ("rules", "nested-rules")),
    (Case("cursor-agents-md", ("AGENTS.md", "pkg/AGENTS.md", "pkg/sub/f.txt", "CLAUDE.md", "GEMINI.md"),
          hosts=("cursor",), text={".cursorrules": "S:.cursorrules\n", "pkg/.cursorrules": "S:pkg/.cursorrules\n",
                                   "pkg/.cursor/rules/pkg.mdc": _mdc("pkg/.cursor/rules/pkg.mdc", alwaysApply="true")},
          what="AGENTS.md at the root and in a subfolder, the legacy .cursorrules at the root and in a subfolder, "
               "a nested .cursor/rules folder; CLAUDE.md and GEMINI.md are not Cursor's"),
     "pkg/sub/f.txt",
     {"instructions": ["AGENTS.md", ".cursorrules"],
      "attached": ["pkg/AGENTS.md", "pkg/.cursor/rules/pkg.mdc"], "requested": [], "manual": []},
     ("rules", "agents-nested", "legacy")),
    (Case("cursor-skills-commands-mcp", (), hosts=("cursor",), text={
        **{f"{d}/skills/{n}/SKILL.md": _SKILL.format(n) for d, n in (
            (".cursor", "sk-cursor"), (".claude", "sk-claude"), (".codex", "sk-codex"), (".agents", "sk-agents"),
            ("~/.cursor", "sk-home-cursor"), ("~/.claude", "sk-home-claude"), ("~/.codex", "sk-home-codex"),
            (".github", "sk-github"), ("~/.copilot", "sk-home-copilot"))},
        ".cursor/commands/deploy.md": "Deploy the app\n", "~/.cursor/commands/standup.md": "Write a standup\n",
        ".claude/commands/claude-cmd.md": "---\ndescription: x\n---\nB\n",
        ".cursor/mcp.json": '{"mcpServers": {"cursor-mcp": {"command": "x"}}}',
        "~/.cursor/mcp.json": '{"mcpServers": {"home-mcp": {"command": "x"}}}',
        ".mcp.json": '{"mcpServers": {"root-mcp": {"command": "x"}}}',
        ".vscode/mcp.json": '{"servers": {"vscode-mcp": {"command": "x"}}}'},
        what="skills from .cursor, the Claude, Codex and .agents compatibility folders, project and home; "
             "commands from .cursor/commands and ~/.cursor/commands; MCP from .cursor/mcp.json and ~/.cursor/mcp.json"),
     "",
     {"skills": ["sk-agents", "sk-claude", "sk-codex", "sk-cursor", "sk-home-claude", "sk-home-codex",
                 "sk-home-cursor"],
      "commands": ["deploy", "standup"], "mcp": ["cursor-mcp", "home-mcp"]},
     ("skills", "skills-agents", "commands", "mcp", "mcp-locations")),
    (Case("cursor-hooks", (), hosts=("cursor",), text={
        ".cursor/hooks.json": '{"version": 1, "hooks": {"beforeShellExecution": [{"command": "./hooks/guard.sh"}], '
                              '"preToolUse": [{"command": "./hooks/pre.sh", "matcher": "Shell|Read"}], '
                              '"afterFileEdit": [{"command": "./hooks/fmt.sh"}], '
                              '"beforeSubmitPrompt": [{"command": "./hooks/scan.sh"}], '
                              '"stop": [{"command": "./hooks/stop.sh"}], '
                              '"afterAgentResponse": [{"command": "./hooks/log.sh"}]}}',
        "~/.cursor/hooks.json": '{"version": 1, "hooks": {"sessionStart": [{"command": "./hooks/ctx.sh"}], '
                                '"beforeMCPExecution": [{"command": "./hooks/mcp.sh"}]}}',
        ".claude/settings.json": '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}'},
        what="project and user hooks.json: Cursor's events onto wskit's (a shell guard is PreToolUse of Bash, "
             "preToolUse's Shell is Bash), afterAgentResponse has no wskit event; Claude Code's settings hooks "
             "are not Cursor's"),
     "",
     {"hooks": [["afterFileEdit", "PostToolUse", "Edit|MultiEdit|Write|NotebookEdit", "project"],
                ["beforeMCPExecution", "PreToolUse", "mcp__.*", "user"],
                ["beforeShellExecution", "PreToolUse", "Bash", "project"],
                ["beforeSubmitPrompt", "UserPromptSubmit", "", "project"],
                ["preToolUse", "PreToolUse", "Bash|Read", "project"],
                ["sessionStart", "SessionStart", "", "user"],
                ["stop", "Stop", "", "project"]]},
     ("hooks", "hooks-protocol", "hooks-cwd")),
)
