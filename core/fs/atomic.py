"""State writes: locked, atomic and link-safe (a failed write leaves the old state intact).

Every file wskit writes for itself (the trust store, the hook trust store, the
plugin ledger, the admin skills manifest, settings it edits for the user,
files it creates in an agent home) goes through this module:

- **link-safe**: the folder is opened component by component from an
  *anchor* (the user home, or the project root) with ``O_NOFOLLOW``; a
  component that is a symbolic link (a ``.wskit/`` or ``.claude/`` of an
  untrusted repository linked into the user's own files) is refused, never
  written through; missing folders are created with ``mkdir`` in the opened
  parent. The file itself must be absent or a regular file: a link, FIFO,
  device or folder in its place is refused (the atomic rename would replace
  a link the user made, and write into nothing they meant);
- **atomic**: a temporary file in the same folder (``O_CREAT|O_EXCL|O_NOFOLLOW``),
  ``fsync``, ``fchmod``, ``rename`` inside the opened folder, ``fsync`` of the
  folder: a writer killed at any point leaves the old or the new file;
- **locked**: :func:`state_lock` takes an exclusive ``flock`` on
  ``<name>.lock`` beside the file, opened without following links (the same
  lock file and ``flock`` that :mod:`filelock` takes, so older writers and
  these exclude each other); :func:`locked_update` is read-modify-write under it.

A refusal raises :class:`StateFileError` (an :class:`OSError`, so callers that
handle a failed write keep doing so) naming the path and the reason.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from wskit.errors import WskitError

__all__ = ["atomic_write", "check_no_links", "locked_replace", "locked_update", "read_state", "state_dir",
           "state_lock", "StateFileError", "write_named"]

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


class StateFileError(WskitError, OSError):
    """A state file or one of its folders was refused (a link, not a regular file,
    too large) or could not be written. The old state is intact.

    :ivar errno: the ``errno`` value of the cause (``ELOOP`` for a link,
        ``ENOENT`` for a missing folder…), or None.
    """

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.errno = code


def _parts(path: Path, anchor: Path) -> list[str]:
    """The components of ``path``'s folder below ``anchor`` (lexically, no ``..``)."""
    try:
        rel = path.parent.relative_to(anchor)
    except ValueError:
        raise StateFileError(f"{path} is not inside {anchor}; not written") from None
    parts = [p for p in rel.parts if p not in ("", ".")]
    if ".." in parts:
        raise StateFileError(f"{path}: '..' in a state path; not written")
    return parts


def _absolute(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.abspath(os.fspath(path)))


