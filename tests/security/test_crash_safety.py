"""Crash safety and no lost updates for wskit's state files.

- 8 real (forked) processes grant and revoke trust on distinct folders at once:
  afterwards every decision is present and the store parses (the file lock
  serialises read-modify-write; no update is lost).
- A writer killed with SIGKILL at random moments leaves the old or the new
  state, never a partial file (temp file + fsync + ``os.replace``).

:data:`STORES` is the table of state files under test; the lead adds the
hook trust store, skills manifest, plugin ledger and workspace database here
as they land: a ``writer`` (run in a forked child, commits states 0, 1, 2,
… forever) and a ``check`` (parent side: parse the file, return how many
states it holds, raise on a partial file).
"""

from __future__ import annotations

import os
import random
import signal
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.security.harness import fork_run, wait_exit
from wskit.trust import TrustStore


@dataclass(frozen=True)
class StateFile:
    """One state file under the kill test (see the module docstring).

    :ivar writer: ``writer(home, start)`` commits states ``start, start+1, …`` forever.
    :ivar check: ``check(home) -> n`` parses the file and returns how many states it holds.
    """

    name: str
    writer: Callable[[Path, int], None]
    check: Callable[[Path], int]


def _trust_writer(home: Path, start: int) -> None:
    store = TrustStore.for_home(home)
    i = start
    while True:
        store.grant(home / "proj" / f"{i:06d}")
        i += 1


def _check_trust(home: Path) -> int:
    store = TrustStore.for_home(home)
    if not store.path.exists():
        return 0
    st = os.lstat(store.path)
    assert stat.S_IMODE(st.st_mode) == 0o600
    entries = store.entries()  # raises TrustStoreError on a partial file
    got = sorted(int(Path(e["path"]).name) for e in entries)
    assert got == list(range(len(got))), "states are not a prefix: an update was lost"
    assert all(e["state"] == "trusted" for e in entries)
    return len(got)


def _approval_writer(home: Path, start: int) -> None:
    from wskit.approval.entries import ApprovalEntry
    from wskit.approval.store import ApprovalStore

    store = ApprovalStore.for_home(home)
    i = start
    while True:  # the store's own read-modify-write under its lock, as approve() does
        entry = ApprovalEntry(capability="hooks", source="project .claude/settings.json", identity={"n": i})
        store.approve(f"/p/{i:06d}", [entry], entry.digest)
        i += 1


def _check_approvals(home: Path) -> int:
    from wskit.approval.store import ApprovalStore

    store = ApprovalStore.for_home(home)
    if not store.path.exists():
        return 0
    got = sorted(int(k.rsplit("/", 1)[1]) for k in store.read())  # raises ApprovalStoreError when partial
    assert got == list(range(len(got)))
    return len(got)


def _profile(home: Path):
    from wskit.host import HostProfile

    return HostProfile(name="wskit", home=home)


def _manifest_writer(home: Path, start: int) -> None:
    from wskit.builtin_plugins.skills.admin import admin_root, set_enabled

    profile = _profile(home)
    i = start
    while True:
        slug = f"s{i:06d}"
        (admin_root(profile) / slug).mkdir(parents=True, exist_ok=True)
        (admin_root(profile) / slug / "SKILL.md").write_text("---\ndescription: d\n---\n")
        set_enabled(profile, slug, True)
        i += 1


def _check_manifest(home: Path) -> int:
    from wskit.builtin_plugins.skills.admin import manifest_path, read_manifest

    profile = _profile(home)
    if not manifest_path(profile).exists():
        return 0
    got = sorted(int(k[1:]) for k in read_manifest(profile))  # raises AdminSkillError when partial
    assert got == list(range(len(got)))
    return len(got)


def _ledger_writer(home: Path, start: int) -> None:
    from wskit.builtin_plugins.bundles import ledger

    profile = _profile(home)
    i = start
    while True:  # install()'s read-modify-write under the ledger lock, without copying a tree
        with ledger._lock(profile):  # noqa: SLF001
            plugins = ledger.read_ledger(profile)
            plugins[f"p{i:06d}"] = {"digest": "sha256:" + "0" * 64, "root": f"/r/{i}"}
            ledger._write_ledger(profile, plugins)  # noqa: SLF001
        i += 1


def _check_ledger(home: Path) -> int:
    from wskit.builtin_plugins.bundles.ledger import ledger_path, read_ledger

    profile = _profile(home)
    if not ledger_path(profile).exists():
        return 0
    got = sorted(int(k[1:]) for k in read_ledger(profile))  # raises LedgerError when partial
    assert got == list(range(len(got)))
    return len(got)


