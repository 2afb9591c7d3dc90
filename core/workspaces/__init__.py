"""Workspaces, execution roots, git worktrees, occupancy, agent home and file
references (seed 003; reference/holon-sakura.md Part A).

Entry point: :class:`WorkspaceManager` (one agent's view of the registry in
``<home>/.wskit/workspaces.db``). See docs/workspaces.md.
"""

from __future__ import annotations

from .agent_home import ensure_agent_home
from .discovery import Discovery, discover_workspace_path
from .errors import ERROR_KINDS, WorkspaceError
from .manager import WorkspaceManager
from .models import (ActiveWorkspaceEntry, CleanupEvidence, ExecutionPolicySnapshot, ExecutionProfile,
                     ExecutionRootEntry, OccupancyRecord, WorkspaceEntry, WorktreeArtifactMetadata)
from .paths import (agent_home_id, canonical_root_id, check_view, normalize_lexical, resolve_read_path,
                    resolve_write_path, sanitize_label, workspace_id_for, worktree_root_id)
from .refs import resolve_references
from .snapshot import ExecutionSnapshot, SnapshotRoot
from .store import WorkspaceStore
from .worktrees import create_worktree, remove_worktree

__all__ = [
    "ActiveWorkspaceEntry", "CleanupEvidence", "Discovery", "ERROR_KINDS", "ExecutionPolicySnapshot",
    "ExecutionProfile", "ExecutionRootEntry", "ExecutionSnapshot", "OccupancyRecord", "SnapshotRoot",
    "WorkspaceEntry", "WorkspaceError", "WorkspaceManager", "WorkspaceStore", "WorktreeArtifactMetadata",
    "agent_home_id", "canonical_root_id", "check_view", "create_worktree", "discover_workspace_path",
    "ensure_agent_home", "normalize_lexical", "remove_worktree", "resolve_read_path", "resolve_references",
    "resolve_write_path", "sanitize_label", "workspace_id_for", "worktree_root_id",
]
