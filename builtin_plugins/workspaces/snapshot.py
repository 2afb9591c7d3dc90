"""``ExecutionSnapshot``: the execution context of one agent (reference/holon-sakura.md A2).

The resource layer uses it to map execution paths to the source project:
:meth:`ExecutionSnapshot.to_binding` gives the :class:`wskit.binding.Binding`
whose ``source_root`` is the workspace anchor (the main checkout for a worktree)
and whose ``execution_root`` is where files are touched.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from wskit.binding import Binding
from wskit.builtin_plugins.workspaces.paths import is_within, normalize_lexical
from wskit.builtin_plugins.workspaces.records import (
    AccessMode,
    ExecutionPolicySnapshot,
    ExecutionProfile,
    ProjectionKind,
)


class SnapshotRoot(BaseModel):
    """One registered, non-removed execution root of an attached workspace."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    execution_root_id: str
    workspace_id: str
    filesystem_path: Path


class ExecutionSnapshot(BaseModel):
    """Holon's ``ExecutionSnapshot``, JSON round-trippable
    (``ExecutionSnapshot.model_validate_json(s.model_dump_json()) == s``).

    :ivar attached_workspaces: ``(workspace_id, anchor)`` pairs, active first,
        then attachment order; ids unknown to the registry are dropped.
    :ivar execution_roots: non-removed roots of the attached workspaces.
    On load a missing ``policy`` is derived from ``profile`` and a missing
    ``execution_roots`` defaults to ``[]`` (as Holon's deserializer does).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    profile: ExecutionProfile = Field(default_factory=ExecutionProfile)
    policy: ExecutionPolicySnapshot
    attached_workspaces: list[tuple[str, Path]] = Field(default_factory=list)
    workspace_id: str | None = None
    workspace_anchor: Path
    execution_root: Path
    cwd: Path
    execution_root_id: str | None = None
    projection_kind: ProjectionKind | None = None
    access_mode: AccessMode | None = None
    worktree_root: Path | None = None
    execution_roots: list[SnapshotRoot] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _derive_policy(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("policy") is None:
            prof = data.get("profile")
            profile = prof if isinstance(prof, ExecutionProfile) else ExecutionProfile.model_validate(prof or {})
            data = {**data, "profile": profile, "policy": profile.policy_snapshot()}
        return data

    def to_binding(self) -> Binding:
        """The :class:`~wskit.binding.Binding` for the resource layer: ``source_root``
        = anchor, ``execution_root``, ``cwd`` (all real paths, like
        :meth:`Binding.discover`), ``worktree`` for a git worktree projection."""
        return Binding(
            source_root=Path(os.path.realpath(self.workspace_anchor)),
            execution_root=Path(os.path.realpath(self.execution_root)),
            cwd=Path(os.path.realpath(self.cwd)),
            worktree=self.projection_kind == "git_worktree_root",
        )

    def to_source(self, path: str | os.PathLike[str]) -> Path:
        """Map a path (relative to ``cwd`` or absolute) in the execution root to the
        same path in the source project; other paths are returned normalised.
        Lexical, like the rest of this package."""
        p = normalize_lexical(path, base=self.cwd)
        if self.projection_kind != "git_worktree_root" or not is_within(p, self.execution_root):
            return p
        rel = p.relative_to(normalize_lexical(self.execution_root))
        return normalize_lexical(self.workspace_anchor) / rel

    def root_for(self, path: str | os.PathLike[str]) -> SnapshotRoot | None:
        """The registered execution root holding ``path`` (deepest wins), or None."""
        p = normalize_lexical(path, base=self.cwd)
        best = [r for r in self.execution_roots if is_within(p, r.filesystem_path)]
        return max(best, key=lambda r: len(r.filesystem_path.parts), default=None)
