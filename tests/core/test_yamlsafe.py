"""The frontmatter YAML loader (:mod:`wskit.yamlsafe`): libyaml keeps the pure
loader's values and refusals."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from wskit import markdown, yamlsafe

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
    fm = markdown.parse_frontmatter("---\nname: x\na: &x [1, 2]\nb: *x\n---\nbody\n")
    assert not fm.ok
    assert [(d.code, d.line) for d in fm.diagnostics] == [("yaml-refused", 4)]


@libyaml
def test_deep_nesting_refused() -> None:
    fm = markdown.parse_frontmatter("---\nk: " + "[" * 40 + "]" * 40 + "\n---\n")
    assert not fm.ok and fm.diagnostics[0].code == "yaml-refused"
    assert "deeper than" in fm.diagnostics[0].message


@libyaml
def test_nesting_at_the_limit_is_accepted() -> None:
    depth = yamlsafe.MAX_DEPTH - 1  # root mapping + 30 lists + scalar = 32 nodes deep
    text = "k: " + "[" * (depth - 1) + "1" + "]" * (depth - 1) + "\n"
    assert yamlsafe.load(text) == _pure(text)


@libyaml
def test_errors_keep_their_line() -> None:
    fm = markdown.parse_frontmatter("---\nname: x\nbad: [unclosed\n---\n")
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