@contextlib.contextmanager
def state_dir(path: str | os.PathLike[str], anchor: str | os.PathLike[str] | None = None, *,
              create: bool = True, dir_mode: int = 0o700) -> Iterator[int]:
    """An fd of ``path``'s folder, opened below ``anchor`` without following links.

    :param anchor: the folder trusted as given (its own path may hold links: a
        home under ``/var/home`` linked from ``/home``); default ``path``'s folder.
    :param create: make missing folders (``dir_mode``) inside their opened parent.
    :raises StateFileError: a component is a link or not a folder, or (without
        ``create``) is missing (``errno`` ENOENT).
    """
    target = _absolute(path)
    base = _absolute(anchor) if anchor is not None else target.parent
    parts = _parts(target, base)
    if create:  # the anchor itself is made as given (links in its own path are the user's)
        os.makedirs(base, mode=dir_mode, exist_ok=True)
    try:
        fd = os.open(base, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
    except OSError as err:
        raise StateFileError(f"{base}: {err.strerror}; not written", err.errno) from None
    try:
        shown = base
        for part in parts:
            shown = shown / part
            try:
                nfd = os.open(part, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise StateFileError(f"{shown} does not exist", errno.ENOENT) from None
                try:
                    os.mkdir(part, dir_mode, dir_fd=fd)
                except FileExistsError:
                    pass
                nfd = os.open(part, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC, dir_fd=fd)
            except OSError as err:
                if err.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    what = "a symbolic link" if _is_link(part, fd) else "not a folder"
                    raise StateFileError(f"{shown} is {what}; refusing to write through it (state files "
                                         f"are written only below {base} without links)", errno.ELOOP) from None
                raise StateFileError(f"{shown}: {err.strerror}", err.errno) from None
            os.close(fd)
            fd = nfd
        yield fd
    finally:
        os.close(fd)


def check_no_links(path: str | os.PathLike[str], anchor: str | os.PathLike[str] | None = None) -> None:
    """Refuse a state file reached through a linked folder: ``lstat`` of every folder
    from below ``anchor`` to ``path``'s own (a missing one ends the check: nothing to
    read). The file itself is the reader's to check (it must be a regular file).
    Cheap (one ``lstat`` per component) for read paths that must fail closed, as the
    trust store does when ``~/.wskit`` is a link.

    :raises StateFileError: a component is a symbolic link (``errno`` ELOOP).
    """
    target = _absolute(path)
    base = _absolute(anchor) if anchor is not None else target.parent
    cur = base
    for part in _parts(target, base):
        cur = cur / part
        try:
            st = os.lstat(cur)
        except FileNotFoundError:
            return
        except OSError as err:
            raise StateFileError(f"{cur}: {err.strerror}", err.errno) from None
        if stat.S_ISLNK(st.st_mode):
            raise StateFileError(f"{cur} is a symbolic link; state files are used only below {base} "
                                 "without links", errno.ELOOP)


def _is_link(name: str, dfd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dfd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _check_target(dfd: int, name: str, shown: Path) -> os.stat_result | None:
    """``lstat`` of the file to be replaced: None when absent; refused unless regular."""
    try:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise StateFileError(f"{shown} is a symbolic link; not replaced (edit the file it points "
                             "to, or remove the link)", errno.ELOOP)
    if not stat.S_ISREG(st.st_mode):
        raise StateFileError(f"{shown} is not a regular file; not replaced", errno.EINVAL)
    return st


def _write_in(dfd: int, name: str, data: bytes, mode: int, shown: Path, durable: bool = True) -> None:
    _check_target(dfd, name, shown)
    tmp = f".{name}.{os.urandom(6).hex()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC, 0o600, dir_fd=dfd)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
            os.fchmod(fh.fileno(), mode)
        _check_target(dfd, name, shown)  # a link planted while writing is refused, not replaced
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dfd)
        raise
    if durable:
        with contextlib.suppress(OSError):
            os.fsync(dfd)


def atomic_write(path: str | os.PathLike[str], data: bytes, mode: int = 0o600, *,
                 anchor: str | os.PathLike[str] | None = None, dir_mode: int = 0o700) -> None:
    """Replace ``path`` with ``data`` atomically and link-safely (see the module docstring).

    :param mode: permission bits of the new file (default 0600).
    :param anchor: the folder below which no link is followed (default: ``path``'s folder).
    :raises StateFileError: a link or special file in the way (nothing written).
    :raises OSError: the write failed; the old file is untouched.
    """
    target = _absolute(path)
    with state_dir(target, anchor, dir_mode=dir_mode) as dfd:
        _write_in(dfd, target.name, data, mode, target)


def _read_in(dfd: int, name: str, shown: Path, max_bytes: int) -> bytes | None:
    try:
        fd = os.open(name, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC, dir_fd=dfd)
    except FileNotFoundError:
        return None
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.EMLINK):
            raise StateFileError(f"{shown} is a symbolic link; refused", errno.ELOOP) from None
        raise StateFileError(f"{shown}: {err.strerror}", err.errno) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise StateFileError(f"{shown} is not a regular file; refused", errno.EINVAL)
        if st.st_size > max_bytes:
            raise StateFileError(f"{shown} is larger than {max_bytes} bytes; refused unread", errno.EFBIG)
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > max_bytes:
                raise StateFileError(f"{shown} grew over {max_bytes} bytes while read; refused", errno.EFBIG)
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_state(path: str | os.PathLike[str], anchor: str | os.PathLike[str] | None = None, *,
               max_bytes: int = 16 * 1024 * 1024) -> bytes | None:
    """The bytes of a state file, or None when it (or its folder) does not exist.

    Read the way :func:`atomic_write` writes: no link below ``anchor``, a
    regular file only, non-blocking, at most ``max_bytes``.

    :raises StateFileError: a link, special file, or over ``max_bytes``.
    """
    target = _absolute(path)
    try:
        with state_dir(target, anchor, create=False) as dfd:
            return _read_in(dfd, target.name, target, max_bytes)
    except StateFileError as err:
        if err.errno == errno.ENOENT:
            return None
        raise


@contextlib.contextmanager
def _flock_in(dfd: int, name: str, shown: Path) -> Iterator[None]:
    lock_name = name + ".lock"
    try:
        fd = os.open(lock_name, os.O_RDWR | os.O_CREAT | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC, 0o600, dir_fd=dfd)
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.EMLINK):
            raise StateFileError(f"{shown}.lock is a symbolic link; refused", errno.ELOOP) from None
        raise StateFileError(f"{shown}.lock: {err.strerror}", err.errno) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise StateFileError(f"{shown}.lock is not a regular file; refused", errno.EINVAL)
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextlib.contextmanager
def state_lock(path: str | os.PathLike[str], anchor: str | os.PathLike[str] | None = None, *,
               dir_mode: int = 0o700) -> Iterator[None]:
    """Hold the exclusive lock of the state file ``path`` (``<path>.lock``, ``flock``)
    while the block runs. Blocks until the lock is free; a holder that dies
    releases it (the kernel drops ``flock`` locks with the process).

    :raises StateFileError: a link on the way, or the lock file is not a regular file.
    """
    target = _absolute(path)
    try:
        import fcntl  # noqa: F401 - POSIX only
    except ImportError:  # pragma: no cover - Windows: filelock's own locking
        from filelock import FileLock

        with state_dir(target, anchor, dir_mode=dir_mode):
            pass
        with FileLock(str(target) + ".lock"):
            yield
        return
    with state_dir(target, anchor, dir_mode=dir_mode) as dfd, _flock_in(dfd, target.name, target):
        yield


