"""Built-in plugin ``commands``: markdown custom commands (see :mod:`wskit.builtin_plugins.commands.loader`)."""

from __future__ import annotations

from wskit.builtin_plugins.commands.loader import COMMAND_FOLDERS, load_commands
from wskit.plugin import hookimpl


@hookimpl
def wskit_resource_kinds():
    return [COMMAND_FOLDERS.model_copy(update={"hook": "wskit_load_commands"})]


@hookimpl
def wskit_load_commands(source):
    return load_commands(source)


@hookimpl(trylast=True)
def wskit_expand_command(command, args, root):
    """wskit's markdown expansion (:func:`wskit.builtin_plugins.commands.expand.expand`), the
    answer when no plugin owns the command's format; shell embeds are never run."""
    from wskit.builtin_plugins.commands.expand import expand

    return expand(command, list(args), None, root=root)


@hookimpl
def wskit_register_commands(cli):
    """Add ``commands`` to ``wsctl`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "commands", "wskit.builtin_plugins.commands.cli:commands_group",
                     "Custom commands: .claude/commands, .<host>/commands and plugin commands.")
