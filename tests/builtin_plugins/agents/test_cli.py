"""``wsctl agents list|show``."""

import json

from tests.builtin_plugins._cli_trees import markdown_workspace


def test_agents_list_and_show(wsctl, make_tree, wskit_home):
    ws = markdown_workspace(make_tree, wskit_home)
    data = json.loads(wsctl("agents", "list", str(ws), "--json").output)
    assert data["agents"] == [{"id": "project:reviewer", "name": "reviewer", "description": "Reviews",
                               "scope": "project", "path": ".claude/agents/rev.md", "plugin": None,
                               "model": "inherit", "tools": ["Read"]}]
    shown = json.loads(wsctl("agents", "show", "reviewer", str(ws), "--json").output)
    assert shown["prompt"] == "You review." and shown["skills"] == []
    assert "You review." in wsctl("agents", "show", "reviewer", str(ws)).output
