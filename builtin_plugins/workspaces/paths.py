"""Identifiers and lexical path rules of workspaces (reference/holon-sakura.md A1, A4).

- workspace id: ``ws_`` + first 15 hex of SHA-256 of the normalised anchor;
- agent home id: ``agent_home:<agent_id>`` (bare ``agent_home`` accepted as selector);
- execution root ids: ``canonical_root:<ws>`` / ``git_worktree_root:<ws>:<path>``,
  a reused tombstoned id gets ``<base>:gen_<hex>``;
- normalisation is lexical (:func:`wskit.binding.normalize_lexical`);
- write paths resolve against cwd and must stay inside the execution root.
"""

from __future__ import annotations

import hashlib
import os
import re
import uuid
from pathlib import Path

from wskit.binding import is_within, normalize_lexical
from wskit.builtin_plugins.workspaces.errors import WorkspaceError

#: Agent ids: a letter or digit, then letters, digits, ``.``, ``_``, ``-`` (max 64).
AGENT_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")


def workspace_id_for(anchor: str | os.PathLike[str]) -> str:
    """``ws_`` + first 15 hex chars of SHA-256 over the normalised anchor path (UTF-8)."""
    norm = str(normalize_lexical(anchor))
    return "ws_" + hashlib.sha256(norm.encode("utf-8", "surrogateescape")).hexdigest()[:15]


def agent_home_id(agent_id: str) -> str:
    """``agent_home:<agent_id>``; raises ``invalid_tool_input`` for a bad agent id."""
    if not AGENT_ID_RE.match(agent_id or ""):
        raise WorkspaceError("invalid_tool_input", f"invalid agent id {agent_id!r}", field="agent_id")
    return f"agent_home:{agent_id}"


def canonical_root_id(workspace_id: str) -> str:
    """``canonical_root:<workspace_id>``."""
    return f"canonical_root:{workspace_id}"


def worktree_root_id(workspace_id: str, path: str | os.PathLike[str]) -> str:
    """``git_worktree_root:<workspace_id>:<normalised path>``."""
    return f"git_worktree_root:{workspace_id}:{normalize_lexical(path)}"


def generation_id(base_id: str) -> str:
    """A fresh generation of a tombstoned root id: ``<base>:gen_<12 hex>``."""
    return f"{base_id}:gen_{uuid.uuid4().hex[:12]}"


def sanitize_label(label: str) -> str:
    """Holon's worktree label rule: keep ASCII alphanumerics, ``-``, ``_``; any
    other char becomes ``-``; runs of ``-`` collapse; trim ``-``; empty ->
    ``worktree``; at most 64 chars."""
    out = "".join(c if (c.isascii() and c.isalnum()) or c in "-_" else "-" for c in label)
    out = re.sub(r"-{2,}", "-", out).strip("-")[:64].strip("-")
    return out or "worktree"


def check_view(anchor: Path, execution_root: Path, cwd: Path, worktree_root: Path | None) -> None:
    """Holon's ``WorkspaceView::new`` checks.

    :raises WorkspaceError: ``worktree_root_mismatch`` ("worktree root must match
        execution root"), ``execution_root_escapes_anchor`` ("execution root
        escapes workspace anchor", only without a worktree root),
        ``cwd_escapes_execution_root`` ("cwd escapes execution root").
    """
    if worktree_root is not None:
        if normalize_lexical(worktree_root) != normalize_lexical(execution_root):
            raise WorkspaceError("worktree_root_mismatch", "worktree root must match execution root")
    elif not is_within(execution_root, anchor):
        raise WorkspaceError("execution_root_escapes_anchor", "execution root escapes workspace anchor")
    if not is_within(cwd, execution_root):
        raise WorkspaceError("cwd_escapes_execution_root", "cwd escapes execution root")


def resolve_write_path(execution_root: Path, cwd: Path, path: str) -> Path:
    """A path to write: relative to ``cwd``, normalised, inside ``execution_root``.

    :raises WorkspaceError: ``execution_root_violation`` ("path escapes execution root").
    """
    cand = normalize_lexical(path, base=cwd)
    if not is_within(cand, execution_root):
        raise WorkspaceError("execution_root_violation", "path escapes execution root", path=path)
    return cand


def resolve_read_path(cwd: Path, path: str) -> Path:
    """A path to read: relative to ``cwd``, normalised; absolute paths outside the root are allowed."""
    return normalize_lexical(path, base=cwd)
