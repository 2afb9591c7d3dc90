"""``wsctl commands render``: expanding one custom command (``list`` is the
markdown-kind listing, :mod:`wskit.kit.markdown_cli`)."""

from __future__ import annotations

import click

from wskit.cli.context import WsctlContext, complete_names, json_option, safe_text


@click.command("render")
@click.argument("name", shell_complete=complete_names("command"))
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
