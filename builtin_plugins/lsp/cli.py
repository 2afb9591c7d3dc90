"""``wsctl lsp list``: the LSP server definitions (``lsp check`` comes with wskit-lsp)."""

from __future__ import annotations

import click

from wskit.cli.context import WsctlContext, json_option, kind_diag_dicts, path_argument, print_diag_dicts, table
from wskit.models import display_path

__all__ = ["lsp_group", "lsp_list_cmd"]


@click.group("lsp")
def lsp_group() -> None:
    """LSP server definitions; `check` starts one."""


@lsp_group.command("list")
@path_argument
@json_option
@click.pass_obj
def lsp_list_cmd(obj: WsctlContext, path: str) -> None:
    """List the LSP servers of the workspace holding PATH."""
    ws = obj.resolve(path)
    rows = [{"id": s.id, "name": s.name, "scope": s.scope.value, "plugin": s.plugin, "command": s.command,
             "args": list(s.args), "extension_to_language": s.extension_to_language, "enabled": s.enabled,
             "path": display_path(s.provenance.absolute_path, ws.source_root)}
            for s in ws.registry("lsp_server").active()]
    data = {"servers": rows, "diagnostics": kind_diag_dicts(obj, ws, ("lsp",))}
    obj.emit(data, lambda: (click.echo(table(
        [[r["id"], r["command"], " ".join(sorted(r["extension_to_language"]))] for r in rows],
        ["ID", "COMMAND", "EXTENSIONS"]) if rows else "no LSP servers"), print_diag_dicts(data["diagnostics"])))
