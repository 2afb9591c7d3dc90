"""The persistent index: one private state file per project, reused by a new process.

A capability keeps what it read of a project (folder signatures, listings, parsed
metadata) in ``<home>/.wskit/index/<digest of the root>.json`` so that the next
process checks it by ``stat`` instead of reading the project again (see
docs/performance.md, "The persistent index"). This module is the file mechanism
only; what is stored and how it is checked is the capability's
(:mod:`wskit.builtin_plugins.rules.persist`).

The file is a state file and its content is untrusted on read:

- read through :func:`wskit.fs.atomic.read_state` (no link below the home, a
  regular file only, non-blocking, at most :data:`MAX_INDEX_BYTES`), then
  refused unless owned by the current user with mode 0600;
- one header line of JSON — an object with ``format`` == :data:`FORMAT`, ``version`` ==
  the caller's version, ``root`` == the project asked about and ``payload`` == the length
  and CRC-32 of what follows the line — then the payload: the caller's bulk columns as
  raw bytes, decoded by the caller without a JSON parse (one read of the whole file,
  bounded; no object per stored row until the caller asks). Anything else (truncated or
  extended payload, a checksum that does not match, corrupt header, another version) is
  a refusal, never an exception: the caller loads afresh;
- written under the file's lock, atomically (temp file + rename in the opened
  folder), mode 0600, never larger than :data:`MAX_INDEX_BYTES`; not ``fsync``-ed
  (:func:`~wskit.fs.atomic.locked_replace` ``durable=False``): a file a system crash
  left partial is refused on read like any corrupt one.

At most :data:`MAX_INDEX_FILES` index files are kept per home: a write removes the least
recently written beyond that (regular files of the index names only, through the
folder's descriptor).

``WSKIT_INDEX=0`` in the environment, or ``HostProfile.settings["index"] = False``,
turns the index off (nothing read, nothing written).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
import zlib
from pathlib import Path
from typing import Any

from wskit.fs.atomic import StateFileError, locked_replace, read_state, state_dir

#: The ``format`` member of every index file.
FORMAT = "wskit-index"
#: The largest index file read or written (bytes): 16 MiB.
MAX_INDEX_BYTES = 16 * 1024 * 1024
#: The most index files kept in one home's index folder: after a write, the least
#: recently written beyond this many are removed (≈ 2 MB each for a 50,000-file project).
MAX_INDEX_FILES = 64
#: the names :func:`index_path` makes; nothing else in the folder is ever removed
_NAME = re.compile(r"[a-z]+-[0-9a-f]{32}\.json")


class IndexRefused(Exception):
    """An index file that exists but was not used: ``path`` (the file) and ``reason``."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"persistent index {path} not used: {reason}")
        self.path = path
        self.reason = reason


def enabled(profile) -> bool:
    """Whether the persistent index is on for ``profile`` (a
    :class:`~wskit.host.HostProfile`): it has a home, ``settings["index"]`` is not
    False and the environment variable ``WSKIT_INDEX`` is not ``0``."""
    if getattr(profile, "home", None) is None or os.environ.get("WSKIT_INDEX", "1").strip() in ("0", "false", "no"):
        return False
    settings = getattr(profile, "settings", None) or {}
    return settings.get("index", True) is not False


def index_path(home: str | os.PathLike[str], root: str, kind: str) -> Path:
    """The index file of project ``root`` (absolute, canonical) for capability ``kind``
    (a short ``[a-z]`` name): ``<home>/.wskit/index/<kind>-<sha256(root)[:32]>.json``."""
    from wskit.util.digest import sha256_hex

    digest = sha256_hex(os.fsencode(root))[:32]
    return Path(home) / ".wskit" / "index" / f"{kind}-{digest}.json"


def _check_private(path: Path) -> None:
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        raise StateFileError("not a regular file", errno.EINVAL)
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise StateFileError("not owned by the current user", errno.EPERM)
    if stat.S_IMODE(st.st_mode) != 0o600:
        raise StateFileError(f"mode {stat.S_IMODE(st.st_mode):04o}, not 0600", errno.EPERM)


