"""Built-in plugin ``workspaces``: the ``wsctl workspace``, ``worktree`` and
``ref`` commands over :mod:`wskit.workspaces` (seed 003; holon-sakura.md Part A)."""

from __future__ import annotations

from wskit.plugin import hookimpl


@hookimpl
def wskit_register_commands(cli):
    """Add ``workspace``, ``worktree`` and ``ref`` to ``wsctl``."""
    from wskit.cli.workspaces import ref_group, workspace_group, worktree_group

    cli.add_command(workspace_group)
    cli.add_command(worktree_group)
    cli.add_command(ref_group)
