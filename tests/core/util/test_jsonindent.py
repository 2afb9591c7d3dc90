"""``dumps_indent2`` returns exactly ``json.dumps(obj, indent=2, default=str)``."""

from __future__ import annotations

import enum
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wskit.util.jsonindent import dumps_indent2

_scalar = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                    st.text(), st.text(alphabet=st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF)))
_key = st.one_of(st.text(), st.integers(), st.floats(), st.booleans(), st.none())
_json = st.recursive(_scalar, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.lists(kids, max_size=3).map(tuple),
    st.dictionaries(_key, kids, max_size=4)), max_leaves=25)


@settings(max_examples=2000, deadline=None)
@given(_json)
def test_same_text_as_json_dumps(obj) -> None:
    assert dumps_indent2(obj) == json.dumps(obj, indent=2, default=str)


_text = st.one_of(st.text(), st.text(alphabet=st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF)))
#: listing rows: maps of plain strings and nulls (written as one string each), now and
#: then one other value or key (the general path)
_rows = st.lists(st.dictionaries(st.one_of(_text, _text, _text, _key), st.one_of(st.none(), _text, _text, _scalar),
                                 max_size=6), max_size=4)


@settings(max_examples=1000, deadline=None)
@given(rows=_rows, other=_json)
def test_rows_of_strings_same_text_as_json_dumps(rows, other) -> None:
    obj = {"rows": rows, "other": other, "enum": [{"k": _Color.RED, "n": None}]}
    assert dumps_indent2(obj) == json.dumps(obj, indent=2, default=str)


class _Color(str, enum.Enum):
    RED = "red"


class _Level(enum.IntEnum):
    HIGH = 3


def test_other_objects_go_through_default_as_json_does() -> None:
    obj = {"p": Path("/a/b"), "c": _Color.RED, "l": _Level.HIGH, "s": {1, 2} and frozenset(), "o": object}
    assert dumps_indent2(obj) == json.dumps(obj, indent=2, default=str)
    assert dumps_indent2(obj, default=repr) == json.dumps(obj, indent=2, default=repr)


def test_bad_key_raises_type_error_like_json() -> None:
    with pytest.raises(TypeError):
        json.dumps({(1, 2): 1}, indent=2)
    with pytest.raises(TypeError):
        dumps_indent2({(1, 2): 1})


def test_circular_structure_raises_like_json() -> None:
    a: list = []
    a.append(a)
    with pytest.raises(ValueError):
        dumps_indent2(a)