def locked_update(path: str | os.PathLike[str], update: Callable[[bytes | None], bytes | None], *,
                  anchor: str | os.PathLike[str] | None = None, mode: int | Callable[[int | None], int] = 0o600,
                  max_bytes: int = 16 * 1024 * 1024, dir_mode: int = 0o700) -> bytes | None:
    """Read-modify-write ``path`` under its lock: ``update(old_bytes_or_None)``
    returns the new bytes (None: leave the file as it is).

    The file is read and replaced through one folder descriptor opened without
    links (:func:`state_dir`), so what is read is what is replaced. ``update``
    should keep what it does not understand (unknown keys), or raise to refuse
    the write.

    :param mode: the new file's permission bits, or ``mode(old_mode_or_None)``.
    :returns: the bytes written (or None when ``update`` returned None).
    :raises StateFileError: a link or special file on the way; over ``max_bytes``.
    """
    target = _absolute(path)
    with state_dir(target, anchor, dir_mode=dir_mode) as dfd:
        with _flock_in(dfd, target.name, target):  # the lock and the file share the folder descriptor
            old_st = _check_target(dfd, target.name, target)
            old = _read_in(dfd, target.name, target, max_bytes) if old_st is not None else None
            new = update(old)
            if new is None:
                return None
            bits = mode(None if old_st is None else stat.S_IMODE(old_st.st_mode)) if callable(mode) else mode
            _write_in(dfd, target.name, new, bits, target)
            return new


