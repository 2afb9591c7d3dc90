"""The trust store's parse cache: an unchanged, settled store is parsed
once per process, every change is seen, and loads still depend on the file."""

from __future__ import annotations

import os

import pytest

from wskit import changes, trust
from wskit.trust import TrustStore

OLD = 1_700_000_000


@pytest.fixture
def parses(monkeypatch):
    # every parse of the store starts with its own reader (tomllib only for what it hands on)
    calls = []
    real = trust._simple_store
    monkeypatch.setattr(trust, "_simple_store", lambda text: calls.append(1) or real(text))
    monkeypatch.setattr(trust, "_PARSED", {})
    return calls


def _settle(store: TrustStore) -> None:
    os.utime(store.path, (OLD, OLD))


def test_settled_store_is_parsed_once_and_edits_are_seen(tmp_path, parses) -> None:
    store = TrustStore.for_home(tmp_path / "home")
    store.grant(tmp_path / "a")
    _settle(store)
    parses.clear()
    assert store.decide(tmp_path / "a").trusted and store.decide(tmp_path / "a" / "sub").trusted
    assert len(parses) == 1
    store.revoke(tmp_path / "a")  # rewrites the file: a new inode, size and ctime
    _settle(store)
    parses.clear()
    assert not store.decide(tmp_path / "a").trusted
    assert len(parses) == 1


def test_a_fresh_store_is_not_cached(tmp_path, parses) -> None:
    store = TrustStore.for_home(tmp_path / "home")
    store.grant(tmp_path / "a")  # written just now: inside the racy window
    parses.clear()
    store.decide(tmp_path / "a")
    store.decide(tmp_path / "a")
    assert len(parses) == 2


def test_cached_read_is_still_a_dependency_and_a_copy(tmp_path, parses) -> None:
    store = TrustStore.for_home(tmp_path / "home")
    store.grant(tmp_path / "a")
    _settle(store)
    store.entries()
    with changes.recording() as deps:
        entries = store._read()
    assert str(store.path) in deps.paths() and len(parses) == 1
    entries[str(tmp_path / "a")]["state"] = "untrusted"  # a caller's copy: the cache is untouched
    assert store.decide(tmp_path / "a").trusted
