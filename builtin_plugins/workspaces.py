"""Built-in plugin ``workspaces``: the ``wsctl workspace``, ``worktree`` and
``ref`` commands over :mod:`wskit.workspaces` (seed 003; holon-sakura.md Part A)."""

from __future__ import annotations

from wskit.plugin import hookimpl


@hookimpl
def wskit_register_commands(cli):
    """Add ``workspace``, ``worktree``, ``ref`` to ``wsctl`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "workspace", "wskit.cli.workspaces:workspace_group",
                     "Workspaces bound to an agent: list, attach, detach, switch, state.")
    add_lazy_command(cli, "worktree", "wskit.cli.workspaces:worktree_group",
                     "Managed git worktrees: create (or safely reuse) and remove (never forced).")
    add_lazy_command(cli, "ref", "wskit.cli.workspaces:ref_group",
                     "File references: absolute paths, paths relative to a file, workspace:// URIs.")
