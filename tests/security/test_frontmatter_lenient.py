"""The lenient frontmatter reading (Claude Code's retry, repeated keys) evaluates nothing
and stays bounded: aliases, tags and deep nesting in what the retry looks at are
refused or read as text, never expanded or constructed."""

from __future__ import annotations

from wskit.formats.frontmatter import MAX_DEPTH, parse_frontmatter


def test_an_alias_bomb_in_a_flow_list_is_read_as_text(tmp_path):
    bomb = "[&a [x, x, x, x, x, x, x, x, x], &b [*a, *a, *a, *a, *a, *a, *a, *a, *a], " \
           "&c [*b, *b, *b, *b, *b, *b, *b, *b, *b], [*c, *c, *c, *c, *c, *c, *c, *c, *c]]"
    fm = parse_frontmatter(f"---\nname: x\nbomb: {bomb}\nother:\n\t- y\n---\n", "f.md")
    assert fm.ok and fm.data["bomb"] == bomb  # the retry's list test refuses the aliases: quoted
    assert [d.code for d in fm.diagnostics] == ["yaml-quoted-retry"]


def test_a_python_tag_is_never_constructed(tmp_path):
    marker = tmp_path / "ran"
    value = f'!!python/object/apply:os.system ["touch {marker}"]'
    fm = parse_frontmatter(f"---\nname: x\ndescription: {value}\n---\n", "f.md")
    assert not marker.exists()
    assert fm.ok and fm.data["description"] == value


def test_deep_flow_nesting_in_a_value_stays_bounded():
    deep = "[" * 20_000 + "]" * 20_000
    fm = parse_frontmatter(f"---\nk: {deep}\n---\n", "f.md")
    assert fm.ok and fm.data["k"] == deep
    fm = parse_frontmatter(f"---\nl:\n  - {'[' * (MAX_DEPTH + 2)}{']' * (MAX_DEPTH + 2)}\n---\n", "f.md")
    assert not fm.ok and fm.diagnostics[0].code == "yaml-refused"


def test_a_repeated_key_bomb_keeps_one_value():
    block = "".join(f"description: v{i}\n" for i in range(5000))
    fm = parse_frontmatter(f"---\n{block}---\n", "f.md")
    assert fm.ok and fm.data == {"description": "v4999"}
    assert [d.code for d in fm.diagnostics] == ["yaml-duplicate-key"]
