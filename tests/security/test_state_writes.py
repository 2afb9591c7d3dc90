"""State writes: locked, atomic, link-safe, keeping what they do not understand.

- ``plugins enable|disable`` rewrote ``settings.json`` without a lock: 8
  processes at once exited 0 and lost changes. Now a locked read-modify-write.
- In an untrusted repository a ``.claude/`` linked to the user's own folder,
  a linked ``settings.json`` or a linked ``settings.json.lock`` made the write
  (or the lock's ``O_TRUNC``) land in the user's files. Now every state write
  opens its folders below an anchor (home or project root) without following
  links, and refuses a link in the file's or the lock's place.
- State files of the home reached through a linked folder (``~/.wskit`` →
  elsewhere) are refused, reading fails closed; writable-by-others ledgers and
  manifests are refused as the trust store's loose mode is.

Decoys live in ``tmp_path``; nothing outside it is ever a target.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from wskit.errors import TrustStoreError
from wskit.trust import TrustStore


def test_8_concurrent_enable_disable_lose_no_change(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    settings = home / ".wskit" / "settings.json"  # the default host's folder
    settings.parent.mkdir()
    settings.write_text(json.dumps({"model": "keep-me", "futureKey": {"a": [1, 2]}}))
    script = (
        "import sys\n"
        "from wskit.cli import main\n"
        "home, proc = sys.argv[1], int(sys.argv[2])\n"
        "for j in range(4):\n"
        "    verb = 'disable' if j % 2 else 'enable'\n"
        "    force = ['--force'] if verb == 'enable' else []  # the names are made up: no plugin has them\n"
        "    if main(['--home', home, 'plugins', verb, f'p{proc}-{j}', '--scope', 'user', *force]):\n"
        "        sys.exit(1)\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(home), str(i)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for i in range(8)]
    for p in procs:
        _, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
    data = json.loads(settings.read_text())
    assert data["model"] == "keep-me" and data["futureKey"] == {"a": [1, 2]}  # unknown keys kept
    assert data["enabledPlugins"] == {f"p{i}-{j}": j % 2 == 0 for i in range(8) for j in range(4)}


@pytest.fixture
def untrusted(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    decoy = tmp_path / "users-own"
    decoy.mkdir()
    (decoy / "settings.json").write_text('{"mine": true}\n')
    (decoy / "precious.txt").write_text("do not touch\n")
    return repo, decoy


@pytest.mark.parametrize("how", ["folder-link", "file-link", "lock-link", "local-file-link"])
def test_links_in_an_untrusted_repository_are_never_written_through(untrusted, tmp_path, how, wsctl):
    repo, decoy = untrusted
    home = tmp_path / "home"
    scope = "local" if how == "local-file-link" else "project"
    claude = repo / ".wskit"  # the default host's folder
    if how == "folder-link":
        claude.symlink_to(decoy)
    else:
        claude.mkdir()
        name = "settings.local.json" if scope == "local" else "settings.json"
        if how == "lock-link":
            (claude / "settings.json.lock").symlink_to(decoy / "precious.txt")
        else:
            (claude / name).symlink_to(decoy / "settings.json")
    before = {p.name: p.read_bytes() for p in decoy.iterdir()}
    res = wsctl("plugins", "enable", "evil", "--force", "--scope", scope, "--path", str(repo), home=home)
    assert res.exit_code == 1, res.output
    assert "symbolic link" in res.stderr and "Traceback" not in res.output
    assert {p.name: p.read_bytes() for p in decoy.iterdir()} == before  # nothing written, nothing truncated
    assert sorted(p.name for p in decoy.iterdir()) == ["precious.txt", "settings.json"]


def test_state_in_a_linked_home_folder_is_refused_and_fails_closed(tmp_path, wsctl):
    home = tmp_path / "userhome"
    home.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    project = tmp_path / "proj"
    project.mkdir()
    # someone else's folder holding a store that trusts the project
    TrustStore(elsewhere / "trust.toml").grant(project)
    (home / ".wskit").symlink_to(elsewhere)
    store = TrustStore.for_home(home)
    with pytest.raises(TrustStoreError, match="symbolic link"):
        store.decide(project)
    with pytest.raises(TrustStoreError, match="symbolic link"):
        store.grant(project / "x")
    res = wsctl("inspect", str(project), home=home, json=True)
    assert json.loads(res.stdout)["trust"]["state"] != "trusted"
    for args in (("trust", "grant", str(project)), ("workspace", "attach", str(project))):
        res = wsctl(*args, home=home)
        assert res.exit_code == 1 and "symbolic link" in res.stderr, (args, res.output)
    assert sorted(p.name for p in elsewhere.iterdir()) == ["trust.toml", "trust.toml.lock"]


def test_hook_trust_ledger_and_manifest_refuse_a_linked_wskit_folder(tmp_path):
    from wskit.approval.store import ApprovalStore, ApprovalStoreError
    from wskit.builtin_plugins.bundles.ledger import LedgerError, read_ledger
    from wskit.builtin_plugins.skills.admin import AdminSkillError, read_manifest
    from wskit.host import HostProfile

    home = tmp_path / "home"
    home.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (home / ".wskit").symlink_to(elsewhere)
    (home / ".claude").symlink_to(elsewhere)
    profile = HostProfile(name="claude", home=home)
    with pytest.raises(ApprovalStoreError, match="symbolic link"):
        ApprovalStore.for_home(home).read()
    with pytest.raises(LedgerError, match="symbolic link"):
        read_ledger(profile)
    with pytest.raises(AdminSkillError, match="symbolic link"):
        read_manifest(profile)


def test_loose_modes_are_refused(tmp_path):
    from wskit.builtin_plugins.bundles.ledger import LedgerError, ledger_path, read_ledger
    from wskit.builtin_plugins.skills.admin import AdminSkillError, manifest_path, read_manifest
    from wskit.host import HostProfile

    home = tmp_path / "home"
    profile = HostProfile(name="claude", home=home)
    ledger, manifest = ledger_path(profile), manifest_path(profile)
    for p, text in ((ledger, '{"version": 1, "plugins": {}}'), (manifest, "[skills]\n")):
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        os.chmod(p, 0o666)
    with pytest.raises(LedgerError, match="writable by others"):
        read_ledger(profile)
    with pytest.raises(AdminSkillError, match="writable by others"):
        read_manifest(profile)
    os.chmod(ledger, 0o600)
    os.chmod(manifest, 0o644)
    assert read_ledger(profile) == {} and read_manifest(profile) == {}


def test_ledger_and_manifest_writes_keep_unknown_keys(tmp_path):
    from wskit.builtin_plugins.bundles import ledger
    from wskit.builtin_plugins.skills.admin import admin_root, manifest_path, set_enabled
    from wskit.host import HostProfile

    home = tmp_path / "home"
    profile = HostProfile(name="claude", home=home)
    (admin_root(profile) / "s").mkdir(parents=True)
    (admin_root(profile) / "s" / "SKILL.md").write_text("---\ndescription: d\n---\n")
    manifest_path(profile).write_text('future = "x"\n[skills.s]\nenabled = false\nnote = "kept"\n')
    os.chmod(manifest_path(profile), 0o600)
    set_enabled(profile, "s", True)
    import tomllib

    assert tomllib.loads(manifest_path(profile).read_text()) == {
        "future": "x", "skills": {"s": {"enabled": True, "note": "kept"}}}
    path = ledger.ledger_path(profile)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"version": 1, "plugins": {}, "future": [1]}')
    os.chmod(path, 0o600)
    with ledger._lock(profile):  # noqa: SLF001 - install()'s write, without copying a tree
        ledger._write_ledger(profile, {"p": {"digest": "sha256:" + "0" * 64, "root": "/r"}})  # noqa: SLF001
    assert json.loads(path.read_text())["future"] == [1]


def test_atomic_write_refuses_links_and_special_files(tmp_path):
    from wskit.fs.atomic import StateFileError, atomic_write, locked_replace, locked_update

    decoy = tmp_path / "decoy.txt"
    decoy.write_text("decoy\n")
    (tmp_path / "link").symlink_to(decoy)
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dirlink").symlink_to(tmp_path / "real")
    (tmp_path / "real").mkdir()
    for name in ("link", "fifo"):
        with pytest.raises(StateFileError):
            atomic_write(tmp_path / name, b"x")
        with pytest.raises(StateFileError):
            locked_update(tmp_path / name, lambda old: b"x")
        for durable in (True, False):
            with pytest.raises(StateFileError):
                locked_replace(tmp_path / name, b"x", durable=durable)
    with pytest.raises(StateFileError, match="symbolic link"):
        atomic_write(tmp_path / "dirlink" / "f", b"x", anchor=tmp_path)
    assert decoy.read_text() == "decoy\n" and not (tmp_path / "real" / "f").exists()
    assert os.path.islink(tmp_path / "link")
    atomic_write(tmp_path / "new" / "deeper" / "f", b"ok", anchor=tmp_path)
    assert (tmp_path / "new" / "deeper" / "f").read_bytes() == b"ok"


def test_locked_replace_without_fsync_is_still_atomic_locked_and_private(tmp_path, monkeypatch):
    """``durable=False`` (the persistent index) skips only the fsync calls: the file is
    replaced by a rename under the lock, mode as asked, no temporary file left, and a link
    planted as the lock file is refused."""
    from wskit.fs.atomic import StateFileError, locked_replace

    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd))
    f = tmp_path / "state" / "index.json"
    locked_replace(f, b"one", anchor=tmp_path, durable=False)
    ino = f.stat().st_ino
    locked_replace(f, b"two", anchor=tmp_path, durable=False)
    assert f.read_bytes() == b"two" and (f.stat().st_mode & 0o777) == 0o600
    assert f.stat().st_ino != ino  # a new file renamed in place, never written into
    assert synced == []
    assert sorted(p.name for p in f.parent.iterdir()) == ["index.json", "index.json.lock"]
    locked_replace(f, b"three", anchor=tmp_path)
    assert len(synced) == 2  # durable: the file and its folder
    (f.parent / "index.json.lock").unlink()
    decoy = tmp_path / "decoy"
    decoy.write_text("decoy\n")
    (f.parent / "index.json.lock").symlink_to(decoy)
    with pytest.raises(StateFileError, match="symbolic link"):
        locked_replace(f, b"four", anchor=tmp_path, durable=False)
    assert f.read_bytes() == b"three" and decoy.read_text() == "decoy\n"