def read_index(path: Path, home: str | os.PathLike[str], *, root: str,
               version: int) -> tuple[dict[str, Any], bytes] | None:
    """The index at ``path`` as ``(header, payload)``, or None when there is none.

    :param home: the anchor: no component between it and ``path`` may be a link.
    :param root: the project the index must be of.
    :param version: the format version the caller reads.
    :returns: the header (the JSON object of the first line: ``format``, ``version``,
        ``root`` and ``payload`` checked; the rest is the caller's to validate) and the
        payload bytes after it (exactly as long as the header says, with its CRC-32); None
        also for an index of an earlier version (written before an upgrade, a version-3
        whole-JSON file included: a miss, not a refusal).
    :raises IndexRefused: the file exists but is a link, not regular, not the
        user's, not 0600, over :data:`MAX_INDEX_BYTES`, a header that is not JSON, of
        another format, version or root, or a payload of another length or checksum.
        Never anything else for the file's content.
    """
    try:
        raw = read_state(path, home, max_bytes=MAX_INDEX_BYTES)
        if raw is None:
            return None
        _check_private(path)
    except FileNotFoundError:
        return None
    except (StateFileError, OSError) as err:
        raise IndexRefused(path, str(err)) from None
    cut = raw.find(b"\n")
    head, payload = (raw, b"") if cut < 0 else (raw[:cut], raw[cut + 1:])
    try:
        doc = json.loads(head)  # flat by construction; a deep document fails the checks below or RecursionError
    except (ValueError, RecursionError) as err:
        raise IndexRefused(path, f"corrupt ({str(err)[:100]})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise IndexRefused(path, "not a wskit index")
    found = doc.get("version")
    if type(found) is int and 0 < found < version:
        return None  # made by an earlier wskit (an upgrade): no index yet; this load rewrites it
    if found != version:
        raise IndexRefused(path, f"version {found!r}, not {version}")
    if doc.get("root") != root:
        raise IndexRefused(path, "made for another project")
    declared = doc.get("payload")
    if type(declared) is not list or len(declared) != 2 or not all(type(x) is int for x in declared):
        raise IndexRefused(path, "no payload length and checksum")
    if declared[0] != len(payload):
        raise IndexRefused(path, f"payload of {len(payload)} bytes, not {declared[0]} (truncated or extended)")
    if zlib.crc32(payload) != declared[1]:
        raise IndexRefused(path, "payload checksum does not match (corrupt)")
    return doc, payload


def write_index(path: Path, home: str | os.PathLike[str], doc: dict[str, Any], payload: bytes = b"", *,
                root: str, version: int) -> bool:
    """Write the header ``doc`` (JSON-able; ``format``, ``version``, ``root`` and ``payload``
    — the length and CRC-32 of ``payload`` — are added) on one line, then ``payload``, as
    the index at ``path``, under its lock, atomically, mode 0600 (folders 0700).

    :returns: True when written; False when it would exceed :data:`MAX_INDEX_BYTES`
        or the state folder refused the write (a link on the way, a special file):
        an index is an optimisation, its write never fails the caller.
    """
    body = dict(doc)
    body.update(format=FORMAT, version=version, root=root, payload=[len(payload), zlib.crc32(payload)])
    # one line: no raw newline in compact ASCII JSON (lone surrogates of undecodable names escaped)
    head = json.dumps(body, separators=(",", ":")).encode("ascii")
    if len(head) + 1 + len(payload) > MAX_INDEX_BYTES:
        return False
    data = b"".join((head, b"\n", payload))
    try:
        # not fsync-ed: a file a crash left partial is refused on read, and the load reads afresh
        locked_replace(path, data, anchor=home, mode=0o600, durable=False)
    except (StateFileError, OSError):
        return False
    _trim(path, home, MAX_INDEX_FILES)
    return True


def _trim(path: Path, home: str | os.PathLike[str], keep: int) -> None:
    """Remove the least recently written index files of ``path``'s folder beyond ``keep``
    (never ``path``): regular files named as :func:`index_path` names them, found and
    removed through the folder's descriptor (opened without following links), each with
    its lock file when no writer holds it. Errors are ignored: the cap is housekeeping."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: lock files are left in place
        fcntl = None
    try:
        with state_dir(path, home, create=False) as dfd:
            found = []
            for name in os.listdir(dfd):
                if name == path.name or not _NAME.fullmatch(name):
                    continue
                try:
                    st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode):
                    found.append((st.st_mtime_ns, name))
            if len(found) < keep:
                return
            found.sort()
            for _mtime, name in found[: len(found) - keep + 1]:
                with contextlib.suppress(OSError):
                    os.unlink(name, dir_fd=dfd)
                _unlink_lock(dfd, name + ".lock", fcntl)
    except (StateFileError, OSError):
        return


def _unlink_lock(dfd: int, name: str, fcntl) -> None:
    """Remove the lock file ``name`` (a regular file, not a link) when no process holds it."""
    if fcntl is None:
        return
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_CLOEXEC", 0), dir_fd=dfd)
    except OSError:
        return
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held by a writer: left in place
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=dfd)
    except OSError:
        return
    finally:
        os.close(fd)
