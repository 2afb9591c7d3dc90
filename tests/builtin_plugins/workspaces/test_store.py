"""The SQLite registry: tombstones, generations, occupancy rules (A3), several processes."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.builtin_plugins.workspaces.wsgit import git_identity  # noqa: F401  (git_identity: autouse)
from wskit.builtin_plugins.workspaces import WorkspaceError, WorkspaceStore


@pytest.fixture
def store(wskit_home: Path) -> WorkspaceStore:
    return WorkspaceStore.for_home(wskit_home)


def test_store_lives_in_user_folder_in_wal_mode(store: WorkspaceStore, wskit_home: Path):
    assert store.path == wskit_home / ".wskit" / "workspaces.db"
    with sqlite3.connect(store.path) as c:
        assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.path.stat().st_mode & 0o777 == 0o600


def test_tombstoned_root_id_gets_a_new_generation(store: WorkspaceStore):
    first = store.register_root("git_worktree_root:ws_a:/p", "ws_a", Path("/p"), "git_worktree_root")
    assert store.register_root("git_worktree_root:ws_a:/p", "ws_a", Path("/p"), "git_worktree_root") == first
    store.tombstone_root(first.execution_root_id)
    second = store.register_root("git_worktree_root:ws_a:/p", "ws_a", Path("/p"), "git_worktree_root")
    assert second.execution_root_id.startswith("git_worktree_root:ws_a:/p:gen_")
    assert store.get_root(first.execution_root_id).removed
    assert not second.removed
    assert [r.execution_root_id for r in store.roots()] == [second.execution_root_id]


def test_occupancy_rules(store: WorkspaceStore):
    r = "canonical_root:ws_a"
    a1 = store.acquire_occupancy(r, "ws_a", "a", "exclusive_write")
    assert store.acquire_occupancy(r, "ws_a", "a", "exclusive_write") == a1  # idempotent
    store.acquire_occupancy(r, "ws_a", "b", "shared_read")  # shared never conflicts
    with pytest.raises(WorkspaceError) as e:
        store.acquire_occupancy(r, "ws_a", "b", "exclusive_write")
    assert e.value.kind == "exclusive_write_held" and "already has an exclusive_write holder" in str(e.value)
    with pytest.raises(WorkspaceError) as e:
        store.take_cleanup_lease(r, "a")
    assert e.value.kind == "active_occupancy" and "still has active occupancy" in str(e.value)
    for o in store.occupancies([r]):
        assert store.release_occupancy(o.occupancy_id)
    assert store.occupancies([r]) == []
    assert len(store.occupancies([r], active_only=False)) == 2  # released, never deleted
    store.take_cleanup_lease(r, "a")
    with pytest.raises(WorkspaceError) as e:
        store.acquire_occupancy(r, "ws_a", "c", "shared_read")
    assert e.value.kind == "cleanup_in_progress" and "is being removed" in str(e.value)
    with pytest.raises(WorkspaceError) as e:
        store.take_cleanup_lease(r, "b")  # one lease per root
    assert e.value.kind == "cleanup_in_progress"
    store.release_cleanup_lease(r)
    assert store.acquire_occupancy(r, "ws_a", "c", "shared_read").holder_agent_id == "c"


WORKER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from wskit.builtin_plugins.workspaces import WorkspaceManager
    home, agent, base, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
    while not go.exists():
        time.sleep(0.005)
    m = WorkspaceManager(home, agent)
    for i in range(12):
        for name in (f"{agent}-{i}", f"shared-{i}"):
            r = m.attach(base / name)
            ws = r["workspace"]["workspace_id"]
            m.store.acquire_occupancy("canonical_root:" + ws, ws, agent, "shared_read")
    print("done")
""")


def test_two_processes_attach_and_occupy_concurrently_without_losing_records(wskit_home: Path, tmp_path: Path):
    base = tmp_path / "dirs"
    agents = ("alpha", "beta")
    for i in range(12):
        for name in (*(f"{a}-{i}" for a in agents), f"shared-{i}"):
            (base / name).mkdir(parents=True)
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(wskit_home), a, str(base), str(go)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for a in agents]
    go.touch()
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert out.strip() == "done"
    store = WorkspaceStore.for_home(wskit_home)
    for a in agents:
        bound = store.bindings(a)
        assert bound[0] == f"agent_home:{a}"
        assert len(bound) == 1 + 24
    anchors = {str(w.workspace_anchor) for w in store.workspaces() if w.workspace_kind == "project"}
    assert len(anchors) == 36 and len(store.workspaces()) == 36 + 2  # shared dirs registered once
    occ = [o for o in store.occupancies() if o.execution_root_id.startswith("canonical_root:ws_")]
    assert len(occ) == 48
    assert {(o.holder_agent_id) for o in occ} == set(agents)


def test_corrupt_database_is_a_clear_error_not_a_traceback(tmp_path, wsctl, wskit_home):
    import pytest as _pytest

    from wskit.builtin_plugins.workspaces.errors import WorkspaceError
    from wskit.builtin_plugins.workspaces.store import WorkspaceStore

    db = wskit_home / ".wskit" / "workspaces.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    db.write_bytes(os.urandom(4096))
    with _pytest.raises(WorkspaceError) as info:
        WorkspaceStore(db)
    assert info.value.kind == "store_unusable"
    res = wsctl("workspace", "list")
    assert res.exit_code == 1 and res.stderr.startswith("error: ") and "unusable" in res.stderr