def _workspace_db_writer(home: Path, start: int) -> None:
    from wskit.builtin_plugins.workspaces.store import WorkspaceStore

    store = WorkspaceStore.for_home(home)
    i = start
    while True:
        store.upsert_workspace(home / "ws" / f"{i:06d}", f"ws-{i:06d}")
        i += 1


def _check_workspace_db(home: Path) -> int:
    import sqlite3

    from wskit.builtin_plugins.workspaces.store import WorkspaceStore

    path = home / ".wskit" / "workspaces.db"
    if not path.exists():
        return 0
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    got = sorted(int(w.workspace_id[3:]) for w in WorkspaceStore.for_home(home).workspaces())
    assert got == list(range(len(got)))
    return len(got)


STORES = [
    StateFile("trust-store", _trust_writer, _check_trust),
    StateFile("approval-store", _approval_writer, _check_approvals),
    StateFile("skills-manifest", _manifest_writer, _check_manifest),
    StateFile("plugin-ledger", _ledger_writer, _check_ledger),
    StateFile("workspace-db", _workspace_db_writer, _check_workspace_db),
]

KILL_ITERATIONS = 30
KILL_BUDGET = 10.0  # seconds for all iterations of one store


@pytest.mark.parametrize("state", STORES, ids=lambda s: s.name)
def test_sigkill_while_writing_leaves_old_or_new_state(state: StateFile, tmp_path: Path):
    home = tmp_path / "home"
    (home / "proj").mkdir(parents=True)
    rnd = random.Random(99)
    held = 0
    deadline = time.monotonic() + KILL_BUDGET
    iterations = 0
    while iterations < KILL_ITERATIONS and time.monotonic() < deadline:
        pid = fork_run(lambda: state.writer(home, held))
        time.sleep(rnd.uniform(0.0, 0.06))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        now = state.check(home)
        assert now >= held, f"state went back from {held} to {now}"
        held = now
        iterations += 1
    assert iterations >= 5
    assert held > 0, "the writer never committed a state: the kills proved nothing"


def _grant_revoke(home: Path, proc: int) -> None:
    store = TrustStore.for_home(home)
    for j in range(6):
        store.grant(home / "proj" / f"p{proc}" / f"f{j}")
    for j in range(1, 6, 2):
        store.revoke(home / "proj" / f"p{proc}" / f"f{j}")


def test_8_processes_grant_and_revoke_without_lost_updates(tmp_path: Path):
    home = tmp_path / "home"
    (home / "proj").mkdir(parents=True)
    pids = [fork_run(lambda i=i: _grant_revoke(home, i)) for i in range(8)]
    for pid in pids:
        assert wait_exit(pid, 120) == 0
    store = TrustStore.for_home(home)
    entries = {e["path"]: e["state"] for e in store.entries()}
    assert len(entries) == 48
    for i in range(8):
        for j in range(6):
            path = os.path.realpath(home / "proj" / f"p{i}" / f"f{j}")
            assert entries[path] == ("untrusted" if j % 2 else "trusted"), path
            assert store.decide(path).state == entries[path]


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


class _HalfWriter:
    """A file object that writes half of what it is given, then the process dies."""

    def __init__(self, fh):
        self._fh = fh

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()

    def write(self, data):
        self._fh.write(data[: len(data) // 2])
        self._fh.flush()
        _die()

    def __getattr__(self, name):
        return getattr(self._fh, name)


def _arm(point: str) -> None:
    """In a forked child: make the next atomic write die at ``point``."""
    real_fdopen, real_replace = os.fdopen, os.replace
    if point == "mid-write":
        os.fdopen = lambda *a, **k: _HalfWriter(real_fdopen(*a, **k))
    elif point == "before-fsync":
        os.fsync = lambda fd: _die()
    elif point == "before-replace":
        os.replace = lambda *a, **k: _die()
    elif point == "after-replace":
        def replace_then_die(*a, **k):  # the write renames inside an open folder (dir_fd keywords)
            real_replace(*a, **k)
            _die()
        os.replace = replace_then_die


@pytest.mark.parametrize(("point", "expect"), [("mid-write", 3), ("before-fsync", 3), ("before-replace", 3),
                                                ("after-replace", 4)])
def test_sigkill_at_each_step_of_an_atomic_write(point, expect, tmp_path):
    """Deterministic kill points inside :func:`wskit.fs.atomic.atomic_write`."""
    home = tmp_path / "home"
    (home / "proj").mkdir(parents=True)
    for i in range(3):
        TrustStore.for_home(home).grant(home / "proj" / f"{i:06d}")

    def child():
        _arm(point)
        TrustStore.for_home(home).grant(home / "proj" / f"{3:06d}")

    pid = fork_run(child)
    status = wait_exit(pid, 30)
    assert status == -signal.SIGKILL
    assert _check_trust(home) == expect
