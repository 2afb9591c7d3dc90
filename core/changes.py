"""Change detection by stat: what a load read, and whether any of it changed since.

While a :func:`recording` block runs, :mod:`wskit.fs` notes every folder
it lists and every file it opens (or fails to find) with a *signature* of
its ``stat``: type, device, inode, size, mtime and ctime in nanoseconds. A
later :meth:`Dependencies.changed` re-stats those paths only — a few
microseconds each — instead of re-reading anything. A folder's mtime changes
when an entry is added, removed or renamed in it; a file's when it is
written; an atomic replace changes the inode. This is how
:class:`~wskit.cache.WorkspaceCache` makes a warm re-resolve cheap and still
correct.

Racy stats (the "racily clean" problem git solves the same way): a file
written in the same clock tick as our stat, after it, keeps the recorded
mtime. Any path whose mtime lies within :data:`RACY_WINDOW_NS` of the moment
it was recorded makes the whole recording *racy*; a racy recording is
reported as changed, so the cache reloads until a load records only settled
files.

Reuse across a reload: inside :func:`reusing`, a loader may call
:func:`reuse` before reading a file and :func:`remember` after building what
it made from it. When the same path has the same signature as in the previous
load (and was not racy then), :func:`reuse` returns that previous value, so a
reload after one file changed re-reads only that file. Values
must be immutable (resources are). A cold load has no previous memo: nothing
is reused.

Recording follows :mod:`contextvars`: a loader that fans out to its own
threads must run them in a copy of the context (``contextvars.copy_context``)
for their reads to be noted. Plugins reading a file some other way can call
:func:`note` themselves.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import struct
import time
from collections.abc import Iterator
from contextvars import ContextVar

#: A recorded path younger than this (2 s: FAT's granularity, generous for
#: ext4/xfs/btrfs/tmpfs/NFS) makes a recording racy.
RACY_WINDOW_NS = 2_000_000_000

#: packed ``stat`` fields (bytes; a tuple only if a field does not fit 64 bits): compared, never read
Signature = bytes | tuple[int, int, int, int, int, int]

#: type bits, st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns: 41 bytes, a 74-byte object
#: where the tuple of six ints takes ≈ 270 (one per recorded path and cached load)
_PACKED = struct.Struct("<BQQqqq")

_ACTIVE: ContextVar[tuple["Dependencies", ...]] = ContextVar("wskit_changes_active", default=())


def signature(st: os.stat_result) -> Signature:
    """The parts of a ``stat`` result that change when a file or folder changes:
    ``(type bits, st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)``, packed into
    bytes (the tuple itself when a field is out of 64-bit range). Two signatures are
    equal exactly when those six fields are."""
    fields = (st.st_mode >> 12, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    try:
        return _PACKED.pack(*fields)
    except struct.error:
        return fields


def stat_signature(path: str, follow: bool) -> Signature | None:
    """The signature of ``path`` now, or None when it cannot be stat-ed (absent)."""
    try:
        return signature(os.stat(path, follow_symlinks=follow))
    except (OSError, ValueError):
        return None


class Dependencies:
    """The paths one load depended on, each with the signature it had then.

    :ivar racy: True when some path was modified less than
        :data:`RACY_WINDOW_NS` before it was recorded (see the module doc).
    """

    __slots__ = ("_paths", "racy", "verified")

    def __init__(self) -> None:
        self._paths: dict[tuple[str, bool], Signature | None] = {}
        self.racy = False
        #: after :meth:`changed` found a change: the number of recorded paths (in
        #: recording order) it stat-ed and found unchanged just before
        self.verified = 0

    def note(self, path: str, follow: bool, st: os.stat_result | None = None) -> None:
        """Record ``path`` (absolute) with ``st`` (stat-ed now when None; None = absent).

        ``follow``: whether the path is compared following links (user-scope reads).
        """
        if (path, follow) in self._paths:
            return
        self._note_sig(path, follow, signature(st) if st is not None else stat_signature(path, follow))

    def _note_sig(self, path: str, follow: bool, sig: Signature | None) -> None:
        self._paths.setdefault((path, follow), sig)
        if sig is not None and _is_racy(sig):
            self.racy = True

    def signature_of(self, path: str, follow: bool = False) -> Signature | None:
        """The signature recorded for ``path`` (None when absent or not recorded)."""
        return self._paths.get((path, follow))

    def changed(self) -> str | None:
        """The first recorded path whose signature differs now (or ``"<racy>"``
        for a racy recording), or None when everything is as it was.

        Cost: one ``stat`` per recorded path, no reads.
        """
        if self.racy:
            return "<racy>"
        stat_ = os.stat
        i = 0
        # a lazy index may add paths from another thread (:func:`resumed`): check a copy
        for (path, follow), sig in tuple(self._paths.items()):  # stat_signature inlined: a warm re-resolve is this loop
            try:
                st = stat_(path, follow_symlinks=follow)
            except (OSError, ValueError):
                if sig is not None:
                    self.verified = i
                    return path
            else:
                if sig is None or sig != signature(st):
                    self.verified = i
                    return path
            i += 1
        return None

    def unchanged_just_now(self) -> dict[tuple[str, bool], Signature | None]:
        """The paths the last :meth:`changed` call stat-ed and found unchanged, with their
        signatures: a reload started right after it may take them as current
        (:func:`reusing`'s ``verified``) instead of stat-ing each again."""
        return dict(itertools.islice(self._paths.items(), self.verified))

    def paths(self) -> list[str]:
        """The recorded paths, in recording order."""
        return [p for p, _ in self._paths]

    def __len__(self) -> int:
        return len(self._paths)


@contextlib.contextmanager
def recording() -> Iterator[Dependencies]:
    """Record, into a new :class:`Dependencies`, what safe file access touches in
    this block (nested recordings each get every note)."""
    deps = Dependencies()
    token = _ACTIVE.set((*_ACTIVE.get(), deps))
    try:
        yield deps
    finally:
        _ACTIVE.reset(token)


def _is_racy(sig: Signature) -> bool:
    mtime = sig[4] if type(sig) is tuple else _PACKED.unpack(sig)[4]
    return time.time_ns() - mtime < RACY_WINDOW_NS


class Memo:
    """What one load built from each file: ``(path, follow[, namespace]) -> (signature, value)``."""

    __slots__ = ("_items", "verified", "scratch", "stages")

    def __init__(self) -> None:
        self._items: dict[tuple, tuple[Signature, object]] = {}
        #: what each pipeline stage of the load kept (:mod:`wskit.util.partial_reload`)
        self.stages: dict = {}
        #: per-load shared results (:func:`scratch`); dropped when the load ends
        self.scratch: dict = {}
        #: signatures found unchanged by the change check that triggered this reload
        self.verified: dict[tuple[str, bool], Signature | None] = {}

    def __len__(self) -> int:
        return len(self._items)

    @classmethod
    def of(cls, items: dict) -> "Memo":
        """A memo holding ``items`` (``key -> (signature, value)``, keys as :func:`remember`
        makes them): what a persistent index restored, for :func:`offering`. A previous
        memo's items are only read through ``items.get`` and ``items.keys()``, so ``items``
        may be a ``dict`` subclass whose ``get`` builds a value on first ask (its ``keys()``
        then names those values too)."""
        memo = cls()
        memo._items = items
        return memo


_REUSE: ContextVar[tuple[Memo | None, Memo] | None] = ContextVar("wskit_changes_reuse", default=None)

#: the pipeline stage running now (:mod:`wskit.util.partial_reload`): :func:`scratch` and
#: :func:`capture` mark it, since a stage that uses them cannot be taken whole by a reload
_STAGE: ContextVar = ContextVar("wskit_changes_stage", default=None)


def _taint_stage() -> None:
    run = _STAGE.get()
    if run is not None:
        run.tainted = True


@contextlib.contextmanager
def reusing(previous: Memo | None) -> Iterator[Memo]:
    """Offer ``previous`` (the memo of the load being replaced, or None) to
    :func:`reuse` in this block; yields the new load's memo for :func:`remember`."""
    current = Memo()
    token = _REUSE.set((previous, current))
    try:
        yield current
    finally:
        _REUSE.reset(token)
        current.scratch = {}  # per-load results are not kept with the memo


def _key(path: str, follow: bool, namespace: str) -> tuple:
    return (path, follow) if not namespace else (path, follow, namespace)


def reuse(path: str, follow: bool = False, *, namespace: str = "") -> object | None:
    """The value the previous load built from ``path`` when the file is unchanged
    (same signature, by one ``stat``), else None. A hit is carried into the new
    load's memo and noted as a dependency, exactly as if the file had been read.
    No ``stat`` is made when the reload's change check or this load already saw
    the path (one signature per path and load).

    :param namespace: keeps this caller's values apart from other loaders' values for
        the same path (e.g. a plugin's own memo of a folder the rule walk also lists);
        ``""`` (default) is the shared space the built-in loaders use.
    """
    ctx = _REUSE.get()
    if ctx is None or ctx[0] is None:
        return None
    return Notes().reuse(path, namespace, follow)  # one implementation: Notes reads the context once


def remember(path: str, follow: bool, value: object, *, namespace: str = "") -> None:
    """Keep ``value`` (immutable) as what this load built from ``path``, keyed by
    the signature safe file access recorded when it read the file. Nothing is
    kept outside :func:`reusing`, for a path not read under a recording, or for
    a racy signature. ``namespace``: as for :func:`reuse`."""
    if _REUSE.get() is not None and _ACTIVE.get():
        Notes().remember(path, value, namespace, follow)


class Notes:
    """One walk's fast path to the active recordings and the load's memo.

    What :func:`note`, :func:`remember` and :func:`reuse` do for a folder listed
    through a held descriptor, with the context variables read once per walk
    instead of once per folder. The racy threshold is taken when the walk
    starts: a path modified after that is racy, as with :func:`note`.

    :ivar reloading: True when a previous load's memo is offered (:func:`reusing`).
    """

    __slots__ = ("_deps", "_last", "_prev", "_cur", "_threshold", "reloading")

    def __init__(self) -> None:
        self._deps = _ACTIVE.get()
        self._last = self._deps[-1]._paths if self._deps else None
        ctx = _REUSE.get()
        self._prev = ctx[0] if ctx is not None else None
        self._cur = ctx[1] if ctx is not None else None
        self._threshold = time.time_ns() - RACY_WINDOW_NS
        self.reloading = self._prev is not None

    def stat(self, path: str, st: os.stat_result) -> None:
        """:func:`note` of folder or file ``path`` (not following links) with its ``stat`` ``st``."""
        if not self._deps:
            return
        self._note((path, False), signature(st), st.st_mtime_ns > self._threshold)

    def _note(self, key: tuple[str, bool], sig: Signature, racy: bool) -> None:
        for deps in self._deps:
            paths = deps._paths
            if key not in paths:
                paths[key] = sig
            if racy:
                deps.racy = True

    def remember(self, path: str, value: object, namespace: str = "", follow: bool = False) -> None:
        """:func:`remember` after the path was noted (:meth:`stat` or safe file access)."""
        if self._cur is None or self._last is None:
            return
        sig = self._last.get((path, follow))
        if sig is None or _is_racy(sig):
            return
        self._cur._items[_key(path, follow, namespace)] = (sig, value)

    def reuse(self, path: str, namespace: str = "", follow: bool = False) -> object | None:
        """:func:`reuse`, with the context read once per walk, not once per path (a
        reload may reuse 1,000 unchanged skills); None at once on a cold load. A path
        noted here is racy by the walk's threshold (never less often than by
        :func:`reuse`, which takes the time at each call)."""
        prev = self._prev
        if prev is None:
            return None
        pkey = (path, follow)
        key = (path, follow, namespace) if namespace else pkey
        item = prev._items.get(key)
        if item is None:
            return None
        sig = prev.verified.get(pkey)
        if sig is None and self._last is not None:
            sig = self._last.get(pkey)
        if sig is None:
            sig = stat_signature(path, follow)
        if sig != item[0]:
            return None
        self._cur._items[key] = item
        self._note(pkey, sig, (sig[4] if type(sig) is tuple else _PACKED.unpack(sig)[4]) > self._threshold)
        return item[1]

    def scratch(self) -> dict | None:
        """The current load's scratch space (:func:`scratch`)."""
        _taint_stage()
        return None if self._cur is None else self._cur.scratch


_MISSING = object()


def unchanged(sigs: dict[tuple[str, bool], Signature | None]) -> bool:
    """Whether every ``(path, follow) -> signature`` of ``sigs`` (what an earlier load
    recorded) still holds: from the change check that started this reload
    (``Memo.verified``) when it stat-ed the path, else by one ``stat`` now. Outside a
    reload, False. Lets a caller take a whole earlier result at once (the project walk)."""
    ctx = _REUSE.get()
    if ctx is None or ctx[0] is None:
        return False
    verified = ctx[0].verified
    if sigs.items() <= verified.items():  # the usual case, in C: all of it checked moments ago
        return True
    if verified:
        for key, sig in sigs.items():
            now = verified.get(key, _MISSING)
            if now is _MISSING:
                now = stat_signature(*key)
            if now != sig:
                return False
        return True
    # nothing verified (a new process offered a persistent index): one stat per path, with
    # stat_signature inlined — this loop is most of a second ``inspect``'s check (≈ 5,000 paths)
    stat_, lstat, pack = os.stat, os.lstat, _PACKED.pack
    for (path, follow), sig in sigs.items():
        try:
            st = stat_(path) if follow else lstat(path)  # positional: no keyword parsing per call
        except (OSError, ValueError):
            if sig is not None:
                return False
            continue
        try:
            now = pack(st.st_mode >> 12, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        except struct.error:
            now = signature(st)
        if now != sig:
            return False
    return True


def adopt(sigs: dict[tuple[str, bool], Signature | None]) -> None:
    """After :func:`unchanged` said yes: note ``sigs`` to every active recording (the new
    load depends on them as the old one did) and carry the previous load's memo
    entries of those paths (shared namespace) into the new load's memo."""
    for deps in _ACTIVE.get():
        paths = deps._paths
        if paths.keys().isdisjoint(sigs):
            paths.update(sigs)  # the usual case (a fresh recording), in C: the same entries in the same order
            continue
        for key, sig in sigs.items():
            if key not in paths:
                paths[key] = sig
    ctx = _REUSE.get()
    if ctx is not None and ctx[0] is not None:
        before, now = ctx[0]._items, ctx[1]._items
        # the keys held, found in C first: most of ``sigs`` are folders, which hold no item
        # (a memo restored from a persistent index builds items in a Python ``get``, and
        # its ``keys()`` include the items not built yet)
        held = sigs.keys() & before.keys()
        if held:
            for key in sigs:
                if key in held:
                    item = before.get(key)
                    if item is not None:
                        now[key] = item


@contextlib.contextmanager
def offering(previous: "Memo | None") -> Iterator[bool]:
    """Offer ``previous`` to :func:`reuse` in this block when the current load has no
    previous memo of its own (a new process's first load, offered what a persistent
    index kept, :mod:`wskit.fs.index`); what the load remembers still goes to its own
    memo. Yields True when ``previous`` was offered."""
    ctx = _REUSE.get()
    if previous is None or ctx is None or ctx[0] is not None:
        yield False
        return
    token = _REUSE.set((previous, ctx[1]))
    try:
        yield True
    finally:
        _REUSE.reset(token)


def remembered(path: str, follow: bool = False, *, namespace: str = "") -> tuple | None:
    """What the current load remembered (:func:`remember`) or carried over (:func:`reuse`)
    for ``path``: ``(signature, value)``, or None (outside a load, or nothing kept)."""
    ctx = _REUSE.get()
    if ctx is None:
        return None
    return ctx[1]._items.get(_key(path, follow, namespace))


def scratch() -> dict | None:
    """A dictionary that lives as long as the current load (inside :func:`reusing`),
    for results several loaders of one load share (e.g. one project walk for the rule
    catalog and a plugin's memory files); None outside a load. Never carried to the
    next load: keep reusable values with :func:`remember`."""
    _taint_stage()
    ctx = _REUSE.get()
    return None if ctx is None else ctx[1].scratch


def note(path: str, follow: bool = False, st: os.stat_result | None = None) -> None:
    """Tell every active recording that the current load depends on ``path``.

    Free (one context-variable lookup) when nothing records.
    """
    active = _ACTIVE.get()
    for deps in active:
        deps.note(path, follow, st)


def lstat(path: str) -> os.stat_result | None:
    """``os.lstat(path)``, or None when nothing is there; an absence is noted to every
    active recording, so a load that decided from a look "nothing is there" goes stale when
    something appears. What is there is not noted: the reads that follow note it as they
    need it (a folder's own signature would make every later write into it, wskit's own
    state included, look like a change). Idle declarations use it (one ``lstat`` a path).
    """
    try:
        return os.lstat(path)
    except (OSError, ValueError):
        for deps in _ACTIVE.get():
            if (path, False) not in deps._paths:
                deps._note_sig(path, False, None)
        return None


def lexists(path: str) -> bool:
    """``os.path.lexists(path)``, an absence noted as :func:`lstat` notes it."""
    return lstat(path) is not None


def reuse_offered() -> bool:
    """True inside a :func:`reusing` block (else :func:`reuse` and :func:`remember` do nothing)."""
    return _REUSE.get() is not None


def recording_active() -> bool:
    """True inside a :func:`recording` block."""
    return bool(_ACTIVE.get())


class Captured:
    """The recordings and memo of a load, kept by :func:`capture` for reads made on the
    load's behalf after it returned (:func:`resumed`)."""

    __slots__ = ("active", "reuse")

    def __init__(self, active: tuple, reuse: tuple | None) -> None:
        self.active = active
        self.reuse = reuse


def capture() -> Captured:
    """What the current load records into and reuses from, for :func:`resumed`.

    A lazy index built during a load (the rule catalog) reads more folders and files
    when it is first asked about them, after the load returned: run those reads in
    ``with resumed(captured):`` so they are noted as dependencies of that load (the
    workspace cache then sees their changes, as it sees the load's own reads) and so
    the previous load's unchanged results are reused."""
    _taint_stage()
    ctx = _REUSE.get()
    if ctx is not None and ctx[0] is not None:
        # the signatures the change check verified are only current while the load runs
        prev = Memo()
        prev._items = ctx[0]._items
        ctx = (prev, ctx[1])
    return Captured(_ACTIVE.get(), ctx)


@contextlib.contextmanager
def resumed(captured: Captured) -> Iterator[None]:
    """Record into and reuse from the load of ``captured`` (:func:`capture`) in this block,
    besides whatever records now."""
    extra = tuple(d for d in captured.active if d not in _ACTIVE.get())
    t1 = _ACTIVE.set((*_ACTIVE.get(), *extra))
    t2 = _REUSE.set(captured.reuse) if captured.reuse is not None else None
    try:
        yield
    finally:
        if t2 is not None:
            _REUSE.reset(t2)
        _ACTIVE.reset(t1)


_WHOLE: ContextVar[bool] = ContextVar("wskit_changes_whole", default=False)


@contextlib.contextmanager
def whole_project() -> Iterator[None]:
    """Loads started in this block serve an operation that reads the whole project anyway
    (``wsctl inspect``): a loader that reads a project lazily, folder by folder as queries
    need it (the rule catalog), may read all of it during the load instead, sparing a
    partial read that the whole one repeats. Answers are the same either way; only the cost
    moves. A load shared with another thread's wait is started by one of them."""
    token = _WHOLE.set(True)
    try:
        yield
    finally:
        _WHOLE.reset(token)


def whole_project_wanted() -> bool:
    """True inside :func:`whole_project`."""
    return _WHOLE.get()
