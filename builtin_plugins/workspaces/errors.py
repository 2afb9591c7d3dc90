"""The one error class of :mod:`wskit.builtin_plugins.workspaces`, with a stable ``kind``.

Kinds are snake_case, as Holon reports them in tool results
(reference/holon-sakura.md A1, A3, A4); messages keep Holon's wording.
``wsctl --json`` prints ``{"error": {"kind", "message", "details"}}`` and
exits 1 when one is raised.
"""

from __future__ import annotations

import os
from typing import Any

from wskit.errors import WskitError

#: Every kind raised by this package (the public contract, docs/workspaces.md).
ERROR_KINDS: frozenset[str] = frozenset({
    "store_unusable",                # the SQLite database is damaged or not a database (fail closed)
    "invalid_tool_input",            # bad selector count, missing dir, bad branch name …
    "execution_root_violation",      # a write path escapes the execution root (A1)
    "cwd_escapes_execution_root",    # "cwd escapes execution root" (A1)
    "execution_root_escapes_anchor", # "execution root escapes workspace anchor" (A1)
    "worktree_root_mismatch",        # "worktree root must match execution root" (A1)
    "protected_workspace",           # detaching AgentHome (RFC kind, A8 #2)
    "not_attached",                  # workspace not bound to the agent
    "unknown_workspace",             # no registry entry for the id
    "execution_root_not_found",      # unknown execution root id (HTTP 404 in Holon)
    "execution_root_removed",        # tombstoned execution root id (HTTP 410 in Holon)
    "unsupported_legacy_workspace_id",
    "worktree_missing",              # "worktree is missing from live git state"
    "not_a_git_workspace",           # worktrees need a git checkout
    "managed_worktrees_disabled",    # profile forbids git_worktree_root
    "base_ref_unresolved",           # base_ref does not name a commit
    "canonical_root_not_removable",  # "canonical workspace roots cannot be removed"
    "not_authorized",                # agent may not remove the root
    "return_to_required",            # "active worktree requires `return_to`"
    "active_occupancy",              # other holders / lease needs zero holders
    "exclusive_write_held",          # "… already has an exclusive_write holder"
    "cleanup_in_progress",           # "execution root … is being removed"
    "git_identity_mismatch",         # live git state differs from the record
    "worktree_locked",               # `git worktree lock` in place
    "merged_into_required",          # delete_if_merged / detached HEAD without merged_into
    "not_merged",                    # no is-ancestor proof; artifact retained
    "git_failed",                    # a git subprocess failed unexpectedly
    "untrusted_workspace",           # git would run in a project nobody trusted: refused, nothing started
})


class WorkspaceError(WskitError):
    """A workspace operation was refused or failed.

    :ivar kind: one of :data:`ERROR_KINDS`.
    :ivar details: JSON-able extra facts (``selector_count``, ``changed_files`` …).
    """

    def __init__(self, kind: str, message: str, **details: Any) -> None:
        assert kind in ERROR_KINDS, kind
        self.kind = kind
        self.details = details
        super().__init__(message)

    def to_json(self) -> dict[str, Any]:
        """``{"kind", "message", "details"}`` for ``wsctl --json``."""
        return {"kind": self.kind, "message": str(self), "details": self.details}


def require_utf8(field: str, value: str | os.PathLike[str] | None) -> None:
    """Refuse a path, branch or label holding a byte that is not UTF-8 (a lone
    surrogate, how POSIX names and ``surrogateescape`` git output reach Python):
    the store is SQLite text and results are JSON, neither can hold it.

    :raises WorkspaceError: ``invalid_tool_input`` naming ``field`` and the byte
        (the value shown with ``\\xNN``); nothing has been written then.
    """
    if value is None:
        return
    from wskit.fs.names import not_utf8, shown_path

    text = os.fspath(value)
    why = not_utf8(text)
    if why is not None:
        raise WorkspaceError("invalid_tool_input", f"{field} `{shown_path(text)}` {why}", field=field)
