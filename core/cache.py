"""WorkspaceCache: one :class:`~wskit.workspace.WorkspaceResources` per canonical
source project, shared by every session of a process (reference/blade.md §1).

- at most ``idle_capacity`` (32) entries once nothing is pinned: the least
  recently used, initialised, unpinned entry is evicted first;
- at most ``active_capacity`` (64) entries in total, counting pinned and
  in-flight ones: a new distinct workspace beyond that raises
  :class:`~wskit.errors.WorkspaceCapacityError` *before* any loading starts;
- concurrent resolves of one workspace (threads or asyncio tasks) share one load;
- each caller gets *its own* binding: the load is shared by every execution
  root and cwd of one source project (the main checkout and each linked
  worktree), but the :class:`~wskit.workspace.WorkspaceResources` returned
  carries the binding of the path asked about (a view sharing the load's
  registries), so hooks run and servers start in the checkout the caller is in;
- a failed load caches nothing (the entry is removed, waiters see the error);
- :meth:`reset` bumps a generation: a load that finishes afterwards is
  returned to its caller but never written back;
- change detection (``detect_changes=True``, the default): a load records,
  through :mod:`wskit.changes`, every folder and file safe file access
  touched, plus the trust store; a later resolve re-``stat``s them and reloads
  when any changed (a warm re-resolve costs one ``stat`` per recorded path).
  The reload offers the old load's per-file results to loaders
  (:func:`wskit.changes.reuse`), so unchanged files are not read again.
  Sessions snapshotted from the old load keep what they saw.
- notifications (``watch=True``, for long-lived hosts; the ``wskit[watch]`` extra):
  the kernel tells which recorded paths changed (:mod:`wskit.fs.watch`), so a resolve
  after nothing changed makes no ``stat`` and one after an edit reloads with every
  untouched path taken as verified; where notifications are unavailable, void
  (queue overflow) or cannot cover a path, the ``stat`` check above takes over.

Evicting an entry never mutates it, so sessions snapshotted from it keep working.
"""

from __future__ import annotations

import _thread
import contextlib
import functools
import os
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

from wskit import changes
from wskit.binding import DEFAULT_ROOT_MARKERS, Binding
from wskit.changes import Dependencies
from wskit.errors import WorkspaceCapacityError
from wskit.host import HostProfile
from wskit.trust import TrustStore
from wskit.workspace import WorkspaceResources, load_workspace

__all__ = ["ACTIVE_CAPACITY", "IDLE_CAPACITY", "WorkspaceCache"]


IDLE_CAPACITY = 32
ACTIVE_CAPACITY = 64
#: Per-binding views kept per entry (execution roots and cwds of one source project).
_VIEWS = 64


class _Entry:
    """One cached workspace (a plain class: making a dataclass costs ~3 M instructions,
    which every ``wsctl`` run would pay at start-up)."""

    __slots__ = ("generation", "binding", "users", "future", "outcome", "resources", "deps", "memo", "previous",
                 "views", "proof")

    def __init__(self, generation: int, binding: Binding, users: int = 0, future: Any = None,
                 outcome: tuple[bool, Any] | None = None, resources: WorkspaceResources | None = None,
                 deps: Dependencies | None = None, memo: changes.Memo | None = None,
                 previous: changes.Memo | None = None) -> None:
        self.generation, self.binding, self.users = generation, binding, users
        #: made for the first waiter only (``concurrent.futures`` imports ``logging``: a
        #: single-threaded resolve never needs it); see :meth:`waiter_future`
        self.future = future
        #: the load's outcome once it ended: ``(True, resources)`` or ``(False, exception)``
        self.outcome = outcome
        self.resources, self.deps, self.memo = resources, deps, memo
        self.previous = previous  # memo of the load this one replaces
        #: per-binding views of the load (:meth:`WorkspaceCache._view`), at most ``_VIEWS`` kept
        self.views: OrderedDict[Binding, WorkspaceResources] | None = None
        #: what the watcher knows of this load (:class:`wskit.fs.watch.Proof`), when watching
        self.proof: Any = None

    def __repr__(self) -> str:
        return f"_Entry(generation={self.generation!r}, binding={self.binding!r}, users={self.users!r})"

    def waiter_future(self) -> Any:
        """The :class:`concurrent.futures.Future` waiters block on, made on first
        call and completed at once when the load already ended. Call with the
        cache lock held (the loader reads :attr:`future` under it)."""
        if self.future is None:
            import concurrent.futures

            self.future = concurrent.futures.Future()
            # the load is running: no waiter can cancel the future the others share
            # (``asyncio.wrap_future`` cancels its source when the awaiting task is cancelled)
            self.future.set_running_or_notify_cancel()
            if self.outcome is not None:
                ok, value = self.outcome
                self.future.set_result(value) if ok else self.future.set_exception(value)
        return self.future

    def finish(self, lock: Any, ok: bool, value: Any) -> None:
        """Record the outcome and complete the waiters' future if one was made."""
        with lock:
            self.outcome = (ok, value)
            future = self.future
        if future is not None:
            future.set_result(value) if ok else future.set_exception(value)


