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
    "*/", "!*/",
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


# -- SimpleGitIgnore: plain patterns answered without pathspec -------------------------

from wskit.builtin_plugins.rules.gitignore import SimpleGitIgnore, simple_gitignore  # noqa: E402

_SEG = st.sampled_from(["a", "b", "node_modules", "dist", "x.y", "a-b", "B", "n_m", "~k", "1", "a+b", "@s", "%",
                        "*", "*.y", "a*", "?", "x?y", "*b*", "?.*", "**", "a**"])
_PLAIN = st.builds(
    lambda lead, segs, trail: ("/" if lead else "") + "/".join(segs) + ("/" if trail else ""),
    st.booleans(), st.lists(_SEG, min_size=1, max_size=3), st.booleans())
_ANY_LINE = st.one_of(_PLAIN, LINE, st.sampled_from(["a//b", "./a", "a/../b", "/", "a\r", " a", "a/.", "..", "#x"]))
_PATH_SEG = st.sampled_from(["a", "b", "node_modules", "dist", "x.y", "a-b", "B", "c", "x\ny", "a\n", "n_m", "1",
                            ".y", "ab", "xzy", "bb", "b.y", "a.b", "q.pyc", "x1"])


@settings(max_examples=3000, deadline=None)
@given(st.lists(_ANY_LINE, max_size=6), st.lists(_PATH_SEG, min_size=1, max_size=5), st.booleans())
def test_simple_gitignore_equals_check_file(lines, parts, is_dir):
    """Whenever simple_gitignore takes a file, it answers every path as pathspec does."""
    literal = simple_gitignore(lines)
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    path = "/".join(parts) + ("/" if is_dir else "")
    res = spec.check_file(path)
    want = None if res.include is None else bool(res.include)
    if literal is not None:
        assert literal.check(path) == want, (lines, path)


def test_simple_gitignore_takes_plain_files_only():
    assert isinstance(simple_gitignore(["node_modules/", "", "/dist", "build", "docs/out/"]), SimpleGitIgnore)
    for bad in (["**/x"], ["a/**"], ["!keep"], ["a b"], ["x "], ["\\#x"], ["a//b"], ["./a"], ["a\r"], ["[ab]"], ["#c"]):
        assert simple_gitignore(bad) is None, bad
    ig = simple_gitignore(["node_modules/", "/dist", "build", "docs/out/"])
    assert ig.check("node_modules/") is True and ig.check("a/node_modules/x.js") is True
    assert ig.check("node_modules") is None  # a file of that name: the pattern is for folders
    assert ig.check("dist/") is True and ig.check("a/dist/") is None  # anchored
    assert ig.check("a/build") is True and ig.check("a/builds") is None
    assert ig.check("docs/out/") is True and ig.check("docs/output/") is None and ig.check("docs/out") is None
    wild = simple_gitignore(["*.pyc", "/a/*/", "x?"])
    assert wild.check("p/q.pyc") is True and wild.check("q.pyc/") is True and wild.check("q.pyco") is None
    assert wild.check("a/b/") is True and wild.check("a/b/c") is True and wild.check("a/b") is None
    assert wild.check("a/") is None and wild.check("z/x1") is True and wild.check("z/x12") is None


def test_project_walk_reads_a_plain_gitignore_without_pathspec(tmp_path):
    """A walk of a tree whose .gitignore has plain patterns only never imports pathspec."""
    import subprocess
    import sys

    (tmp_path / ".gitignore").write_text("node_modules/\n/out\n*.pyc\n")
    (tmp_path / "node_modules" / "p").mkdir(parents=True)
    (tmp_path / "node_modules" / "p" / "AGENTS.md").write_text("dep\n")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "AGENTS.md").write_text("out\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "AGENTS.md").write_text("src\n")
    code = (
        "import sys\n"
        "from wskit.builtin_plugins.rules.projectwalk import project_walk\n"
        "from wskit.builtin_plugins.rules.model import RuleSettings\n"
        "from wskit.host import HostProfile\n"
        f"w = project_walk({str(tmp_path)!r}, HostProfile(name='wskit'), RuleSettings())\n"
        "print(sorted(w.found), 'pathspec' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['src/AGENTS.md'] False"
