"""Subagents (docs/commands.md, "Subagents")."""

from tests.markdown_helpers import load
from wskit.builtin_plugins.agents.loader import load_agents
from wskit.models import ResourceSource, Scope

AGENT = "---\nname: {n}\ndescription: {d}\n{x}---\nYou are {n}.\n"


def test_load_fields_precedence_and_bad_files(make_tree, wskit_home):
    ws = make_tree({
        ".claude/agents/rev.md": AGENT.format(n="reviewer", d="claude", x="tools: Read, Grep\nskills: [pdf]\n"),
        ".wskit/agents/sub/rev.md": AGENT.format(n="reviewer", d="host", x="model: opus\ncolor: red\n"),
        ".claude/agents/noname.md": "---\ndescription: d\n---\nx",
        ".claude/agents/nodesc.md": "---\nname: nodesc\n---\nx",
        ".claude/agents/iso.md": AGENT.format(n="iso", d="d", x="isolation: sandbox\n"),
        ".claude/agents/colon.md": AGENT.format(n="a:b", d="d", x=""),
        ".claude/agents/plain.md": "no frontmatter",
    })
    w = load(ws, wskit_home)
    reg = w.registry("agent")
    a = reg.get("reviewer")
    assert (a.id, a.description, a.model, a.color, a.prompt) == ("project:reviewer", "host", "opus", "red",
                                                                 "You are reviewer.")
    assert reg.ids() == ["project:reviewer"]
    codes = {d.code for d in w.diagnostics if d.path and "/agents/" in d.path}
    assert {"agent-missing-name", "agent-missing-description", "agent-invalid-isolation", "agent-name-invalid",
            "agent-no-frontmatter"} <= codes
    shadowed = [r for r in reg.shadowed() if r.name == "reviewer"][0]
    assert shadowed.tools == ("Read", "Grep") and shadowed.skills == ("pdf",) and shadowed.model == "inherit"


def test_reserved_names_refused(make_tree, wskit_home):
    ws = make_tree({".claude/agents/gp.md": AGENT.format(n="general-purpose", d="d", x=""),
                    ".claude/agents/ok.md": AGENT.format(n="ok", d="d", x="")})
    w = load(ws, wskit_home, reserved_names=frozenset({"general-purpose"}))
    assert w.registry("agent").ids() == ["project:ok"]
    diag = [d for d in w.diagnostics if d.code == "agent-reserved-name"]
    assert diag and diag[0].path.endswith("gp.md")


def test_plugin_agents_named_by_path(make_tree, tmp_path):
    root = make_tree({"agents/review/security.md": AGENT.format(n="sec", d="d", x=""),
                      "agents/top.md": AGENT.format(n="topper", d="d", x="")}, root=tmp_path / "p")
    res = load_agents(ResourceSource(scope=Scope.PLUGIN, root=str(root), base=str(root), plugin="kit"))
    assert sorted(a.id for a in res.resources) == ["plugin:kit:review:security", "plugin:kit:topper"]


def test_hidden_characters_warn_and_long_description_skipped(make_tree, tmp_path):
    from wskit.builtin_plugins.agents.loader import MAX_DESCRIPTION

    root = make_tree({"agents/a.md": AGENT.format(n="a", d="d \u200b", x=""),
                      "agents/b.md": AGENT.format(n="b", d="x" * (MAX_DESCRIPTION + 1), x=""),
                      "agents/c.md": "---\ndescription: " + "x" * 100_000 + "\n---\nno name either\n"},
                     root=tmp_path / "p")
    res = load_agents(ResourceSource(scope=Scope.PLUGIN, root=str(root), base=str(root), plugin="kit"))
    assert [a.name for a in res.resources] == ["a"]
    assert [d.path.rsplit("/", 1)[-1] for d in res.diagnostics if d.code == "hidden-characters"] == ["a.md"]
    long = [d for d in res.diagnostics if d.code == "agent-description-too-long"]
    assert sorted(d.path.rsplit("/", 1)[-1] for d in long) == ["b.md", "c.md"]
    assert all(d.level == "warning" and d.line == 3 - (d.path.endswith("c.md")) for d in long)
