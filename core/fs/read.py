"""Opening and reading files safely: :func:`read_bytes` and :func:`read_head`, which open a
file below a base through :mod:`wskit.fs.descriptors` and read it within a byte bound."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from wskit import changes
from wskit.errors import SafeFsError
from wskit.fs.descriptors import (
    open_dir_chain,
    open_in,
    read_all,
    read_head_raw,
)
from wskit.fs.limits import read_limit
from wskit.fs.paths import split_relative
from wskit.values import FrozenValue


class ReadResult(FrozenValue):
    """Bytes read from a file (immutable; a plain class, so start-up compiles nothing:
    see :mod:`wskit.values`).

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
    link_target: str | None

    def __init__(self, raw: bytes, size: int, complete: bool, path: str, link_target: str | None = None) -> None:
        _set = object.__setattr__
        _set(self, "raw", raw)
        _set(self, "size", size)
        _set(self, "complete", complete)
        _set(self, "path", path)
        _set(self, "link_target", link_target)


class DirEntry(FrozenValue):
    """One entry of :func:`scan_dir`: ``type`` is ``dir``, ``file``, ``link`` or ``special``
    (immutable; a plain class, so start-up compiles nothing)."""

    name: str
    type: str
    link_target: str | None

    def __init__(self, name: str, type: str, link_target: str | None = None) -> None:
        _set = object.__setattr__
        _set(self, "name", name)
        _set(self, "type", type)
        _set(self, "link_target", link_target)


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
    # follow mode: where the descriptor really leads is verified after opening, link or
    # not (a component swapped for a link between realpath() and open() is caught too)
    expected = os.path.realpath(shown) if follow_links else None
    dfd = open_dir_chain(base, parts[:-1], shown, follow_links)
    try:
        fd, st, link_target = open_in(dfd, parts[-1], shown, follow_links, base, expected)
    finally:
        os.close(dfd)
    if link_target is not None and link_target == os.path.abspath(shown):
        link_target = None  # no link on the way
    return fd, st, shown, link_target


def read_bytes(
    base: str | Path, rel: str | PurePosixPath, *, max_bytes: int | None = None, follow_links: bool = False
) -> ReadResult:
    """Read a whole file under ``base``.

    :param base: absolute folder the path is relative to.
    :param rel: relative path with ``/`` separators.
    :param max_bytes: refuse (``too-large``) a file whose raw size is larger, without
        reading it, and one that grows past it while being read (never a truncated
        body). None: :func:`wskit.fs.limits.read_limit` (8 MiB unless set): no read is unbounded.
    :param follow_links: follow links (user-scope sources only).
    :raises SafeFsError: with one of the module's codes.
    """
    if max_bytes is None:
        max_bytes = read_limit()
    fd, st, shown, target = _open_file(str(base), rel, follow_links)
    try:
        if st.st_size > max_bytes:
            raise SafeFsError(
                "too-large", shown, f"file is {st.st_size} bytes, over the limit of {max_bytes} bytes"
            )
        raw = read_all(fd, st.st_size, max_bytes)
        if raw is None:
            raise SafeFsError("too-large", shown, f"file grew over the limit of {max_bytes} bytes")
        return ReadResult(raw=raw, size=len(raw), complete=True, path=shown, link_target=target)
    finally:
        os.close(fd)


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
    logarithmic number of reads, so discovery reads only the head of each file
    (≤ 10 % of a 3 KB ``SKILL.md``).

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
    raw, complete = read_head_raw(fd, st.st_size, done, max_bytes, chunk_size)
    return ReadResult(raw, st.st_size, complete, shown, target)




def is_file(path: str | os.PathLike[str], *, follow_links: bool = True) -> bool:
    """Whether ``path`` (absolute) is a regular file, as :func:`os.path.isfile` answers
    (links followed unless ``follow_links=False``), noted for change detection
    (:mod:`wskit.changes`): the load that asked depends on the answer, so a later creation,
    removal or replacement of the file makes that load stale, as for a file it read. Use it
    for an existence check that decides what a load reads (a user's ``CLAUDE.md``).

    :param path: absolute path.
    :returns: True for a regular file (after links, when followed); False when absent, not
        a regular file, or not stat-able.
    """
    import stat as stat_mod

    p = os.fspath(path)
    try:
        st = os.stat(p, follow_symlinks=follow_links)
    except (OSError, ValueError):
        st = None
    if changes.recording_active():
        changes.note(p, follow_links, st)
    return st is not None and stat_mod.S_ISREG(st.st_mode)
