"""Thin wrappers around real ``git`` subprocesses (never a git library, never ``--force``).

:func:`git` is the one place wskit starts git. The repositories it runs in are
often ones nobody trusted (``worktree create`` in a fresh clone, ``workspace
state`` on any attached folder), and git runs commands its repository
configuration names. So every call switches repository-side execution off
(:data:`NEUTRAL_CONFIG`, command-line ``-c`` settings, which outrank the
repository's own and reach the git processes git starts itself):

- ``core.fsmonitor=`` (run on every index refresh: ``status``, ``worktree add``);
- ``core.hooksPath=/dev/null``: no hook of ``.git/hooks`` or of a configured
  hooks folder runs (``post-checkout``, ``reference-transaction``, ``pre-auto-gc``…);
- every ``filter.<driver>`` the configuration defines gets an empty ``clean``,
  ``smudge`` and ``process`` and ``required=false`` (a checkout runs smudge
  filters, ``status`` runs clean filters on stat-dirty files); the driver
  names are read with ``git config --get-regexp`` first, which runs nothing;
- ``submodule.recurse=false``, and ``status`` ignores submodules (a submodule
  has its own configuration, whose filter names are not known here);
- ``protocol.allow=never``: no transport, so no ``core.sshCommand``,
  credential helper or lazy fetch of a partial clone;
- ``gc.auto=0``, ``maintenance.auto=false``: no background ``gc``;
- the environment drops the variables that would point git at another
  repository (``GIT_DIR``, ``GIT_WORK_TREE``, ``GIT_INDEX_FILE``…, set when
  wskit runs inside a git hook); ``GIT_TERMINAL_PROMPT=0``, ``LC_ALL=C``.

It returns text (UTF-8, bytes that are not UTF-8 as lone surrogates:
``surrogateescape``); :class:`GitError` carries git's stderr.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from wskit.builtin_plugins.workspaces.paths import normalize_lexical

__all__ = [
    "branch_exists", "git", "git_dirs", "git_env", "GitError", "is_ancestor", "LiveWorktree", "NEUTRAL_CONFIG",
    "out", "rev_commit", "status_changes", "valid_branch_name", "worktree_list"
]

#: ``-c`` settings given to every git call: no repository-configured command runs.
NEUTRAL_CONFIG: tuple[str, ...] = (
    "core.fsmonitor=", f"core.hooksPath={os.devnull}", "submodule.recurse=false", "protocol.allow=never",
    "gc.auto=0", "maintenance.auto=false", "core.askPass=", "credential.helper=",
)
#: Environment variables dropped before git starts: each points git at another
#: repository, work tree, index or object store than the folder named.
_LOCATING_ENV = frozenset({
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_PREFIX", "GIT_INTERNAL_SUPER_PREFIX",
    "GIT_QUARANTINE_PATH", "GIT_SHALLOW_FILE", "GIT_REPLACE_REF_BASE", "GIT_GRAFT_FILE",
    "GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "GIT_EDITOR", "GIT_PAGER",
})
_TIMEOUT = 120


class GitError(Exception):
    """A git command exited non-zero. :ivar stderr: git's message. :ivar returncode: exit status."""

    def __init__(self, args: list[str], returncode: int, stderr: str) -> None:
        self.returncode = returncode
        self.stderr = stderr.strip()
        super().__init__(f"git {' '.join(args)} failed ({returncode}): {self.stderr}")


def git_env() -> dict[str, str]:
    """The environment every git call runs with: the process's, minus the variables
    that locate another repository or name a command (:data:`_LOCATING_ENV`), plus
    ``GIT_TERMINAL_PROMPT=0`` and ``LC_ALL=C``."""
    env = {k: v for k, v in os.environ.items() if k not in _LOCATING_ENV}
    env.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
    return env


def _run(cwd: str, config: tuple[str, ...], args: tuple[str, ...], env: dict[str, str]
         ) -> subprocess.CompletedProcess[str]:
    argv = ["git", "-C", cwd]
    for item in config:
        argv += ["-c", item]
    # surrogateescape: a branch or path git names with a byte that is not UTF-8 comes back
    # as a lone surrogate (as os.listdir gives it), never a UnicodeDecodeError; callers
    # refuse or skip such entries (wskit.fs.names.undecodable)
    return subprocess.run([*argv, *args], capture_output=True, env=env, timeout=_TIMEOUT, stdin=subprocess.DEVNULL,
                          encoding="utf-8", errors="surrogateescape")


def _filter_drivers(cwd: str, env: dict[str, str]) -> list[str]:
    """Names of the ``filter.<driver>`` sections the configuration seen from ``cwd``
    defines (``git config --get-regexp`` only reads files; it runs no command)."""
    proc = _run(cwd, NEUTRAL_CONFIG, ("config", "--null", "--name-only", "--get-regexp", r"^filter\."), env)
    names: list[str] = []
    for key in proc.stdout.split("\0") if proc.returncode == 0 else ():
        driver = key[len("filter."):].rpartition(".")[0]
        if key.startswith("filter.") and driver and driver not in names:
            names.append(driver)
    return names


def git(cwd: str | os.PathLike[str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``git -C cwd args…`` with repository-side execution switched off (see the
    module docstring): no fsmonitor, hook, filter, transport or auto-gc the repository
    configures runs, whoever wrote that repository.

    :raises GitError: when ``check`` and git exits non-zero.
    :raises subprocess.TimeoutExpired: git ran over 120 s.
    """
    env = git_env()
    where = os.fspath(cwd)
    config = list(NEUTRAL_CONFIG)
    for driver in _filter_drivers(where, env):
        config += [f"filter.{driver}.clean=", f"filter.{driver}.smudge=", f"filter.{driver}.process=",
                   f"filter.{driver}.required=false"]
    proc = _run(where, tuple(config), args, env)
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
    # submodules ignored: git would run 'status' inside each with the submodule's own
    # configuration (its filters are not switched off by the parent's -c settings)
    text = git(cwd, "status", "--porcelain=v1", "--untracked-files=all", "--ignore-submodules=all").stdout
    return [line for line in text.splitlines() if line.strip()]


def is_ancestor(cwd: Path, commit: str, target: str) -> bool:
    """``git merge-base --is-ancestor commit target``."""
    return git(cwd, "merge-base", "--is-ancestor", commit, target, check=False).returncode == 0


def git_dirs(cwd: Path) -> tuple[str, str]:
    """``(git-common-dir, git-dir)`` of a checkout, both absolute and lexically normalised."""
    common = out(cwd, "rev-parse", "--git-common-dir")
    gdir = out(cwd, "rev-parse", "--absolute-git-dir")
    return str(normalize_lexical(common, base=cwd)), str(normalize_lexical(gdir, base=cwd))
