"""Conditional rules and Claude Code glob semantics (docs/rules.md §2)."""

from __future__ import annotations

import pytest

from wskit.builtin_plugins.rules.patterns import PathMatcher, normalise, split_paths


@pytest.mark.parametrize("pattern,path,hit", [
    ("**/*.ts", "a.ts", True),
    ("**/*.ts", "x/y/a.ts", True),
    ("src/**/*", "src/a/b.py", True),
    ("*.md", "README.md", True),
    ("*.md", "docs/README.md", False),  # '*' stays in one folder: root only
    ("*.{ts,tsx}", "a.tsx", True),
    ("*.{ts,tsx}", "a.js", False),
    ("src/{api,web}/**/*.py", "src/web/x/y.py", True),
    ("a?.py", "ab.py", True),
    ("a?.py", "a/b.py", False),
    ("[abc].py", "b.py", True),
    ("[!abc].py", "b.py", False),
    ("**/*.yml", ".github/workflows/ci.yml", True),  # dotfolders match
    (".*rc", ".eslintrc", True),
    ("*.PY", "a.py", False),  # case-sensitive
])
def test_glob_semantics(pattern, path, hit):
    assert PathMatcher((pattern,)).match(path) is hit


def test_invalid_bracket_matches_nothing_but_other_patterns_work():
    m = PathMatcher(("src/[oops/*.py", "lib/**/*.py", r"\[x\].md"))
    assert [p.pattern for p in m.problems] == ["src/[oops/*.py"]
    assert m.problems[0].code == "rule-pattern-invalid"
    assert m.match("lib/a/b.py") and m.match("[x].md") and not m.match("src/[oops/a.py")


@pytest.mark.parametrize("bad", ["/etc/*.conf", "../x/*.py", "a/../../b", "C:/x"])
def test_unsafe_patterns_refused(bad):
    m = PathMatcher((bad,))
    assert m.problems and not m.match("x/y.py")


def test_brace_budget_over_limit_matches_nothing():
    m = PathMatcher(("{a,b,c,d,e,f,g,h,i,j}{a,b,c,d,e,f,g,h,i,j}{a,b,c,d,e,f,g,h,i,j}{a,b}.md", "ok.md"))
    assert [p.code for p in m.problems] == ["rule-pattern-limit"]
    assert m.match("ok.md") and not m.match("aaa.md")


def test_split_and_normalise():
    items, problems = split_paths("src/**/*.ts, *.{js,jsx}\nlib/*.py,,")
    assert normalise(items) == ("src/**/*.ts", "*.{js,jsx}", "lib/*.py")
    items, problems = split_paths(["./a/*.py", 3, "a/*.py", "  "])
    assert normalise(items) == ("a/*.py",) and problems == ["non-string paths item 3 ignored"]
    assert normalise(["**", " ** "]) == ()
    with pytest.raises(TypeError):
        split_paths({"a": 1})


def test_nested_rules_folder_matches_relative_to_its_own_folder(rules_ws):
    ws = rules_ws({
        "pkg/web/.claude/rules/deep/components.md": "---\npaths:\n  - \"components/**/*.tsx\"\n---\nuse hooks\n",
        "pkg/web/components/Button.tsx": "",
    })
    cat = ws.catalog("rules")
    rule = cat.rules()[0]
    assert rule.scope_dir == "pkg/web" and rule.conditional
    root = ws.binding.source_root
    hit = cat.contextual_rules(root, [root / "pkg/web/components/Button.tsx"])
    assert [r.path for r in hit.files] == ["pkg/web/.claude/rules/deep/components.md"]
    assert not cat.contextual_rules(root, [root / "components/Button.tsx"]).files
    assert not cat.contextual_rules(root, [root / "pkg/components/Button.tsx"]).files


def test_brace_patterns_and_invalid_pattern_in_a_rule(rules_ws):
    ws = rules_ws({".claude/rules/ts.md": "---\npaths: \"src/*.{ts,tsx}, src/[bad.ts\"\n---\nTS rule\n"})
    cat = ws.catalog("rules")
    root = ws.binding.source_root
    assert cat.rules()[0].patterns == ("src/*.{ts,tsx}", "src/[bad.ts")
    assert len(cat.contextual_rules(root, [root / "src/a.tsx"]).files) == 1
    assert not cat.contextual_rules(root, [root / "src/a.js"]).files
    diag = [d for d in cat.diagnostics if d.code == "rule-pattern-invalid"]
    assert diag and diag[0].line == 2 and "src/[bad.ts" in diag[0].message


def test_user_conditional_rule_matches_relative_to_project_root(rules_ws):
    ws = rules_ws({}, home_files={".claude/rules/py.md": "---\npaths: [\"tools/*.py\"]\n---\npython\n"})
    cat = ws.catalog("rules")
    root = ws.binding.source_root
    assert len(cat.contextual_rules(root, [root / "tools/x.py"]).files) == 1
    assert not cat.contextual_rules(root, [root / "a/tools/x.py"]).files


def test_paths_of_wrong_type_make_the_rule_invalid(rules_ws):
    cat = rules_ws({".claude/rules/bad.md": "---\npaths: {a: 1}\n---\nbody\n"}).catalog("rules")
    assert len(cat) == 0
    assert [d.code for d in cat.diagnostics] == ["rule-paths-invalid"]


def test_pattern_limit_diagnostic_says_it_matches_nothing_once(tmp_path):
    """The diagnostic says 'it matches nothing' once, not 'it matches nothing; it matches nothing'."""
    from wskit.builtin_plugins.rules.discovery import load_rule_file
    from wskit.builtin_plugins.rules.model import RuleSettings
    from wskit.testing import write_tree

    over = "{a,b,c,d,e,f,g,h,i,j}{a,b,c,d,e,f,g,h,i,j}{a,b,c,d,e,f,g,h,i,j}{a,b}.md"
    write_tree(tmp_path, {".claude/rules/r.md": f"---\npaths: ['{over}', 'ok.md']\n---\nbody\n"})
    rule, diags = load_rule_file(str(tmp_path), ".claude/rules/r.md", source="project", scope_dir="",
                                 priority=70, file_kind="rule", follow_links=False, settings=RuleSettings())
    assert rule is not None and rule.patterns
    [d] = [d for d in diags if d.code == "rule-pattern-limit"]
    assert d.message.count("it matches nothing") == 1, d.message
