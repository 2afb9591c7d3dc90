"""Records of the workspace registry (reference/holon-sakura.md A2), as pydantic v2 models.

Timestamps are ISO-8601 UTC strings (``2026-01-02T03:04:05.123456+00:00``).
Paths are stored lexically normalised (never symlink-resolved).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

ProjectionKind = Literal["canonical_root", "git_worktree_root"]
AccessMode = Literal["shared_read", "exclusive_write"]
RootKind = ProjectionKind


def utc_now() -> str:
    """Current UTC time as ISO-8601 with microseconds."""
    return datetime.now(timezone.utc).isoformat()


class Record(BaseModel):
    """Base: frozen, no unknown fields (Holon's ``deny_unknown_fields``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class WorkspaceEntry(Record):
    """A registered workspace (Holon ``WorkspaceEntry``).

    :ivar workspace_kind: ``agent_home`` or ``project``.
    :ivar repo_name: last component of the anchor; ``AgentHome`` for the agent home.
    """

    workspace_id: str
    workspace_alias: str | None = None
    workspace_kind: str | None = None
    owner_agent_id: str | None = None
    workspace_anchor: Path
    repo_name: str | None = None
    created_at: str
    updated_at: str


class CleanupEvidence(Record):
    """Last inspection of a worktree: ``clean`` / ``dirty`` (with changed files) /
    ``inspection_failed``; a locked worktree is noted in ``error``."""

    status: Literal["clean", "dirty", "inspection_failed"]
    changed_files: list[str] = Field(default_factory=list)
    error: str | None = None
    inspected_at: str


class WorktreeArtifactMetadata(Record):
    """Git facts recorded for a worktree execution root (Holon ``WorktreeArtifactMetadata``).

    :ivar provenance: ``runtime_created`` (made by ``create_worktree``) or
        ``discovered`` (entered by path / reused).
    :ivar authorized_agent_ids: agents allowed to remove it; empty means only
        ``registered_by_agent_id``.
    """

    provenance: Literal["runtime_created", "discovered"]
    registered_by_agent_id: str | None = None
    authorized_agent_ids: list[str] = Field(default_factory=list)
    branch: str | None = None
    branch_ref: str | None = None
    head_commit: str | None = None
    detached: bool = False
    requested_base_ref: str | None = None
    resolved_base_commit: str | None = None
    git_common_dir: str | None = None
    git_dir: str | None = None
    last_cleanup: CleanupEvidence | None = None


class ExecutionRootEntry(Record):
    """A registered execution root; ``removed_at`` set = tombstone (soft delete)."""

    execution_root_id: str
    workspace_id: str
    filesystem_path: Path
    root_kind: RootKind
    worktree: WorktreeArtifactMetadata | None = None
    created_at: str
    removed_at: str | None = None

    @property
    def removed(self) -> bool:
        """True for a tombstone."""
        return self.removed_at is not None


class OccupancyRecord(Record):
    """Advisory occupancy of an execution root (Holon ``WorkspaceOccupancyRecord``);
    ``released_at`` None = still held."""

    occupancy_id: str
    execution_root_id: str
    workspace_id: str
    holder_agent_id: str
    access_mode: AccessMode
    acquired_at: str
    released_at: str | None = None


class ActiveWorkspaceEntry(Record):
    """The agent's current projection (Holon ``ActiveWorkspaceEntry``).

    ``projection_metadata`` is ``{"worktree_root": path}`` for a git worktree projection.
    """

    workspace_id: str
    workspace_anchor: Path
    execution_root_id: str
    execution_root: Path
    projection_kind: ProjectionKind
    access_mode: AccessMode
    cwd: Path
    occupancy_id: str | None = None
    projection_metadata: dict[str, Any] | None = None


class ExecutionProfile(Record):
    """Execution profile (Holon ``ExecutionProfile``); ``host_local`` is the only backend."""

    backend: Literal["host_local"] = "host_local"
    process_execution_exposed: bool = True
    allow_background_tasks: bool = True
    supports_managed_worktrees: bool = True

    @model_validator(mode="before")
    @classmethod
    def _legacy_alias(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("backend") == "local":
            data = {**data, "backend": "host_local"}
        return data

    def policy_snapshot(self) -> "ExecutionPolicySnapshot":
        """The guarantee levels Holon's ``policy_snapshot()`` reports for this profile."""
        return ExecutionPolicySnapshot(
            backend=self.backend,
            process_execution_exposed=self.process_execution_exposed,
            allow_background_tasks=self.allow_background_tasks,
            supports_managed_worktrees=self.supports_managed_worktrees,
        )


Guarantee = Literal["hard_enforced", "runtime_shaped", "not_enforced"]


class ExecutionPolicySnapshot(Record):
    """What the host-local profile guarantees: a transparency contract, not a sandbox."""

    backend: str = "host_local"
    process_execution_exposed: bool = True
    allow_background_tasks: bool = True
    supports_managed_worktrees: bool = True
    workspace_projection: Guarantee = "hard_enforced"
    message_ingress: Guarantee = "hard_enforced"
    agent_state: Guarantee = "hard_enforced"
    control_plane: Guarantee = "hard_enforced"
    projection_rooting: Guarantee = "hard_enforced"
    process_execution: Guarantee = "runtime_shaped"
    cwd_rooting: Guarantee = "runtime_shaped"
    path_confinement: Guarantee = "not_enforced"
    write_confinement: Guarantee = "not_enforced"
    network_confinement: Guarantee = "not_enforced"
    secret_isolation: Guarantee = "not_enforced"
    child_process_containment: Guarantee = "not_enforced"
