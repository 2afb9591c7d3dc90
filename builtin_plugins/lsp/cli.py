"""``wsctl lsp list|approve|deny``: the LSP server definitions and their approval (``lsp check`` comes
with wskit-lsp)."""

from __future__ import annotations

import click

from wskit.approval.commands import add_approval_commands
from wskit.cli.context import (
    WsctlContext,
    json_option,
    kind_diag_dicts,
    path_argument,
    print_diag_dicts,
    safe_text,
    table,
)
from wskit.models import display_path


@click.group("lsp")
def lsp_group() -> None:
    """LSP server definitions; `check` starts one."""


@lsp_group.command("list")
@path_argument
@json_option
@click.pass_obj
def lsp_list_cmd(obj: WsctlContext, path: str) -> None:
    """List the LSP servers of the workspace holding PATH; APPROVAL says whether a project
    server may start (``wsctl lsp approve NAME --digest D``)."""
    ws = obj.resolve(path)
    from wskit.approval.servers import approval_fields, approve_hints, shown_server
    from wskit.builtin_plugins.lsp.approval import server_approval

    rows = []
    for s in ws.registry("lsp_server").active():
        state, reason, entry = server_approval(s, ws.binding, ws.profile.home, folder_trusted=ws.trust.trusted)
        rows.append({"id": s.id, "name": s.name, "scope": s.scope.value, "plugin": s.plugin, "command": s.command,
                     "args": list(s.args), "runs": shown_server(s), "extension_to_language": s.extension_to_language, "enabled": s.enabled,
                     **approval_fields(state, reason, entry),
                     "path": display_path(s.provenance.absolute_path, ws.source_root)})
    data = {"servers": rows, "diagnostics": kind_diag_dicts(obj, ws, ("lsp",))}

    def human() -> None:
        # the whole command line (command and args): what an approval approves
        click.echo(table([[r["id"], r["runs"], " ".join(sorted(r["extension_to_language"])), r["approval_text"]]
                          for r in rows], ["ID", "COMMAND", "EXTENSIONS", "APPROVAL"]) if rows else "no LSP servers")
        for line in approve_hints(rows, "lsp"):
            click.echo(safe_text(line))
        print_diag_dicts(data["diagnostics"])

    obj.emit(data, human)


add_approval_commands(lsp_group, "lsp", "lsp_server", "LSP")
