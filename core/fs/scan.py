"""Safe folder listing, part of :mod:`wskit.fs` (its public names are
re-exported there): open a folder
under a base without following links, note it to :mod:`wskit.changes`
recordings, and list it with types from ``d_type``, secret names left out.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from wskit import changes
from wskit.errors import SafeFsError
from wskit.fs.descriptors import open_dir_chain
from wskit.fs.paths import is_secret_name, split_relative
from wskit.fs.read import DirEntry


def scan_dir(
    base: str | Path, rel: str | PurePosixPath | None = None, *, follow_links: bool = False
) -> list[DirEntry]:
    """List one folder under ``base`` without following links (unless ``follow_links``).

    Entries are sorted by name. Links are reported as type ``link`` (or, in
    follow mode, as the type of their target with ``link_target`` set; broken
    links are ``link``). Secret-looking names are left out.

    :raises SafeFsError: when the folder itself is refused or missing.
    """
    fd, shown = open_dir(base, rel, follow_links=follow_links)
    try:
        return scan_fd(fd, shown, follow_links=follow_links)
    finally:
        os.close(fd)


def open_dir(
    base: str | Path, rel: str | PurePosixPath | None = None, *, follow_links: bool = False
) -> tuple[int, str]:
    """Open the folder ``base/rel`` as :func:`scan_dir` does (every component of
    ``rel`` without following links unless ``follow_links``; noted to active
    :mod:`wskit.changes` recordings with its ``fstat`` signature, or without one
    when refused).

    :returns: ``(descriptor, absolute path shown in errors)``; the caller closes it.
    :raises SafeFsError: when the folder is refused or missing.
    """
    parts = split_relative(rel) if rel not in (None, "", ".") else []
    shown = os.path.join(str(base), *parts)
    try:
        fd = open_dir_chain(str(base), parts, shown, follow_links)
    except SafeFsError:
        changes.note(shown, follow_links)
        raise
    if changes.recording_active():
        try:
            changes.note(shown, follow_links, os.fstat(fd))
        except BaseException:
            os.close(fd)
            raise
    return fd, shown


def scan_fd(fd: int, shown: str, *, follow_links: bool = False) -> list[DirEntry]:
    """:func:`scan_dir`'s listing of the folder open as ``fd`` (absolute path
    ``shown``); the descriptor stays open."""
    return [DirEntry(*e) for e in scan_fd_tuples(fd, shown, follow_links=follow_links)]


def scan_fd_tuples(fd: int, shown: str, *, follow_links: bool = False) -> list[tuple[str, str, str | None]]:
    """:func:`scan_fd` as ``(name, type, link_target)`` tuples (so a thousand-entry
    skills folder does not build a thousand frozen dataclasses)."""
    out: list[tuple[str, str, str | None]] = []
    with os.scandir(fd) as it:
        for entry in it:
            name = entry.name
            if is_secret_name(name):
                continue
            try:
                if entry.is_symlink():
                    if not follow_links:
                        out.append((name, "link", None))
                        continue
                    full = os.path.join(shown, name)
                    try:
                        st = os.stat(full)
                    except OSError:
                        out.append((name, "link", None))
                        continue
                    kind = _kind(st.st_mode)
                    out.append((name, kind, os.path.realpath(full)))
                    continue
                # the type from the directory entry itself (d_type): no stat per entry;
                # file systems without d_type fall back to lstat inside is_dir/is_file
                if entry.is_dir(follow_symlinks=False):
                    kind = "dir"
                elif entry.is_file(follow_symlinks=False):
                    kind = "file"
                else:
                    kind = "special"
            except OSError:
                out.append((name, "special", None))
                continue
            out.append((name, kind, None))
    out.sort(key=_first)
    return out


def _first(e: tuple) -> str:
    return e[0]


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file"
    return "special"

