"""Descriptor-keeping folder walks with the refusals of :mod:`wskit.fs`.

:func:`wskit.fs.scan_dir` opens every folder from its base again, one
``openat(O_NOFOLLOW)`` per path component: a walk of a 5,000-folder tree at
depth 6 paid ~6 opens per folder. Here a walk keeps each folder's descriptor
while it visits the folder's children and opens a child with one
``openat(parent_fd, name, O_DIRECTORY | O_NOFOLLOW)``: a child swapped for a
link between listing and opening is still refused (code ``symlink``), exactly
as in :func:`~wskit.fs.scan_dir`.

A listing keeps the ``os.DirEntry`` objects and computes an entry's type
(``dir``/``file``/``link``/``special``, from ``d_type``: no ``lstat`` per
entry) only when a caller asks for that name; secret-looking names
(:func:`wskit.fs.is_secret_name`) are invisible, as in ``scan_dir``.
Every folder listed is noted to active :mod:`wskit.changes` recordings with
its ``fstat`` signature, under the same path ``scan_dir`` would use.
"""

from __future__ import annotations

import errno
import os

from wskit import changes, fs
from wskit.fs import SafeFsError, descriptors
from wskit.fs.limits import read_limit

_DIR_FLAGS = descriptors.O_BASE | descriptors.O_DIRECTORY


def open_root(base: str) -> int:
    """Open ``base`` (absolute; links in it followed, as :func:`~wskit.fs.scan_dir`
    does for its base) as a folder descriptor.

    :raises SafeFsError: ``not-found``, ``not-a-file``/``io-error`` as ``scan_dir``.
    """
    try:
        return os.open(base, _DIR_FLAGS)
    except OSError as err:
        raise descriptors.oserror(err, base, final=False) from None


def open_child(parent_fd: int, name: str, shown: str) -> int:
    """Open folder ``name`` inside the folder ``parent_fd`` without following a link.

    :param shown: the absolute path reported in errors.
    :raises SafeFsError: ``symlink`` when ``name`` is (now) a link, ``not-found``, ``io-error``.
    """
    try:
        return os.open(name, _DIR_FLAGS | descriptors.O_NOFOLLOW, dir_fd=parent_fd)
    except OSError as err:
        if err.errno in (errno.ENOTDIR, errno.ELOOP) and descriptors.is_link(name, parent_fd):
            raise SafeFsError("symlink", shown, f"refusing to follow the symbolic link {name!r}") from None
        raise descriptors.oserror(err, shown, final=False) from None


def entry_type(entry: os.DirEntry) -> str:
    """``dir``, ``file``, ``link`` or ``special`` for one entry, without following links."""
    try:
        if entry.is_symlink():
            return "link"
        if entry.is_dir(follow_symlinks=False):
            return "dir"
        if entry.is_file(follow_symlinks=False):
            return "file"
    except OSError:
        pass
    return "special"


class Listing:
    """One folder's entries by name (secret-looking names hidden), types on demand.

    :ivar dirs: names of the sub-folders (not links), unsorted, secret names left out.
    :ivar dir_links: names of links to folders, or links that loop (never
        followed; a walker reports them), unsorted, secret names left out.
    """

    __slots__ = ("_entries", "dirs", "dir_links")

    def __init__(self, entries: dict[str, os.DirEntry], dirs: list[str], dir_links: list[str] | None = None) -> None:
        self._entries = entries
        self.dirs = dirs
        self.dir_links = dir_links or []

    def __contains__(self, name: str) -> bool:
        return name in self._entries and not fs.is_secret_name(name)

    def get(self, name: str) -> fs.DirEntry | None:
        """The entry ``name`` as a :class:`wskit.fs.DirEntry`, or None (absent or secret)."""
        e = self._entries.get(name)
        if e is None or fs.is_secret_name(name):
            return None
        return fs.DirEntry(name, entry_type(e))

    def kept(self) -> dict[str, os.DirEntry]:
        """Every kept entry by name, secret-looking names included (callers filter)."""
        return self._entries

    def __getitem__(self, name: str) -> fs.DirEntry:
        got = self.get(name)
        if got is None:
            raise KeyError(name)
        return got


