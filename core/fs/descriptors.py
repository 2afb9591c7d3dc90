"""The descriptor-level primitives of safe file access: the ``open`` flags, opening a
folder chain below a base without following links, opening a file in an open folder
(``stat`` first, so a FIFO or device is never opened), bounded reads, and the mapping of
an ``OSError`` to a :class:`~wskit.errors.SafeFsError` code.

:mod:`wskit.fs.read` and :mod:`wskit.fs.scan` are built on these; so are the fast paths
that keep descriptors open across a walk (:mod:`wskit.fs.fdwalk`, the skills and rules
built-ins), which must refuse exactly what a plain read refuses.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable

from wskit.errors import SafeFsError
from wskit.fs.paths import check_not_secret

O_BASE = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
MIN_HEAD_STEP = 32


def oserror(err: OSError, shown: str, *, final: bool) -> SafeFsError:
    if err.errno == errno.ENOENT:
        return SafeFsError("not-found", shown, "no such file")
    if err.errno in (errno.ELOOP, errno.EMLINK):
        return SafeFsError("symlink", shown, "refusing to follow a symbolic link")
    if err.errno == errno.ENOTDIR:
        what = "a path component is not a folder"
        return SafeFsError("not-found" if not final else "not-a-file", shown, what)
    if err.errno == errno.ENXIO:
        return SafeFsError("special-file", shown, "refusing a socket or special file")
    if err.errno == errno.EISDIR:
        return SafeFsError("not-a-file", shown, "is a folder, not a file")
    return SafeFsError("io-error", shown, f"{err.strerror or err}")


def open_dir_chain(base: str, parts: list[str], shown: str, follow: bool) -> int:
    """Open ``base/parts…`` as a folder fd, refusing links unless ``follow``."""
    try:
        fd = os.open(base, O_BASE | O_DIRECTORY)
    except OSError as err:
        raise oserror(err, shown, final=False) from None
    try:
        for part in parts:
            flags = O_BASE | O_DIRECTORY | (0 if follow else O_NOFOLLOW)
            try:
                nfd = os.open(part, flags, dir_fd=fd)
            except OSError as err:
                if err.errno in (errno.ENOTDIR, errno.ELOOP) and not follow and is_link(part, fd):
                    raise SafeFsError("symlink", shown, f"refusing to follow the symbolic link {part!r}") from None
                raise oserror(err, shown, final=False) from None
            os.close(fd)
            fd = nfd
    except BaseException:
        os.close(fd)
        raise
    return fd


def is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


#: Where Linux shows what an open descriptor points at (None: not used; tests switch it off).
PROC_FD: str | None = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else None
#: ``fcntl.F_GETPATH`` (macOS, some BSDs): the path of an open descriptor (None: not available).
try:
    import fcntl as _fcntl

    F_GETPATH: int | None = getattr(_fcntl, "F_GETPATH", None)
except ImportError:  # pragma: no cover - Windows
    _fcntl = None  # type: ignore[assignment]
    F_GETPATH = None


def opened_path(fd: int, expected: str | None = None) -> str | None:
    """Where the open descriptor ``fd`` really points, immune to a swap after opening,
    or None when this platform cannot tell (callers then fail closed).

    In order: Linux's ``/proc/self/fd/<fd>`` (:data:`PROC_FD`); macOS's and the
    BSDs' ``fcntl(fd, F_GETPATH)`` (:data:`F_GETPATH`); else, when ``expected``
    is given, the file at ``expected`` is the open one (same device and inode
    as ``fstat(fd)``, and a single link, so that name is its only one).

    :param expected: the path the caller resolved before opening (``realpath``).
    """
    if PROC_FD is not None:
        try:
            return os.readlink(f"{PROC_FD}/{fd}")
        except OSError:
            pass
    if F_GETPATH is not None and _fcntl is not None:
        try:
            raw = _fcntl.fcntl(fd, F_GETPATH, b"\0" * 1024)
            return os.fsdecode(raw.split(b"\0", 1)[0])
        except OSError:
            pass
    if expected is not None:
        try:
            st, at = os.fstat(fd), os.stat(expected, follow_symlinks=False)
        except OSError:
            return None
        if (st.st_dev, st.st_ino) == (at.st_dev, at.st_ino) and st.st_nlink == 1:
            return expected
    return None


def check_target_not_secret(base: str, target: str, shown: str) -> None:
    """A followed link must not lead into a secret (``~/.ssh/id_rsa``, ``.env`` …):
    the secret check applies to where the link points, not only to its name.
    Components of the base folder itself are not judged."""
    real_base = os.path.realpath(base)
    try:
        rel = os.path.relpath(target, real_base)
    except ValueError:  # pragma: no cover - other drive
        rel = target
    parts = [p for p in (target if rel.startswith("..") else rel).split(os.sep) if p]
    try:
        check_not_secret(parts, shown)
    except SafeFsError as err:
        raise SafeFsError("secret-path", shown, f"link leads to a secret-looking path: {err.args[0]}") from None


def open_in(
    dfd: int, name: str, shown: str, follow_links: bool, base: str = "", link_target: str | None = None
) -> tuple[int, os.stat_result, str | None]:
    """Open the regular file ``name`` inside the folder ``dfd``: ``stat`` first (no
    FIFO, device or folder is ever opened), ``O_NONBLOCK`` (and ``O_NOFOLLOW``
    unless ``follow_links``), then ``fstat``: the same file, still regular, one link.
    ``link_target`` (follow mode: ``realpath`` of ``shown`` when it differs) is
    re-read from the open descriptor and must not be a secret under ``base``.

    :returns: ``(fd, fstat result, link target)``; the caller closes ``fd``.
    :raises SafeFsError: ``symlink``, ``not-a-file``, ``special-file``, ``hardlink``,
        ``not-found``, ``io-error``, naming ``shown``.
    """
    try:
        pre = os.stat(name, dir_fd=dfd, follow_symlinks=follow_links)
    except OSError as err:
        raise oserror(err, shown, final=True) from None
    if not stat.S_ISREG(pre.st_mode):
        if stat.S_ISLNK(pre.st_mode):
            raise SafeFsError("symlink", shown, "refusing to follow a symbolic link")
        if stat.S_ISDIR(pre.st_mode):
            raise SafeFsError("not-a-file", shown, "is a folder, not a file")
        raise SafeFsError("special-file", shown, "refusing a FIFO, socket or device node")
    flags = O_BASE | O_NONBLOCK | (0 if follow_links else O_NOFOLLOW)
    try:
        fd = os.open(name, flags, dir_fd=dfd)
    except OSError as err:
        raise oserror(err, shown, final=True) from None
    try:
        if link_target is not None:
            verified = opened_path(fd, link_target)
            if verified is None:  # fail closed: a link whose target cannot be verified is not followed
                raise SafeFsError("symlink", shown, "cannot verify where this link leads on this platform; "
                                  "not followed")
            link_target = verified
            check_target_not_secret(base, link_target, shown)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (pre.st_dev, pre.st_ino):
            raise SafeFsError("special-file", shown, "file changed into a non-regular file while opening")
        if st.st_nlink > 1:
            raise SafeFsError("hardlink", shown, f"refusing a hard-linked file ({st.st_nlink} links)")
    except BaseException:
        os.close(fd)
        raise
    return fd, st, link_target


def read_all(fd: int, size: int, max_bytes: int | None) -> bytes | None:
    """Read the open file ``fd`` to its end (``size``: its ``fstat`` size in bytes, the
    first read's hint), or None when it grows over ``max_bytes`` while being read."""
    chunks = []
    remaining = size if max_bytes is None else max_bytes + 1
    while True:
        chunk = os.read(fd, min(1 << 20, max(remaining, 1 << 16)))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
        if max_bytes is not None and remaining <= 0:
            return None
    return b"".join(chunks)


def read_head_raw(
    fd: int, size: int, done: Callable[[bytes], bool], max_bytes: int, chunk_size: int
) -> tuple[bytes, bool]:
    """The reads of :func:`_read_head_fd` (``size``: the ``fstat`` size): ``(head, complete)``; closes ``fd``."""
    try:
        buf = b""
        step = chunk_size
        while len(buf) < max_bytes:
            chunk = os.read(fd, min(step, max_bytes - len(buf)))
            if not chunk:
                return buf, True
            buf += chunk
            if done(buf):
                break
            step = max(MIN_HEAD_STEP, len(buf) >> 3)
        return buf, len(buf) >= size
    finally:
        os.close(fd)

