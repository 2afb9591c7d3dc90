"""Bounded recursive walks for loaders that read a folder tree (rules, commands…).

:func:`walk_files` lists the regular files under a folder through
:func:`wskit.fs.scan_dir`, without recursion (an explicit stack), so a
hostile tree cannot exhaust the Python stack, the fd table or the clock:

==========================  ===================================================
code                        when
==========================  ===================================================
``too-deep``                a folder deeper than ``max_depth`` below the start
                            (its contents are not listed; warning)
``too-many-entries``        more than ``max_entries`` entries seen; the walk
                            stops there (error: the listing is incomplete)
``symlink``                 a link met when links are not followed (warning)
``link-cycle``              a followed folder link leading to a folder of its
                            own ancestry (warning; not entered)
``link-revisit``            a followed folder link leading to a folder already
                            walked by another route (info; not entered twice,
                            so link diamonds cannot blow up exponentially)
``special-file``            a FIFO, socket or device (warning; never opened)
==========================  ===================================================

plus any :mod:`wskit.fs` code for the start folder itself. Secret-looking
names are left out by :func:`~wskit.fs.scan_dir`. Links are followed only
with ``follow_links=True`` (user-scope sources, design §5).
"""

from __future__ import annotations

import os
from pathlib import Path

from wskit import fs
from wskit.fs import descriptors
from wskit.models import Diagnostic
from wskit.values import FrozenValue

__all__ = ["MAX_DEPTH", "MAX_ENTRIES", "walk_files", "WalkedFile"]


#: Deepest folder level listed below the start folder by default.
MAX_DEPTH = 32
#: Most entries (files, folders, links) looked at by default.
MAX_ENTRIES = 10_000


class WalkedFile(FrozenValue):
    """A regular file found by :func:`walk_files`.

    :ivar rel: path relative to ``base`` with ``/`` separators (pass it to
        :func:`wskit.fs.read_bytes`).
    :ivar link_target: set when a followed link led to it or to a folder above it.
    """

    rel: str
    link_target: str | None = None


def _dir_identity(base: str, rel: str, follow: bool) -> tuple[int, int]:
    parts = fs.split_relative(rel) if rel not in ("", ".") else []
    fd = descriptors.open_dir_chain(base, parts, os.path.join(base, *parts), follow)  # noqa: SLF001
    try:
        st = os.fstat(fd)
        return st.st_dev, st.st_ino
    finally:
        os.close(fd)


def _join(a: str, b: str) -> str:
    return b if a in ("", ".") else f"{a}/{b}"


def walk_files(
    base: str | Path,
    rel: str = ".",
    *,
    follow_links: bool = False,
    max_depth: int = MAX_DEPTH,
    max_entries: int = MAX_ENTRIES,
) -> tuple[list[WalkedFile], list[Diagnostic]]:
    """List regular files under ``base/rel``, depth-first in name order.

    :param base: absolute folder all paths are relative to (never left).
    :param rel: start folder relative to ``base`` (``"."`` for ``base`` itself).
    :param follow_links: follow file and folder links (user scope only), with
        cycle and revisit detection.
    :param max_depth: deepest folder level listed below ``rel`` (0 = only ``rel``).
    :param max_entries: stop after this many entries, with ``too-many-entries``.
    :returns: the files and the diagnostics of the walk (see the module table).
    :raises fs.SafeFsError: when the start folder itself is refused or missing.
    """
    base = str(base)
    rel = "." if rel in ("", ".") else "/".join(fs.split_relative(rel))
    start_id = _dir_identity(base, rel, follow_links)
    files: list[WalkedFile] = []
    diags: list[Diagnostic] = []
    seen_dirs = {start_id}
    # stack items: (folder rel, depth, ancestry identities, link target above)
    stack: list[tuple[str, int, frozenset, str | None]] = [(rel, 0, frozenset({start_id}), None)]
    count = 0
    while stack:
        dir_rel, depth, ancestry, via = stack.pop()
        try:
            entries = fs.scan_dir(base, None if dir_rel in ("", ".") else dir_rel, follow_links=follow_links)
        except fs.SafeFsError as err:
            diags.append(err.diagnostic())
            continue
        subdirs: list[tuple[str, int, frozenset, str | None]] = []
        for entry in entries:
            count += 1
            if count > max_entries:
                diags.append(Diagnostic(level="error", code="too-many-entries", path=os.path.join(base, dir_rel),
                                        message=f"more than {max_entries} entries; the rest of the tree is not listed"))
                return files, diags
            child = _join(dir_rel, entry.name)
            shown = os.path.join(base, child)
            target = entry.link_target or via
            if entry.type == "file":
                files.append(WalkedFile(child, target))
            elif entry.type == "link":
                diags.append(Diagnostic(level="warning", code="symlink", path=shown,
                                        message="symbolic link not followed" if not follow_links
                                        else "broken or looping symbolic link"))
            elif entry.type == "special":
                diags.append(Diagnostic(level="warning", code="special-file", path=shown,
                                        message="FIFO, socket or device node skipped"))
            elif entry.type == "dir":
                if depth + 1 > max_depth:
                    diags.append(Diagnostic(level="warning", code="too-deep", path=shown,
                                            message=f"folder deeper than {max_depth} levels; not listed"))
                    continue
                try:
                    ident = _dir_identity(base, child, follow_links)
                except fs.SafeFsError as err:
                    diags.append(err.diagnostic())
                    continue
                if ident in ancestry:
                    diags.append(Diagnostic(level="warning", code="link-cycle", path=shown,
                                            message=f"link leads back to its own ancestor {entry.link_target}"))
                    continue
                if ident in seen_dirs:
                    diags.append(Diagnostic(level="info", code="link-revisit", path=shown,
                                            message=f"folder {entry.link_target or shown} already listed"))
                    continue
                seen_dirs.add(ident)
                subdirs.append((child, depth + 1, ancestry | {ident}, target))
        stack.extend(reversed(subdirs))
    return files, diags
