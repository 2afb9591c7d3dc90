"""The walk's .gitignore pre-filter answers exactly as pathspec's check_file."""

from __future__ import annotations

import pathspec
from hypothesis import given, settings
from hypothesis import strategies as st

from wskit.builtin_plugins.rules.gitignore import GitIgnore

LINE = st.sampled_from([
    "node_modules/", "*.pyc", "build", "/dist", "!keep/", "a/**/b", "**/tmp", "x?", "[ab]c/", "!*.md", "docs/*.txt",
    "# comment", "", "\\#hash", "sub/", "!sub/keep", "*", "!a",
    "[!a]c", "[a-c]*/", "[]a]", "node_*", "*/x1", "/a/b/", "**", "b/**", "x1 ", "a\\ b", "!/keep/tmp", "d*cs/t.txt",
])
PATH = st.lists(st.sampled_from(["a", "b", "ac", "bc", "x1", "node_modules", "build", "dist", "keep", "tmp", "sub",
                                 "docs", "f.pyc", "r.md", "t.txt", "]a", "a b", "x1 "]), min_size=1, max_size=4)


@settings(max_examples=1500, deadline=None)
@given(st.lists(LINE, max_size=6), PATH, st.booleans())
def test_check_equals_check_file(lines, parts, is_dir):
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    path = "/".join(parts) + ("/" if is_dir else "")
    res = spec.check_file(path)
    want = None if res.include is None else bool(res.include)
    assert GitIgnore(spec).check(path) == want


def test_prefilter_skips_pathspec_when_nothing_matches():
    ig = GitIgnore(pathspec.GitIgnoreSpec.from_lines(["node_modules/", "*.pyc"]))
    assert ig.check("src/lib/") is None
    assert ig.check("node_modules/") is True
    assert ig.check("a/b/c.pyc") is True


def test_literal_prefilter_is_used_for_plain_patterns_and_refused_for_escapes():
    ig = GitIgnore(pathspec.GitIgnoreSpec.from_lines(["node_modules/", "*.pyc", "/dist", "a/**/build", "[ab]c/"]))
    assert ig._literals == ("node_modules", ".pyc", "dist", "build", "c")
    assert ig.check("src/lib/") is None and ig.check("x/ac/") is True
    # an escape, a trailing blank or a pattern with no literal part turns the literal filter off
    for lines in (["\\#hash"], ["x1 "], ["*"], ["a/*", "?"]):
        assert GitIgnore(pathspec.GitIgnoreSpec.from_lines(lines))._literals is None, lines
    # only comments and patterns pathspec refuses ("[a" is not a pattern): nothing can match
    assert GitIgnore(pathspec.GitIgnoreSpec.from_lines(["# c", "[a"])).check("a/") is None
