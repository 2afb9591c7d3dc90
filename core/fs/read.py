"""Opening and reading files safely: :func:`read_bytes`, :func:`read_head`, the descriptor
chain every other part of :mod:`wskit.fs` opens folders with."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from wskit import changes
from wskit.errors import SafeFsError
# re-exported by wskit.fs
from wskit.fs.paths import (  # noqa: F401
    _DRIVE_OR_URL, _SECRET_RE, SECRET_PATTERNS, check_not_secret, is_secret_name, split_relative, split_written,
)
from wskit.fs.text import _HIDDEN, decode_text, find_hidden_chars  # noqa: F401

__all__ = ["DirEntry", "read_bytes", "read_head", "ReadResult"]


_O_BASE = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_MIN_HEAD_STEP = 32


@dataclass(frozen=True, slots=True)
class ReadResult:
    """Bytes read from a file.

    :ivar raw: the bytes read (the whole file, or its head for :func:`read_head`).
    :ivar size: the file's size in bytes per ``fstat``.
    :ivar complete: True when ``raw`` is the whole file.
    :ivar path: absolute path of the file (lexical, under the base).
    :ivar link_target: resolved target when a link was followed (follow mode only).
    """

    raw: bytes
    size: int
    complete: bool
    path: str
    link_target: str | None = None


@dataclass(frozen=True, slots=True)
class DirEntry:
    """One entry of :func:`scan_dir`: ``type`` is ``dir``, ``file``, ``link`` or ``special``."""

    name: str
    type: str
    link_target: str | None = None


def _oserror(err: OSError, shown: str, *, final: bool) -> SafeFsError:
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


def _open_dir_chain(base: str, parts: list[str], shown: str, follow: bool) -> int:
    """Open ``base/parts…`` as a folder fd, refusing links unless ``follow``."""
    try:
        fd = os.open(base, _O_BASE | _O_DIRECTORY)
    except OSError as err:
        raise _oserror(err, shown, final=False) from None
    try:
        for part in parts:
            flags = _O_BASE | _O_DIRECTORY | (0 if follow else _O_NOFOLLOW)
            try:
                nfd = os.open(part, flags, dir_fd=fd)
            except OSError as err:
                if err.errno in (errno.ENOTDIR, errno.ELOOP) and not follow and _is_link(part, fd):
                    raise SafeFsError("symlink", shown, f"refusing to follow the symbolic link {part!r}") from None
                raise _oserror(err, shown, final=False) from None
            os.close(fd)
            fd = nfd
    except BaseException:
        os.close(fd)
        raise
    return fd


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _opened_path(fd: int, fallback: str) -> str:
    """The real path of an open fd (``/proc/self/fd``), immune to a swap after opening."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return fallback


def _check_target_not_secret(base: str, target: str, shown: str) -> None:
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


def _open_file(
    base: str, rel: str | PurePosixPath, follow_links: bool
) -> tuple[int, os.stat_result, str, str | None]:
    parts = split_relative(rel)
    shown = os.path.join(base, *parts)
    if not changes.recording_active():
        return _open_file_at(base, parts, shown, follow_links)
    try:
        fd, st, shown, link_target = _open_file_at(base, parts, shown, follow_links)
    except SafeFsError:
        changes.note(shown, follow_links)
        raise
    changes.note(shown, follow_links, st)
    return fd, st, shown, link_target


def _open_file_at(
    base: str, parts: list[str], shown: str, follow_links: bool
) -> tuple[int, os.stat_result, str, str | None]:
    link_target = None
    if follow_links:
        real = os.path.realpath(shown)
        if real != os.path.abspath(shown):
            link_target = real
    dfd = _open_dir_chain(base, parts[:-1], shown, follow_links)
    try:
        fd, st, link_target = _open_in(dfd, parts[-1], shown, follow_links, base, link_target)
    finally:
        os.close(dfd)
    return fd, st, shown, link_target