def _load_with(hooks, profile: HostProfile, binding: Binding) -> WorkspaceResources:
    """The default loader of a :class:`WorkspaceCache`: the hook pipeline."""
    return load_workspace(hooks, binding, profile)


class WorkspaceCache:
    """A thread-safe, bounded cache of workspace resources.

    :param profile: host profile; must carry ``home``.
    :param pm: plugin manager (default: :func:`~wskit.plugin.manager.make_plugin_manager`,
        its entry points kept in ``profile.state_dir``).
    :param loader: ``loader(binding) -> WorkspaceResources`` replacing the hook
        pipeline (for integrators and tests).
    :param idle_capacity: soft cap on entries once unpinned (32).
    :param active_capacity: hard cap on entries (64).
    :param markers: project-root markers for :meth:`Binding.discover`.
    :param detect_changes: re-``stat`` what a load read on every resolve and
        reload when something changed (default True); False returns the
        cached load until :meth:`invalidate` or :meth:`reset`.
    :param watch: learn of changes from the operating system's file notifications
        (:mod:`wskit.fs.watch`) instead of re-``stat``-ing (default False: a short-lived
        process would pay for the watches and never use them). When notifications
        are unavailable (no ``wskit[watch]`` extra, not Linux, no inotify instance
        left) the ``stat`` check is used and :attr:`watch_status` says why. Call
        :meth:`close` (or use the cache as a context manager) to release the watches.
    """

    def __init__(
        self,
        profile: HostProfile,
        pm=None,
        *,
        loader: Callable[[Binding], WorkspaceResources] | None = None,
        idle_capacity: int = IDLE_CAPACITY,
        active_capacity: int = ACTIVE_CAPACITY,
        markers: tuple[str, ...] = DEFAULT_ROOT_MARKERS,
        detect_changes: bool = True,
        watch: bool = False,
    ) -> None:
        profile.require_home()
        self.profile = profile
        self.detect_changes = detect_changes
        #: the :class:`wskit.fs.watch.Watcher` when watching, else None
        self.watcher: Any = None
        #: ``"watching"``, ``"off"``, or why notifications are not used
        self.watch_status = "off"
        if watch and detect_changes:
            from wskit.fs.watch import Watcher, WatchUnavailable

            try:
                self.watcher = Watcher()
                self.watch_status = "watching"
            except WatchUnavailable as err:
                self.watch_status = str(err)
        self.reloads = 0
        self.idle_capacity = idle_capacity
        self.active_capacity = active_capacity
        self.markers = markers
        self._lock = _thread.allocate_lock()  # threading.Lock, without importing threading at start-up
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._generation = 0
        if loader is None:
            from wskit.plugin.facade import WskitHooks
            from wskit.plugin.manager import make_plugin_manager

            # entry points kept in the profile's state folder (<home>/.wskit), as wsctl does
            self.pm = pm if pm is not None else make_plugin_manager(
                state_dir=profile.state_dir if profile.home is not None else None)
            self.hooks = WskitHooks(self.pm)
            # no closure over self: a cache in a reference cycle outlives its last
            # reference until a cyclic collection, and so does every load it holds
            # (a dropped cache's ~27,000 objects can make the next load's collections
            # cost up to 400 ms)
            loader = functools.partial(_load_with, self.hooks, profile)
        else:
            self.pm, self.hooks = pm, None
        self._loader = loader

    # -- acquire / release --------------------------------------------------

    def _begin(self, path: str | os.PathLike[str]) -> tuple[str, _Entry, bool, Binding]:
        binding = Binding.discover(path, self.markers)
        key = _chain_key(binding, self.profile)
        stale = None
        if self.detect_changes:
            with self._lock:
                peek = self._entries.get(key)
            # stat outside the lock: a few µs per recorded path
            if peek is not None and peek.deps is not None:
                if self.watcher is not None:
                    peek.proof, why = self.watcher.check(peek.proof, peek.deps)
                else:
                    why = peek.deps.changed()
                if why is not None:
                    stale = peek
        with self._lock:
            entry = self._entries.get(key)
            previous = None
            if entry is not None and entry is stale:
                del self._entries[key]  # pinned users keep the old object; it is never mutated
                self.reloads += 1
                previous, entry = stale.memo, None
                if previous is not None and stale.deps is not None:
                    # so the reload does not stat them twice (or at all: what no notification touched)
                    previous.verified = (stale.deps.unchanged_just_now() if stale.proof is None
                                         else stale.proof.verified(stale.deps._paths))
            starter = False
            if entry is None:
                self._trim_locked()
                if len(self._entries) >= self.active_capacity:
                    raise WorkspaceCapacityError(self.active_capacity)
                entry = _Entry(generation=self._generation, binding=binding, previous=previous)
                self._entries[key] = entry
                starter = True
            else:
                self._entries.move_to_end(key)
            entry.users += 1
        return key, entry, starter, binding

    def _view(self, entry: _Entry, binding: Binding, res: WorkspaceResources) -> WorkspaceResources:
        """``res`` as seen from ``binding``: the load itself when it was made for that
        binding, else a shallow copy carrying ``binding`` (same registries, catalogs,
        trust and generation), one per binding and entry."""
        if res.binding == binding:
            return res
        with self._lock:
            views = entry.views
            if views is None:
                views = entry.views = OrderedDict()
            view = views.get(binding)
            if view is None or view.generation != res.generation:
                view = res.copy_with(binding=binding)
                views[binding] = view
                while len(views) > _VIEWS:
                    views.popitem(last=False)
            else:
                views.move_to_end(binding)
            return view

    def _run_load(self, key: str, entry: _Entry) -> WorkspaceResources:
        watcher = self.watcher
        try:
            proof = watcher.begin() if watcher is not None else None
            with changes.recording() as deps, changes.reusing(entry.previous) as memo:
                changes.note(str(TrustStore.for_home(self.profile.require_home()).path), True)
                res = self._loader(entry.binding)
            entry.previous = None
            if proof is not None:
                entry.proof = watcher.finish(proof, deps._paths)
        except BaseException as err:
            with self._lock:
                if self._entries.get(key) is entry:
                    del self._entries[key]
                entry.users = max(0, entry.users - 1)
                self._trim_locked()
            entry.finish(self._lock, False, err)
            raise
        with self._lock:
            if entry.generation == self._generation and self._entries.get(key) is entry:
                entry.deps, entry.memo = deps, memo
                entry.resources = res
                self._trim_locked()
        entry.finish(self._lock, True, res)
        return res

    def _fail_waiter(self, entry: _Entry) -> None:
        with self._lock:
            entry.users = max(0, entry.users - 1)
            self._trim_locked()

    def _acquire(self, path: str | os.PathLike[str]) -> tuple[_Entry, WorkspaceResources]:
        key, entry, starter, binding = self._begin(path)
        if starter:
            return entry, self._view(entry, binding, self._run_load(key, entry))
        try:
            done, value = self._waiter(entry)
            return entry, self._view(entry, binding, value if done else value.result())
        except BaseException:
            self._fail_waiter(entry)
            raise

    def _waiter(self, entry: _Entry) -> tuple[bool, Any]:
        """For a caller that did not start ``entry``'s load: ``(True, resources)``
        when the load ended (its exception raised when it failed), else
        ``(False, future)`` to wait on."""
        with self._lock:
            outcome = entry.outcome
            if outcome is None:
                return False, entry.waiter_future()
        ok, value = outcome
        if not ok:
            raise value
        return True, value

    async def _aacquire(self, path: str | os.PathLike[str]) -> tuple[_Entry, WorkspaceResources]:
        key, entry, starter, binding = self._begin(path)
        if starter:
            import asyncio  # lazily: 35 ms of import the synchronous CLI path never needs

            try:
                return entry, self._view(entry, binding, await asyncio.to_thread(self._run_load, key, entry))
            except asyncio.CancelledError:
                # The load goes on in its worker thread and is cached for
                # others; this caller's pin must go, or the entry is never
                # evictable again. (A failed load releases the pin itself.)
                self._release(entry)
                raise
        try:
            import asyncio

            done, value = self._waiter(entry)
            return entry, self._view(entry, binding, value if done else await asyncio.wrap_future(value))
        except BaseException:
            self._fail_waiter(entry)
            raise

    def _release(self, entry: _Entry) -> None:
        with self._lock:
            entry.users = max(0, entry.users - 1)
            self._trim_locked()

    def _trim_locked(self) -> None:
        while len(self._entries) > self.idle_capacity:
            for key, entry in self._entries.items():
                if entry.resources is not None and entry.users == 0:
                    del self._entries[key]
                    break
            else:
                return

    # -- public API -----------------------------------------------------------

    def resolve(self, path: str | os.PathLike[str]) -> WorkspaceResources:
        """The resources of the workspace holding ``path``, for a short read.

        The pin is released before returning; the returned object stays valid
        (eviction never mutates it).

        :raises WorkspaceCapacityError: 64 distinct workspaces are active.
        :raises FileNotFoundError: ``path`` does not exist.
        """
        entry, res = self._acquire(path)
        self._release(entry)
        return res

    @contextlib.contextmanager
    def using(self, path: str | os.PathLike[str]) -> Iterator[WorkspaceResources]:
        """Pin the workspace holding ``path`` while the block runs (never evicted then)."""
        entry, res = self._acquire(path)
        try:
            yield res
        finally:
            self._release(entry)

    async def aresolve(self, path: str | os.PathLike[str]) -> WorkspaceResources:
        """Async :meth:`resolve`; the load runs in a worker thread, waiters share it."""
        entry, res = await self._aacquire(path)
        self._release(entry)
        return res

    @contextlib.asynccontextmanager
    async def ausing(self, path: str | os.PathLike[str]) -> AsyncIterator[WorkspaceResources]:
        """Async :meth:`using`."""
        entry, res = await self._aacquire(path)
        try:
            yield res
        finally:
            self._release(entry)

    def invalidate(self, path: str | os.PathLike[str]) -> bool:
        """Drop the cached entry of the workspace holding ``path`` (unless in flight).

        :returns: True when an entry was dropped.
        """
        root = str(Binding.discover(path, self.markers).source_root)
        dropped = False
        with self._lock:
            for key in [k for k in self._entries if k == root or k.startswith(root + "\0")]:
                entry = self._entries[key]
                if entry.resources is not None:
                    del self._entries[key]
                    dropped = True
        return dropped

    def close(self) -> None:
        """Release the watches (:mod:`wskit.fs.watch`); the cache keeps working on the
        ``stat`` check. Idempotent."""
        if self.watcher is not None:
            self.watcher.close()

    def __enter__(self) -> "WorkspaceCache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def reset(self) -> None:
        """Forget every entry and bump the generation (in-flight loads are not written back)."""
        with self._lock:
            self._generation += 1
            self._entries.clear()

    def stats(self) -> dict[str, int]:
        """``{"entries", "initialized", "in_flight", "active_users", "capacity", "active_capacity",
        "reloads"}`` (``reloads``: loads replaced because change detection saw a change)."""
        with self._lock:
            entries = len(self._entries)
            initialized = sum(1 for e in self._entries.values() if e.resources is not None)
            users = sum(e.users for e in self._entries.values())
        return {
            "entries": entries,
            "initialized": initialized,
            "in_flight": entries - initialized,
            "active_users": users,
            "capacity": self.idle_capacity,
            "active_capacity": self.active_capacity,
            "reloads": self.reloads,
        }

    def cached_roots(self) -> list[Path]:
        """Source roots currently cached, least recently used first."""
        with self._lock:
            return list(dict.fromkeys(Path(k.split("\0", 1)[0]) for k in self._entries))


