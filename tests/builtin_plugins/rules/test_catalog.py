"""Queries, budgets and the two renderers (docs/rules.md §4)."""

from __future__ import annotations

import pytest

from wskit.builtin_plugins.rules import RuleQueryError


def _p(sel):
    return [r.display_path for r in sel.files]


@pytest.fixture
def tree(rules_ws):
    return rules_ws({
        "CLAUDE.md": "root", "a/AGENTS.md": "a", "a/b/AGENTS.md": "ab", "c/AGENTS.md": "c",
        "a/.claude/rules/py.md": "---\npaths: \"**/*.py\"\n---\npython in a\n",
    }, home_files={".claude/CLAUDE.md": "user"})


def test_static_rules_are_ancestors_of_cwd_only(tree):
    cat, root = tree.catalog("rules"), tree.binding.source_root
    assert _p(cat.static_rules(root)) == ["~/.claude/CLAUDE.md", "CLAUDE.md"]
    assert _p(cat.static_rules(root / "a/b")) == ["~/.claude/CLAUDE.md", "CLAUDE.md", "a/AGENTS.md", "a/b/AGENTS.md"]
    with pytest.raises(RuleQueryError):
        cat.static_rules(root.parent)


def test_contextual_rules_exclude_static_and_loaded(tree):
    cat, root = tree.catalog("rules"), tree.binding.source_root
    sel = cat.contextual_rules(root / "a", [root / "a/b/x.py", root / "c/y.txt", root.parent / "elsewhere.py"])
    # definition order: scope depth, then priority, then path
    assert _p(sel) == ["c/AGENTS.md", "a/.claude/rules/py.md", "a/b/AGENTS.md"]
    assert sel.trigger_paths == ("a/b/x.py", "c/y.txt")
    again = cat.contextual_rules(root / "a", [root / "a/b/x.py"], loaded_ids=sel.ids)
    assert not again.files


def test_shell_rules_every_rule_but_static(tree):
    cat, root = tree.catalog("rules"), tree.binding.source_root
    assert _p(cat.shell_rules(root)) == ["a/AGENTS.md", "c/AGENTS.md", "a/.claude/rules/py.md", "a/b/AGENTS.md"]


def test_budget_keeps_most_specific_whole_files_and_reports_skipped(rules_ws):
    ws = rules_ws({"AGENTS.md": "r" * 50, "a/AGENTS.md": "a" * 55, "a/b/AGENTS.md": "b" * 40})
    cat, root = ws.catalog("rules"), ws.binding.source_root
    sel = cat.static_rules(root / "a/b", budget=92)
    # from the most specific end: 40 fits (52 left), 55 does not, 50 still fits (2 left)
    assert _p(sel) == ["AGENTS.md", "a/b/AGENTS.md"]
    assert [(s.rule.path, s.reason) for s in sel.skipped] == [("a/AGENTS.md", "over-budget")]
    assert all(r.bytes == len(r.body) for r in sel.files)
    sel = cat.static_rules(root / "a/b", budget=75)
    assert _p(sel) == ["a/b/AGENTS.md"] and [s.rule.path for s in sel.skipped] == ["AGENTS.md", "a/AGENTS.md"]


def test_render_text_escapes_attributes_and_keeps_bodies(rules_ws):
    ws = rules_ws({'a&b/AGENTS.md': 'body with <tags> & "quotes"',
                   ".claude/rules/c.md": "---\npaths: [\"x/*\"]\n---\ncond\n"})
    cat, root = ws.catalog("rules"), ws.binding.source_root
    text = cat.contextual_rules(root, [root / "a&b/f", root / "x/y"]).render_text()
    r1, r2 = cat.rules()
    assert text == (
        '<contextual-project-instructions trigger-paths="a&amp;b/f,x/y">\n'
        f'<instruction-file path=".claude/rules/c.md" source="project" sha256="{r1.sha256}" conditional="true">\n'
        "cond\n</instruction-file>\n\n"
        f'<instruction-file path="a&amp;b/AGENTS.md" source="project" sha256="{r2.sha256}">\n'
        'body with <tags> & "quotes"\n</instruction-file>\n'
        "</contextual-project-instructions>")
    assert cat.static_rules(root).render_text() == ""


def test_render_json_sakura_form(tree):
    cat, root = tree.catalog("rules"), tree.binding.source_root
    sel = cat.static_rules(root / "a", budget=5)
    data = sel.render_json()
    # 1 byte fits (4 left), "root" fits (0 left), "user" does not
    assert data["instructions"] == [{"path": "CLAUDE.md", "scope": ".", "content": "root"},
                                    {"path": "a/AGENTS.md", "scope": "a", "content": "a"}]
    assert [(d["code"], d["path"]) for d in data["diagnostics"]] == [("rule-over-budget", "~/.claude/CLAUDE.md")]
    full = cat.static_rules(root).render_json()
    assert [i["scope"] for i in full["instructions"]] == ["~", "."]


def test_provenance_digests(tree):
    import hashlib

    cat, root = tree.catalog("rules"), tree.binding.source_root
    sel = cat.static_rules(root)
    lines = "\n".join(f"{r.id}:{r.sha256}" for r in sel.files)
    assert sel.provenance_sha256 == hashlib.sha256(lines.encode()).hexdigest()
    assert cat.static_rules(root / "c").provenance_sha256 != sel.provenance_sha256
