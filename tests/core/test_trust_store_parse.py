"""The trust store's own reader equals tomllib on every store it accepts, and hands
everything else to tomllib."""

from __future__ import annotations

import tomllib

import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st

from wskit.trust import _simple_store

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
FOLDER = st.dictionaries(st.sampled_from(["path", "state", "decided_at", "note", "a-b", "x_1"]),
                         st.one_of(TEXT, st.integers(min_value=0, max_value=10**20)), max_size=4)


@settings(max_examples=600, deadline=None)
@given(st.integers(min_value=0, max_value=5), st.lists(FOLDER, max_size=4))
def test_written_stores_read_as_tomllib_reads_them(version, folders):
    doc = {"version": version, "folder": folders} if folders else {"version": version}
    text = tomli_w.dumps(doc)
    got = _simple_store(text)
    if got is not None:
        assert got == tomllib.loads(text)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from([
    "version = 1", "[[folder]]", 'path = "/a b"', 'path = "/x"', "state = 0", "", " ", "# c", "folder = 1",
    'p = "a\\"b"', 'p = "a\\\\b"', "x = 01", "x=1", "x = 1.5", 'x = "\x01"', "[folder]", "decided_at = 2026-01-01",
    'x = "\t"', "x = 99999999999999999999", "\r", 'k = "\u00e9"',
    "folder = [", "]", "folder = []", '    { path = "/x" },', "    {},", '    { path = "/x", state = 1 },',
    '    { path = "/x",state = 1 },', 'x = [', '    { a = "1", a = "2" },',
]), max_size=8))
def test_any_text_it_accepts_is_what_tomllib_reads(lines):
    text = "\n".join(lines)
    got = _simple_store(text)
    if got is None:
        return
    assert got == tomllib.loads(text)


def test_the_store_as_wsctl_writes_it_is_read_without_tomllib():
    text = tomli_w.dumps({"version": 1, "folder": [{"path": "/w s", "state": "trusted",
                                                     "decided_at": "2026-12-06T05:37:20+00:00"}]})
    assert _simple_store(text) == tomllib.loads(text) and "folder = [" in text  # tomli_w's inline form
    long = tomli_w.dumps({"version": 1, "folder": [{"path": "/" + "p" * 80, "state": "trusted"}] * 2})
    assert "[[folder]]" in long and _simple_store(long) == tomllib.loads(long)
    assert _simple_store('folder = []\n[[folder]]\npath = "/x"\n') is None  # tomllib refuses it
    assert _simple_store('version = 1\n# a comment\n') is None
    assert _simple_store('version = 1\nversion = 2\n') is None  # tomllib refuses it, with its own words


def test_a_boolean_version_is_refused(tmp_path):
    import pytest

    from wskit.errors import TrustStoreError
    from wskit.trust import TrustStore

    store = TrustStore.for_home(tmp_path)
    store.path.parent.mkdir(parents=True)
    store.path.write_text("version = true\n")
    store.path.chmod(0o600)
    with pytest.raises(TrustStoreError, match="unsupported version"):
        store.decide(tmp_path / "x")
