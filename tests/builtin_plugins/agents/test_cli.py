"""``wsctl agents list|show``."""

import json

from wskit.trust import TrustStore


def _ws(make_tree, wskit_home):
    ws = make_tree({
        ".git/HEAD": "ref: refs/heads/main\n",
        ".claude/commands/git/commit.md": "---\ndescription: Commit\nargument-hint: MSG\n---\nCommit $0: @notes.md !`date`\n",
        "notes.md": "N\n",
        ".claude/agents/rev.md": "---\nname: reviewer\ndescription: Reviews\ntools: Read\n---\nYou review.\n",
    })
    TrustStore.for_home(wskit_home).grant(ws)
    return ws


def test_agents_list_and_show(wsctl, make_tree, wskit_home):
    ws = _ws(make_tree, wskit_home)
    data = json.loads(wsctl("agents", "list", str(ws), "--json").output)
    assert data["agents"] == [{"id": "project:reviewer", "name": "reviewer", "description": "Reviews",
                               "scope": "project", "path": ".claude/agents/rev.md", "plugin": None,
                               "model": "inherit", "tools": ["Read"]}]
    shown = json.loads(wsctl("agents", "show", "reviewer", str(ws), "--json").output)
    assert shown["prompt"] == "You review." and shown["skills"] == []
    assert "You review." in wsctl("agents", "show", "reviewer", str(ws)).output
