"""Change notifications for long-lived hosts: what changed, told by the kernel, not found by ``stat``.

A :class:`~wskit.cache.WorkspaceCache` made with ``watch=True`` (and ``wsctl serve``)
keeps one :class:`Watcher`: an inotify instance (Linux, through the ``inotify_simple``
package, the ``wskit[watch]`` extra) holding one watch per folder that covers a path some
cached load recorded (:mod:`wskit.changes`). A resolve then drains the pending events and
reloads only the loads whose recorded paths were touched; the reload is offered every
other recorded path as verified (:attr:`wskit.changes.Memo.verified`), so it costs what
the edit touched, not a ``stat`` of every recorded path, and no walk.

**Why no event means no change (the barrier).** inotify queues an event inside the
system call that made the change (``write``, ``rename``, ``unlink``, ``chmod``,
``symlink``…): the kernel's ``fsnotify`` hook runs before the call returns. A resolve
drains the descriptor without blocking before it decides, so every change whose call
returned before the resolve began is in what it drained. No thread sits between the
kernel and the check, hence no sentinel write is needed; the delivery of an event through
a thread (``watchfiles``' Rust loop, which sleeps ``step_ms`` between looks) would need
one. A change made concurrently with the resolve may or may not be seen, exactly as with
a fresh load made at that moment.

**What a watch covers, and what is stat-checked instead.** A recorded path is covered by
a watch on its folder (a child's write, truncation, chmod, creation, removal or rename is
reported there) and, for a folder, by a watch on itself (an entry added or removed in
it). A path whose folder does not exist is covered by the watch of its nearest existing
ancestor, keyed by the first missing name (creating that folder is reported). Every
watched folder's ancestors up to ``/`` are watched too, so renaming any of them is seen
(``IN_MOVE_SELF``); watches never follow links (``IN_DONT_FOLLOW``). A path is *not*
covered, and is checked by ``stat`` on every resolve as before, when a folder on its way
is a symbolic link (a retarget elsewhere would not be reported), when its file system is
not a local one (:data:`LOCAL_FILE_SYSTEMS`: NFS, SMB, FUSE report no remote change),
when a path read following links is itself a link, or when a watch cannot be added.

**When notifications cannot be trusted, the stat check takes over.** The watcher is
*void* for a load — which then gets today's check (:meth:`wskit.changes.Dependencies.changed`,
one ``stat`` per recorded path, racy recordings reloaded) and is proven again by it —
when the kernel reports a queue overflow (``IN_Q_OVERFLOW``: events were dropped; every
proof made before is void, and every watch is dropped and added again by the next check,
since a rename lost in the overflow would leave a watch on a folder its path no longer
names), when the watch limit is reached (``ENOSPC``:
``fs.inotify.max_user_watches``), when the descriptor fails, or when the package or the
platform is missing (then nothing is watched at all). ``watchfiles`` was not used:
its notify back-end turns ``IN_Q_OVERFLOW`` into an event without a path, which it drops,
so an overflow could not be told from a quiet tree.

**Proving a new load.** A load's paths are covered from the moment their watches exist.
A path covered by a watch added *before* the load began is proven by the absence of an
event (events drained while the load ran are applied to it). A path whose watch was
added after the load began is proven by one ``stat`` after the watch exists, compared
with the recorded signature, and only when that signature was not racy at the load's
start (a write in the same clock tick as the read keeps the mtime; see
:mod:`wskit.changes`); otherwise the load is reloaded at its next resolve, under watches.
Reads a lazy index makes after its load returned (:func:`wskit.changes.resumed`) are
proven the same way at the next resolve.

A recorded file also gets a watch of its own: a hard link made elsewhere changes only its
link count, which the kernel reports to the file and not to its folder (safe file access
refuses a file with more than one link, so a fresh load would answer differently).

Limits: watches are kept for the watcher's life (a cache that loads many workspaces in turn
may reach the watch limit; it then falls back to the stat check, as above); an event queue
the process does not drain for long (no resolve) may overflow, which costs one stat check.
"""

from __future__ import annotations

import errno
import os
import stat as stat_mod
import sys
import threading
import time
import weakref
from collections.abc import Iterable

from wskit.changes import RACY_WINDOW_NS, Dependencies, Signature, stat_signature


