"""The entry points of group ``wskit``, read once per environment and kept in the
wskit state folder.

``importlib.metadata.entry_points(group="wskit")`` imports ``importlib.metadata``
and parses every installed distribution's metadata, on every start. Its answer is
stored in ``<prefix>/.wskit/cache/entry-points.json`` of the virtual environment
(:func:`environment_state_dir`; else ``<state>/cache/entry-points.json`` of the home)
with the *signature of the environment* it was read from; a later process reuses it only when the signature
is the same:

- the interpreter (``sys.version``, ``sys.prefix``), wskit's version and ``sys.path`` as a list;
- for every ``sys.path`` folder: its ``stat`` (device, inode, mtime, ctime), which
  changes when a distribution is installed or removed there (its ``.dist-info`` or
  ``.egg-info`` folder is created or deleted);
- for every ``*.dist-info`` / ``*.egg-info`` in those folders: the ``stat`` of its
  ``entry_points.txt`` (missing or present, size, mtime, inode), so an edited
  entry-point table is seen too.

Besides the latest reading the file keeps up to :data:`MAX_OTHER_SLOTS` earlier ones
(``"others"``, newest first, each a ``signature`` and its ``entry_points``), so that
processes of one environment with different ``sys.path`` lists — the ``wsctl`` script
(``sys.path[0]`` its ``bin`` folder) and a host's ``python -c`` (``''``) — do not rescan
each time they alternate. A signature is stored as its compact JSON text (one string, compared
as text): parsing eight signatures of an environment with ~150 distributions as nested lists
cost ≈ 0.6 ms of every start, as strings ≈ 0.1 ms.

Anything else — a missing, unreadable, oversized, linked or malformed file, another
format version — is a miss: the entry points are read with ``importlib.metadata``
and the file is rewritten. The file is state, read and written with :mod:`wskit.fs.atomic`'s folder
walk below the home (no link followed, a link or special file in its place
refused): written atomically (a new temp file + ``os.replace``; not synced: a file
lost in a crash is a miss), mode 0600, in folders made 0700, under an ``flock``
(a process that finds the lock held skips the write: the cache is only ever a
shortcut). It holds names, ``module:attr`` values and distribution
names and versions, never code; loading an entry point imports its module exactly
as :meth:`importlib.metadata.EntryPoint.load` does.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

#: version of the cache file's layout; another value is a miss (2: signatures stored as JSON text)
CACHE_FORMAT = 2
#: largest cache file read, in bytes (a bigger one is a miss)
MAX_CACHE_BYTES = 1024 * 1024
#: readings kept for other signatures of the same environment (another ``sys.path[0]``: a
#: ``wsctl`` script and a ``python -c`` host alternating), besides the latest one
MAX_OTHER_SLOTS = 7
_NAME = "entry-points.json"


class _Dist:
    """The ``dist`` of a cached entry point: its distribution's name and version."""

    __slots__ = ("name", "version")

    def __init__(self, name: str | None, version: str | None) -> None:
        self.name = name
        self.version = version


class CachedEntryPoint:
    """An entry point read from the cache: the attributes
    :func:`wskit.plugin.manager.make_plugin_manager` uses of
    :class:`importlib.metadata.EntryPoint` (``name``, ``value``, ``group``,
    ``dist.name``, ``dist.version``, :meth:`load`)."""

    __slots__ = ("name", "value", "group", "dist")

    def __init__(self, name: str, value: str, group: str, dist: str | None, version: str | None) -> None:
        self.name = name
        self.value = value
        self.group = group
        self.dist = _Dist(dist, version)

    def load(self) -> Any:
        """Import ``module`` of ``module:attr [extras]`` and return ``attr`` (dotted),
        or the module itself without ``:attr``; as ``EntryPoint.load``.

        :raises ImportError, AttributeError: as the import or lookup does.
        """
        from wskit.util.deferred import import_target

        return import_target(self.value.split("[", 1)[0])

    def __repr__(self) -> str:
        return f"CachedEntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r})"


def _stat_sig(st: os.stat_result) -> list[int]:
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def environment_signature(path: list[str] | None = None) -> list[Any]:
    """What the cache is keyed by (see the module doc), as JSON-able lists.

    :param path: the import path (default ``sys.path``).
    """
    from wskit import __version__

    path = list(sys.path if path is None else path)
    folders: list[Any] = []
    for entry in path:
        try:
            st = os.stat(entry or ".")
        except (OSError, ValueError):
            folders.append([entry, None])
            continue
        metas: list[Any] = []
        if stat.S_ISDIR(st.st_mode):
            try:
                with os.scandir(entry or ".") as it:
                    names = sorted(e.name for e in it if e.name.endswith((".dist-info", ".egg-info")))
            except OSError:
                names = []
            for name in names:
                try:
                    ep = os.stat(os.path.join(entry or ".", name, "entry_points.txt"))
                    metas.append([name, _stat_sig(ep)])
                except OSError:
                    metas.append([name, None])
        folders.append([entry, _stat_sig(st), metas])
    return [CACHE_FORMAT, sys.version, sys.prefix, __version__, folders]


def _read(file: Path) -> Any:
    from wskit.fs.atomic import read_state

    try:
        data = read_state(file, file.parent.parent.parent, max_bytes=MAX_CACHE_BYTES)
    except OSError:  # a link on the way, not a regular file, too large: a miss
        return None
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return None


def signature_text(signature: list[Any]) -> str:
    """How a signature is stored and compared: its compact JSON text."""
    return json.dumps(signature, separators=(",", ":"))


