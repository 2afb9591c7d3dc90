"""The frontmatter YAML loader (:mod:`wskit.formats.yaml`): libyaml keeps the pure
loader's values and refusals; both refuse a mapping that repeats a key."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from wskit.formats import frontmatter as markdown
from wskit.formats import yaml as yamlsafe

libyaml = pytest.mark.skipif(yamlsafe._CSAFE is None, reason="PyYAML built without libyaml")

SAMPLES = [
    "name: pdf\ndescription: Extract text from PDFs\n",
    "name: x\nallowed-tools: [Read, Grep]\nmetadata:\n  owner: team\n  tags: [a, b]\n",
    "a: 1\nb: 2.5\nc: true\nd: no\ne: null\nf: 2024-01-01\ng: '010'\nh: ~\n",
    "list:\n  - one\n  - two: 2\n  - [3, {four: 4}]\n",
    "multi: |\n  line one\n  line two\nfolded: >\n  a\n  b\n",
    "anchor_only: &a 1\n",
    "unicode: héllo ✓\n",
]


def _pure(text: str):
    loader = yamlsafe.SafeLimitedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


@libyaml
@pytest.mark.parametrize("text", SAMPLES)
def test_same_values_as_the_pure_python_loader(text: str) -> None:
    assert yamlsafe.load(text) == _pure(text)


@libyaml
def test_alias_refused_with_its_line() -> None:
    fm = markdown.parse_frontmatter("---\nname: x\na:\n  - &x [1, 2]\n  - *x\n---\nbody\n")
    assert not fm.ok
    assert [(d.code, d.line) for d in fm.diagnostics] == [("yaml-refused", 5)]


@libyaml
def test_deep_nesting_refused() -> None:
    fm = markdown.parse_frontmatter("---\nk:\n  - " + "[" * 40 + "]" * 40 + "\n---\n")
    assert not fm.ok and fm.diagnostics[0].code == "yaml-refused"
    assert "deeper than" in fm.diagnostics[0].message


@libyaml
def test_nesting_at_the_limit_is_accepted() -> None:
    depth = yamlsafe.MAX_DEPTH - 1  # root mapping + 30 lists + scalar = 32 nodes deep
    text = "k: " + "[" * (depth - 1) + "1" + "]" * (depth - 1) + "\n"
    assert yamlsafe.load(text) == _pure(text)


@libyaml
def test_errors_keep_their_line() -> None:
    fm = markdown.parse_frontmatter("---\nname: x\nbad: 'unclosed\n---\n")
    assert not fm.ok and fm.diagnostics[0].code == "yaml-error" and fm.diagnostics[0].line is not None


_values = st.recursive(
    st.one_of(st.integers(), st.booleans(), st.none(), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=60,
)


def _depth(v) -> int:
    if isinstance(v, dict):
        return 1 + max((_depth(x) for x in v.values()), default=0)
    if isinstance(v, list):
        return 1 + max((_depth(x) for x in v), default=0)
    return 1


@libyaml
@settings(max_examples=150, deadline=None)
@given(_values, st.booleans())
def test_skipping_the_event_scan_is_sound(value, flow: bool) -> None:
    """When the cheap pre-check skips the event scan, the text has no alias and
    is provably within MAX_DEPTH: loading it agrees with the pure loader."""
    text = yaml.safe_dump({"k": value}, default_flow_style=flow)
    if not yamlsafe.needs_event_check(text):
        assert "*" not in text
        assert _depth({"k": value}) <= yamlsafe.MAX_DEPTH
        assert yamlsafe.load(text) == _pure(text)


# -- repeated keys -------------------------------------------------------------------


@pytest.fixture(params=["libyaml", "pure"])
def loader(request, monkeypatch):
    """:func:`wskit.formats.yaml.load` through libyaml's loader, or the pure-Python one."""
    if request.param == "libyaml":
        if yamlsafe._CSAFE is None:
            pytest.skip("PyYAML built without libyaml")
    else:
        monkeypatch.setattr(yamlsafe, "_CSAFE", None)
    return yamlsafe.load


@pytest.mark.parametrize(("text", "key", "line", "first"), [
    ("name: a\ndescription: b\nname: c\n", "name", 2, 0),  # top level
    ("a:\n  x: 1\n  y: 2\n  x: 3\n", "x", 3, 1),  # nested
    ("l:\n  - {p: 1, q: 2}\n  - p: 1\n    p: 2\n", "p", 3, 2),  # in a sequence item
    ("k: {a: 1, b: 2, a: 3}\n", "a", 0, 0),  # flow mapping
    ("k:\n  <<: {a: 1, a: 2}\n", "a", 1, 1),  # inside a merged mapping
    ("<<:\n  <<:\n    a: x\n  a:\n    a: x\n    a: x\n", "a", 5, 4),  # below one (PyYAML drops that value)
    ("<<:\n  - {b: [{c: 1, c: 2}]}\n", "c", 1, 1),
    ("a: 1\nb: 2\n'a': 3\n", "a", 2, 0),  # quoted or not, the same string
    ("1: a\n\"1\": b\n", "1", 1, 0),  # top level: kept as text, so the same key
    ("k:\n  1: a\n  1.0: b\n", 1.0, 2, 1),  # one Python key
    ("k:\n  true: a\n  1: b\n", 1, 2, 1),
    ("k:\n  ? x\n  : 1\n  x: 2\n", "x", 3, 1),  # explicit key
    ("a: 1\nb: [1, {c: 2}]\nb: 3\n", "b", 2, 1),
])
def test_a_repeated_key_is_refused_with_its_lines(loader, text, key, line, first):
    with pytest.raises(yamlsafe.DuplicateKey) as info:
        loader(text)
    assert (info.value.key, info.value.line, info.value.first_line) == (key, line, first)
    assert type(info.value.key) is type(key)
    assert yamlsafe.err_line(info.value) == line