class WatchUnavailable(RuntimeError):
    """No notifications here: the ``wskit[watch]`` extra is not installed, the platform
    has no inotify, or inotify refused an instance (``fs.inotify.max_user_instances``)."""


#: File system types whose changes are all made through this kernel, so reported.
LOCAL_FILE_SYSTEMS = frozenset({
    "ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "ramfs", "f2fs", "jfs", "reiserfs", "bcachefs",
    "overlay", "zfs", "vfat", "exfat", "hfsplus",
})

# inotify(7) masks, as in <sys/inotify.h> (kept here so the module imports without the extra)
_MODIFY, _ATTRIB, _CLOSE_WRITE = 0x2, 0x4, 0x8
_MOVED_FROM, _MOVED_TO, _CREATE, _DELETE = 0x40, 0x80, 0x100, 0x200
_DELETE_SELF, _MOVE_SELF = 0x400, 0x800
_UNMOUNT, _Q_OVERFLOW, _IGNORED = 0x2000, 0x4000, 0x8000
_ONLYDIR, _DONT_FOLLOW, _ISDIR = 0x01000000, 0x02000000, 0x40000000
_MASK = (_MODIFY | _ATTRIB | _CLOSE_WRITE | _MOVED_FROM | _MOVED_TO | _CREATE | _DELETE | _DELETE_SELF
         | _MOVE_SELF | _ONLYDIR | _DONT_FOLLOW)
#: a recorded file's own watch: a hard link made elsewhere changes only its link count,
#: which the kernel reports to the file, not to its folder (safe file access refuses a
#: file with more than one link, so a fresh load would answer differently)
_FILE_MASK = _ATTRIB | _DELETE_SELF | _MOVE_SELF | _DONT_FOLLOW
_STRUCTURAL = _MOVED_FROM | _MOVED_TO | _CREATE | _DELETE
_SELF_GONE = _DELETE_SELF | _MOVE_SELF | _UNMOUNT | _IGNORED
#: bytes read from the descriptor per call (a full default queue is ≈ 16,384 × 32 bytes)
_READ_CHUNK = 1 << 16
#: reads per drain at most (64 MiB); more means events arrive faster than they are read
_MAX_CHUNKS = 1024
#: touched paths kept for :meth:`Watcher.touched_since` (a lazy index's late reads)
_LOG_PATHS = 50_000
_DIR_TYPE = stat_mod.S_IFDIR >> 12
_UNKNOWN = (False, -1)
_LINK_TYPE = stat_mod.S_IFLNK >> 12


def _sig_type(sig: Signature) -> int:
    return sig[0]  # the type bits come first, packed or not


def _sig_mtime(sig: Signature) -> int:
    if type(sig) is tuple:
        return sig[4]
    import struct

    return struct.unpack_from("<q", sig, 1 + 8 + 8 + 8)[0]


class Proof:
    """What a watcher knows of one load: the keys whose touch makes it stale.

    :ivar stale: why the load must be reloaded (a path), or None.
    :ivar uncovered: recorded paths no watch covers, with their signatures: stat-checked
        on every resolve (:meth:`Watcher.check`).
    """

    __slots__ = ("keys", "dirs", "anchored", "uncovered", "stale", "epoch", "seq0", "t0", "upto", "hit",
                 "pending", "pending_gone", "serial0", "__weakref__")

    def __init__(self, epoch: int, seq0: int, t0: int, serial0: int = 0) -> None:
        #: the watcher's drain serial when the load began (:meth:`Watcher.touched_since`)
        self.serial0 = serial0
        self.keys: set[str] = set()
        self.dirs: set[str] = set()
        #: path -> its key, for absent paths keyed by their first missing folder
        self.anchored: dict[str, str] = {}
        self.uncovered: dict[tuple[str, bool], Signature | None] = {}
        self.stale: str | None = None
        self.epoch, self.seq0, self.t0 = epoch, seq0, t0
        #: how many of the load's recorded paths are covered (later ones: a lazy index's reads)
        self.upto = 0
        #: keys touched since the proof was made (what a reload must not take as verified)
        self.hit: set[str] = set()
        #: while the load runs: every path touched, applied when it ends
        self.pending: set[str] | None = set()
        self.pending_gone: set[str] = set()

    def verified(self, paths: dict) -> dict:
        """The recorded ``(path, follow) -> signature`` items a reload may take as current:
        all but those touched and those no watch covers (empty after a lost folder)."""
        if self.stale in ("<gone>", "<racy>"):
            return {}
        hit, anchored, uncovered = self.hit, self.anchored, self.uncovered
        return {k: s for k, s in paths.items()
                if k[0] not in hit and k not in uncovered and anchored.get(k[0], k[0]) not in hit}


