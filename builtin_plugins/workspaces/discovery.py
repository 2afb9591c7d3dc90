"""Path discovery (reference/holon-sakura.md A1 ``discover_workspace_path``).

One discovery for all of wskit: this is :meth:`wskit.binding.Binding.discover`
in its lexical mode, so the resource layer and the workspace registry agree
on which folder is the source project and which is the execution root.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from wskit.binding import Binding
from wskit.builtin_plugins.workspaces.records import ProjectionKind


class Discovery(BaseModel):
    """Where a path belongs.

    :ivar anchor: the stable project root (the main checkout for a linked worktree).
    :ivar execution_root: the worktree folder, or the anchor.
    :ivar cwd: the input path (a sub-folder keeps its cwd).
    :ivar projection_kind: ``git_worktree_root`` for a linked worktree, else ``canonical_root``.
    """

    model_config = ConfigDict(frozen=True)
    anchor: Path
    execution_root: Path
    cwd: Path
    projection_kind: ProjectionKind


def discover_workspace_path(path: str | os.PathLike[str]) -> Discovery:
    """Discover the workspace of an existing path, lexically normalised.

    1. a ``.git`` file whose ``gitdir:`` points into ``<repo>/.git/worktrees/<n>``
       -> anchor ``<repo>``, execution root = the worktree, ``git_worktree_root``;
    2. else the first ancestor with a ``.git`` folder (holding ``HEAD``) is both
       anchor and execution root; a submodule's ``.git`` file (into
       ``.git/modules/…``) is skipped, so the walk reaches the superproject;
    3. else anchor = execution root = cwd = the path.

    :raises FileNotFoundError: when ``path`` does not exist.
    """
    b = Binding.discover(path, lexical=True)
    return Discovery(anchor=b.source_root, execution_root=b.execution_root, cwd=b.cwd,
                     projection_kind="git_worktree_root" if b.worktree else "canonical_root")
