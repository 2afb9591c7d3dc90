"""Frozen models keep their fields in key-sharing instance dictionaries (to save memory)
without any visible change: same keys, order, values, equality, copies and pickles."""

from __future__ import annotations

import copy
import keyword
import pickle
import platform
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wskit.models import Frozen, Provenance, Scope
from wskit.util import sharedkeys
from wskit.util.sharedkeys import shared_keys_copy

CPYTHON = platform.python_implementation() == "CPython"


class Wide(Frozen):
    """A 15-field model (the size of a command or a skill)."""

    f0: str
    f1: int = 1
    f2: tuple[str, ...] = ()
    f3: str | None = None
    f4: frozenset[str] = frozenset()
    f5: bool = False
    f6: str = "x"
    f7: str = "y"
    f8: int = 8
    f9: float = 9.0
    f10: str = ""
    f11: str = ""
    f12: str = ""
    f13: str = ""
    f14: str = ""


names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(lambda k: not keyword.iskeyword(k))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(names, st.one_of(st.integers(), st.text(max_size=5), st.none()), max_size=35))
def test_copy_is_equal_in_order_with_the_same_value_objects(d):
    c = shared_keys_copy(d)
    assert c == d and list(c) == list(d)
    assert all(c[k] is d[k] for k in d)
    if d:
        assert c is not d
        c[next(iter(d))] = "changed"  # an ordinary dict: changing the copy leaves the original alone
        c["new_key_z"] = 1
        assert d != c and "new_key_z" not in d


@pytest.mark.parametrize("d", [{"not an identifier": 1}, {"class": 1}, {"_private": 1}, {1: "x"}, {"a": 1, "b-c": 2}])
def test_other_keys_are_returned_unchanged(d):
    assert shared_keys_copy(d) is d


def test_shapes_are_bounded(monkeypatch):
    monkeypatch.setattr(sharedkeys, "MAX_SHAPES", len(sharedkeys._BUILDERS))
    d = {"a_shape_never_seen_before": 1}
    assert shared_keys_copy(d) is d


@pytest.mark.skipif(not CPYTHON, reason="key-sharing dictionaries are CPython's (PEP 412)")
def test_copies_share_their_key_table():
    d = {f"field_{i}": i for i in range(15)}
    shared_keys_copy(d)
    assert sys.getsizeof(shared_keys_copy(d)) < sys.getsizeof(dict(d))
    w = Wide(f0="a")
    assert sys.getsizeof(w.__dict__) < sys.getsizeof(dict(w.__dict__))


def test_models_are_unchanged():
    w = Wide(f0="a", f4=frozenset({"k"}), f2=("p",))
    assert list(w.__dict__) == list(Wide.model_fields)
    assert w.__dict__ == {name: getattr(w, name) for name in Wide.model_fields}
    same = Wide(f0="a", f4=frozenset({"k"}), f2=("p",))
    assert w == same and hash(w) == hash(same) and repr(w) == repr(same) and w != Wide(f0="b")
    assert w.model_dump() == same.model_dump() and list(w.model_dump()) == list(Wide.model_fields)
    assert w.model_fields_set == {"f0", "f4", "f2"}
    c = w.model_copy(update={"f1": 5})
    assert c.f1 == 5 and w.f1 == 1 and c.f0 == "a"
    assert copy.deepcopy(w) == w and copy.copy(w) == w
    assert pickle.loads(pickle.dumps(w)) == w
    assert Wide.model_validate(w.model_dump()) == w
    with pytest.raises(Exception):
        w.f0 = "z"  # still frozen
    p = Provenance(scope=Scope.PROJECT, source_root="/r", path="a.md", sha256="0" * 64)
    assert p.model_dump() == {"scope": Scope.PROJECT, "source_root": "/r", "path": "a.md", "plugin": None,
                              "sha256": "0" * 64}
    assert Provenance.model_construct(scope=Scope.PROJECT, path="x").path == "x"  # missing fields: left as built
