"""wskit.builtin_plugins.rules.scopewalk.walk_scopes (the scope walk of contextual queries with several
targets, or a target that is a scope folder) agrees with a brute-force scan over the
catalog, for several cwds and loaded sets; contextual_rules of several targets is it."""

from __future__ import annotations

import itertools

from wskit.builtin_plugins.rules.scopes import is_ancestor
from wskit.builtin_plugins.rules.scopewalk import walk_scopes


def _rule(pattern: str, text: str) -> str:
    return f"---\npaths:\n  - \"{pattern}\"\n---\n{text}\n"


_FILES = {
    "AGENTS.md": "root", "a/AGENTS.md": "a", "a/b/CLAUDE.md": "ab",
    ".claude/rules/py.md": _rule("**/*.py", "py"), ".claude/rules/src.md": _rule("src/**", "src"),
    "a/.claude/rules/md.md": _rule("*.md", "md in a"), "a/.claude/rules/b.md": _rule("b", "folder b"),
    "a/b/.claude/rules/two.md": _rule("{x,y}/**/*.ts", "ts"),
}
_HOME = {".claude/CLAUDE.md": "user", ".claude/rules/any-md.md": _rule("**/*.md", "user md")}
_TARGETS = ["a", "a/b", "a/x.md", "a/b/x/q.ts", "a/b/y/z/q.ts", "src/m.py", "src", "a/b/c.py", "x.md",
            "deep/er/src/k.py"]


def _brute(cat, rels, cwd_rel, loaded):
    out = set()
    for rel in rels:
        for r in cat.rules():
            static = not r.conditional and (r.source == "user" or is_ancestor(r.scope_dir, cwd_rel))
            if r.id not in loaded and not static and cat.applies(r, rel):
                out.add(r.id)
    return out


def test_walk_scopes_equals_brute_force(rules_ws):
    cat = rules_ws(_FILES, home_files=_HOME).catalog("rules").complete()  # the whole catalog's index
    ids = [r.id for r in cat.rules()]
    assert any(r.source == "user" and r.conditional for r in cat.rules())
    for cwd_rel, loaded in itertools.product(["", "a", "a/b", "src"], [frozenset(), frozenset(ids[::3])]):
        for n in (1, 2, 3):
            for rels in itertools.combinations(_TARGETS, n):
                got = walk_scopes(cat._query_user, cat._query_scopes, rels, cwd_rel, loaded)
                assert set(got) == _brute(cat, rels, cwd_rel, loaded), (cwd_rel, rels)
                assert all(got[i] is cat.get(i) for i in got)


def test_contextual_rules_of_several_targets_is_the_walk_in_definition_order(rules_ws):
    ws = rules_ws(_FILES, home_files=_HOME)
    cat, root = ws.catalog("rules"), ws.binding.source_root
    sel = cat.contextual_rules(root, [f"{root}/a/x.md", f"{root}/src/m.py", f"{root}/a/b/y/z/q.ts"])
    whole = cat.complete()
    want = walk_scopes(whole._query_user, whole._query_scopes, ("a/b/y/z/q.ts", "a/x.md", "src/m.py"), "", frozenset())
    assert [r.id for r in sel.files] == [r.id for r in cat.order(want.values())]
    assert sel.trigger_paths == ("a/b/y/z/q.ts", "a/x.md", "src/m.py") and len(sel.files) >= 4