@pytest.mark.parametrize("text", [
    "a:\n  x: 1\nb:\n  x: 2\n",  # the same key in two mappings
    "l:\n  - x: 1\n  - x: 2\n",
    "k:\n  <<: {a: 1, b: 2}\n  a: 3\n",  # a key next to a merge overrides the merged one
    "k:\n  <<: [{a: 1}, {a: 2}]\n",  # merged mappings may share keys
    "k:\n  <<: {a: 1}\n  <<: {b: 2}\n",  # a merge key is not a repeated key
    "<<: {a: 1}\na: 2\n",
    "k:\n  1: a\n  '1': b\n",  # below the top level the keys stay 1 and '1'
    "=: a\nb: c\n",  # the value key, read as the string '='
    "a: 1\nA: 2\n",
])
def test_what_is_not_a_repeated_key_loads_as_pyyaml_loads_it(loader, text):
    assert loader(text) == yaml.safe_load(text)


def test_an_unhashable_key_keeps_pyyaml_s_error(loader):
    with pytest.raises(yaml.constructor.ConstructorError, match="unhashable"):
        loader("? [a]\n: 1\n? [a]\n: 2\n")


# generated nested mappings with keys from a small set, so that repeats are common:
# a mapping is a list of (key, value) pairs, a value a scalar, a mapping or a list of mappings
_key = st.sampled_from(["a", "b", "c", "1", "'a'", "<<"])
_tree = st.recursive(
    st.sampled_from(["x", "1", "y z"]),
    lambda inner: st.one_of(st.lists(st.tuples(_key, inner), min_size=1, max_size=4),
                            st.lists(st.lists(st.tuples(_key, inner), min_size=1, max_size=3), min_size=1, max_size=2)
                            .map(tuple)),
    max_leaves=12,
)


def _render(value, indent: int) -> list[str]:
    pad = " " * indent
    if isinstance(value, str):
        return [value]
    if isinstance(value, tuple):  # a sequence of mappings
        out = []
        for item in value:
            body = _render(item, indent + 2)
            out.append(f"{pad}- {body[0].lstrip()}")
            out.extend(body[1:])
        return out
    out = []
    for key, val in value:
        if isinstance(val, str):
            out.append(f"{pad}{key}: {val}")
        else:
            out.append(f"{pad}{key}:")
            out.extend(_render(val, indent + 2))
    return out


def _merge_ok(pairs) -> bool:
    """PyYAML merges only mappings: a '<<' holding anything else is its own error."""
    return all(not isinstance(v, str) and (isinstance(v, list) or all(isinstance(i, list) for i in v))
               for k, v in pairs if k == "<<")


def _repeats(value, top: bool) -> bool | None:
    """True when some mapping repeats a key (not '<<'; 'a' and "'a'" are one key; at
    the top level '1' is the text of the integer 1, so only its own repeats count);
    None when a merge key holds a scalar (PyYAML's error)."""
    if isinstance(value, str):
        return False
    if isinstance(value, tuple):
        found = [_repeats(item, False) for item in value]
        return None if None in found else any(found)
    if not _merge_ok(value):
        return None
    keys = [k.strip("'") for k, _ in value if k != "<<"]
    found = [_repeats(v, False) for _, v in value]
    if None in found:
        return None
    return len(keys) != len(set(keys)) or any(found)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_key, _tree), min_size=1, max_size=5))
@example([("<<", [("<<", [("a", "x")]), ("a", [("a", "x"), ("a", "x")])])])
def test_refused_exactly_when_a_mapping_repeats_a_key(pairs):
    from hypothesis import assume

    want = _repeats(pairs, True)
    assume(want is not None)
    text = "\n".join(_render(pairs, 0)) + "\n"
    results = []
    for c_loader in (yamlsafe._CSAFE, None):
        if c_loader is None and results and yamlsafe._CSAFE is None:
            continue
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(yamlsafe, "_CSAFE", c_loader)
            try:
                results.append(("ok", yamlsafe.load(text)))
            except yamlsafe.DuplicateKey as err:
                results.append(("dup", err.key, err.line, err.first_line))
    assert all(r == results[0] for r in results), text  # libyaml and the pure loader agree
    if want:
        assert results[0][0] == "dup", text
        lines = text.split("\n")
        assert lines[results[0][2]].lstrip(" -").startswith((f"{results[0][1]}:", f"'{results[0][1]}':")), text
    else:
        assert results[0] == ("ok", yaml.safe_load(text)), text
