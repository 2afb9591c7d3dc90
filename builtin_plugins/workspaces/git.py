"""Thin wrappers around real ``git`` subprocesses (never a git library, never ``--force``).

:func:`git` is the one place wskit starts git, and :func:`git_invocation` the one
place that builds a git call's argv and environment. Two guarantees:

**No git in a repository nobody trusted.** :func:`git` runs only inside a
:func:`trust_gate` (the :class:`~wskit.builtin_plugins.workspaces.WorkspaceManager`
installs one for each of its operations, deciding with the trust store or the
host's trust plugins); the folder git would run in is mapped to its source
project the way the resource layer maps it (:meth:`wskit.binding.Binding.discover`,
reading files only), and an untrusted, unknown or undecidable project raises
:class:`UntrustedRepository` before any process starts. Outside a gate every call
is refused (fail closed). A folder in no git repository is answered ``not a git
repository`` without starting git (git would otherwise walk up into an ancestor's
repository and read its configuration).

**No repository setting runs anything, even in a trusted repository.** A
repository's own ``.git/config`` (an unpacked archive, a copied folder, an
``include.path``, a ``config.worktree``) is read by git with more weight than
the user's, so every call sets what repository configuration cannot override:

- environment ``GIT_ALLOW_PROTOCOL=`` (empty): no transport at all, whatever
  ``protocol.<name>.allow`` the repository sets (that setting outranks
  ``-c protocol.allow=never``; the environment variable outranks both). So no
  ``ext::`` command, ``remote.<name>.uploadpack``, ``core.sshCommand``,
  ``core.gitProxy``, credential helper or HTTP request;
- ``GIT_NO_LAZY_FETCH=1``: a partial clone's promisor remote
  (``extensions.partialClone``, ``remote.<name>.promisor``) is never fetched
  from when an object is missing; the command fails instead;
- ``GIT_PAGER=cat``, ``GIT_EDITOR=:`` (outrank ``core.pager``/``core.editor``),
  ``GIT_TERMINAL_PROMPT=0``, ``GIT_OPTIONAL_LOCKS=0`` (``status`` writes no
  index in somebody else's repository), ``LC_ALL=C``;
- ``-c`` settings (command-line configuration outranks every file, and reaches
  the git processes git starts itself): ``core.fsmonitor=``,
  ``core.hooksPath=/dev/null`` (no hook of ``.git/hooks`` or of a configured
  hooks folder runs: ``post-checkout``, ``reference-transaction``…),
  ``credential.helper=``, ``core.askPass=``, ``submodule.recurse=false``,
  ``protocol.allow=never``, ``gc.auto=0``, ``maintenance.auto=false``, and for
  every ``filter.<driver>`` the configuration defines an empty ``clean``,
  ``smudge`` and ``process`` with ``required=false`` (a checkout runs smudge
  filters, ``status`` runs clean filters on stat-dirty files; the driver names
  are read with ``git config --get-regexp``, which runs nothing);
- only the subcommands in :data:`SUBCOMMANDS` run: none of them diffs, merges,
  pages, edits, signs or verifies, so ``diff.<driver>.textconv``,
  ``diff.external``, ``merge.<driver>.driver``, ``gpg.program`` and
  ``log.showSignature`` are never consulted; ``status`` ignores submodules (a
  submodule has its own configuration);
- the environment drops the variables that would point git at another
  repository (``GIT_DIR``, ``GIT_WORK_TREE``, ``GIT_INDEX_FILE``…, set when
  wskit runs inside a git hook) or name a command (``GIT_SSH_COMMAND``,
  ``GIT_EXTERNAL_DIFF``, ``GIT_ASKPASS``…).

The user's own (global, system) configuration is left alone: it is the user's,
and it holds ``safe.directory``, which git reads from nowhere else (a repository
owned by another user stays refused by git). ``tests/security/test_git_repo_config.py``
arms a repository with each setting above, each payload writing a marker file,
proves plain git fires it, and checks that no wskit command does.

It returns text (UTF-8, bytes that are not UTF-8 as lone surrogates:
``surrogateescape``); :class:`GitError` carries git's stderr.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from wskit.builtin_plugins.workspaces.paths import normalize_lexical
from wskit.values import Value, field

#: ``-c`` settings given to every git call: no repository-configured command runs.
NEUTRAL_CONFIG: tuple[str, ...] = (
    "core.fsmonitor=", f"core.hooksPath={os.devnull}", "submodule.recurse=false", "protocol.allow=never",
    "gc.auto=0", "maintenance.auto=false", "core.askPass=", "credential.helper=",
)
#: Environment variables set for every git call; each outranks the repository's configuration.
NEUTRAL_ENV: dict[str, str] = {
    "GIT_ALLOW_PROTOCOL": "",        # no transport, whatever protocol.<name>.allow says
    "GIT_PROTOCOL_FROM_USER": "0",
    "GIT_NO_LAZY_FETCH": "1",        # no fetch from a promisor remote for a missing object
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "GIT_EDITOR": ":",
    "GIT_OPTIONAL_LOCKS": "0",
    "LC_ALL": "C",
}
#: The git subcommands wskit runs; any other is refused before a process starts.
SUBCOMMANDS = frozenset({"check-ref-format", "config", "merge-base", "rev-parse", "show-ref", "status",
                         "symbolic-ref", "update-ref", "worktree"})
#: Environment variables dropped before git starts: each points git at another
#: repository, work tree, index or object store than the folder named, or names a command.
_LOCATING_ENV = frozenset({
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_PREFIX", "GIT_INTERNAL_SUPER_PREFIX",
    "GIT_QUARANTINE_PATH", "GIT_SHALLOW_FILE", "GIT_REPLACE_REF_BASE", "GIT_GRAFT_FILE",
    "GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "GIT_EDITOR", "GIT_PAGER",
    "GIT_SEQUENCE_EDITOR", "GIT_PROXY_COMMAND",
})
_TIMEOUT = 120


class GitError(Exception):
    """A git command exited non-zero. :ivar stderr: git's message. :ivar returncode: exit status."""

    def __init__(self, args: list[str], returncode: int, stderr: str) -> None:
        self.returncode = returncode
        self.stderr = stderr.strip()
        super().__init__(f"git {' '.join(args)} failed ({returncode}): {self.stderr}")


