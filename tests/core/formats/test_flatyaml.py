"""The flat frontmatter reader builds exactly what the YAML safe loader builds, or declines."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from wskit.formats import frontmatter as markdown
from wskit.formats import yaml as yamlsafe
from wskit.formats.flatyaml import load_flat

LOADER = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader


def _yaml(block: str):
    """(ok, value) of the full loader, without the fast path."""
    try:
        return True, yaml.load(block, Loader=LOADER)  # noqa: S506 - safe loader
    except yaml.YAMLError:
        return False, None


def _pure(block: str):
    loader = yamlsafe.SafeLimitedLoader(block)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


TRICKY_KEYS = ["name", "description", "yes", "no", "null", "true", "On", "y", "n", "_x", "a-b", "k_1",
               "<<", "=", "1", "0x1", "~", "a b", "-a", "?a", "name ", " name", "é", "x" * 130]
TRICKY_VALUES = ["pdf", "Extract text from PDFs", "true", "True", "yes", "off", "null", "Null", "~", "1", "1.0",
                 "-1", "+1", "0x1f", "0o17", "017", "1_000", "1:20", "1e3", ".inf", ".NaN", "2024-01-01",
                 "2024-01-01 10:00:00", "<<", "=", "a: b", "a:", "a #c", "a#c", "http://x.y/z", "[a]", "{a: b}",
                 "a, b", "[a] [b]", "- a", "-a", "?a", ":a", "&a", "*a", "!t x", "|", ">", "'q'", '"q"', "%x", "@x",
                 "`x`", "a\tb", "a ", "é ✓ — x", "a\u2028b", "a\x85b", "a\ufeffb", "a\x07b", "a\rb", "\xa0a",
                 "it's", "a \"q\" b", "a!b&c*d", "y", "n", "...", "---", "a\\b", "ab:", "a:b", "a,b", ". x", ".5"]

key = st.one_of(st.sampled_from(TRICKY_KEYS), st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,12}", fullmatch=True))
value = st.one_of(
    st.sampled_from(TRICKY_VALUES),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12),
    st.text(alphabet="ab -:#[]{},&*!|>'\"%@`?.~01\t", min_size=1, max_size=8),
)
sep = st.sampled_from([": ", ":  ", ":", " : ", ":\t"])
flat_line = st.builds(lambda k, s, v: f"{k}{s}{v}", key, sep, value)
other_line = st.sampled_from(["", "  indented: x", "# comment", "  - item", "list:", "- a", "%YAML 1.1", "...",
                              "key: |", "  block", "k: [a, b]", "k: &a x", "j: *a", "\t", " "])
prose = st.from_regex(r"[A-Za-z\u00e9\u2014][A-Za-z0-9 .,/()'!&*#:\u00e9\u2014-]{0,24}", fullmatch=True)
# block sequences of strings (rule files' `paths:`): heads and items, well- and ill-formed
seq_head = st.sampled_from(["paths:", "paths: ", "globs:", "yes:", "1:", "a b:"])
seq_item = st.builds(lambda ind, v: f"{ind}- {v}", st.sampled_from(["", " ", "  ", "    "]), st.one_of(
    st.sampled_from(['"**/*.md"', '"src/**/*.{ts,tsx}"', "'a b'", "'it''s'", '"a\\"b"', '"a: b"', '"x #y"', '""',
                     "''", '"\t"', '"a\u2028b"', "**/*.md", "src/*.py", "a #c", "a: b", "- x", "true", "1", "~",
                     "[a]", "a  ", '"a" ', "'q'x"]),
    value, prose))
seq_lines = st.builds(lambda h, items: [h, *items], seq_head, st.lists(seq_item, max_size=4))
mixed = st.lists(st.one_of(flat_line, flat_line, flat_line, other_line), min_size=0, max_size=8)
# mostly-accepted blocks: every line `key: value`, values drawn from all of the above
flat_only = st.lists(st.builds(lambda k, v: f"{k}: {v}", key, st.one_of(value, prose, prose)), min_size=1, max_size=8)
good_item = st.one_of(prose.map(lambda v: f'"{v}"'), prose.map(lambda v: f"'{v}'"), prose, st.sampled_from(
    ['"**/*.md"', '"src/**/*.{ts,tsx}"', "'a b'", "src/*.py", "lib/x.py", '""', '"a: b # c"']))
good_seq = st.builds(lambda k, ind, items: [f"{k}:", *(f"{ind}- {i}" for i in items)], key,
                     st.sampled_from(["", "  ", "    "]), st.lists(good_item, min_size=1, max_size=4))
with_seqs = st.lists(st.one_of(flat_line.map(lambda x: [x]), seq_lines, good_seq, good_seq, other_line.map(lambda x: [x])),
                    min_size=1, max_size=5).map(lambda groups: [line for g in groups for line in g])
block = st.one_of(mixed, flat_only, flat_only, with_seqs, with_seqs).map(lambda lines: "\n".join(lines) + "\n")


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(block)
@example("name: pdf\ndescription: Extract text from PDFs\n")
@example("a: x\nb: y\na: z\n")
def test_flat_reader_equals_the_yaml_loader(text: str) -> None:
    got = load_flat(text)
    ok, want = _yaml(text)
    if got is None:
        return
    assert ok, f"fast reader accepted text the YAML loader refuses: {text!r}"
    assert got == want
    assert list(got) == list(want)  # same key order
    assert all(type(v) is str or (type(v) is list and all(type(i) is str for i in v)) for v in got.values())
    assert got == _pure(text)  # and the pure-Python loader agrees


@settings(max_examples=300, deadline=None)
@given(block)
def test_parse_frontmatter_is_unchanged_by_the_fast_path(text: str) -> None:
    doc = f"---\n{text}---\nbody\n"
    fast = markdown.parse_frontmatter(doc, "f.md")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(markdown, "load_flat", lambda _t: None)
        slow = markdown.parse_frontmatter(doc, "f.md")
    assert (fast.present, fast.ok, fast.data, fast.key_lines, fast.block, fast.body) == (
        slow.present, slow.ok, slow.data, slow.key_lines, slow.block, slow.body)
    assert fast.diagnostics == slow.diagnostics


def test_trailing_blanks_are_dropped_as_yaml_drops_them() -> None:
    assert load_flat("a: b c  \nd: e \n") == {"a": "b c", "d": "e"} == yaml.load("a: b c  \nd: e \n", Loader=LOADER)


def test_typical_skill_frontmatter_takes_the_fast_path() -> None:
    text = "name: pdf\nlicense: Apache-2.0\nallowed-tools: Read Grep\ndescription: Extract text, fill forms — fast.\n"
    assert load_flat(text) == {"name": "pdf", "license": "Apache-2.0", "allowed-tools": "Read Grep",
                               "description": "Extract text, fill forms — fast."}


@pytest.mark.parametrize("text", [
    "",  # empty: the loader returns None, not {}
    "a: 1\n", "a: true\n", "a: 2024-01-01\n", "a: ~\n", "yes: x\n",  # not strings
    "a: [b, c]\n", "a: {b: c}\n", "a: &x b\n", "a: *x\n", "a: !!str b\n", "a: |\n  b\n",  # not flat
    "a:\n  b: c\n", "a: b\n  c\n", "a: b: c\n", "a: b # c\n", "description: a: b\n",  # nesting, comments, retry
    "a: b :\n", "a: \u2028b\n", "a:\tb\n", "a: b\t\n",  # colon before trailing blank, line break, tabs
])
def test_declines_what_it_does_not_know(text: str) -> None:
    assert load_flat(text) is None


def test_refusals_and_retry_keep_their_diagnostics() -> None:
    fm = markdown.parse_frontmatter("---\nname: x\ndescription: Use when: a thing\n---\n", "f.md")
    assert fm.ok and fm.data["description"] == "Use when: a thing"
    assert [d.code for d in fm.diagnostics] == ["yaml-quoted-retry"]
    # an alias in a top-level value is quoted by the retry (read as text); one below it stays refused
    fm = markdown.parse_frontmatter("---\nname: x\na: &x [1]\nb: *x\n---\n", "f.md")
    assert fm.ok and fm.data == {"name": "x", "a": "&x [1]", "b": "*x"}
    assert [d.code for d in fm.diagnostics] == ["yaml-quoted-retry"]
    fm = markdown.parse_frontmatter("---\nname: x\nl:\n  - &x [1]\n  - *x\n---\n", "f.md")
    assert not fm.ok and fm.diagnostics[0].code == "yaml-refused"


def test_rule_paths_lists_take_the_fast_path() -> None:
    text = 'paths:\n  - "src/**/*.{ts,tsx}"\n  - \'docs/*.md\'\n  - lib/x.py\ndescription: rule 41\n'
    want = {"paths": ["src/**/*.{ts,tsx}", "docs/*.md", "lib/x.py"], "description": "rule 41"}
    assert load_flat(text) == want == yaml.load(text, Loader=LOADER)
    assert load_flat("paths:\n- a\n") == {"paths": ["a"]}


@pytest.mark.parametrize("text", [
    "paths:\n", "paths:\na: b\n",  # a key without items is null
    "paths:\n  - a\n - b\n", "paths:\n  - a\n    b\n",  # indents differ; a continued item
    "paths:\n  - *x\n", "paths:\n  - 'it''s'\n", 'paths:\n  - "a\\tb"\n', "paths:\n  - a: b\n",  # alias, escapes, mapping
    "a: b\n  - c\n", "- a\n",  # items without a head
])
def test_declines_sequences_it_does_not_know(text: str) -> None:
    assert load_flat(text) is None


# blocks that repeat a key: a flat block with one of its lines written again with
# another value, or flat lines whose keys come from a small set
_dup_keys = st.sampled_from(["name", "description", "a", "paths", "yes", "1", "="])
_repeated = st.one_of(
    st.builds(lambda lines, i, v, j: lines[:j] + [f"{lines[i % len(lines)].split(':', 1)[0]}: {v}"] + lines[j:],
              flat_only, st.integers(0, 7), st.one_of(value, prose), st.integers(0, 8)),
    st.lists(st.builds(lambda k, v: f"{k}: {v}", _dup_keys, st.one_of(prose, value)), min_size=2, max_size=6),
    st.lists(st.one_of(st.builds(lambda k, v: f"{k}: {v}", _dup_keys, prose),
                       good_seq.map(lambda g: ["paths:", *g[1:]])), min_size=2, max_size=4)
    .map(lambda items: [x for it in items for x in ([it] if isinstance(it, str) else it)]),
).map(lambda lines: "\n".join(lines) + "\n")


def _repeats_a_key(text: str) -> bool:
    """The top-level keys of a block PyYAML loads, as the loader reads them, repeat."""
    keys = [n.value if n.tag == "tag:yaml.org,2002:value" else yaml.load(yaml.serialize(n), Loader=LOADER)
            for n, _ in yaml.compose(text, Loader=LOADER).value if n.tag != "tag:yaml.org,2002:merge"]
    return len({str(k) for k in keys}) != len(keys) or len(set(keys)) != len(keys)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_repeated)
@example("name: a\ndescription: b\nname: a\n")
@example('paths:\n  - "a"\ndescription: b\npaths:\n  - "b"\n')
def test_fast_and_general_paths_agree_on_repeated_keys(text: str) -> None:
    """The flat reader declines a block that repeats a key; the frontmatter it then
    gets from the general path is the one the general path alone gives, and a
    block that loads but repeats a key is a ``yaml-duplicate-key`` warning on its line."""
    assert load_flat(text) is None or not _loads_with_repeats(text)
    doc = f"---\n{text}---\nbody\n"
    fast = markdown.parse_frontmatter(doc, "f.md")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(markdown, "load_flat", lambda _t: None)
        mp.setattr(markdown, "load_flat_lines", lambda _lines, _a=False: None)
        slow = markdown.parse_frontmatter(doc, "f.md")
    assert (fast.present, fast.ok, fast.data, fast.key_lines, fast.block) == (
        slow.present, slow.ok, slow.data, slow.key_lines, slow.block)
    assert fast.diagnostics == slow.diagnostics
    if _loads_with_repeats(text):  # the last value is read, with a warning (Claude Code does the same)
        assert fast.ok and [d.code for d in fast.diagnostics] == ["yaml-duplicate-key"]
        d = fast.diagnostics[0]
        assert d.path == "f.md" and d.line is not None and "repeats the key" in d.message
        assert d.level == "warning"


def _loads_with_repeats(text: str) -> bool:
    """PyYAML's stock safe loader takes the block (keeping the last value), the block repeats a
    key, and it holds no anchor or alias (wskit refuses those first, as ``yaml-refused``)."""
    try:
        data = yaml.load(text, Loader=LOADER)  # noqa: S506 - safe loader
        events = list(yaml.parse(text, Loader=LOADER))
    except (yaml.YAMLError, ValueError, TypeError):
        return False
    if any(isinstance(e, yaml.AliasEvent) or getattr(e, "anchor", None) for e in events):
        return False
    return isinstance(data, dict) and _repeats_a_key(text)


def _table(resolvers) -> dict:
    return {ch: [(tag, rx.pattern, rx.flags) for tag, rx in rows] for ch, rows in resolvers.items()}


def test_shipped_resolver_copy_is_pyyamls_table() -> None:
    """The copy the fast path reads while PyYAML is not imported is the table PyYAML ships."""
    from wskit.formats import flatyaml

    assert _table(flatyaml._shipped_table()) == _table(LOADER.yaml_implicit_resolvers)
    assert flatyaml.implicit_resolvers() is LOADER.yaml_implicit_resolvers  # imported: the live table


def test_fast_path_without_pyyaml_imported_reads_what_the_loader_reads(monkeypatch) -> None:
    from wskit.formats import flatyaml

    blocks = [f"{k}: {v}" for k in TRICKY_KEYS for v in TRICKY_VALUES] + [
        f"paths:\n  - {v}\n  - \"{v}\"" for v in TRICKY_VALUES]
    expected = [load_flat(b) for b in blocks]  # PyYAML imported: its live tables
    monkeypatch.delitem(__import__("sys").modules, "yaml")
    assert flatyaml.stock_constructors()
    assert [load_flat(b) for b in blocks] == expected


def test_flat_frontmatter_does_not_import_pyyaml() -> None:
    import subprocess
    import sys

    code = ("import sys; from wskit.formats.frontmatter import parse_frontmatter; "
            "fm = parse_frontmatter('---\\nname: x\\npaths:\\n  - \"src/**\"\\n---\\nbody\\n'); "
            "print(fm.data, 'yaml' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "{'name': 'x', 'paths': ['src/**']} False"


def test_refused_character_test_without_the_class_agrees_with_it() -> None:
    from wskit.formats import flatyaml

    chars = [chr(c) for c in (*range(0x300), 0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF, 0xD7FF, 0xE000, 0x1F600)]
    for text in [*chars, *(f"src/{c}x" for c in chars), "", "src/**", "a b"]:
        assert flatyaml._has_bad_char(text) == (flatyaml._BAD_CHAR.search(text) is not None), repr(text)


def test_shipped_resolvers_are_compiled_per_first_character_when_asked() -> None:
    """The shipped table compiles an expression only when a value starting with one of its
    characters is tested: a plain string starting with a letter no resolver starts with
    compiles none; a digit compiles those of digits; the rows are the full table's."""
    from wskit.formats import flatyaml

    table = flatyaml._ShippedTable()
    assert table.get("s") is None and table.get("s", ()) == () and not table._compiled
    assert table.get("p") is None and not table._compiled
    digits = table.get("1")
    assert {tag for tag, _rx in digits} == {"tag:yaml.org,2002:float", "tag:yaml.org,2002:int",
                                            "tag:yaml.org,2002:timestamp"}
    assert len(table._compiled) == 3
    assert table.get("1") is digits  # built once
    whole = _table(table)
    assert whole == _table(LOADER.yaml_implicit_resolvers)
    assert table.get("s") is None  # still none after the table was filled
