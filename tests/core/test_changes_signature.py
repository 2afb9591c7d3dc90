"""Packed stat signatures (smaller in memory): equal exactly when the six stat fields are,
racy by the same mtime rule, and a tuple when a field does not fit 64 bits."""

from __future__ import annotations

import os
import time
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from wskit import changes

u64 = st.integers(0, 2**64 - 1)
i64 = st.integers(-(2**63), 2**63 - 1)
huge = st.integers(2**64, 2**70)
fields = st.tuples(st.integers(0, 15), st.one_of(u64, huge), st.one_of(u64, huge), st.one_of(i64, huge),
                   st.one_of(i64, huge), i64)


def _stat(mode_type: int, dev: int, ino: int, size: int, mtime: int, ctime: int):
    return SimpleNamespace(st_mode=mode_type << 12 | 0o644, st_dev=dev, st_ino=ino, st_size=size,
                           st_mtime_ns=mtime, st_ctime_ns=ctime)


@settings(max_examples=300, deadline=None)
@given(fields, fields)
def test_equal_exactly_when_the_fields_are(a, b):
    sa, sb = changes.signature(_stat(*a)), changes.signature(_stat(*b))
    assert (sa == sb) == (a == b)
    assert changes.signature(_stat(*a)) == sa  # deterministic
    assert isinstance(sa, bytes) or sa == a  # a tuple only as the fallback, and then the fields themselves


@settings(max_examples=100, deadline=None)
@given(fields, st.integers(-3_000_000_000, 3_000_000_000))
def test_racy_by_mtime(a, age):
    now = time.time_ns()
    sig = changes.signature(_stat(a[0], a[1], a[2], a[3], now - age, a[5]))
    if abs(age - changes.RACY_WINDOW_NS) > 500_000_000:  # away from the edge: the clock moves meanwhile
        assert changes._is_racy(sig) == (age < changes.RACY_WINDOW_NS)


def test_real_files(tmp_path):
    p = tmp_path / "f"
    p.write_text("a")
    s1 = changes.stat_signature(str(p), False)
    assert isinstance(s1, bytes) and s1 == changes.signature(os.stat(p))
    p.write_text("ab")
    assert changes.stat_signature(str(p), False) != s1
    assert changes.stat_signature(str(tmp_path / "absent"), False) is None