def list_fd(fd: int, shown: str, keep: frozenset[str] | None = None) -> Listing:
    """List the folder open as ``fd`` (the descriptor stays open; ``shown`` is its
    absolute path, noted to active change recordings with the folder's signature).

    :param keep: names the caller may look up (None: every name); sub-folder names
        are always in :attr:`Listing.dirs`. Keeping only a few names spares one
        dictionary entry per file of large folders.
    """
    if changes.recording_active():
        changes.note(shown, False, os.fstat(fd))
    entries: dict[str, os.DirEntry] = {}
    dirs: list[str] = []
    links: list[str] = []
    secret = fs.is_secret_name
    keep_all = keep is None
    with os.scandir(fd) as it:
        for e in it:
            name = e.name
            if keep_all or name in keep:
                entries[name] = e
            try:
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir and not secret(name):
                dirs.append(name)
            elif not is_dir and e.is_symlink() and not secret(name) and leads_to_folder(e):
                links.append(name)
    return Listing(entries, dirs, links)


def leads_to_folder(entry: os.DirEntry) -> bool:
    """Whether a link entry points at a folder or loops (``ELOOP``): what a walk reports
    as a folder link it does not follow. One ``stat`` (links are rare)."""
    try:
        return entry.is_dir(follow_symlinks=True)
    except OSError as err:
        return err.errno == errno.ELOOP


def read_file_at(dir_fd: int, name: str, shown: str, max_bytes: int | None) -> fs.ReadResult | None:
    """Read the file ``name`` of the folder open as ``dir_fd`` whole, or None when it
    cannot be read so (the caller then reads it with :func:`wskit.fs.read_bytes`,
    which names the refusal).

    For a walk that holds the folder's descriptor: the file is opened by
    :func:`wskit.descriptors.open_in` below it (``stat`` first, ``O_NOFOLLOW |
    O_NONBLOCK``, ``fstat`` after: regular, one link) instead of opening every folder
    from the base again, and must be at most ``max_bytes`` bytes. It is
    noted to active change recordings with its ``fstat`` signature, as
    :func:`~wskit.fs.read_bytes` notes it.

    :param shown: the file's absolute path (noted, and in the result).
    """
    if max_bytes is None:
        max_bytes = read_limit()
    try:
        fd, st, _ = descriptors.open_in(dir_fd, name, shown, False)
    except SafeFsError:
        return None
    try:
        if st.st_size > max_bytes:
            return None
        raw = descriptors.read_all(fd, st.st_size, max_bytes)
        if raw is None:
            return None  # grew over the limit: read_bytes says so
    except OSError:
        return None
    finally:
        os.close(fd)
    if changes.recording_active():
        changes.note(shown, False, st)
    return fs.ReadResult(raw=raw, size=len(raw), complete=True, path=shown, link_target=None)


def read_head_bytes_in(
    dir_fd: int,
    parts: tuple[str, ...] | list[str],
    shown: str,
    *,
    done,
    max_bytes: int,
    chunk_size: int = 256,
) -> tuple[bytes, int, bool]:
    """:func:`wskit.fs.read_head` of ``parts`` (already-validated names: no
    ``/``, ``..``, NUL or secret name) below the open folder ``dir_fd``, without
    following links, as ``(raw, size, complete)`` — the fields of its
    :class:`~wskit.fs.ReadResult`, built by callers that need one (a loader holding
    its folder's descriptor opens ``<slug>/SKILL.md`` with two ``openat`` calls
    instead of one per component from the base).

    Same refusals, reads and change notes as ``read_head(..., follow_links=False)``
    of the same file: every folder in ``parts[:-1]`` is opened with
    ``O_DIRECTORY | O_NOFOLLOW`` (a link: ``symlink``); the file goes through
    :func:`wskit.descriptors.open_in` (``stat`` before opening, ``O_NONBLOCK |
    O_NOFOLLOW``, ``fstat`` after: no FIFO, device, folder, link or hard-linked
    file). ``shown`` (the absolute path of the file) is noted to active
    :mod:`wskit.changes` recordings with the file's ``fstat`` signature, or
    without one when refused. ``dir_fd`` stays open.

    :raises SafeFsError: as ``read_head``.
    """
    try:
        dfd = dir_fd
        try:
            for name in parts[:-1]:
                nfd = open_child(dfd, name, shown)
                if dfd != dir_fd:
                    os.close(dfd)
                dfd = nfd
            fd, st, _ = descriptors.open_in(dfd, parts[-1], shown, False)
        finally:
            if dfd != dir_fd:
                os.close(dfd)
    except SafeFsError:
        changes.note(shown, False)
        raise
    if changes.recording_active():
        changes.note(shown, False, st)
    raw, complete = descriptors.read_head_raw(fd, st.st_size, done, max_bytes, chunk_size)
    return raw, st.st_size, complete