#: Folders whose presence below the project root makes what loads depend on the cwd:
#: skills (and for Claude Code commands and agents) of every folder from the root to the cwd.
_CHAIN_FOLDERS = (".agents", ".claude", ".codex", ".gemini", ".opencode")


def _chain_key(binding: Binding, profile: HostProfile) -> str:
    """The cache key of ``binding``: its source root, plus the deepest folder between the
    root (exclusive) and the cwd (inclusive) holding a convention folder (``.agents``,
    ``.claude``, ``.<host>``…), whose sources only a cwd at or below it sees (Codex's and
    opencode's ``.agents/skills`` of every folder down to the cwd). Two cwds with the same
    such folders share one load. Cost: one ``lstat`` per convention name and folder below
    the root, none for a cwd at the root."""
    root = binding.source_root
    try:
        parts = binding.to_source(binding.cwd).relative_to(root).parts
    except (ValueError, AttributeError):
        return str(root)
    if not parts:
        return str(root)
    names = (*_CHAIN_FOLDERS, profile.host_dir)
    deepest = 0
    cur = str(root)
    lexists = os.path.lexists
    for i, part in enumerate(parts, 1):
        cur = os.path.join(cur, part)
        for name in names:
            if lexists(os.path.join(cur, name)):
                deepest = i
                break
    return str(root) if not deepest else f"{root}\0{'/'.join(parts[:deepest])}"