def locked_replace(path: str | os.PathLike[str], data: bytes, *, anchor: str | os.PathLike[str] | None = None,
                   mode: int = 0o600, dir_mode: int = 0o700, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` under its lock, atomically and link-safely, without
    reading what it held (:func:`locked_update` for a writer that keeps nothing of it).

    :param durable: False skips the two ``fsync`` calls: a killed writer still leaves the
        old or the new file, but a system crash soon after may leave an empty or partial
        one. Only for files that are checked on read and whose loss costs nothing but
        time (the persistent index).
    :raises StateFileError: a link or special file on the way (nothing written).
    :raises OSError: the write failed; the old file is untouched.
    """
    target = _absolute(path)
    with state_dir(target, anchor, dir_mode=dir_mode) as dfd:
        with _flock_in(dfd, target.name, target):
            _write_in(dfd, target.name, data, mode, target, durable)


def write_named(path: str | os.PathLike[str], data: bytes, mode: int = 0o600) -> Path:
    """Write ``data`` to a file the *user* named (``wsctl snapshot -o PATH``), as a
    shell redirection would, but atomically where that is possible.

    - a relative ``path`` is taken against the current folder;
    - links are followed and never replaced: the file they lead to is written;
    - a character device, FIFO or terminal is written through (opened
      ``O_WRONLY``, never renamed over, never truncated); a FIFO without a
      reader is an error, not a hang (``O_NONBLOCK`` open);
    - a regular file (or a new name) is replaced atomically (:func:`atomic_write`
      in its real folder), an existing file keeping its permission bits;
    - a block device, socket or folder is refused.

    :returns: the absolute path written (as named, made absolute against the cwd).
    :raises StateFileError: refused, or the folder of a regular file refuses the temporary
        file beside it (``/proc/self/mem``, a read-only folder): names the path and why;
        nothing written.
    :raises OSError: the write failed.
    """
    shown = _absolute(path)
    real = Path(os.path.realpath(shown))
    try:
        st = os.stat(real)
    except FileNotFoundError:
        st = None
    except OSError as err:
        raise StateFileError(f"{shown}: {err.strerror}", err.errno) from None
    if st is None or stat.S_ISREG(st.st_mode):
        keep = mode if st is None else stat.S_IMODE(st.st_mode)
        try:
            atomic_write(real, data, mode=keep)
        except StateFileError:
            raise
        except OSError as err:
            # the temporary file is made beside the target: a folder that refuses new
            # files (/proc/<pid>, a read-only mount, no write permission) failed with the
            # temporary name alone ('.mem.….tmp'); say which path and why instead
            where = f" (as {real})" if real != shown else ""
            raise StateFileError(f"cannot write {shown}{where}: its folder {real.parent} does not let a new file be "
                                 f"made beside it, which replacing it atomically needs ({err.strerror or err})",
                                 err.errno) from None
        return shown
    if stat.S_ISDIR(st.st_mode):
        raise StateFileError(f"{shown} is a folder", errno.EISDIR)
    if stat.S_ISBLK(st.st_mode) or stat.S_ISSOCK(st.st_mode):
        what = "a block device" if stat.S_ISBLK(st.st_mode) else "a socket"
        raise StateFileError(f"{shown} is {what}; refusing to write to it", errno.EINVAL)
    try:  # character device, FIFO, terminal: write through, like '> PATH'
        fd = os.open(real, os.O_WRONLY | _O_NONBLOCK | _O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except OSError as err:
        if err.errno == errno.ENXIO:
            raise StateFileError(f"{shown} is a FIFO nobody reads; nothing written", err.errno) from None
        raise StateFileError(f"{shown}: {err.strerror}", err.errno) from None
    try:
        post = os.fstat(fd)
        if (post.st_dev, post.st_ino) != (st.st_dev, st.st_ino):
            raise StateFileError(f"{shown} changed while being opened; nothing written", errno.EAGAIN)
        os.set_blocking(fd, True)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    return shown
