"""Corrupted and tampered state files: the trust store and session state.

A store that cannot be used fails closed (project sources hidden, a
``trust-store-error`` diagnostic), never crashes, never reads a huge file
whole and never follows a link planted in its place.
"""

from __future__ import annotations

import os
import socket

import pytest

from tests.security.harness import bounded, rchar
from wskit.errors import SessionStateError, TrustStoreError
from wskit.session import SessionState
from wskit.trust import TrustStore


def _store(home):
    store = TrustStore.for_home(home)
    store.path.parent.mkdir(parents=True, exist_ok=True)
    return store


def _write(path, data: bytes, mode=0o600):
    path.write_bytes(data)
    os.chmod(path, mode)


CORRUPT = {
    "garbage": b"\x00\x01not toml [[[",
    "truncated": b'version = 1\n[[folder]]\npath = "/x\n',
    "invalid-utf8": b'version = 1\n# \xff\xfe\n',
    "nested-100000": b"a = " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "wrong-types": b'version = 1\nfolder = "nope"\n',
    "bad-state": b'version = 1\n[[folder]]\npath = "/x"\nstate = "maybe"\n',
    "future-version": b"version = 99\n",
}


@pytest.mark.parametrize("case", sorted(CORRUPT))
def test_corrupt_trust_store_fails_closed(case, wskit_home):
    store = _store(wskit_home)
    _write(store.path, CORRUPT[case])
    with pytest.raises(TrustStoreError):
        bounded(lambda: store.decide(wskit_home), 20)
    # never overwritten by a write either: the user must look at it
    with pytest.raises(TrustStoreError):
        store.grant(wskit_home)
    assert store.path.read_bytes() == CORRUPT[case]


def test_world_writable_store_refused(wskit_home):
    store = _store(wskit_home)
    store.grant(wskit_home / "p")
    os.chmod(store.path, 0o666)
    with pytest.raises(TrustStoreError, match="0600"):
        store.decide(wskit_home / "p")


def test_store_swapped_for_symlink_refused(wskit_home, tmp_path):
    store = _store(wskit_home)
    other = tmp_path / "attacker.toml"
    _write(other, b'version = 1\n[[folder]]\npath = "/"\nstate = "trusted"\n')
    os.symlink(other, store.path)
    with pytest.raises(TrustStoreError):
        store.decide(tmp_path)


def test_store_swapped_for_fifo_does_not_hang(wskit_home):
    store = _store(wskit_home)
    os.mkfifo(store.path, 0o600)
    with pytest.raises(TrustStoreError):
        bounded(lambda: store.decide(wskit_home), 10)


def test_store_swapped_for_socket_refused(wskit_home):
    store = _store(wskit_home)
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(str(store.path))
        os.chmod(store.path, 0o600)
        with pytest.raises(TrustStoreError):
            bounded(lambda: store.decide(wskit_home), 10)
    finally:
        s.close()


def test_huge_sparse_store_refused_unread(wskit_home):
    store = _store(wskit_home)
    with open(store.path, "wb") as fh:
        fh.write(b"version = 1\n")
        fh.truncate(2 * 1024**3)
    os.chmod(store.path, 0o600)
    before = rchar()
    with pytest.raises(TrustStoreError, match="too-large"):
        store.decide(wskit_home)
    assert rchar() - before < 1024 * 1024


def test_workspace_load_with_corrupt_store_hides_project_keeps_user(wskit_home, wskit_pm, make_tree, wskit_profile):
    from tests.conftest import skill_md
    from wskit.binding import Binding
    from wskit.plugin.facade import WskitHooks
    from wskit.workspace import load_workspace

    ws = make_tree({".git/": None, ".claude/skills/proj/SKILL.md": skill_md("proj")})
    make_tree({".claude/skills/mine/SKILL.md": skill_md("mine")}, root=wskit_home)
    store = _store(wskit_home)
    _write(store.path, CORRUPT["nested-100000"])
    res = load_workspace(WskitHooks(wskit_pm), Binding.discover(ws), wskit_profile)
    codes = {d.code for d in res.diagnostics}
    assert "trust-store-error" in codes
    assert res.trust.state == "unknown"
    names = {r.name for r in res.registry("skill")}
    assert "mine" in names and "proj" not in names


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"format": 1, "extensions": ' + "{\"a\": " * 5000 + "1" + "}" * 5000 + "}",
        '{"session_id": "x", "session_id": "y"}',
        "\x00",
        "",
        '{"format": 2}',
    ],
)
def test_corrupt_session_state_is_a_clean_error(text):
    with pytest.raises(SessionStateError):
        SessionState.from_json(text)