def _entries(raw: Any, signature: str, group: str) -> list[CachedEntryPoint] | None:
    """The entry points stored under ``signature`` (the latest slot or one of the
    others), or None."""
    if not isinstance(raw, dict) or raw.get("group") != group:
        return None
    if raw.get("signature") == signature:
        return _slot_entries(raw, group)
    others = raw.get("others")
    if isinstance(others, list):
        for slot in others[:MAX_OTHER_SLOTS]:
            if isinstance(slot, dict) and slot.get("signature") == signature:
                return _slot_entries(slot, group)
    return None


def _other_slots(raw: Any, signature: str) -> list[dict]:
    """The slots of ``raw`` (latest first) to keep beside a new reading under ``signature``."""
    if not isinstance(raw, dict):
        return []
    slots = [raw] + (raw.get("others") if isinstance(raw.get("others"), list) else [])
    out = []
    for slot in slots:
        if (isinstance(slot, dict) and isinstance(slot.get("signature"), str) and slot["signature"] != signature
                and isinstance(slot.get("entry_points"), list)):
            out.append({"signature": slot["signature"], "entry_points": slot["entry_points"]})
    return out[:MAX_OTHER_SLOTS]


def _slot_entries(raw: dict, group: str) -> list[CachedEntryPoint] | None:
    rows = raw.get("entry_points")
    if not isinstance(rows, list):
        return None
    out = []
    for row in rows:
        if (not isinstance(row, list) or len(row) != 4 or not all(isinstance(x, str) for x in row[:2])
                or not all(x is None or isinstance(x, str) for x in row[2:])):
            return None
        out.append(CachedEntryPoint(row[0], row[1], group, row[2], row[3]))
    return out


def _write(file: Path, payload: bytes) -> None:
    """Replace ``file`` by ``payload`` below the home (``file``'s folder's folder's
    folder) without following links (:func:`wskit.fs.atomic.state_dir`), under a
    non-blocking ``flock`` of ``<file>.lock`` (held by another process: skipped).
    A link or special file in the file's place is left alone. A new 0600 temp file
    (``O_EXCL``, ``O_NOFOLLOW``) is renamed over it without ``fsync``: after a
    crash the file may be empty or missing, which is a miss, never a wrong answer;
    syncing cost ≈ 15 ms per write, paid by every start with a fresh home."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - no flock: no cache
        return
    from wskit.fs.atomic import state_dir

    nofollow = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    name = file.name
    try:
        with state_dir(file, file.parent.parent.parent) as dfd:
            lock = os.open(f"{name}.lock", os.O_RDWR | os.O_CREAT | nofollow, 0o600, dir_fd=dfd)
            try:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    return  # another process is writing it
                try:
                    st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
                    if not stat.S_ISREG(st.st_mode):
                        return
                except FileNotFoundError:
                    pass
                tmp = f".{name}.{os.urandom(6).hex()}.tmp"
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow, 0o600, dir_fd=dfd)
                try:
                    with os.fdopen(fd, "wb") as fh:
                        fh.write(payload)
                    os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
                except BaseException:
                    try:
                        os.unlink(tmp, dir_fd=dfd)
                    except OSError:
                        pass
                    raise
            finally:
                os.close(lock)
    except OSError:  # a link on the way (refused), a read-only home…: no cache
        return


def cached_entry_points(group: str, state_dir: str | os.PathLike[str] | None) -> list[Any]:
    """The entry points of ``group``: from ``<state_dir>/cache/entry-points.json``
    when the environment's signature matches, else from ``importlib.metadata``
    (and then stored there).

    :param group: entry-point group (``"wskit"``).
    :param state_dir: the wskit state folder (``<home>/.wskit``); None reads
        ``importlib.metadata`` every time and writes nothing.
    :returns: :class:`CachedEntryPoint` or :class:`importlib.metadata.EntryPoint`
        objects, in ``importlib.metadata``'s order.
    """
    if state_dir is None:
        return _scan(group)
    env_dir = environment_state_dir()
    folder = Path(env_dir if env_dir is not None else state_dir) / "cache"
    signature = signature_text(environment_signature())
    stored = _read(folder / _NAME)
    hit = _entries(stored, signature, group)
    if hit is None and env_dir is not None:  # a home-kept copy from before the environment was usable
        hit = _entries(_read(Path(state_dir) / "cache" / _NAME), signature, group)
    if hit is not None:
        return hit
    found = _scan(group)
    rows = []
    for ep in found:
        dist = getattr(ep, "dist", None)
        rows.append([ep.name, ep.value, getattr(dist, "name", None), getattr(dist, "version", None)])
    others = _other_slots(stored, signature) if isinstance(stored, dict) and stored.get("group") == group else []
    payload = json.dumps({"format": CACHE_FORMAT, "group": group, "signature": signature,
                          "entry_points": rows, "others": others}).encode()
    if len(payload) <= MAX_CACHE_BYTES:
        _write(folder / _NAME, payload)
    return found


def environment_state_dir() -> Path | None:
    """Where the entry-point cache of this environment lives: ``<sys.prefix>/.wskit``
    of a virtual environment that belongs to the running user and that nobody else can
    write (the same trust as the code installed in it; the file is a cache of that
    environment, as ``__pycache__`` is of its modules), so that every home — a fresh one
    per run included — shares one reading. None (the home's state folder is used) outside
    a virtual environment, for a prefix owned by someone else or writable by group or
    others, or with ``WSKIT_ENV_CACHE=0``.
    """
    if os.environ.get("WSKIT_ENV_CACHE", "") in ("0", "false", "no") or sys.prefix == sys.base_prefix:
        return None
    try:
        st = os.stat(sys.prefix)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_mode & 0o022 or st.st_uid != os.geteuid():
        return None
    return Path(sys.prefix) / ".wskit"


def _scan(group: str) -> list[Any]:
    import importlib.metadata as md

    return list(md.entry_points(group=group))
