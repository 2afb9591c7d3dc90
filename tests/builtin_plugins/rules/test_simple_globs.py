"""simple_translate: the rule globs wskit translates itself match exactly what wcmatch's
translation matches, and everything else is left to wcmatch."""

from __future__ import annotations

import re
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st
from wcmatch import glob as wcglob

from wskit.builtin_plugins.rules.patterns import PathMatcher, simple_translate

FLAGS = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.DOTGLOB | wcglob.CASE
SEGMENT = st.sampled_from([
    "a", "b", "src", "*", "*.py", "a*", "?", "x?y", "?a", "**", "*.{ts,tsx}", "{a,b}", "lib*", "test*", ".a", ".*",
    "*a", "a.b", "{x,y/z}", "~", "a-b", "_", "{a,a}", "{x,y,x}", "{**/**,**}",
    # forms left to wcmatch
    "*a*", "[ab]", "{a}", "{,a}", "{a,{b,c}}", "@(a)", "!a", "a+b", "{1..3}", "a..b", "a\\*", "",
])
PATH_SEGMENT = st.sampled_from(["a", "b", "src", "x.py", "ab", "xzy", ".a", ".", "..", "a.b", "test1", "lib", "",
                                "x\ny", "tsx", "q.ts", "q.tsx", "y", "z", "~", "_", "a\n"])


@settings(max_examples=1500, deadline=None)
@given(st.lists(SEGMENT, min_size=1, max_size=4), st.lists(st.lists(PATH_SEGMENT, min_size=1, max_size=5),
                                                          min_size=1, max_size=8),
       st.sampled_from(["", "/", "//"]))
def test_simple_translate_matches_as_wcmatch(segments, paths, tail):
    pattern = "/".join(segments)
    fast = simple_translate(pattern, 1000)
    if fast is None:
        return
    include, _ = wcglob.translate(pattern, flags=FLAGS, limit=1000)
    assert len(fast) == len(include)  # the same expansions count against the rule's budget
    mine = [re.compile(r) for r in fast]
    theirs = [re.compile(r) for r in include]
    for parts in paths:
        path = "/".join(parts) + tail
        if path:
            assert any(r.match(path) for r in mine) == any(r.match(path) for r in theirs), (pattern, path)


def test_left_to_wcmatch():
    for pattern in ("*a*", "[ab]", "a\\*", "{a}", "{,a}", "{a,{b,c}}", "src/", "a//b", "./a", "a**", "{1..3}"):
        assert simple_translate(pattern, 1000) is None, pattern
    assert simple_translate("{a,b}/{c,d}", 3) is None  # over the budget: wcmatch reports it
    assert simple_translate("src/**/*.{ts,tsx}", 1000) is not None
    # repeats count once against the budget, as wcmatch counts them; the limit sees them all
    assert len(simple_translate("{a,a}" * 9 + ".md", 1000)) == 1
    assert simple_translate("{a,a}" * 10 + ".md", 1000) is None


def test_rules_of_common_globs_load_and_match_without_wcmatch():
    """A matcher of the common forms reports no problem and matches without importing wcmatch."""
    code = (
        "import sys\n"
        "from wskit.builtin_plugins.rules.patterns import PathMatcher\n"
        "m = PathMatcher(('src/**/*.{ts,tsx}', '**/test*/**', '*.md'))\n"
        "print(m.problems, m.match('src/a/b.tsx'), m.match('x/test1/y.py'), m.match('a/b.md'), 'wcmatch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["()", "True", "True", "False", "False"]
    m = PathMatcher(("src/**/*.{ts,tsx}", "*a*"))
    assert m.match("src/x/y.ts") and m.match("zaz") and not m.match("src/x/y.js")
