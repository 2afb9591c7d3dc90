import os
import stat
from pathlib import Path

import pytest

from tests.conftest import git
from wskit.binding import Binding
from wskit.errors import TrustStoreError
from wskit.trust import TrustStore


def test_unknown_then_trusted_then_untrusted(tmp_path: Path):
    store = TrustStore.for_home(tmp_path / "home")
    proj = tmp_path / "proj"
    proj.mkdir()
    assert store.decide(proj).state == "unknown"
    store.grant(proj)
    d = store.decide(proj)
    assert d.state == "trusted" and d.decided_by == str(proj.resolve()) and d.trusted
    store.revoke(proj)
    assert store.decide(proj).state == "untrusted"
    store.forget(proj)
    assert store.decide(proj).state == "unknown"


def test_descendants_inherit_unless_nearer_decision(tmp_path: Path):
    store = TrustStore.for_home(tmp_path / "home")
    top = tmp_path / "top"
    (top / "a" / "b").mkdir(parents=True)
    (top / "c").mkdir()
    store.grant(top)
    store.revoke(top / "a")
    assert store.decide(top / "c").state == "trusted"
    assert store.decide(top / "a" / "b").state == "untrusted"
    assert store.decide(top / "a" / "b").decided_by == str((top / "a").resolve())
    assert store.decide(tmp_path).state == "unknown"


def test_store_file_is_0600_and_toml(tmp_path: Path):
    store = TrustStore.for_home(tmp_path / "home")
    store.grant(tmp_path)
    mode = stat.S_IMODE(os.stat(store.path).st_mode)
    assert mode == 0o600
    text = store.path.read_text()
    assert "version = 1" in text and 'state = "trusted"' in text
    assert [e["state"] for e in store.entries()] == ["trusted"]


def test_corrupted_store_fails_closed_and_is_not_overwritten(tmp_path: Path):
    store = TrustStore.for_home(tmp_path / "home")
    store.grant(tmp_path)
    store.path.write_text("this is [not toml")
    with pytest.raises(TrustStoreError):
        store.decide(tmp_path)
    with pytest.raises(TrustStoreError):
        store.grant(tmp_path / "x")
    assert store.path.read_text() == "this is [not toml"


def test_store_with_open_mode_is_refused(tmp_path: Path):
    store = TrustStore.for_home(tmp_path / "home")
    store.grant(tmp_path)
    os.chmod(store.path, 0o644)
    with pytest.raises(TrustStoreError, match="0600"):
        store.decide(tmp_path)


def test_symlinked_store_is_refused(tmp_path: Path):
    store = TrustStore.for_home(tmp_path / "home")
    real = tmp_path / "elsewhere.toml"
    real.write_text("version = 1\n")
    os.chmod(real, 0o600)
    store.path.parent.mkdir(parents=True)
    store.path.symlink_to(real)
    with pytest.raises(TrustStoreError, match="regular file"):
        store.decide(tmp_path)


def test_malformed_entry_and_future_version(tmp_path: Path):
    store = TrustStore.for_home(tmp_path / "home")
    store.path.parent.mkdir(parents=True)
    store.path.write_text('version = 1\n[[folder]]\npath = "/x"\nstate = "maybe"\n')
    os.chmod(store.path, 0o600)
    with pytest.raises(TrustStoreError, match="malformed"):
        store.entries()
    store.path.write_text("version = 99\n")
    with pytest.raises(TrustStoreError, match="version"):
        store.entries()


def test_worktree_inherits_main_checkout(git_repo, tmp_path: Path):
    repo = git_repo("main")
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "f", str(wt))
    store = TrustStore.for_home(tmp_path / "home")
    store.grant(repo)
    assert store.decide(Binding.discover(wt).source_root).state == "trusted"


def test_failed_write_keeps_old_state(tmp_path: Path, monkeypatch):
    store = TrustStore.for_home(tmp_path / "home")
    store.grant(tmp_path / "a") if (tmp_path / "a").mkdir() is None else None
    before = store.path.read_bytes()

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr("wskit.trust.atomic_write", boom)
    with pytest.raises(OSError):
        store.grant(tmp_path)
    assert store.path.read_bytes() == before
    assert not [p for p in store.path.parent.iterdir() if p.name.endswith(".tmp")]


def test_store_with_foreign_keys_is_refused_not_overwritten(tmp_path: Path):
    store = TrustStore.for_home(tmp_path / "home")
    store.path.parent.mkdir(parents=True)
    store.path.write_text('[projects]\n"/x" = 5\n')
    os.chmod(store.path, 0o600)
    with pytest.raises(TrustStoreError, match="unknown keys"):
        store.decide(tmp_path)
    with pytest.raises(TrustStoreError):
        store.grant(tmp_path)
    assert store.path.read_text() == '[projects]\n"/x" = 5\n'
