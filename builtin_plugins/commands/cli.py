"""``wsctl commands list|render``: markdown custom commands."""

from __future__ import annotations

import click

from wskit.models import display_path
from wskit.cli.context import kind_diagnostics, WsctlContext, json_option, path_argument, safe_text, table
from wskit.cli.inspect import print_diagnostics

__all__ = ["commands_group", "list_cmd", "render_cmd"]


@click.group("commands")
def commands_group() -> None:
    """Custom commands: .claude/commands, .<host>/commands and plugin commands."""


@commands_group.command("list")
@path_argument
@json_option
@click.pass_obj
def list_cmd(obj: WsctlContext, path: str) -> None:
    """List the custom commands of the workspace holding PATH."""
    ws = obj.resolve(path)
    root = ws.binding.source_root
    cmds = ws.registry("command").active()
    diags = obj.listing_diagnostics(ws, kind_diagnostics(ws, "commands", ("command",)))
    data = {
        "commands": [
            {"id": c.id, "name": c.name, "description": c.description, "scope": c.scope.value,
             "path": display_path(c.provenance.absolute_path, root), "plugin": c.plugin,
             "argument_hint": c.argument_hint}
            for c in cmds
        ],
        "diagnostics": [d.to_json(root) for d in diags],
    }

    def human() -> None:
        rows = [[c.id, c.argument_hint or "", c.description[:60]] for c in cmds]
        click.echo(table(rows, ["ID", "ARGUMENTS", "DESCRIPTION"]) if rows else "no commands")
        print_diagnostics(diags, root)

    obj.emit(data, human)


@commands_group.command("render")
@click.argument("name")
@click.argument("args", nargs=-1)
@click.option("-C", "--workspace", "path", default=".", type=click.Path(exists=True),
              help="A path inside the workspace (default: the current folder).")
@json_option
@click.pass_obj
def render_cmd(obj: WsctlContext, name: str, args: tuple[str, ...], path: str) -> None:
    """Expand command NAME with ARGS (one argument each: $0, $1..; $ARGUMENTS is all of them).
    Shell embeds (!`cmd`) are never run here."""
    ws = obj.resolve(path)
    cmd = ws.registry("command").get(name)
    # a plugin that owns the command's format expands it (Gemini TOML: {{args}}, @{}, !{})
    result = ws.hooks.expand_command(cmd, list(args), str(ws.binding.execution_root))
    root = ws.binding.source_root
    diags = obj.listing_diagnostics(ws, result.diagnostics)
    data = {"id": cmd.id, "text": result.text, "diagnostics": [d.to_json(root) for d in diags]}

    def human() -> None:
        click.echo(result.text.rstrip("\n"))
        for d in diags:
            click.echo(safe_text(f"{d.level}: {d.code}: {d.message}"), err=True)

    obj.emit(data, human)
