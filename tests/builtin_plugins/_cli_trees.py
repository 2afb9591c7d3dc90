"""Trusted workspaces the capability CLI tests share (the tests of one tree were split by
capability when the tests came to mirror the source)."""

from __future__ import annotations

import json

from wskit.trust import TrustStore

__all__ = ["markdown_workspace", "servers_workspace"]


def markdown_workspace(make_tree, home):
    """A trusted project with one custom command (``git:commit``) and one subagent (``reviewer``)."""
    ws = make_tree({
        ".git/HEAD": "ref: refs/heads/main\n",
        ".claude/commands/git/commit.md": "---\ndescription: Commit\nargument-hint: MSG\n---\nCommit $0: @notes.md !`date`\n",
        "notes.md": "N\n",
        ".claude/agents/rev.md": "---\nname: reviewer\ndescription: Reviews\ntools: Read\n---\nYou review.\n",
    })
    TrustStore.for_home(home).grant(ws)
    return ws


def servers_workspace(make_tree, home):
    """A trusted project with one MCP server (``db``), one LSP server (``go``) and one
    ``PreToolUse`` command hook."""
    ws = make_tree({
        ".mcp.json": json.dumps({"db": {"command": "db-server", "args": ["--ro"]}}),
        ".lsp.json": json.dumps({"go": {"command": "gopls", "extensionToLanguage": {".go": "go"}}}),
        ".claude/settings.json": json.dumps({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}]}}),
    })
    TrustStore.for_home(home).grant(ws)
    return ws