class UntrustedRepository(GitError):
    """git was not started: the folder's source project is not trusted (or no trust
    gate is in force). :ivar project: the source project decided on (a string).
    :ivar reason: why (``untrusted by the decision on …``, ``no trust decision covers it``…)."""

    def __init__(self, args: list[str], project: str, reason: str) -> None:
        self.project = project
        self.reason = reason
        GitError.__init__(self, args, -1, f"no git runs in {project}: {reason}")
        self.args = (f"no git runs in {project}: {reason}",)

    def __str__(self) -> str:
        return self.args[0]


#: the trust decision in force: source project -> (trusted, reason sentence)
_GATE: contextvars.ContextVar[Callable[[Path], tuple[bool, str]] | None] = contextvars.ContextVar(
    "wskit_git_trust_gate", default=None)


@contextlib.contextmanager
def trust_gate(decide: Callable[[Path], Any]) -> Iterator[None]:
    """Allow :func:`git` inside the ``with`` block for folders whose source project
    ``decide`` trusts.

    :param decide: source project -> a :class:`~wskit.trust.TrustDecision`, a bool or
        None (undecided: untrusted). An exception from it counts as untrusted.
    """
    def check(project: Path) -> tuple[bool, str]:
        try:
            d = decide(project)
        except Exception as err:  # noqa: BLE001 - an undecidable project is untrusted (fail closed)
            return False, f"trust could not be decided ({err})"
        if isinstance(d, bool) or d is None:
            return bool(d), "trusted" if d else "no trust decision covers it"
        if getattr(d, "error", None):
            return False, f"trust store unusable: {d.error}"
        if getattr(d, "state", None) == "untrusted":
            return False, f"untrusted by the decision on {d.decided_by}"
        return bool(getattr(d, "trusted", False)), "no trust decision covers it"

    token = _GATE.set(check)
    try:
        yield
    finally:
        _GATE.reset(token)


def git_env() -> dict[str, str]:
    """The environment every git call runs with: the process's, minus the variables
    that locate another repository or name a command (:data:`_LOCATING_ENV`), plus
    :data:`NEUTRAL_ENV`."""
    env = {k: v for k, v in os.environ.items() if k not in _LOCATING_ENV}
    env.update(NEUTRAL_ENV)
    return env


