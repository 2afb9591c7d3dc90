"""Binding: which source project, execution root and cwd a path belongs to (design §3).

Root discovery follows the design's choice on stray ``.git`` entries and
Holon's worktree rule (reference/holon-sakura.md A1):

- a ``.git`` *folder* marks a project root only if it holds ``HEAD``;
- a ``.git`` *file* counts only if it holds a ``gitdir:`` line; when that
  points into ``<main>/.git/worktrees/<name>`` and git agrees (that admin
  folder exists, holds ``HEAD``, and its ``gitdir`` file points back at this
  folder's ``.git``) the folder is a linked worktree: the source project is
  ``<main>`` (resources, trust) while the execution root stays the worktree
  (files are touched there); when git would not agree, the folder is its own
  project (an unpacked archive's ``.git`` file inherits no trust);
- a submodule's ``.git`` file (pointing into ``.git/modules/…``) is not a
  worktree: the walk continues up to the superproject;
- with no marker up to the file-system root, source project = execution
  root = the path itself.
"""


import os
import stat
from pathlib import Path

from wskit import changes
from wskit.models import Frozen

__all__ = ["Binding", "DEFAULT_ROOT_MARKERS", "is_submodule", "is_within", "normalize_lexical"]


DEFAULT_ROOT_MARKERS: tuple[str, ...] = (".git",)


class Binding(Frozen):
    """Where a session's resources come from and where its files are touched.

    :ivar source_root: canonical (real) path of the source project: identity
        of resources, trust and caches. For a linked worktree, the main checkout.
    :ivar execution_root: real path where tools touch files (the worktree, or
        the source project itself).
    :ivar cwd: real path of the working folder, inside ``execution_root``.
    :ivar worktree: True when ``execution_root`` is a linked git worktree.
    """

    source_root: Path
    execution_root: Path
    cwd: Path
    worktree: bool = False

    @classmethod
    def discover(cls, path: str | os.PathLike[str], markers: tuple[str, ...] = DEFAULT_ROOT_MARKERS,
                 *, lexical: bool = False) -> "Binding":
        """Find the binding for ``path`` (a folder, or a file whose folder is used).

        :param path: any path; made absolute and resolved (real path).
        :param markers: root marker names; ``.git`` gets the special rules above,
            any other name counts when it exists.
        :param lexical: normalise paths lexically (:func:`normalize_lexical`,
            no symlink resolution) instead of resolving them, as Holon's
            ``discover_workspace_path`` does; used by :mod:`wskit.builtin_plugins.workspaces`
            so workspace ids depend on the path as written.
        :raises FileNotFoundError: when ``path`` does not exist.
        """
        p = Path(path).expanduser()
        if not p.exists():
            raise FileNotFoundError(f"no such folder: {path}")
        p = normalize_lexical(p) if lexical else p.resolve()
        cwd = p if p.is_dir() else p.parent
        cur = cwd
        while True:
            for marker in markers:
                cand = cur / marker
                if marker == ".git":
                    found = _git_marker(cur, lexical=lexical)
                    if found is None:
                        continue
                    kind, main = found
                    if kind == "worktree":
                        return cls(source_root=main, execution_root=cur, cwd=cwd, worktree=True)
                    if kind == "repo":
                        return cls(source_root=cur, execution_root=cur, cwd=cwd)
                    # submodule: keep walking to the superproject
                    continue
                if cand.exists() or cand.is_symlink():
                    return cls(source_root=cur, execution_root=cur, cwd=cwd)
            if cur.parent == cur:
                break
            cur = cur.parent
        return cls(source_root=cwd, execution_root=cwd, cwd=cwd)

    def to_source(self, path: str | os.PathLike[str]) -> Path:
        """Map a path in the execution root to the same path in the source project
        (identity when not a worktree or when the path lies outside)."""
        p = Path(os.path.abspath(os.path.join(self.cwd, path)))
        try:
            rel = p.relative_to(self.execution_root)
        except ValueError:
            return p
        return self.source_root / rel


def normalize_lexical(path: str | os.PathLike[str], base: str | os.PathLike[str] | None = None) -> Path:
    """Normalise ``path`` lexically, like Holon's ``normalize_path``
    (reference/holon-sakura.md A1): no symlink resolution; ``.`` dropped;
    ``..`` pops one component but never above the root (``/../etc`` ->
    ``/etc``); repeated separators collapse; a relative path is joined to
    ``base`` (default: the process cwd).

    :returns: an absolute :class:`~pathlib.Path`.
    """
    raw = os.fspath(path)
    if not os.path.isabs(raw):
        start = os.fspath(base) if base is not None else os.getcwd()
        raw = os.path.join(os.getcwd(), start, raw)  # a relative base is taken from the cwd too
    parts: list[str] = []
    for comp in raw.split(os.sep):
        if comp in ("", "."):
            continue
        if comp == "..":
            if parts:
                parts.pop()
            continue
        parts.append(comp)
    return Path(os.sep + os.sep.join(parts))


