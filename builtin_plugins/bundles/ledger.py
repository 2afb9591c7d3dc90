"""Managed installs: copy a plugin from a local marketplace into wskit's own state,
``<home>/.wskit/installs/<host>/<name>`` (:func:`plugins_dir`), and record it in the ledger
``<home>/.<host>/plugin-ledger.json`` (Blade's package ledger, reference/blade.md §8.3).
Installs of older versions, in ``<home>/.<host>/plugins/<name>`` (for ``--host claude``
Claude Code's own folder), keep loading from the ledger's ``root`` and are moved by
:func:`migrate_installs` (every install and uninstall runs it first, and
``wsctl plugins migrate``).

Ledger format (written atomically, mode 0600)::

    {"version": 1, "plugins": {"<name>": {"name", "version", "marketplace",
      "marketplace_root", "source", "digest": "sha256:<hex>", "root",
      "installed_at", "entry": {...marketplace entry...}}}}

The digest is :func:`tree_digest` of the installed folder; a managed plugin
whose files no longer match loads in state ``error`` (never silently).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wskit import fs
from wskit.builtin_plugins.bundles.manifest import NAME_RE
from wskit.errors import WskitError
from wskit.fs import jsonsafe
from wskit.fs.atomic import StateFileError, atomic_write, check_no_links, state_dir, state_lock
from wskit.host import HostProfile

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from wskit.builtin_plugins.bundles.marketplace import Marketplace  # imported by install, not at start-up


LEDGER_VERSION = 1
#: Largest plugin ledger read, in bytes (a bigger one is refused unread).
MAX_LEDGER_BYTES = 16 * 1024 * 1024


class LedgerError(WskitError):
    """The ledger is unreadable or malformed, or an install/uninstall cannot be done."""


#: Deepest folder level below a plugin's root that :func:`install` copies; a deeper
#: tree is refused (a real plugin is a few levels deep; a vendored node_modules a few dozen).
MAX_TREE_DEPTH = 128


#: Bounds of one managed install, checked with ``lstat`` before anything is copied and
#: again while copying (a file that grows in between is caught). The largest plugin of
#: Claude Code's official marketplace (plugin-dev) has 50 files and 622 KB, its largest
#: file 33 KB; the bounds leave room for a bundled server binary or a small vendored
#: dependency tree, and refuse what would fill the home or slow every load.
#: Regular files a plugin may hold (each one is indexed and hashed on every load).
MAX_INSTALL_FILES = 10_000
#: Apparent size (``st_size``) of one file, in bytes: a sparse file is counted at its
#: apparent size, since copying it writes that many bytes.
MAX_INSTALL_FILE_BYTES = 64 * 1024 * 1024
#: Sum of the files' apparent sizes, in bytes.
MAX_INSTALL_BYTES = 256 * 1024 * 1024


#: folders Claude Code keeps in ``~/.claude/plugins`` for its installs (``claude plugin
#: install``): marketplace clones, the versioned cache, data, the plugin store, asset cache
#: and MCPB packages; never plugins themselves (``plugins install`` refuses these names)
CLAUDE_BOOKKEEPING = frozenset({"asset-cache", "cache", "data", "marketplaces", "packages", "repos", "store"})


def plugins_dir(profile: HostProfile) -> Path:
    """The folder managed installs go to: ``<home>/.wskit/installs/<host>``, wskit's own state
    (never Claude Code's ``~/.claude/plugins``, whose folders are its own bookkeeping)."""
    return profile.state_dir / "installs" / profile.name


def legacy_plugins_dir(profile: HostProfile) -> Path:
    """Where earlier versions installed: ``<home>/.<host>/plugins`` (:func:`migrate_installs`)."""
    return profile.require_home() / profile.host_dir / "plugins"


def ledger_path(profile: HostProfile) -> Path:
    """``<home>/.<host>/plugin-ledger.json``."""
    return profile.require_home() / profile.host_dir / "plugin-ledger.json"


def tree_digest(root: str | os.PathLike[str]) -> str:
    """``sha256:<hex>`` over every file under ``root``, walked without following
    links, in sorted order: ``<relative path>\\0<sha256 of the bytes>\\n`` per
    file, ``<path>\\0link:<target>\\n`` per link. Folders alone add nothing.

    :raises OSError: when the tree cannot be read.
    """
    import hashlib  # loads OpenSSL: not at start-up

    h = hashlib.sha256()
    base = os.fspath(root)
    # os.walk's top-down order (files and folder links of a folder, then its folders
    # in name order), kept on an explicit stack: os.walk recurses once per level
    # (Python 3.11), so a plugin 1,100 folders deep raised RecursionError and took
    # every other plugin of the listing with it
    stack = [base]
    while stack:
        dirpath = stack.pop()
        try:
            with os.scandir(dirpath) as it:
                entries = list(it)
        except OSError:
            continue  # as os.walk: an unreadable folder adds nothing
        dirnames = sorted(e.name for e in entries if _is_dir(e))
        filenames = [e.name for e in entries if not _is_dir(e)]
        rel_dir = os.path.relpath(dirpath, base)
        names = sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))])
        for name in names:
            full = os.path.join(dirpath, name)
            rel = name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/")
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                h.update(f"{rel}\0link:{os.readlink(full)}\n".encode())
            elif stat.S_ISREG(st.st_mode):
                h.update(f"{rel}\0{_file_sha(full)}\n".encode())
            else:
                h.update(f"{rel}\0special\n".encode())
        stack.extend(os.path.join(dirpath, d) for d in reversed(dirnames)
                     if not os.path.islink(os.path.join(dirpath, d)))
    return "sha256:" + h.hexdigest()


