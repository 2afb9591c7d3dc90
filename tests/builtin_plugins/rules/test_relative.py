"""RuleCatalog.relative: the lexical fast path equals the normpath answer."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from wskit.builtin_plugins.rules.catalog import RuleCatalog

ROOT = "/nonexistent-wskit-root/proj"


def _reference(path: str) -> str | None:
    p = os.path.normpath(os.path.join(ROOT, path))
    if p == ROOT:
        return ""
    return p[len(ROOT) + 1:] if p.startswith(ROOT + "/") else None


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab./", max_size=14))
def test_relative_equals_normpath(tail):
    cat = RuleCatalog.empty(ROOT)
    for path in (ROOT + "/" + tail, tail):
        want = _reference(path)
        if want is None:
            continue  # outside: the realpath fallback decides (nothing exists here)
        assert cat.relative(path) == want


def test_examples():
    cat = RuleCatalog.empty(ROOT)
    assert cat.relative(ROOT + "/a/b.py") == "a/b.py"
    assert cat.relative(ROOT + "/a/./b/../c") == "a/c"
    assert cat.relative(ROOT + "/") == ""
    assert cat.relative("/elsewhere/x") is None