def _open_in(
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
        raise _oserror(err, shown, final=True) from None
    if not stat.S_ISREG(pre.st_mode):
        if stat.S_ISLNK(pre.st_mode):
            raise SafeFsError("symlink", shown, "refusing to follow a symbolic link")
        if stat.S_ISDIR(pre.st_mode):
            raise SafeFsError("not-a-file", shown, "is a folder, not a file")
        raise SafeFsError("special-file", shown, "refusing a FIFO, socket or device node")
    flags = _O_BASE | _O_NONBLOCK | (0 if follow_links else _O_NOFOLLOW)
    try:
        fd = os.open(name, flags, dir_fd=dfd)
    except OSError as err:
        raise _oserror(err, shown, final=True) from None
    try:
        if link_target is not None:
            link_target = _opened_path(fd, link_target)
            _check_target_not_secret(base, link_target, shown)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (pre.st_dev, pre.st_ino):
            raise SafeFsError("special-file", shown, "file changed into a non-regular file while opening")
        if st.st_nlink > 1:
            raise SafeFsError("hardlink", shown, f"refusing a hard-linked file ({st.st_nlink} links)")
    except BaseException:
        os.close(fd)
        raise
    return fd, st, link_target


def read_bytes(
    base: str | Path, rel: str | PurePosixPath, *, max_bytes: int | None = None, follow_links: bool = False
) -> ReadResult:
    """Read a whole file under ``base``.

    :param base: absolute folder the path is relative to.
    :param rel: relative path with ``/`` separators.
    :param max_bytes: refuse (``too-large``) a file whose raw size is larger, without reading it.
    :param follow_links: follow links (user-scope sources only).
    :raises SafeFsError: with one of the module's codes.
    """
    fd, st, shown, target = _open_file(str(base), rel, follow_links)
    try:
        if max_bytes is not None and st.st_size > max_bytes:
            raise SafeFsError(
                "too-large", shown, f"file is {st.st_size} bytes, over the limit of {max_bytes} bytes"
            )
        raw = _read_all(fd, st.st_size, max_bytes)
        if raw is None:
            raise SafeFsError("too-large", shown, f"file grew over the limit of {max_bytes} bytes")
        return ReadResult(raw=raw, size=len(raw), complete=True, path=shown, link_target=target)
    finally:
        os.close(fd)


def _read_all(fd: int, size: int, max_bytes: int | None) -> bytes | None:
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


def read_head(
    base: str | Path,
    rel: str | PurePosixPath,
    *,
    done: Callable[[bytes], bool],
    max_bytes: int,
    chunk_size: int = 256,
    follow_links: bool = False,
) -> ReadResult:
    """Read only the head of a file: chunks until ``done(head)`` is true, the
    file ends, or ``max_bytes`` have been read (used for frontmatter-only discovery).

    The first read is ``chunk_size`` bytes (256); each further read is an
    eighth of what was read so far (at least 32 bytes), so a caller reads at
    most ~12.5 % (+32 bytes) past the point where ``done`` becomes true, in a
    logarithmic number of reads (issue 8, B6: discovery reads ≤ 10 % of a
    3 KB ``SKILL.md``).

    :returns: :class:`ReadResult` with ``complete`` True when the whole file was read.
    :raises SafeFsError: as :func:`read_bytes`.
    """
    fd, st, shown, target = _open_file(str(base), rel, follow_links)
    return _read_head_fd(fd, st, shown, target, done, max_bytes, chunk_size)


def _read_head_fd(
    fd: int, st: os.stat_result, shown: str, target: str | None,
    done: Callable[[bytes], bool], max_bytes: int, chunk_size: int,
) -> ReadResult:
    """:func:`read_head`'s reads on the open ``fd`` (``st``: its ``fstat``); closes ``fd``."""
    raw, complete = _read_head_raw(fd, st.st_size, done, max_bytes, chunk_size)
    return ReadResult(raw, st.st_size, complete, shown, target)


def _read_head_raw(
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
            step = max(_MIN_HEAD_STEP, len(buf) >> 3)
        return buf, len(buf) >= size
    finally:
        os.close(fd)

