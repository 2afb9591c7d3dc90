"""Parsers against inputs built to make them slow or crash (hang guards, not speed asserts)."""

from __future__ import annotations

import pytest

from tests.security.harness import bounded, bounded_process
from wskit.formats.frontmatter import parse_frontmatter
from wskit.fs import jsonsafe


def test_colon_retry_is_linear_on_a_line_of_blanks():
    """The ': ' quoting retry used a regex that backtracked quadratically on a
    long run of blanks (400,000 blanks: minutes). Bound: 20 s; takes < 1 s."""
    text = "---\na:" + " " * 400_000 + "x\nb: c: d\n---\n"

    def check() -> None:  # in a child: a regex holds the GIL, a thread guard cannot fire
        fm = parse_frontmatter(text, "f.md")
        assert fm.ok and fm.data["b"] == "c: d"
        assert [d.code for d in fm.diagnostics] == ["yaml-quoted-retry"]

    bounded_process(check, 20)


@pytest.mark.parametrize(
    "block",
    [
        "a: " + "1" * 5000,  # int over Python's 4300-digit conversion limit
        "a: 2001-13-45",  # a timestamp that does not exist
        "a: !!python/object/apply:os.system ['true']",
        "a: !!binary '%%%'",
        "? " + "[" * 40 + "]" * 40 + "\n: x",
        "a: &x 1\nb: *x",
        "<<: {a: 1}\n<<: {b: 2}",
        "k:\n" + "".join(f"  k{i}: {i}\n" for i in range(20_000)) + "  k0: again",  # repeated last of 20,000
        "k: [" + "{a: 1, a: 2}, " * 5_000 + "]",
    ],
)
def test_yaml_oddities_end_in_a_diagnostic(block):
    fm = bounded(lambda: parse_frontmatter(f"---\n{block}\n---\n", "f.md"), 20)
    assert isinstance(fm.data, dict)
    if not fm.ok:
        assert fm.diagnostics[0].code in {"yaml-error", "yaml-refused", "yaml-duplicate-key", "frontmatter-not-mapping"}
        assert fm.diagnostics[0].path == "f.md"


def test_json_of_many_quotes_and_backslashes_stays_linear():
    text = '["' + "\\\\" * 200_000 + '", ' + '"a", ' * 100_000 + '"z"]'
    assert len(bounded(lambda: jsonsafe.loads(text), 20)) == 100_002


def test_find_hidden_chars_lines_and_linear_time():
    from wskit.fs import find_hidden_chars

    assert list(find_hidden_chars("a\u200b\nb\n\u202ec\u200b")) == [(1, "U+200B"), (3, "U+202E"), (3, "U+200B")]
    text = ("\u200b" * 20 + "\n") * 10_000  # 200,000 hidden characters

    def check() -> None:
        found = list(find_hidden_chars(text))
        assert len(found) == 200_000 and found[-1][0] == 10_000

    bounded_process(check, 30)


@pytest.mark.parametrize("libyaml", [True, False])
@pytest.mark.parametrize(
    ("block", "code"),
    [
        # a top-level value the loader refuses is read as text by Claude Code's quoting retry
        ("x: " + "[" * 20_000 + "]" * 20_000, "yaml-quoted-retry"),
        ("x: " + "[" * 40 + "]" * 40, "yaml-quoted-retry"),
        ("a: &a [1]\nb: *a", "yaml-quoted-retry"),
        # below the top level the retry quotes nothing: refused
        ("x:\n  - " + "[" * 20_000 + "]" * 20_000, "yaml-refused"),
        ("x:\n  - " + "[" * 40 + "]" * 40, "yaml-refused"),
        ("a:\n  - &a [1]\n  - *a", "yaml-refused"),
        ("a: b: c", "yaml-quoted-retry"),
        ("a:\n  x: 1\n  x: 2", "yaml-duplicate-key"),
        ("k: {a: 1, a: 2}", "yaml-duplicate-key"),
    ],
)
def test_frontmatter_codes_do_not_depend_on_libyaml(block, code, libyaml, monkeypatch):
    from wskit.formats import frontmatter as markdown
    from wskit.formats import yaml as yamlsafe

    if libyaml and yamlsafe._CSAFE is None:  # noqa: SLF001
        pytest.skip("PyYAML built without libyaml")
    if not libyaml:
        monkeypatch.setattr(yamlsafe, "_CSAFE", None)
    fm = markdown.parse_frontmatter(f"---\n{block}\n---\n", "f.md")
    assert [d.code for d in fm.diagnostics] == [code]