def _is_dir(entry: os.DirEntry) -> bool:
    """As os.walk classifies an entry: a folder or a link to one (not entered)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _file_sha(full: str) -> str:
    """SHA-256 of a regular file, read in 1 MiB chunks, opened non-blocking and
    without following a link (a file swapped for a FIFO or link is an error)."""
    import hashlib  # loads OpenSSL: not at start-up

    fd = os.open(full, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{full} is no longer a regular file")
        fh = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            fh.update(chunk)
        return fh.hexdigest()
    finally:
        os.close(fd)


def read_ledger(profile: HostProfile) -> dict[str, dict[str, Any]]:
    """The ledger's entries by plugin name (empty when there is no ledger).

    :raises LedgerError: not a regular file, not JSON, or malformed.
    """
    path = ledger_path(profile)
    try:
        check_no_links(path, profile.require_home())
    except StateFileError as err:
        raise LedgerError(f"plugin ledger unusable: {err}") from None
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return {}
    if not stat.S_ISREG(st.st_mode):
        raise LedgerError(f"plugin ledger {path} is not a regular file")
    if st.st_mode & 0o022:  # anyone who can write it decides what counts as a managed install
        raise LedgerError(f"plugin ledger {path} is writable by others (mode {stat.S_IMODE(st.st_mode):04o}); "
                          "refusing to use it (chmod 600)")
    try:
        # bounded, non-blocking read and depth-bounded JSON: read_text() read a
        # huge ledger whole and json.loads raised RecursionError on deep nesting
        raw = fs.read_bytes(path.parent, path.name, max_bytes=MAX_LEDGER_BYTES).raw
        data = jsonsafe.loads(raw, path=str(path), max_depth=16)
    except fs.SafeFsError as err:
        raise LedgerError(f"plugin ledger {path} is unreadable: {err}") from None
    if not isinstance(data, dict) or data.get("version") != LEDGER_VERSION or not isinstance(data.get("plugins"), dict):
        raise LedgerError(f"plugin ledger {path} is malformed or of an unknown version")
    for name, e in data["plugins"].items():
        if not isinstance(e, dict) or not isinstance(e.get("digest"), str) or not isinstance(e.get("root"), str):
            raise LedgerError(f"plugin ledger {path}: entry {name!r} is malformed")
    return data["plugins"]


def _write_ledger(profile: HostProfile, plugins: dict[str, dict[str, Any]]) -> None:
    """Write ``plugins`` (the caller holds the lock), keeping every other top-level key
    the ledger holds (a newer wskit's, or the user's)."""
    path = ledger_path(profile)
    doc: dict[str, Any] = {}
    try:
        raw = fs.read_bytes(path.parent, path.name, max_bytes=MAX_LEDGER_BYTES).raw
        old = jsonsafe.loads(raw, path=str(path), max_depth=16)
        if isinstance(old, dict):
            doc = {k: v for k, v in old.items() if k not in ("version", "plugins")}
    except fs.SafeFsError:
        pass  # absent (read_ledger already refused anything else under this lock)
    doc = {"version": LEDGER_VERSION, "plugins": {k: plugins[k] for k in sorted(plugins)}, **doc}
    atomic_write(ledger_path(profile), (json.dumps(doc, indent=2) + "\n").encode("utf-8"), mode=0o600,
                 anchor=profile.require_home())


def _lock(profile: HostProfile) -> "AbstractContextManager[None]":
    """The ledger's lock (:func:`wskit.fs.atomic.state_lock`: no link below the home)."""
    return state_lock(ledger_path(profile), profile.require_home())


