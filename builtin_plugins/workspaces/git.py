"""Thin wrappers around real ``git`` subprocesses (never a git library, never ``--force``).

Every call runs ``git -C <dir> …`` with ``GIT_TERMINAL_PROMPT=0`` and
returns text (UTF-8, bytes that are not UTF-8 as lone surrogates:
``surrogateescape``); :class:`GitError` carries git's stderr.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from wskit.builtin_plugins.workspaces.paths import normalize_lexical

__all__ = [
    "branch_exists", "git", "git_dirs", "GitError", "is_ancestor", "LiveWorktree", "out", "rev_commit",
    "status_changes", "valid_branch_name", "worktree_list"
]


class GitError(Exception):
    """A git command exited non-zero. :ivar stderr: git's message. :ivar returncode: exit status."""

    def __init__(self, args: list[str], returncode: int, stderr: str) -> None:
        self.returncode = returncode
        self.stderr = stderr.strip()
        super().__init__(f"git {' '.join(args)} failed ({returncode}): {self.stderr}")


def git(cwd: str | os.PathLike[str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``git -C cwd args…``; raises :class:`GitError` when ``check`` and it fails."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    # surrogateescape: a branch or path git names with a byte that is not UTF-8 comes back
    # as a lone surrogate (as os.listdir gives it), never a UnicodeDecodeError; callers
    # refuse or skip such entries (wskit.fs.names.undecodable)
    proc = subprocess.run(["git", "-C", os.fspath(cwd), *args], capture_output=True, env=env, timeout=120,
                          encoding="utf-8", errors="surrogateescape")
    if check and proc.returncode != 0:
        raise GitError(list(args), proc.returncode, proc.stderr)
    return proc


def out(cwd: str | os.PathLike[str], *args: str) -> str:
    """stdout of a successful git command, stripped."""
    return git(cwd, *args).stdout.strip()


def rev_commit(cwd: Path, ref: str) -> str | None:
    """The commit ``ref`` names, or None (``rev-parse --verify --quiet ref^{commit}``)."""
    p = git(cwd, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}", check=False)
    return p.stdout.strip() if p.returncode == 0 else None


def branch_exists(cwd: Path, branch: str) -> bool:
    """True when ``refs/heads/<branch>`` exists."""
    return git(cwd, "show-ref", "--verify", "--quiet", f"refs/heads/{branch}", check=False).returncode == 0


def valid_branch_name(cwd: Path, branch: str) -> bool:
    """``git check-ref-format --branch``."""
    return bool(branch) and not branch.startswith("-") and \
        git(cwd, "check-ref-format", "--branch", branch, check=False).returncode == 0


@dataclass
class LiveWorktree:
    """One entry of ``git worktree list --porcelain``.

    :ivar main: True for the first entry (the main checkout).
    :ivar branch_ref: ``refs/heads/…`` or None when detached.
    :ivar prunable: git reports the backing folder missing.
    """

    path: Path
    head: str | None = None
    branch_ref: str | None = None
    detached: bool = False
    bare: bool = False
    locked: str | None = None
    prunable: str | None = None
    main: bool = False
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def branch(self) -> str | None:
        """Short branch name, or None."""
        return self.branch_ref[len("refs/heads/"):] if self.branch_ref and self.branch_ref.startswith(
            "refs/heads/") else self.branch_ref

    @property
    def missing(self) -> bool:
        """The backing folder is gone."""
        return self.prunable is not None or not self.path.is_dir()


def worktree_list(cwd: Path) -> list[LiveWorktree]:
    """Parse ``git worktree list --porcelain`` (first entry = main checkout)."""
    text = git(cwd, "worktree", "list", "--porcelain").stdout
    items: list[LiveWorktree] = []
    for block in text.strip("\n").split("\n\n"):
        cur: LiveWorktree | None = None
        for line in block.splitlines():
            key, _, val = line.partition(" ")
            if key == "worktree":
                cur = LiveWorktree(path=normalize_lexical(val), main=not items)
            elif cur is None:
                continue
            elif key == "HEAD":
                cur.head = val
            elif key == "branch":
                cur.branch_ref = val
            elif key == "detached":
                cur.detached = True
            elif key == "bare":
                cur.bare = True
            elif key == "locked":
                cur.locked = val or "locked"
            elif key == "prunable":
                cur.prunable = val or "prunable"
            else:
                cur.extra[key] = val
        if cur is not None:
            items.append(cur)
    return items


def status_changes(cwd: Path) -> list[str]:
    """Changed files (porcelain v1, untracked included), as ``XY path`` lines."""
    text = git(cwd, "status", "--porcelain=v1", "--untracked-files=all").stdout
    return [line for line in text.splitlines() if line.strip()]


def is_ancestor(cwd: Path, commit: str, target: str) -> bool:
    """``git merge-base --is-ancestor commit target``."""
    return git(cwd, "merge-base", "--is-ancestor", commit, target, check=False).returncode == 0


def git_dirs(cwd: Path) -> tuple[str, str]:
    """``(git-common-dir, git-dir)`` of a checkout, both absolute and lexically normalised."""
    common = out(cwd, "rev-parse", "--git-common-dir")
    gdir = out(cwd, "rev-parse", "--absolute-git-dir")
    return str(normalize_lexical(common, base=cwd)), str(normalize_lexical(gdir, base=cwd))