def is_within(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """True when normalised ``path`` equals ``root`` or lies below it (component-wise,
    lexically: :func:`normalize_lexical`, no file-system access)."""
    p, r = normalize_lexical(path), normalize_lexical(root)
    return p == r or r in p.parents


#: Largest ``.git`` file, ``gitdir`` or ``commondir`` file read, in bytes (git writes one line).
_POINTER_BYTES = 4096


def _read_pointer(path: str | os.PathLike[str]) -> str | None:
    """The text of a small git pointer file (``.git``, ``gitdir``, ``commondir``), or None.

    Bounded and non-blocking: a 2 GiB sparse ``.git`` file in an unpacked
    archive is never read whole, a FIFO swapped in never blocks, anything but
    a regular file is refused.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, _POINTER_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def _same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Both paths name one existing file (device and inode), links followed as git does."""
    try:
        sa, sb = os.stat(a), os.stat(b)
    except (OSError, ValueError):
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def _worktree_main(folder: Path, gd: Path) -> Path | None:
    """The main checkout of the linked worktree ``folder`` whose ``.git`` file points at
    the admin folder ``gd``, or None when git would not agree that it is one.

    As git itself checks a worktree (``worktree.c``, ``git worktree repair``): the
    admin folder ``<common>/worktrees/<id>`` exists and holds ``HEAD``; its
    ``gitdir`` file points back at *this* folder's ``.git`` (same file); its
    ``commondir`` (default ``../..``) names a repository holding ``HEAD`` whose
    ``worktrees/<id>`` is this admin folder; and that repository is the ``.git``
    folder of a checkout (a bare repository has no checkout to stand for the
    worktree). A ``.git`` file that merely *says* ``gitdir: <trusted>/.git/worktrees/x``
    (an unpacked archive, a copied folder) fails one of these.
    """
    changes.note(str(gd / "gitdir"), False)  # a rewritten back-pointer must reach change detection
    if not (gd / "HEAD").is_file():
        return None
    back = _read_pointer(gd / "gitdir")
    if back is None or not back.strip():
        return None
    back_path = Path(back.strip())
    if not back_path.is_absolute():  # worktree.useRelativePaths: relative to the admin folder
        back_path = gd / back_path
    if not _same_file(back_path, folder / ".git"):
        return None
    raw_common = _read_pointer(gd / "commondir")
    common = Path(os.path.realpath(gd / raw_common.strip())) if raw_common and raw_common.strip() \
        else Path(os.path.realpath(gd.parent.parent))
    if not (common / "HEAD").is_file() or not os.path.isdir(common / "worktrees"):
        return None
    if not _same_file(common / "worktrees" / gd.name, gd):
        return None
    if common.name != ".git":
        return None
    return common.parent


def is_submodule(folder: str | os.PathLike[str]) -> bool:
    """Whether ``folder/.git`` is a git submodule's pointer file (``gitdir:`` into
    ``…/modules/…``): :meth:`Binding.discover` walks past it to the superproject, so the
    submodule's files belong to the superproject's source project."""
    found = _git_marker(Path(folder))
    return found is not None and found[0] == "submodule"


def _git_marker(folder: Path, lexical: bool = False) -> tuple[str, Path | None] | None:
    """Classify ``folder/.git``: ``("repo", None)``, ``("worktree", main)``,
    ``("submodule", None)`` or None when it is absent or does not count.

    A ``.git`` file pointing into ``…/worktrees/<id>`` is a linked worktree only
    when git agrees (:func:`_worktree_main`); otherwise the folder is its own
    project (``("repo", None)``), never one of the project it names.
    """
    dot_git = folder / ".git"
    try:
        if dot_git.is_dir():
            return ("repo", None) if (dot_git / "HEAD").is_file() else None
        if not dot_git.is_file():
            return None
    except OSError:
        return None
    text = _read_pointer(dot_git)
    if text is None:
        return None
    gitdir = None
    for line in text.splitlines():
        if line.startswith("gitdir:"):
            gitdir = line[len("gitdir:") :].strip()
            break
    if not gitdir:
        return None
    gd = Path(gitdir)
    if not gd.is_absolute():
        gd = folder / gd
    if Path(os.path.realpath(gd)).parent.name == "worktrees" or gd.parent.name == "worktrees":
        main = _worktree_main(folder, Path(os.path.realpath(gd)))
        if main is None:
            return ("repo", None)
        return ("worktree", normalize_lexical(main) if lexical else main)
    norm = normalize_lexical if lexical else os.path.realpath
    if "modules" in Path(norm(gd)).parts:
        return ("submodule", None)
    return ("repo", None)
