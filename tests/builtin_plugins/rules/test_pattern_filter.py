"""The literal pre-filter of PathMatcher never refuses a path the glob matches."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from wskit.builtin_plugins.rules.patterns import PathMatcher, check_pattern, literal_filter, reference_match

PATTERN = st.text(alphabet="ab./*?[]{},\\!-", min_size=1, max_size=12)
PATH = st.text(alphabet="ab./", min_size=1, max_size=12)


@settings(max_examples=600, deadline=None)
@given(PATTERN, PATH)
def test_filter_is_a_necessary_condition(pattern, path):
    if check_pattern(pattern) is not None:
        return
    pre, suf = literal_filter(pattern)
    if reference_match(path, pattern):
        assert path.startswith(pre)
        assert path.endswith("/") or path.endswith(suf)


@settings(max_examples=300, deadline=None)
@given(st.lists(PATTERN, min_size=1, max_size=3), PATH)
def test_matcher_agrees_with_the_reference(patterns, path):
    usable = [p for p in patterns if check_pattern(p) is None]
    m = PathMatcher(tuple(patterns))
    assert m.match(path) == any(reference_match(path, p) for p in usable if p in m.patterns)


def test_filter_examples():
    assert literal_filter("src/**/*.py") == ("src", ".py")
    assert literal_filter("lib*/**/*.ts") == ("lib", ".ts")
    assert literal_filter("**") == ("", "")
    assert literal_filter("docs/api.md") == ("docs", "api.md")
    assert literal_filter("a//b*") == ("a", "")  # wcmatch collapses repeated slashes
    assert PathMatcher(("src/**/*.py",)).match("src/x/y.py")
    assert not PathMatcher(("src/**/*.py",)).match("lib/x/y.py")
