"""contextual_rules (index by scope, inlined pre-filters) agrees with a brute-force scan."""

from __future__ import annotations


def _rule(pattern: str, text: str) -> str:
    return f"---\npaths:\n  - \"{pattern}\"\n---\n{text}\n"


def test_contextual_rules_equal_brute_force(rules_ws):
    ws = rules_ws({
        "AGENTS.md": "root", "a/AGENTS.md": "a", "a/b/CLAUDE.md": "ab",
        ".claude/rules/py.md": _rule("**/*.py", "py"), ".claude/rules/src.md": _rule("src/**", "src"),
        "a/.claude/rules/md.md": _rule("*.md", "md in a"), "a/.claude/rules/b.md": _rule("b", "folder b"),
        "a/b/.claude/rules/two.md": _rule("{x,y}/**/*.ts", "ts"),
    })
    cat = ws.catalog("rules")
    root = ws.binding.source_root
    targets = ["a", "a/b", "a/x.md", "a/b/x/q.ts", "a/b/y/z/q.ts", "src/m.py", "src", "a/b/c.py",
               "x.md", "a/b/", "a/./b/x/q.ts", "deep/er/src/k.py"]
    for t in targets:
        got = {r.id for r in cat.contextual_rules(root, [f"{root}/{t}"]).files}
        rel = cat.relative(f"{root}/{t}")
        want = {r.id for r in cat.rules() if cat.applies(r, rel)
                and not (not r.conditional and (r.source == "user" or r.scope_dir == ""))}
        assert got == want, t
    assert {r.path for r in cat.contextual_rules(root, [f"{root}/a/b"]).files} >= {"a/.claude/rules/b.md"}
