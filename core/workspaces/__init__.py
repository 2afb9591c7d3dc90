"""Workspaces, execution roots, git worktrees, occupancy, agent home and file
references (seed 003; reference/holon-sakura.md Part A).

Entry point: :class:`WorkspaceManager` (one agent's view of the registry in
``<home>/.wskit/workspaces.db``). See docs/workspaces.md.
"""

from __future__ import annotations

from wskit.workspaces.agent_home import ensure_agent_home
from wskit.workspaces.discovery import Discovery, discover_workspace_path
from wskit.workspaces.errors import ERROR_KINDS, WorkspaceError
from wskit.workspaces.manager import WorkspaceManager
from wskit.workspaces.models import (ActiveWorkspaceEntry, CleanupEvidence, ExecutionPolicySnapshot, ExecutionProfile,
                     ExecutionRootEntry, OccupancyRecord, WorkspaceEntry, WorktreeArtifactMetadata)
from wskit.workspaces.paths import (agent_home_id, canonical_root_id, check_view, normalize_lexical, resolve_read_path,
                    resolve_write_path, sanitize_label, workspace_id_for, worktree_root_id)
from wskit.workspaces.refs import resolve_references
from wskit.workspaces.snapshot import ExecutionSnapshot, SnapshotRoot
from wskit.workspaces.store import WorkspaceStore
from wskit.workspaces.worktrees import create_worktree, remove_worktree

__all__ = [
    "ActiveWorkspaceEntry", "CleanupEvidence", "Discovery", "ERROR_KINDS", "ExecutionPolicySnapshot",
    "ExecutionProfile", "ExecutionRootEntry", "ExecutionSnapshot", "OccupancyRecord", "SnapshotRoot",
    "WorkspaceEntry", "WorkspaceError", "WorkspaceManager", "WorkspaceStore", "WorktreeArtifactMetadata",
    "agent_home_id", "canonical_root_id", "check_view", "create_worktree", "discover_workspace_path",
    "ensure_agent_home", "normalize_lexical", "remove_worktree", "resolve_read_path", "resolve_references",
    "resolve_write_path", "sanitize_label", "workspace_id_for", "worktree_root_id",
]
