"""The workspace registry: an embedded SQLite database in the user folder.

``<home>/.wskit/workspaces.db``, WAL journal, ``busy_timeout`` 30 s; every
change is one ``BEGIN IMMEDIATE`` transaction, so several processes can use
the store at once without losing a record (checks and writes of one change
happen under the same write lock). Records follow reference/holon-sakura.md
A2/A3: workspaces are never deleted, execution roots are soft-deleted
(tombstones), occupancy rows are only ever released, never removed.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from wskit.builtin_plugins.workspaces.errors import WorkspaceError
from wskit.builtin_plugins.workspaces.paths import generation_id, normalize_lexical
from wskit.builtin_plugins.workspaces.records import (
    ActiveWorkspaceEntry,
    ExecutionRootEntry,
    OccupancyRecord,
    WorkspaceEntry,
    WorktreeArtifactMetadata,
    utc_now,
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS workspaces (
  workspace_id TEXT PRIMARY KEY, workspace_alias TEXT, workspace_kind TEXT, owner_agent_id TEXT,
  workspace_anchor TEXT NOT NULL, repo_name TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS workspaces_anchor ON workspaces(workspace_anchor);
CREATE TABLE IF NOT EXISTS bindings (
  agent_id TEXT NOT NULL, workspace_id TEXT NOT NULL, position INTEGER NOT NULL,
  PRIMARY KEY (agent_id, workspace_id));
CREATE TABLE IF NOT EXISTS active_entries (
  agent_id TEXT PRIMARY KEY, entry TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS execution_roots (
  execution_root_id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, filesystem_path TEXT NOT NULL,
  root_kind TEXT NOT NULL, worktree TEXT, created_at TEXT NOT NULL, removed_at TEXT);
CREATE INDEX IF NOT EXISTS roots_ws ON execution_roots(workspace_id);
CREATE TABLE IF NOT EXISTS occupancy (
  occupancy_id TEXT PRIMARY KEY, execution_root_id TEXT NOT NULL, workspace_id TEXT NOT NULL,
  holder_agent_id TEXT NOT NULL, access_mode TEXT NOT NULL, acquired_at TEXT NOT NULL, released_at TEXT);
CREATE INDEX IF NOT EXISTS occupancy_root ON occupancy(execution_root_id, released_at);
CREATE TABLE IF NOT EXISTS cleanup_leases (
  execution_root_id TEXT PRIMARY KEY, holder_agent_id TEXT NOT NULL, acquired_at TEXT NOT NULL);
"""