def _too_big(path: str, size: int, blocks: int | None) -> str:
    sparse = f"; sparse: {blocks * 512} bytes allocated" if blocks is not None and blocks * 512 < size else ""
    return (f"{path}: file of {size} bytes{sparse} is over the {MAX_INSTALL_FILE_BYTES}-byte bound of one "
            "plugin file; not installed")


def check_install_bounds(src: str | os.PathLike[str]) -> dict[str, int]:
    """Measure the plugin folder ``src`` as :func:`install` would copy it (folders and
    regular files, ``.git`` and links left out), with ``lstat`` only: nothing is read.

    Stops at the first bound crossed, so a folder of a million files costs no more than
    :data:`MAX_INSTALL_FILES` entries.

    :returns: ``{"files", "bytes", "largest"}`` (bytes are apparent sizes).
    :raises LedgerError: more than :data:`MAX_INSTALL_FILES` files, a file over
        :data:`MAX_INSTALL_FILE_BYTES` (a sparse one too: its apparent size is what a
        copy writes), more than :data:`MAX_INSTALL_BYTES` in all, or a tree deeper than
        :data:`MAX_TREE_DEPTH`; the message names the folder or file and the bound.
    """
    root = os.fspath(src)
    files = total = largest = 0
    stack = [(root, 0)]
    while stack:
        s_dir, depth = stack.pop()
        if depth > MAX_TREE_DEPTH:
            raise LedgerError(f"{s_dir}: plugin folder tree is deeper than {MAX_TREE_DEPTH} levels; not installed")
        with os.scandir(s_dir) as it:
            for entry in it:
                if entry.name == ".git" or entry.is_symlink():
                    continue
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    stack.append((entry.path, depth + 1))
                elif stat.S_ISREG(st.st_mode):
                    files += 1
                    if files > MAX_INSTALL_FILES:
                        raise LedgerError(f"{root}: plugin holds more than {MAX_INSTALL_FILES} files (every one is "
                                          "indexed and hashed on each load); not installed")
                    if st.st_size > MAX_INSTALL_FILE_BYTES:
                        raise LedgerError(_too_big(entry.path, st.st_size, getattr(st, "st_blocks", None)))
                    total += st.st_size
                    largest = max(largest, st.st_size)
                    if total > MAX_INSTALL_BYTES:
                        raise LedgerError(f"{root}: plugin files add up to more than {MAX_INSTALL_BYTES} bytes; "
                                          "not installed")
    return {"files": files, "bytes": total, "largest": largest}


