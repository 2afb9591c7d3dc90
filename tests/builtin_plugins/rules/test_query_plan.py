"""One-target ``contextual_rules`` through the per-folder plan cache answers
exactly as the scope walk (the multi-target path) and a brute-force scan: cold and warm,
for any cwd, loaded set, budget and target spelling, and the cache stays bounded."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wskit.builtin_plugins.rules import plans as plans_mod
from wskit.builtin_plugins.rules.catalog import RuleCatalog, apply_budget
from wskit.builtin_plugins.rules.model import RuleFile, RuleSelection, rule_digest, rule_id
from wskit.builtin_plugins.rules.patterns import compiled, reference_match
from wskit.builtin_plugins.rules.plans import BY_SUFFIX, _decided_by_suffix
from wskit.builtin_plugins.rules.plans import selection as _selection
from wskit.models import Provenance, Scope

ROOT = "/nonexistent-wskit-root/proj"
FOLDERS = ["", "a", "b", "a/b", "a/src", "src", "a/b/c", "src/x", "a/.claude", "x.py"]
PATTERNS = [("**/*.py",), ("*.md",), ("src*/**",), ("src/**/*.ts",), ("b",), ("**",), ("*.{py,md}",),
            ("c/*.py", "**/*.md"), ("a*/b*/*.py",), ("x.py",), ("**/.claude/*",), ("[ab]/**",), ("**/*.d.ts",),
            ("**/*md",), ("**/*.{md,ts}",), ("**/*.py", "[bad")]
NAMES = ["", "a", "b", "c", "src", "x.py", "y.md", "z.ts", ".claude", "srcx", "q", "q.d.ts", ".md", "md"]


def _rule(source: str, scope: str, name: str, pats: tuple[str, ...], size: int) -> RuleFile:
    rel = f"{scope}/{name}" if scope else name
    body = "x" * size
    return RuleFile(id=rule_id(source, rel), name=rel, source=source, scope_dir=scope, priority=70 if pats else 30,
                    patterns=pats, body=body, bytes=size,
                    provenance=Provenance(scope=Scope.USER if source == "user" else Scope.PROJECT,
                                          source_root="/home" if source == "user" else ROOT, path=rel,
                                          sha256=rule_digest(rel, pats, body)))


@st.composite
def catalogs(draw) -> list[RuleFile]:
    rules = {}
    for i in range(draw(st.integers(0, 14))):
        user = draw(st.booleans()) and i % 3 == 0
        scope = "" if user else draw(st.sampled_from(FOLDERS))
        pats = draw(st.sampled_from([(), *PATTERNS]))
        name = f".claude/rules/r{i}.md" if pats else f"AGENTS{i}.md"
        r = _rule("user" if user else "project", scope, name, pats, draw(st.integers(1, 50)))
        rules[r.id] = r
    return list(rules.values())


@st.composite
def targets(draw, scopes: list[str]) -> str | Path:
    shape = draw(st.sampled_from(["folder", "in-folder", "any"]))  # a scope folder itself, a file in one, any
    if shape == "any":
        tail = "/".join(draw(st.lists(st.sampled_from(NAMES), max_size=5)))
    else:
        folder = draw(st.sampled_from(scopes or FOLDERS) if draw(st.booleans()) else st.sampled_from(FOLDERS))
        tail = folder if shape == "folder" else f"{folder}/{draw(st.sampled_from(NAMES))}".lstrip("/")
    spelling = draw(st.sampled_from(["abs", "abs", "abs", "rel", "path", "dot", "slash"]))
    if spelling == "rel":
        return tail
    if spelling == "path":
        return Path(ROOT, tail)
    if spelling == "dot":
        return f"{ROOT}/./{tail}/../{tail}"
    if spelling == "slash":
        return f"{ROOT}//{tail}/"
    return f"{ROOT}/{tail}" if tail else ROOT


def reference(cat: RuleCatalog, cwd_rel: str, rel: str, loaded: set[str]) -> list[str]:
    """Every rule of the catalog asked directly (no index, no plan)."""
    out = []
    for r in cat.rules():
        scope = "" if r.source == "user" else r.scope_dir
        if r.id in loaded or not rel or not (scope == "" or rel == scope or rel.startswith(scope + "/")):
            continue
        if r.patterns:
            sub = rel[len(scope) + 1:] if scope else rel
            if any(reference_match(sub, p) for p in r.patterns):
                out.append(r.id)
        elif not (r.source == "user" or scope == "" or cwd_rel == scope or cwd_rel.startswith(scope + "/")):
            out.append(r.id)
    return out


@settings(max_examples=300, deadline=None)
@given(rules=catalogs(), data=st.data())
def test_plan_equals_scope_walk_and_brute_force(rules, data):
    cat = RuleCatalog(ROOT, rules)
    ids = [r.id for r in rules]
    scopes = sorted({r.scope_dir for r in rules if r.scope_dir})
    cwd = data.draw(st.sampled_from(scopes) if scopes and data.draw(st.booleans()) else st.sampled_from(FOLDERS))
    cwd_arg = ROOT if cwd == "" and data.draw(st.booleans()) else f"{ROOT}/{cwd}".rstrip("/")
    queries = data.draw(st.lists(st.tuples(targets(scopes), st.sets(st.sampled_from(ids)) if ids else st.just(set()),
                                           st.one_of(st.none(), st.integers(0, 120))), min_size=1, max_size=6))
    first = []
    for target, loaded, budget in queries:  # cold for the first query of each folder, warm after
        got = cat.contextual_rules(cwd_arg, [target], loaded, budget)
        walk = cat.contextual_rules(cwd_arg, [target, target], loaded, budget)  # the scope walk, no plan
        assert got == walk
        assert type(got) is RuleSelection and repr(got) == repr(walk) and hash(got) == hash(walk)
        rel = cat.relative(target)
        want = reference(cat, cwd, rel or "", loaded)
        kept, skipped = apply_budget([cat.get(i) for i in want], budget)
        assert list(got.ids) == [r.id for r in kept]
        assert [s.rule.id for s in got.skipped] == [s.rule.id for s in skipped]
        first.append(got)
    for (target, loaded, budget), before in zip(queries, first):  # every plan warm now
        assert cat.contextual_rules(cwd_arg, [target], loaded, budget) == before


def test_plan_is_per_cwd_and_folder():
    rules = [_rule("project", "a", "AGENTS.md", (), 3), _rule("project", "a", ".claude/rules/p.md", ("**/*.py",), 2),
             _rule("project", "", ".claude/rules/r.md", ("a/b/*.md",), 2)]
    cat = RuleCatalog(ROOT, rules)
    in_root = cat.contextual_rules(ROOT, [f"{ROOT}/a/b/x.py"])
    in_a = cat.contextual_rules(f"{ROOT}/a", [f"{ROOT}/a/b/x.py"])
    assert [r.path for r in in_root.files] == ["a/AGENTS.md", "a/.claude/rules/p.md"]
    assert [r.path for r in in_a.files] == ["a/.claude/rules/p.md"]  # a/AGENTS.md is static in a
    assert [r.path for r in cat.contextual_rules(ROOT, [f"{ROOT}/a/b/x.md"]).files] == [
        ".claude/rules/r.md", "a/AGENTS.md"]  # definition order: the root's rule first
    assert set(cat._plans) == {"a/b", ("a", "a/b")}
    # the root-level rule's prefix "a/b" lies inside folder "a/c": decided once, left out of that plan
    cat.contextual_rules(ROOT, [f"{ROOT}/a/c/x.md"])
    assert [e[1].path for e in cat._plans["a/c"][2]] == ["a/AGENTS.md", "a/.claude/rules/p.md"]


def test_plan_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(plans_mod, "PLANS_MAX", 8)
    rules = [_rule("project", "", ".claude/rules/r.md", ("**/*.py",), 2), _rule("project", "d3", "AGENTS.md", (), 2)]
    cat = RuleCatalog(ROOT, rules)
    for i in range(50):
        sel = cat.contextual_rules(ROOT, [f"{ROOT}/d{i % 10}/e{i}/f.py"])
        assert len(cat._plans) <= 8
        assert [r.path for r in sel.files] == ([".claude/rules/r.md", "d3/AGENTS.md"] if i % 10 == 3
                                               else [".claude/rules/r.md"])
    assert "d9/e49" in cat._plans and "d0/e0" not in cat._plans  # the oldest went first


@pytest.mark.parametrize("files,skipped,trig,budget", [((), (), (), None), (("f",), ("s",), ("a/b.py",), 10)])
def test_selection_shortcut_equals_the_constructor(files, skipped, trig, budget):
    fast = _selection(files, skipped, trig, budget)
    slow = RuleSelection("contextual", files, skipped, trig, budget)
    assert type(fast) is RuleSelection and fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    names = ("kind", "files", "skipped", "trigger_paths", "budget", "diagnostics")
    assert [getattr(fast, n) for n in names] == [getattr(slow, n) for n in names]


def test_catalog_at_the_file_system_root():
    # normpath keeps a leading "//": with root "/", "//a" is "/a" relative to it, which the
    # scope walk tests as "/a" and "a" under the root scope; the plan path must not differ
    cat = RuleCatalog("/", [_rule("project", "", ".claude/rules/r.md", ("a",), 2),
                            _rule("project", "x", ".claude/rules/s.md", ("*.py",), 2)])
    for target in ("//a", "/a", "/x/m.py", "//x/m.py", "/x/y/m.py"):
        assert cat.contextual_rules("/", [target]) == cat.contextual_rules("/", [target, target]), target
    assert cat.contextual_rules("/", ["//a"]).files == cat.contextual_rules("/", ["/a"]).files != ()


segments = st.text(alphabet="ab.-_ \u00e9\nM*", min_size=1, max_size=6).filter(lambda s: s not in (".", ".."))


@settings(max_examples=1000, deadline=None)
@given(st.lists(segments, min_size=1, max_size=5).map("/".join),
       st.text(alphabet="ab.-_ \u00e9\nM$^~%#/*{}[]?!\\", min_size=1, max_size=4))
def test_any_file_ending_pattern_is_decided_by_the_suffix(path, literal):
    # on a normalised path (no empty, "." or ".." segment, no trailing "/"), as the plan's targets are
    pattern = "**/*" + literal
    m = compiled((pattern,))
    if "\n" in path:  # queries never take a plan for such a path (see contextual_rules)
        return
    if _decided_by_suffix(m, literal):
        assert reference_match(path, pattern) == m.match(path) == path.endswith(literal), (path, pattern)
    else:
        assert any(c in literal for c in "*?[]{}\\!/") or not m.patterns


def test_plan_entries_use_the_suffix_only_for_one_any_file_ending_pattern():
    rules = [_rule("project", "", ".claude/rules/a.md", ("**/*.md",), 2),
             _rule("project", "", ".claude/rules/b.md", ("**/*.md", "x/*"), 2),
             _rule("project", "", ".claude/rules/c.md", ("**/*.{md,ts}",), 2),
             _rule("project", "", ".claude/rules/d.md", ("src/**/*.md",), 2)]
    cat = RuleCatalog(ROOT, rules)
    cat.contextual_rules(ROOT, [f"{ROOT}/src/q.md"])
    kinds = {e[1].path: e[2] is BY_SUFFIX for e in cat._plans["src"][2]}
    assert kinds == {".claude/rules/a.md": True, ".claude/rules/b.md": False, ".claude/rules/c.md": False,
                     ".claude/rules/d.md": False}


def test_a_target_with_a_line_feed_is_asked_of_wcmatch():
    # wcmatch reads ".\n" as "." (its "$" matches before a final line feed): the plan's
    # suffix shortcut would say yes, so such a target takes the scope walk
    cat = RuleCatalog("/w", [_rule("project", "", ".claude/rules/r.md", ("**/*\n",), 2)])
    assert cat.contextual_rules("/w", ["/w/a/.\n"]) == cat.contextual_rules("/w", ["/w/a/.\n", "/w/a/.\n"])


def test_rule_digest_is_the_json_documents_digest():
    """rule_digest puts the JSON text together itself: the same text as json.dumps with
    sorted keys, compact separators and ensure_ascii=False, on awkward strings too."""
    import hashlib
    import json
    import random

    from wskit.builtin_plugins.rules.model import rule_digest

    rng = random.Random(3)
    alphabet = ['"', "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "é", "\u2028", "\u202e", "😀", "/", "a", " ", "{", "]"]
    for _ in range(300):
        def s(n):
            return "".join(rng.choice(alphabet) for _ in range(rng.randrange(n)))
        rel, body = s(20), s(200)
        patterns = tuple(s(10) for _ in range(rng.randrange(4)))
        doc = json.dumps({"content": body, "path": rel, "patterns": list(patterns)},
                         sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert rule_digest(rel, patterns, body) == hashlib.sha256(doc.encode("utf-8")).hexdigest()