class WorkspaceStore:
    """The registry database. Cheap to create; opens a connection per transaction.

    :param path: the database file (its folder is created, mode 0700).
    """

    def __init__(self, path: str | os.PathLike[str], anchor: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path)
        from wskit.fs.atomic import StateFileError, state_dir

        try:
            with state_dir(self.path, anchor):  # folders made without following a link
                pass
            # SQLite opens by name and follows links: the database, its journal and
            # shared-memory files must not be links (a linked ~/.wskit is refused above)
            for suffix in ("", "-wal", "-shm", "-journal"):
                name = f"{self.path}{suffix}"
                try:  # one lstat: SQLite removes -wal/-shm when another process's last connection closes
                    st = os.lstat(name)
                except FileNotFoundError:
                    continue
                if not stat.S_ISREG(st.st_mode):
                    raise StateFileError(f"{name} is a link or not a regular file")
        except StateFileError as err:
            raise WorkspaceError("store_unusable", f"workspace database unusable: {err}") from None
        try:
            self._init()
        except sqlite3.DatabaseError as err:  # not a database, or damaged: fail closed, never a traceback
            raise WorkspaceError("store_unusable", f"workspace database {self.path} is unusable: {err}") from None

    @classmethod
    def for_home(cls, home: str | os.PathLike[str]) -> "WorkspaceStore":
        """The store of user home ``home``: ``<home>/.wskit/workspaces.db``."""
        return cls(Path(home) / ".wskit" / "workspaces.db", anchor=home)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA busy_timeout = 30000")
        return conn

    def _init(self) -> None:
        conn = self._connect()
        try:
            for attempt in range(200):  # switching to WAL may report "locked" without waiting
                try:
                    if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                        conn.execute("PRAGMA journal_mode = WAL")
                    break
                except sqlite3.OperationalError as err:
                    if "locked" not in str(err) or attempt == 199:
                        raise
                    time.sleep(0.05)
            conn.execute("BEGIN IMMEDIATE")
            for stmt in SCHEMA.split(";"):
                if stmt.strip():
                    conn.execute(stmt)
            conn.execute("COMMIT")
        finally:
            conn.close()
        try:
            os.chmod(self.path, 0o600)
        except OSError:  # pragma: no cover
            pass

    @contextlib.contextmanager
    def tx(self, write: bool = True) -> Iterator[sqlite3.Connection]:
        """One change: ``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on any error).
        ``write=False`` opens a deferred (read) transaction, which WAL lets run
        beside a writer."""
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except sqlite3.DatabaseError as err:
            if isinstance(err, sqlite3.OperationalError) and "locked" in str(err):
                raise
            raise WorkspaceError("store_unusable", f"workspace database {self.path} is unusable: {err}") from None
        finally:
            conn.close()

    # -- workspaces -------------------------------------------------------
    def upsert_workspace(self, anchor: Path, workspace_id: str, *, alias: str | None = None,
                         kind: str = "project", owner: str | None = None,
                         repo_name: str | None = None) -> WorkspaceEntry:
        """Register the workspace at ``anchor`` (or touch ``updated_at``).

        :raises WorkspaceError: ``unsupported_legacy_workspace_id`` when the anchor
            is stored under another id.
        """
        now = utc_now()
        with self.tx() as c:
            other = c.execute("SELECT workspace_id FROM workspaces WHERE workspace_anchor=? AND workspace_id<>? "
                              "AND COALESCE(workspace_kind, '')<>'agent_home'",
                              (str(anchor), workspace_id)).fetchone()
            if other and kind != "agent_home":
                raise WorkspaceError("unsupported_legacy_workspace_id",
                                     f"unsupported legacy workspace ID {other[0]} for anchor {anchor}")
            row = c.execute("SELECT * FROM workspaces WHERE workspace_id=?", (workspace_id,)).fetchone()
            if row is None:
                c.execute("INSERT INTO workspaces VALUES (?,?,?,?,?,?,?,?)",
                          (workspace_id, alias, kind, owner, str(anchor), repo_name, now, now))
            else:
                c.execute("UPDATE workspaces SET updated_at=? WHERE workspace_id=?", (now, workspace_id))
            return _ws(c.execute("SELECT * FROM workspaces WHERE workspace_id=?", (workspace_id,)).fetchone())

    def get_workspace(self, workspace_id: str) -> WorkspaceEntry | None:
        """The entry, or None."""
        with self.tx(write=False) as c:
            row = c.execute("SELECT * FROM workspaces WHERE workspace_id=?", (workspace_id,)).fetchone()
        return _ws(row) if row else None

    def workspaces(self) -> list[WorkspaceEntry]:
        """Every entry, sorted by id."""
        with self.tx(write=False) as c:
            return [_ws(r) for r in c.execute("SELECT * FROM workspaces ORDER BY workspace_id")]

    # -- bindings and active entry -----------------------------------------
    def bindings(self, agent_id: str) -> list[str]:
        """The agent's attached workspace ids, in attachment order."""
        with self.tx(write=False) as c:
            return [r[0] for r in c.execute(
                "SELECT workspace_id FROM bindings WHERE agent_id=? ORDER BY position", (agent_id,))]

    def add_binding(self, agent_id: str, workspace_id: str, first: bool = False) -> bool:
        """Attach; returns True when it was already attached. ``first`` puts it at index 0."""
        with self.tx() as c:
            if c.execute("SELECT 1 FROM bindings WHERE agent_id=? AND workspace_id=?",
                         (agent_id, workspace_id)).fetchone():
                return True
            agg = "MIN(position)-1" if first else "MAX(position)+1"
            pos = c.execute(f"SELECT COALESCE({agg}, 0) FROM bindings WHERE agent_id=?", (agent_id,)).fetchone()[0]
            c.execute("INSERT INTO bindings VALUES (?,?,?)", (agent_id, workspace_id, pos))
            return False

    def remove_binding(self, agent_id: str, workspace_id: str) -> bool:
        """Detach; returns False when it was not attached. Deletes nothing else."""
        with self.tx() as c:
            return c.execute("DELETE FROM bindings WHERE agent_id=? AND workspace_id=?",
                             (agent_id, workspace_id)).rowcount > 0

    def get_active(self, agent_id: str) -> ActiveWorkspaceEntry | None:
        """The agent's active projection, or None before the first use."""
        with self.tx(write=False) as c:
            row = c.execute("SELECT entry FROM active_entries WHERE agent_id=?", (agent_id,)).fetchone()
        return ActiveWorkspaceEntry.model_validate_json(row[0]) if row else None

    def set_active(self, agent_id: str, entry: ActiveWorkspaceEntry) -> None:
        """Persist the agent's active projection."""
        with self.tx() as c:
            c.execute("INSERT INTO active_entries VALUES (?,?,?) ON CONFLICT(agent_id) DO UPDATE SET "
                      "entry=excluded.entry, updated_at=excluded.updated_at",
                      (agent_id, entry.model_dump_json(), utc_now()))

    # -- execution roots --------------------------------------------------
    def get_root(self, root_id: str) -> ExecutionRootEntry | None:
        """The root (tombstones included), or None."""
        with self.tx(write=False) as c:
            row = c.execute("SELECT * FROM execution_roots WHERE execution_root_id=?", (root_id,)).fetchone()
        return _root(row) if row else None

    def roots(self, workspace_ids: list[str] | None = None, include_removed: bool = False) -> list[ExecutionRootEntry]:
        """Roots sorted by (workspace id, root id); all workspaces when ``workspace_ids`` is None."""
        with self.tx(write=False) as c:
            rows = c.execute("SELECT * FROM execution_roots ORDER BY workspace_id, execution_root_id").fetchall()
        out = [_root(r) for r in rows]
        return [r for r in out if (include_removed or not r.removed)
                and (workspace_ids is None or r.workspace_id in workspace_ids)]

    def live_root_at(self, workspace_id: str, path: Path, kind: str) -> ExecutionRootEntry | None:
        """The non-removed root of ``kind`` at ``path`` in the workspace, or None."""
        with self.tx(write=False) as c:
            row = c.execute("SELECT * FROM execution_roots WHERE workspace_id=? AND filesystem_path=? AND "
                            "root_kind=? AND removed_at IS NULL", (workspace_id, str(path), kind)).fetchone()
        return _root(row) if row else None

    def register_root(self, base_id: str, workspace_id: str, path: Path, kind: str,
                      worktree: WorktreeArtifactMetadata | None = None,
                      authorize: str | None = None) -> ExecutionRootEntry:
        """Upsert a root: the live root at ``path`` keeps its id (metadata updated,
        ``authorize`` added to ``authorized_agent_ids``); otherwise ``base_id`` is
        inserted, or ``<base_id>:gen_<hex>`` when ``base_id`` is a tombstone."""
        path = normalize_lexical(path)
        with self.tx() as c:
            row = c.execute("SELECT * FROM execution_roots WHERE workspace_id=? AND filesystem_path=? AND "
                            "root_kind=? AND removed_at IS NULL", (workspace_id, str(path), kind)).fetchone()
            if row is not None:
                cur = _root(row)
                meta = worktree or cur.worktree
                if meta is not None and cur.worktree is not None and worktree is not None:
                    meta = worktree.model_copy(update={
                        "provenance": cur.worktree.provenance,
                        "registered_by_agent_id": cur.worktree.registered_by_agent_id,
                        "authorized_agent_ids": list(cur.worktree.authorized_agent_ids),
                        "requested_base_ref": cur.worktree.requested_base_ref,
                        "resolved_base_commit": cur.worktree.resolved_base_commit})
                if meta is not None and authorize and authorize not in meta.authorized_agent_ids:
                    meta = meta.model_copy(update={"authorized_agent_ids": [*meta.authorized_agent_ids, authorize]})
                c.execute("UPDATE execution_roots SET worktree=? WHERE execution_root_id=?",
                          (meta.model_dump_json() if meta else None, cur.execution_root_id))
                root_id = cur.execution_root_id
            else:
                root_id = base_id
                while c.execute("SELECT 1 FROM execution_roots WHERE execution_root_id=?", (root_id,)).fetchone():
                    root_id = generation_id(base_id)
                c.execute("INSERT INTO execution_roots VALUES (?,?,?,?,?,?,NULL)",
                          (root_id, workspace_id, str(path), kind,
                           worktree.model_dump_json() if worktree else None, utc_now()))
            return _root(c.execute("SELECT * FROM execution_roots WHERE execution_root_id=?", (root_id,)).fetchone())

    def update_root_meta(self, root_id: str, worktree: WorktreeArtifactMetadata) -> None:
        """Replace a root's worktree metadata (e.g. ``last_cleanup``)."""
        with self.tx() as c:
            c.execute("UPDATE execution_roots SET worktree=? WHERE execution_root_id=?",
                      (worktree.model_dump_json(), root_id))

    def tombstone_root(self, root_id: str) -> None:
        """Soft-delete: set ``removed_at``; the id is never reused."""
        with self.tx() as c:
            c.execute("UPDATE execution_roots SET removed_at=? WHERE execution_root_id=? AND removed_at IS NULL",
                      (utc_now(), root_id))

    # -- occupancy and cleanup leases (A3) ---------------------------------
    def acquire_occupancy(self, root_id: str, workspace_id: str, agent_id: str, mode: str) -> OccupancyRecord:
        """Take advisory occupancy of a root, atomically with its checks.

        The same holder asking for the same mode gets its existing record back.
        :raises WorkspaceError: ``cleanup_in_progress`` when a removal lease exists;
            ``exclusive_write_held`` when another agent holds ``exclusive_write``
            and ``mode`` is ``exclusive_write``.
        """
        with self.tx() as c:
            if c.execute("SELECT 1 FROM cleanup_leases WHERE execution_root_id=?", (root_id,)).fetchone():
                raise WorkspaceError("cleanup_in_progress", f"execution root {root_id} is being removed")
            same = c.execute("SELECT * FROM occupancy WHERE execution_root_id=? AND holder_agent_id=? AND "
                             "access_mode=? AND released_at IS NULL", (root_id, agent_id, mode)).fetchone()
            if same:
                return _occ(same)
            if mode == "exclusive_write" and c.execute(
                    "SELECT 1 FROM occupancy WHERE execution_root_id=? AND holder_agent_id<>? AND "
                    "access_mode='exclusive_write' AND released_at IS NULL", (root_id, agent_id)).fetchone():
                raise WorkspaceError("exclusive_write_held",
                                     f"execution root {root_id} already has an exclusive_write holder")
            rec = OccupancyRecord(occupancy_id="occ_" + uuid.uuid4().hex[:16], execution_root_id=root_id,
                                  workspace_id=workspace_id, holder_agent_id=agent_id, access_mode=mode,
                                  acquired_at=utc_now())
            c.execute("INSERT INTO occupancy VALUES (?,?,?,?,?,?,NULL)",
                      (rec.occupancy_id, root_id, workspace_id, agent_id, mode, rec.acquired_at))
            return rec

    def release_occupancy(self, occupancy_id: str) -> bool:
        """Release (set ``released_at``); False when unknown or already released."""
        with self.tx() as c:
            return c.execute("UPDATE occupancy SET released_at=? WHERE occupancy_id=? AND released_at IS NULL",
                             (utc_now(), occupancy_id)).rowcount > 0

    def occupancies(self, root_ids: list[str] | None = None, active_only: bool = True) -> list[OccupancyRecord]:
        """Occupancy records (unreleased only by default), by root then acquisition time."""
        with self.tx(write=False) as c:
            rows = c.execute("SELECT * FROM occupancy ORDER BY execution_root_id, acquired_at, occupancy_id")
            out = [_occ(r) for r in rows]
        return [o for o in out if (not active_only or o.released_at is None)
                and (root_ids is None or o.execution_root_id in root_ids)]

    def take_cleanup_lease(self, root_id: str, agent_id: str) -> None:
        """Take the single removal lease of a root.

        :raises WorkspaceError: ``active_occupancy`` ("… still has active
            occupancy") or ``cleanup_in_progress`` when a lease exists.
        """
        with self.tx() as c:
            if c.execute("SELECT 1 FROM occupancy WHERE execution_root_id=? AND released_at IS NULL",
                         (root_id,)).fetchone():
                raise WorkspaceError("active_occupancy", f"execution root {root_id} still has active occupancy")
            if c.execute("SELECT 1 FROM cleanup_leases WHERE execution_root_id=?", (root_id,)).fetchone():
                raise WorkspaceError("cleanup_in_progress", f"execution root {root_id} is being removed")
            c.execute("INSERT INTO cleanup_leases VALUES (?,?,?)", (root_id, agent_id, utc_now()))

    def release_cleanup_lease(self, root_id: str) -> None:
        """Drop the removal lease of a root (no-op when none)."""
        with self.tx() as c:
            c.execute("DELETE FROM cleanup_leases WHERE execution_root_id=?", (root_id,))


def _ws(row: sqlite3.Row) -> WorkspaceEntry:
    return WorkspaceEntry.model_validate(dict(row))


def _root(row: sqlite3.Row) -> ExecutionRootEntry:
    d = dict(row)
    d["worktree"] = json.loads(d["worktree"]) if d["worktree"] else None
    return ExecutionRootEntry.model_validate(d)


def _occ(row: sqlite3.Row) -> OccupancyRecord:
    return OccupancyRecord.model_validate(dict(row))