def git_invocation(cwd: str | os.PathLike[str], args: tuple[str, ...] | list[str],
                   config: tuple[str, ...] | list[str] = NEUTRAL_CONFIG) -> tuple[list[str], dict[str, str]]:
    """``(argv, env)`` of one git call: ``git -C cwd -c …config… args…`` with
    :func:`git_env`. Every git process wskit starts is built here.

    :raises ValueError: ``args`` do not start with a subcommand of :data:`SUBCOMMANDS`.
    """
    if not args or args[0] not in SUBCOMMANDS:
        raise ValueError(f"git subcommand {args[0] if args else ''!r} is not one wskit runs")
    argv = ["git", "-C", os.fspath(cwd)]
    for item in config:
        argv += ["-c", item]
    return [*argv, *args], git_env()


def _run(cwd: str, config: tuple[str, ...], args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    argv, env = git_invocation(cwd, args, config)
    # surrogateescape: a branch or path git names with a byte that is not UTF-8 comes back
    # as a lone surrogate (as os.listdir gives it), never a UnicodeDecodeError; callers
    # refuse or skip such entries (wskit.fs.names.undecodable)
    return subprocess.run(argv, capture_output=True, env=env, timeout=_TIMEOUT, stdin=subprocess.DEVNULL,
                          encoding="utf-8", errors="surrogateescape")


def _filter_drivers(cwd: str) -> list[str]:
    """Names of the ``filter.<driver>`` sections the configuration seen from ``cwd``
    defines (``git config --get-regexp`` only reads files; it runs no command)."""
    proc = _run(cwd, NEUTRAL_CONFIG, ("config", "--null", "--name-only", "--get-regexp", r"^filter\."))
    names: list[str] = []
    for key in proc.stdout.split("\0") if proc.returncode == 0 else ():
        driver = key[len("filter."):].rpartition(".")[0]
        if key.startswith("filter.") and driver and driver not in names:
            names.append(driver)
    return names


def _gate(where: str, args: tuple[str, ...]) -> None:
    """Refuse before any process starts: no gate, a folder in no repository, or an
    untrusted source project."""
    from wskit.binding import Binding

    check = _GATE.get()
    if check is None:
        raise UntrustedRepository(list(args), where, "no trust gate is in force (wskit runs git only for a "
                                                     "trust decision)")
    try:
        b = Binding.discover(where, markers=(".git",), lexical=True)
    except (OSError, ValueError) as err:
        raise GitError(list(args), 128, f"fatal: cannot use {where}: {err}") from None
    if b.source_root == b.cwd and not os.path.lexists(os.path.join(b.source_root, ".git")):
        raise GitError(list(args), 128, f"fatal: not a git repository: {where}")
    trusted, reason = check(b.source_root)
    if not trusted:
        raise UntrustedRepository(list(args), str(b.source_root), reason)


def git(cwd: str | os.PathLike[str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``git -C cwd args…`` when the :func:`trust_gate` trusts the folder's source
    project, with repository-side execution switched off (see the module
    docstring): no transport, lazy fetch, fsmonitor, hook, filter, credential
    helper, pager, editor or auto-gc the repository configures runs.

    :raises UntrustedRepository: no gate, or the source project is not trusted (always,
        ``check`` or not: nothing ran).
    :raises GitError: when ``check`` and git exits non-zero; a folder in no git
        repository (status 128, git not started).
    :raises ValueError: a subcommand not in :data:`SUBCOMMANDS`.
    :raises subprocess.TimeoutExpired: git ran over 120 s.
    """
    where = os.fspath(cwd)
    if not args or args[0] not in SUBCOMMANDS:
        raise ValueError(f"git subcommand {args[0] if args else ''!r} is not one wskit runs")
    try:
        _gate(where, args)
    except UntrustedRepository:
        raise
    except GitError:
        if check:
            raise
        return subprocess.CompletedProcess(["git", "-C", where, *args], 128, "", "fatal: not a git repository")
    config = list(NEUTRAL_CONFIG)
    for driver in _filter_drivers(where):
        config += [f"filter.{driver}.clean=", f"filter.{driver}.smudge=", f"filter.{driver}.process=",
                   f"filter.{driver}.required=false"]
    proc = _run(where, tuple(config), args)
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


class LiveWorktree(Value):
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