class Watcher:
    """One inotify instance shared by a cache's loads (thread-safe; no thread of its own).

    :param local_file_systems: file system types whose paths may be covered (default
        :data:`LOCAL_FILE_SYSTEMS`; tests narrow it to force the stat check).
    :raises WatchUnavailable: see the class.
    """

    def __init__(self, *, local_file_systems: frozenset[str] = LOCAL_FILE_SYSTEMS) -> None:
        if not sys.platform.startswith("linux"):
            raise WatchUnavailable(f"no inotify on {sys.platform}: changes are found by stat")
        try:
            import inotify_simple
        except ImportError:
            raise WatchUnavailable("the wskit[watch] extra (inotify_simple) is not installed") from None
        try:
            self._ino = inotify_simple.INotify(nonblocking=True)
        except OSError as err:
            raise WatchUnavailable(f"inotify refused an instance ({err.strerror or err}; "
                                   "fs.inotify.max_user_instances)") from None
        self._parse = inotify_simple.parse_events
        self._lock = threading.RLock()
        self._wd: dict[int, str] = {}
        #: folder -> (covered, sequence number of its watch); absent: not looked at yet
        self._dirs: dict[str, tuple[bool, int]] = {}
        #: recorded file -> its own watch descriptor (:data:`_FILE_MASK`)
        self._files: dict[str, int] = {}
        self._seq = 0
        #: bumped when notifications were lost (overflow, failure): every older proof is void
        self.epoch = 0
        #: why no new watch can be added (the stat check covers the rest), or None
        self.failure: str | None = None
        self.overflows = 0
        self._local = local_file_systems
        self._fs_types: dict[int, str] | None = None
        self._proofs: weakref.WeakSet[Proof] = weakref.WeakSet()
        self.closed = False
        #: recent drains that touched something: ``(serial, touched)``, for paths a lazy
        #: index reads after its load (:meth:`extend`); at most :data:`_LOG_PATHS` paths kept
        self._log: list[tuple[int, frozenset[str]]] = []
        self._log_size = 0
        self._serial = 0
        self._log_floor = 0  # drains up to this serial may have left the log

    # -- lifecycle -----------------------------------------------------------------

    def close(self) -> None:
        """Close the descriptor (every watch goes with it); later checks fall back to stat."""
        with self._lock:
            if not self.closed:
                self.closed = True
                self.failure = "closed"
                self.epoch += 1
                try:
                    self._ino.close()
                except OSError:
                    pass  # the descriptor failed already; nothing is left to release

    def fileno(self) -> int:
        """The inotify descriptor (readable when events are pending), for a caller's poll loop."""
        return self._ino.fileno()

    def watched(self) -> int:
        """How many folders and files are watched."""
        with self._lock:
            return len(self._wd)

    # -- events ----------------------------------------------------------------------

    def drain(self) -> None:
        """Read every pending event and apply it to every proof (never blocks).

        A queue overflow or a failed read voids every proof (:attr:`epoch`)."""
        with self._lock:
            if self.closed:
                return
            touched: set[str] = set()
            gone: set[str] = set()
            lost = False
            fd = self._ino.fileno()
            for _ in range(_MAX_CHUNKS):
                try:
                    data = os.read(fd, _READ_CHUNK)
                except BlockingIOError:
                    break
                except OSError as err:
                    self._fail(f"reading inotify failed ({err.strerror or err})")
                    return
                if not data:
                    break
                for wd, mask, _cookie, name in self._parse(data):
                    if mask & _Q_OVERFLOW:
                        lost = True
                        continue
                    folder = self._wd.get(wd)
                    if folder is None:
                        continue
                    if name:
                        path = folder + name if folder.endswith("/") else f"{folder}/{name}"
                        touched.add(path)
                        if mask & _STRUCTURAL:
                            touched.add(folder)
                            self._drop_file(path)
                            if mask & _ISDIR and mask & (_MOVED_FROM | _DELETE):
                                gone.add(path)
                    else:
                        touched.add(folder)
                        if mask & _SELF_GONE:
                            if folder in self._files:
                                self._drop_file(folder)
                            else:
                                gone.add(folder)
            else:
                lost = True  # a writer outpaces the reader: treat as lost, as an overflow
            if lost:
                self.overflows += 1
                self.epoch += 1
                # a lost rename would leave a watch on an inode its path no longer names:
                # start over; the next check of each load re-adds its watches, then stats
                self._unwatch_all()
                return
            if gone:
                self._forget(gone)
            if touched or gone:
                self._remember(touched | gone)
                self._apply(touched, gone)

    def _remember(self, touched: set[str]) -> None:
        self._serial += 1
        self._log.append((self._serial, frozenset(touched)))
        self._log_size += len(touched)
        while self._log_size > _LOG_PATHS and len(self._log) > 1:
            serial, old = self._log.pop(0)
            self._log_size -= len(old)
            self._log_floor = serial

    def touched_since(self, serial: int) -> set[str] | None:
        """Every path touched in drains after ``serial``, or None when some of those drains
        are no longer kept (then a caller proves by ``stat``)."""
        if serial < self._log_floor:
            return None
        out: set[str] = set()
        for s, touched in reversed(self._log):
            if s <= serial:
                break
            out |= touched
        return out

    def _apply(self, touched: set[str], gone: set[str]) -> None:
        for proof in list(self._proofs):
            if proof.pending is not None:
                proof.pending |= touched
                proof.pending_gone |= gone
                continue
            hits = touched & proof.keys
            if hits:
                proof.hit |= hits
                if proof.stale is None:
                    proof.stale = min(hits)
            for g in gone:
                prefix = g + "/"
                if any(d == g or d.startswith(prefix) for d in proof.dirs):
                    proof.stale = "<gone>"
                    break

    def _forget(self, gone: set[str]) -> None:
        """Drop the watches of folders that moved or vanished, and of everything below them
        (a moved folder's watches follow it: their paths no longer name them)."""
        prefixes = tuple(g + "/" for g in gone)
        for path in [f for f in self._files if f.startswith(prefixes)]:
            self._drop_file(path)
        wds = {f: wd for wd, f in self._wd.items()}
        for folder in [d for d in self._dirs if d in gone or d.startswith(prefixes)]:
            covered, _seq = self._dirs.pop(folder)
            wd = wds.get(folder)
            if covered and wd is not None:
                del self._wd[wd]
                try:
                    self._ino.rm_watch(wd)
                except OSError:
                    pass  # already removed by the kernel (IN_IGNORED)

    def _unwatch_all(self) -> None:
        for wd in list(self._wd):
            try:
                self._ino.rm_watch(wd)
            except OSError:
                pass  # already removed by the kernel
        self._wd.clear()
        self._dirs.clear()
        self._files.clear()

    def _drop_file(self, path: str) -> None:
        wd = self._files.pop(path, None)
        if wd is not None and self._wd.get(wd) == path:
            del self._wd[wd]
            try:
                self._ino.rm_watch(wd)
            except OSError:
                pass  # already removed by the kernel

    def _cover_file(self, path: str) -> int:
        """Watch the file ``path`` itself: 1 when a watch was added now, 0 when it had one,
        -1 when none can be added (then the file is stat-checked)."""
        if path in self._files:
            return 0
        try:
            wd = self._ino.add_watch(path, _FILE_MASK)
        except OSError as err:
            if err.errno == errno.ENOSPC:
                self._fail("the inotify watch limit was reached (fs.inotify.max_user_watches)")
            return -1
        if self._wd.get(wd, path) != path:  # one inode under two recorded names
            return -1
        self._wd[wd] = path
        self._files[path] = wd
        return 1

    def _fail(self, why: str) -> None:
        self.failure = why
        self.epoch += 1

    # -- watches ---------------------------------------------------------------------------

    def _fs_type(self, dev: int) -> str:
        if self._fs_types is None:
            self._fs_types = _mount_types()
        return self._fs_types.get(dev, "")

    def _cover(self, folder: str) -> tuple[bool, int]:
        """Watch ``folder`` and its ancestors: ``(covered, sequence number of the watch)``."""
        if self.failure is not None:
            return False, -1  # after a failure nothing counts as covered: the stat check decides
        known = self._dirs.get(folder)
        if known is not None:
            return known
        parent = os.path.dirname(folder)
        if parent != folder:
            ok, _ = self._cover(parent)
            if not ok:
                self._dirs[folder] = (False, -1)
                return False, -1
        try:
            st = os.lstat(folder)
        except OSError:
            return False, -1  # not remembered: it may exist later
        if not stat_mod.S_ISDIR(st.st_mode) or self._fs_type(st.st_dev) not in self._local:
            self._dirs[folder] = (False, -1)
            return False, -1
        try:
            wd = self._ino.add_watch(folder, _MASK)
        except OSError as err:
            if err.errno == errno.ENOSPC:
                self._fail("the inotify watch limit was reached (fs.inotify.max_user_watches)")
            if err.errno == errno.ENOENT:
                return False, -1
            self._dirs[folder] = (False, -1)
            return False, -1
        if self._wd.get(wd, folder) != folder:  # the same folder under two names (a bind mount)
            self._dirs[folder] = (False, -1)
            return False, -1
        self._wd[wd] = folder
        seq = self._seq
        self._seq += 1
        self._dirs[folder] = (True, seq)
        return True, seq

    # -- proofs ------------------------------------------------------------------------------

    def begin(self) -> Proof:
        """Call as a load starts: collects what is touched while it runs."""
        with self._lock:
            self.drain()
            proof = Proof(self.epoch, self._seq, time.time_ns(), self._serial)
            self._proofs.add(proof)
            return proof

    def finish(self, proof: Proof, paths: dict) -> Proof:
        """Cover the load's recorded ``paths`` (``(path, follow) -> signature``) and prove
        them (module doc); returns ``proof``, stale when it could not be proven."""
        with self._lock:
            items = tuple(paths.items())
            self._extend(proof, items, verify_all=False)
            self.drain()  # what happened while the load ran and the watches were added
            touched, proof.pending = proof.pending or set(), None
            gone, proof.pending_gone = proof.pending_gone, set()
            hits = touched & proof.keys
            if hits:
                proof.hit |= hits
                proof.stale = proof.stale or min(hits)
            for g in gone:
                prefix = g + "/"
                if any(d == g or d.startswith(prefix) for d in proof.dirs):
                    proof.stale = "<gone>"
            proof.upto = len(items)
            return proof

    def reprove(self, paths: dict, t0: int | None) -> Proof:
        """A proof of a load whose old proof is void (overflow, failure), made by covering
        every path and then stat-checking every one of them (today's check). ``t0``: when
        that load began (paths modified since its racy window before are not proven), or
        None when unknown (then the caller checks the recording's own racy flag)."""
        with self._lock:
            self.drain()
            proof = Proof(self.epoch, self._seq, t0 if t0 is not None else 0, self._serial)
            proof.pending = None
            self._proofs.add(proof)
            items = tuple(paths.items())
            self._extend(proof, items, verify_all=True)
            proof.upto = len(items)
            return proof

    def extend(self, proof: Proof, paths: dict) -> None:
        """Cover and prove the paths recorded after ``proof.upto`` (a lazy index's reads,
        made after the load began): one whose folder was watched before the load began is
        proven unless a drain since then touched it; others by ``stat`` (module doc)."""
        with self._lock:
            items = tuple(paths.items())
            if len(items) > proof.upto:
                late = items[proof.upto:]
                touched = self.touched_since(proof.serial0)
                self._extend(proof, late, verify_all=touched is None)
                if touched:
                    for (path, _follow), _sig in late:
                        key = proof.anchored.get(path, path)
                        if key in touched and key in proof.keys:
                            proof.hit.add(key)
                            proof.stale = proof.stale or key
                proof.upto = len(items)

    def _extend(self, proof: Proof, items: Iterable, verify_all: bool) -> None:
        to_verify: list[tuple[tuple[str, bool], Signature | None]] = []
        links_to_check: list[str] = []
        for key, sig in items:
            path, follow = key
            if sig is not None and follow and _sig_type(sig) != _DIR_TYPE:
                try:
                    if stat_mod.S_ISLNK(os.lstat(path).st_mode):
                        proof.uncovered[key] = sig
                        continue
                except OSError:
                    pass
            parent = os.path.dirname(path)
            folders = [parent]
            name = path
            own = False  # the file gets its own watch (link count)
            if sig is not None and _sig_type(sig) != _DIR_TYPE and not follow:
                own = True
            if sig is None:
                # absent: covered by its nearest existing ancestor, keyed by the first missing name
                # (a watched folder exists: had it gone, the drain before this would have said so)
                while parent != os.path.dirname(parent) and not self._dirs.get(parent, _UNKNOWN)[0] \
                        and not os.path.isdir(parent):
                    name, parent = parent, os.path.dirname(parent)
                folders = [parent]
                if name != path:
                    proof.anchored[path] = name
            elif _sig_type(sig) == _DIR_TYPE:
                folders.append(path)
            fresh = verify_all
            for folder in folders:
                ok, seq = self._cover(folder)
                if not ok:
                    proof.uncovered[key] = sig
                    break
                proof.dirs.add(folder)
                if seq >= proof.seq0:
                    fresh = True
            else:
                if own:
                    added = self._cover_file(path)
                    if added < 0:
                        proof.uncovered[key] = sig
                        continue
                    if added:
                        links_to_check.append(path)
                proof.keys.add(name)
                if fresh:
                    to_verify.append((key, sig))
        self.drain()
        # a file read had one link (safe file access refuses more); one made before its own
        # watch existed is found here, after (a link count is no mtime: no racy window)
        for path in links_to_check:
            try:
                st = os.lstat(path)
            except OSError:
                continue  # gone: its folder's watch reported it
            if stat_mod.S_ISREG(st.st_mode) and st.st_nlink > 1:
                proof.stale = proof.stale or path
                proof.hit.add(path)
        # watches exist now: a path unchanged by stat and not racy when the load began is current
        threshold = proof.t0 - RACY_WINDOW_NS
        for (path, follow), sig in to_verify:
            now = stat_signature(path, follow)
            if now != sig:
                proof.stale = proof.stale or path
                proof.hit.add(proof.anchored.get(path, path))
            elif sig is not None and _sig_mtime(sig) > threshold:
                proof.stale = proof.stale or path
                proof.hit.add(proof.anchored.get(path, path))

    def check(self, proof: Proof | None, deps: Dependencies) -> tuple[Proof | None, str | None]:
        """Whether the load that recorded ``deps`` (proven by ``proof``) is still current:
        ``(proof, None)`` when it is, ``(proof, why)`` when it must be reloaded (``why``: a
        path, ``"<racy>"`` or ``"<gone>"``). A void or missing proof is replaced by one the
        stat check makes (:meth:`reprove`); a closed watcher gives today's check."""
        paths = deps._paths
        with self._lock:
            if self.closed:
                return None, deps.changed()
            self.drain()
            if proof is None or proof.epoch != self.epoch:
                proof = self.reprove(paths, proof.t0 if proof is not None else None)
                if proof.t0 == 0 and deps.racy:
                    proof.stale = proof.stale or "<racy>"
                return proof, proof.stale or _uncovered_changed(proof)
            if proof.stale is not None:
                return proof, proof.stale
            if len(paths) > proof.upto:
                self.extend(proof, paths)
                if proof.stale is not None:
                    return proof, proof.stale
            return proof, _uncovered_changed(proof)


def _uncovered_changed(proof: Proof) -> str | None:
    threshold = proof.t0 - RACY_WINDOW_NS
    for (path, follow), sig in proof.uncovered.items():
        if stat_signature(path, follow) != sig:
            return path
        if sig is not None and _sig_mtime(sig) > threshold:
            return "<racy>"
    return None


def _mount_types() -> dict[int, str]:
    """``st_dev -> file system type`` of every mount (``/proc/self/mountinfo``, bounded read)."""
    out: dict[int, str] = {}
    limit = 4 << 20  # bytes; a longer table is not trusted: every path is stat-checked then
    try:
        with open("/proc/self/mountinfo", "rb") as f:
            raw = f.read(limit + 1)
    except OSError:
        return out
    if len(raw) > limit:
        return out
    text = raw.decode("utf-8", "replace")
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields = left.split()
        if not sep or len(fields) < 3:
            continue
        major, _, minor = fields[2].partition(":")
        try:
            dev = os.makedev(int(major), int(minor))
        except ValueError:
            continue
        out[dev] = right.split(" ", 1)[0]
    return out