def _copy_file(src: str, dst: str, budget: int) -> int:
    """Copy one regular file, without following a link, reading at most
    ``min(budget, MAX_INSTALL_FILE_BYTES)`` bytes; keeps mode bits and times.

    :returns: bytes copied.
    :raises LedgerError: the file grew past a bound since it was measured.
    """
    limit = min(budget, MAX_INSTALL_FILE_BYTES)
    fd = os.open(src, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise LedgerError(f"{src} is no longer a regular file; not installed")
        if st.st_size > limit:
            raise LedgerError(_too_big(src, st.st_size, getattr(st, "st_blocks", None))
                              if st.st_size > MAX_INSTALL_FILE_BYTES else
                              f"{src}: plugin files add up to more than {MAX_INSTALL_BYTES} bytes; not installed")
        out = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        copied = 0
        try:
            while chunk := os.read(fd, 1 << 20):
                copied += len(chunk)
                if copied > limit:
                    raise LedgerError(f"{src} grew past the install bounds while being copied; not installed")
                os.write(out, chunk)
            os.fchmod(out, stat.S_IMODE(st.st_mode))
            os.utime(out, ns=(st.st_atime_ns, st.st_mtime_ns))
        finally:
            os.close(out)
        return copied
    finally:
        os.close(fd)


def _copy_tree(src: str, dst: str, skipped: list[str]) -> None:
    """Copy folders and regular files; links and special files are skipped (reported).

    Iterative (an explicit stack, no recursion per level) and bounded: :func:`install`
    measured the tree first (:func:`check_install_bounds`); every copy is bounded again
    by what is left, so a file that grew since is caught.

    :raises LedgerError: a bound is crossed (the folder or file named).
    """
    left, files = MAX_INSTALL_BYTES, 0
    stack = [(src, dst, 0)]
    while stack:
        s_dir, d_dir, depth = stack.pop()
        if depth > MAX_TREE_DEPTH:
            raise LedgerError(f"{s_dir}: plugin folder tree is deeper than {MAX_TREE_DEPTH} levels; not installed")
        os.makedirs(d_dir)
        with os.scandir(s_dir) as it:
            entries = sorted(it, key=lambda e: e.name)
        for entry in entries:
            if entry.name == ".git":
                continue
            target = os.path.join(d_dir, entry.name)
            if entry.is_symlink():
                skipped.append(os.path.relpath(entry.path, src))
            elif entry.is_dir(follow_symlinks=False):
                stack.append((entry.path, target, depth + 1))
            elif entry.is_file(follow_symlinks=False):
                files += 1
                if files > MAX_INSTALL_FILES:
                    raise LedgerError(f"{src}: plugin holds more than {MAX_INSTALL_FILES} files; not installed")
                left -= _copy_file(entry.path, target, left)
            else:
                skipped.append(os.path.relpath(entry.path, src))


def _check_name(name: str) -> None:
    """Plugin names become folder names: only kebab-case names are installable (a name of
    one of Claude Code's own folders, ``data``, is fine: installs live in wskit's state).

    :raises LedgerError: for any other name (``/x``, ``../x``, ``a/b``, ``marketplaces``, …).
    """
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise LedgerError(
            f"cannot install plugin {name!r}: names must be kebab-case "
            "(lowercase letters, digits and hyphens, 1-64 characters)"
        )


def install(profile: HostProfile, marketplace: Marketplace, name: str) -> dict[str, Any]:
    """Install plugin ``name`` of a local ``marketplace`` for the user.

    Copies the source folder to a temporary sibling, renames it into
    ``<home>/.wskit/installs/<host>/<name>`` (:func:`plugins_dir`), computes the tree digest
    and records the ledger entry (atomic write). Reinstalling a managed plugin replaces it.
    Installs of earlier versions are moved first (:func:`migrate_installs`).

    :returns: the ledger entry plus ``skipped`` (links and special files not copied).
    :raises MarketplaceError: unknown plugin, or a source that needs the network
        (nothing is done then).
    :raises LedgerError: the target folder exists and is not a managed install; the
        plugin crosses an install bound (:func:`check_install_bounds`: nothing is copied).
    """
    import shutil  # not at start-up
    import tempfile

    from wskit.builtin_plugins.bundles.marketplace import MarketplaceError

    _check_name(name)
    entry = marketplace.entry(name)
    if not entry.installable or entry.path is None:
        raise MarketplaceError(f"cannot install {name}@{marketplace.name}: {entry.reason}")
    check_install_bounds(entry.path)  # before the lock and any folder is made
    dest_parent = plugins_dir(profile)
    dest = dest_parent / name
    skipped: list[str] = []
    with _lock(profile):
        ledger = read_ledger(profile)
        _migrate_locked(profile, ledger)
        if (dest.exists() or dest.is_symlink()) and name not in ledger:
            raise LedgerError(f"{dest} exists and is not a managed install; remove it first")
        try:
            with state_dir(dest, profile.require_home()):  # made below the home without following a link
                pass
        except StateFileError as err:
            raise LedgerError(f"plugin folder unusable: {err}") from None
        tmp = tempfile.mkdtemp(prefix=f".{name}.", suffix=".installing", dir=dest_parent)
        os.rmdir(tmp)
        try:
            _copy_tree(entry.path, tmp, skipped)
            digest = tree_digest(tmp)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        record = {
            "name": name,
            "version": entry.entry.get("version") if isinstance(entry.entry.get("version"), str) else None,
            "marketplace": marketplace.name,
            "marketplace_root": marketplace.root,
            "source": entry.source,
            "digest": digest,
            "root": str(dest),
            "installed_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "entry": entry.entry,
        }
        previous = ledger.get(name)
        old = None
        if dest.exists() or dest.is_symlink():
            old = tempfile.mkdtemp(prefix=f".{name}.", suffix=".old", dir=dest_parent)
            os.rmdir(old)
            os.replace(dest, old)
        # the ledger first, then the folder: a writer killed in between leaves a ledger
        # entry without its folder, which install and uninstall both recover from; the
        # other order left an unmanaged folder that blocked every later install
        ledger[name] = record
        try:
            _write_ledger(profile, ledger)
            os.replace(tmp, dest)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            if old:
                os.replace(old, dest)
            if previous is None:
                ledger.pop(name, None)
            else:
                ledger[name] = previous
            with contextlib.suppress(Exception):
                _write_ledger(profile, ledger)
            raise
        if old:
            shutil.rmtree(old, ignore_errors=True)
    return {**record, "skipped": skipped}


def uninstall(profile: HostProfile, name: str) -> dict[str, Any]:
    """Remove a managed plugin: its files and its ledger entry together (the
    folder is moved aside first and restored if the ledger cannot be written).

    :raises LedgerError: ``name`` is not a managed install.
    """
    import shutil  # not at start-up
    import tempfile

    with _lock(profile):
        ledger = read_ledger(profile)
        _migrate_locked(profile, ledger)
        record = ledger.pop(name, None)
        if record is None:
            raise LedgerError(f"plugin {name!r} is not a managed install (see 'wsctl plugins list')")
        root = Path(record["root"]) if isinstance(record, dict) and isinstance(record.get("root"), str) else None
        expected = plugins_dir(profile) / name
        allowed = {os.path.abspath(expected), os.path.abspath(legacy_plugins_dir(profile) / name)}
        if root is None or not NAME_RE.match(name) or os.path.abspath(root) not in allowed:
            raise LedgerError(
                f"ledger entry {name!r} names the folder {root}, not {expected}; refusing to delete it "
                "(the ledger may have been tampered with)"
            )
        aside = None
        if root.exists():
            aside = tempfile.mkdtemp(prefix=f".{name}.", suffix=".removing", dir=root.parent)
            os.rmdir(aside)
            os.replace(root, aside)
        try:
            _write_ledger(profile, ledger)
        except BaseException:
            if aside:
                os.replace(aside, root)
            raise
        if aside:
            shutil.rmtree(aside, ignore_errors=True)
    return {"name": name, "root": record["root"], "removed": True}


def migrate_installs(profile: HostProfile) -> list[dict[str, str]]:
    """Move the installs earlier versions made in ``<home>/.<host>/plugins/<name>``
    (:func:`legacy_plugins_dir`) into :func:`plugins_dir`, under the ledger's lock: each
    folder is renamed (copied and then renamed when the two lie on different file systems),
    then the ledger's ``root`` is rewritten atomically; a failed ledger write moves the
    folder back, so an install keeps loading from wherever the ledger says it is. A folder
    already at the new place (a move whose ledger write was cut short) is taken as moved.

    :returns: one ``{"name", "from", "to", "status"}`` per legacy install: ``moved``,
        ``kept`` (a folder not from wskit is at the new place: nothing moved, said why) or
        ``missing``.
    :raises LedgerError: the ledger is unusable.
    """
    with _lock(profile):
        ledger = read_ledger(profile)
        return _migrate_locked(profile, ledger)


def _migrate_locked(profile: HostProfile, ledger: dict[str, dict[str, Any]]) -> list[dict[str, str]]:
    """:func:`migrate_installs` with the lock held; ``ledger`` is updated in place."""
    import shutil  # not at start-up
    import tempfile

    legacy, new_dir = legacy_plugins_dir(profile), plugins_dir(profile)
    if os.path.abspath(legacy) == os.path.abspath(new_dir):
        return []
    out: list[dict[str, str]] = []
    for name in sorted(ledger):
        rec = ledger[name]
        old = legacy / name
        if not NAME_RE.match(name) or os.path.abspath(rec["root"]) != os.path.abspath(old):
            continue
        new = new_dir / name
        report = {"name": name, "from": str(old), "to": str(new)}
        moved_here = copied = False
        if new.exists() or new.is_symlink():
            if old.exists() or not new.is_dir() or new.is_symlink() or tree_digest(new) != rec["digest"]:
                out.append({**report, "status": "kept",
                            "detail": f"{new} exists and is not this install; remove it to move the plugin"})
                continue
        elif not old.is_dir() or old.is_symlink():
            out.append({**report, "status": "missing", "detail": "the install folder is gone"})
            continue
        else:
            try:
                with state_dir(new, profile.require_home()):
                    pass
            except StateFileError as err:
                raise LedgerError(f"plugin folder unusable: {err}") from None
            try:
                os.replace(old, new)
            except OSError:  # another file system: copy beside the target, then rename
                tmp = tempfile.mkdtemp(prefix=f".{name}.", suffix=".moving", dir=new_dir)
                os.rmdir(tmp)
                try:
                    _copy_tree(str(old), tmp, [])
                    os.replace(tmp, new)
                except BaseException:
                    shutil.rmtree(tmp, ignore_errors=True)
                    raise
                copied = True  # the old folder goes once the ledger names the new one
            moved_here = True
        previous = dict(rec)
        rec["root"] = str(new)
        try:
            _write_ledger(profile, ledger)
        except BaseException:
            ledger[name] = previous
            if copied:
                shutil.rmtree(new, ignore_errors=True)
            elif moved_here:
                os.replace(new, old)
            raise
        if copied:
            shutil.rmtree(old, ignore_errors=True)
        out.append({**report, "status": "moved"})
    return out
