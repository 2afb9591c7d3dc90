from pathlib import Path

import pytest

from wskit.formats.frontmatter import MAX_DEPTH, parse_frontmatter, read_frontmatter
from wskit.fs import SafeFsError


def test_parses_mapping_and_body():
    fm = parse_frontmatter("---\nname: a\ndescription: b\n---\nbody\n", "f.md")
    assert fm.present and fm.ok and fm.data == {"name": "a", "description": "b"}
    assert fm.body == "body\n"
    assert fm.line_of("description") == 3


def test_no_frontmatter():
    fm = parse_frontmatter("# title\n")
    assert not fm.present and fm.body == "# title\n"


def test_unquoted_colon_is_retried_with_a_warning():
    fm = parse_frontmatter("---\nname: x\ndescription: Use this: when testing\n---\n", "f.md")
    assert fm.ok and fm.data["description"] == "Use this: when testing"
    assert [d.code for d in fm.diagnostics] == ["yaml-quoted-retry"]
    assert fm.diagnostics[0].level == "warning"


def test_unparseable_yaml_gives_error_with_file_line():
    # an unclosed '[' is quoted by the retry (Claude Code's); an unclosed quote is not
    fm = parse_frontmatter("---\nname: x\ndescription: [unclosed\n---\n", "f.md")
    assert fm.ok and fm.data["description"] == "[unclosed"
    assert [(d.code, d.level) for d in fm.diagnostics] == [("yaml-quoted-retry", "warning")]
    fm = parse_frontmatter('---\nname: x\ndescription: "unclosed\n---\n', "f.md")
    assert not fm.ok
    (d,) = fm.diagnostics
    assert d.code == "yaml-error" and d.path == "f.md" and d.line is not None and d.line >= 3


def test_aliases_and_deep_nesting_are_refused():
    # top-level values: refused, then quoted by the retry and read as text (nothing expanded)
    bomb = "---\na: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n---\n"
    fm = parse_frontmatter(bomb, "f.md")
    assert fm.ok and fm.data == {"a": "&a [x, x]", "b": "&b [*a, *a]", "c": "[*b, *b]"}
    assert [d.code for d in fm.diagnostics] == ["yaml-quoted-retry"]
    deep = "---\nk: " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "\n---\n"
    fm = parse_frontmatter(deep, "f.md")
    assert fm.ok and fm.data["k"] == "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)
    # below a top-level key the retry quotes nothing: still refused
    fm = parse_frontmatter("---\nl:\n  - &a [x, x]\n  - [*a, *a]\n---\n", "f.md")
    assert not fm.ok and fm.diagnostics[0].code == "yaml-refused"
    fm = parse_frontmatter("---\nl:\n  - " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "\n---\n", "f.md")
    assert not fm.ok and fm.diagnostics[0].code == "yaml-refused"


def test_non_mapping_and_unterminated():
    assert parse_frontmatter("---\n- a\n---\n").diagnostics[0].code == "frontmatter-not-mapping"
    assert parse_frontmatter("---\nname: a\n").diagnostics[0].code == "frontmatter-unterminated"


def test_read_frontmatter_reads_only_the_head(tmp_path: Path):
    body = "x" * 200_000
    (tmp_path / "SKILL.md").write_text(f"---\nname: a\ndescription: b\n---\n{body}")
    fm, res = read_frontmatter(tmp_path, "SKILL.md")
    assert fm.data["name"] == "a" and fm.body == ""
    assert len(res.raw) < 10_000 and res.size > 200_000
    assert res.raw.endswith(b"---\n")


def test_read_frontmatter_bom_crlf(tmp_path: Path):
    (tmp_path / "S.md").write_bytes(b"\xef\xbb\xbf---\r\nname: a\r\ndescription: b: c\r\n---\r\nbody")
    fm, _ = read_frontmatter(tmp_path, "S.md")
    assert fm.ok and fm.data == {"name": "a", "description": "b: c"}


def test_read_frontmatter_unclosed_within_limit(tmp_path: Path):
    (tmp_path / "S.md").write_text("---\nname: a\n" + "k: v\n" * 20_000)
    with pytest.raises(SafeFsError) as info:
        read_frontmatter(tmp_path, "S.md", max_bytes=8192)
    assert info.value.code == "frontmatter-too-large"


def test_claude_code_style_argument_hint_loads_with_a_warning():
    fm = parse_frontmatter("---\ndescription: Review a PR\nargument-hint: [pr-number] [priority] [assignee]\n---\n", "c.md")
    assert fm.ok and fm.data["argument-hint"] == "[pr-number] [priority] [assignee]"
    assert [d.code for d in fm.diagnostics] == ["yaml-quoted-retry"]
    ok = parse_frontmatter("---\nargument-hint: [pr-number]\n---\n")
    assert ok.data["argument-hint"] == ["pr-number"] and not ok.diagnostics  # valid YAML is left alone
