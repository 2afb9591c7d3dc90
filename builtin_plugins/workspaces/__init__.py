"""Built-in plugin ``workspaces``: the ``wsctl workspace``, ``worktree`` and
``ref`` commands over :mod:`wskit.builtin_plugins.workspaces` (seed 003; holon-sakura.md Part A)."""

from __future__ import annotations

import importlib

from wskit.plugin import hookimpl


@hookimpl
def wskit_register_commands(cli):
    """Add ``workspace``, ``worktree``, ``ref`` to ``wsctl`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "workspace", "wskit.builtin_plugins.workspaces.cli:workspace_group",
                     "Workspaces bound to an agent: list, attach, detach, switch, state.")
    add_lazy_command(cli, "worktree", "wskit.builtin_plugins.workspaces.cli:worktree_group",
                     "Managed git worktrees: create (or safely reuse) and remove (never forced).")
    add_lazy_command(cli, "ref", "wskit.builtin_plugins.workspaces.cli:ref_group",
                     "File references: absolute paths, paths relative to a file, workspace:// URIs.")


#: public name -> submodule, imported on first access (PEP 562) so that loading the
#: plugin imports none of the workspace machinery
_EXPORTS = {
    "ActiveWorkspaceEntry": "records", "CleanupEvidence": "records", "Discovery": "discovery", "ERROR_KINDS":
    "errors", "ExecutionPolicySnapshot": "records", "ExecutionProfile": "records", "ExecutionRootEntry":
    "records", "ExecutionSnapshot": "snapshot", "OccupancyRecord": "records", "SnapshotRoot": "snapshot",
    "WorkspaceEntry": "records", "WorkspaceError": "errors", "WorkspaceManager": "manager", "WorkspaceStore":
    "store", "WorktreeArtifactMetadata": "records", "agent_home_id": "paths", "canonical_root_id": "paths",
    "check_view": "paths", "create_worktree": "worktrees", "discover_workspace_path": "discovery",
    "ensure_agent_home": "agent_home", "normalize_lexical": "paths", "remove_worktree": "worktrees",
    "resolve_read_path": "paths", "resolve_references": "refs", "resolve_write_path": "paths",
    "sanitize_label": "paths", "workspace_id_for": "paths", "worktree_root_id": "paths"
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{mod}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
