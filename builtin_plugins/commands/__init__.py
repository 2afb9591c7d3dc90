"""Built-in plugin ``commands``: markdown custom commands (see :mod:`wskit.builtin_plugins.commands.loader`),
their expansion, and ``wsctl commands list|render`` (a :class:`~wskit.kit.markdown.MarkdownKind`
whose group adds ``render``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wskit.kinds import ResourceKind
from wskit.kit.markdown import MarkdownKind
from wskit.plugin import hookimpl
from wskit.util.deferred import folders_present, idle_unless, lazy_exports

__all__ = ["COMMAND_FOLDERS", "COMMANDS", "CommandsKind", "wskit_expand_command", "wskit_load_commands",
           "wskit_register_commands", "wskit_resource_kinds",
           # the markdown expansion (expand_markdown; SubprocessRunner opts in to !`cmd`) and its
           # shell step, for plugins that expand their own command formats
           "DEFAULT_FILE_CAP", "DEFAULT_OUTPUT_CAP", "DEFAULT_TIMEOUT", "Runner", "ShellRun", "SubprocessRunner",
           "expand_markdown", "run_shell", "split_args"]

#: The kind's folders: ``commands/`` of a source, or what a plugin manifest's ``commands`` names instead;
#: a skill hides a command of its name in the same scope (Claude Code offers one ``/name``, the skill).
#: Declared here so that registering the plugin does not import its loader.
COMMAND_FOLDERS = ResourceKind(name="command", default_dir="commands", manifest_keys=("commands",), markdown=True,
                               shadowed_by=("skill",))


class CommandsKind(MarkdownKind):
    """The ``command`` kind: listings add the argument hint; the group has
    ``render`` (:mod:`wskit.builtin_plugins.commands.cli`) instead of ``show``."""

    def row(self, resource: Any, root: Any) -> dict[str, Any]:
        return {**super().row(resource, root), "argument_hint": resource.argument_hint}

    def extra_commands(self) -> list:
        from wskit.builtin_plugins.commands.cli import render_cmd

        return [render_cmd]


COMMANDS = CommandsKind(
    COMMAND_FOLDERS.model_copy(update={"hook": "wskit_load_commands"}),
    load=idle_unless("wskit.builtin_plugins.commands.loader:load_commands", folders_present(COMMAND_FOLDERS)),  # nothing imported without its folder
    help="Custom commands: .claude/commands, .<host>/commands and plugin commands.",
    noun="custom commands", empty="no commands", show=False,
    columns=(("ID", lambda c: c.id), ("ARGUMENTS", lambda c: c.argument_hint or ""),
             ("DESCRIPTION", lambda c: c.description)),
)

wskit_resource_kinds = COMMANDS.wskit_resource_kinds
wskit_load_commands = COMMANDS.hook_impl()
wskit_register_commands = COMMANDS.wskit_register_commands


@hookimpl(trylast=True)
def wskit_expand_command(command, args, root):
    """wskit's markdown expansion (:func:`wskit.builtin_plugins.commands.expand.expand`), the
    answer when no plugin owns the command's format; shell embeds are never run."""
    from wskit.builtin_plugins.commands.expand import expand

    return expand(command, list(args), None, root=root)


#: public name -> its submodule and name there, imported on first access (PEP 562), so
#: registering the plugin imports none of them
__getattr__ = lazy_exports(__name__, {
    "DEFAULT_FILE_CAP": "expand:DEFAULT_FILE_CAP", "DEFAULT_OUTPUT_CAP": "expand:DEFAULT_OUTPUT_CAP",
    "DEFAULT_TIMEOUT": "expand:DEFAULT_TIMEOUT", "Runner": "expand:Runner", "ShellRun": "expand:ShellRun",
    "SubprocessRunner": "expand:SubprocessRunner", "run_shell": "expand:run_shell", "split_args": "expand:split_args",
    # the function is named like its module: exported under a name of its own
    "expand_markdown": "expand:expand",
})

if TYPE_CHECKING:
    from wskit.builtin_plugins.commands.expand import (
        DEFAULT_FILE_CAP,
        DEFAULT_OUTPUT_CAP,
        DEFAULT_TIMEOUT,
        Runner,
        ShellRun,
        SubprocessRunner,
        run_shell,
        split_args,
    )
    from wskit.builtin_plugins.commands.expand import expand as expand_markdown
