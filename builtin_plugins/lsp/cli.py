"""``wsctl lsp list|approve|deny``: the LSP server definitions and their approval (``lsp check`` comes
with wskit-lsp)."""

from __future__ import annotations

import click

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
    from wskit.approval.servers import approval_fields, approve_hints
    from wskit.builtin_plugins.lsp.approval import server_approval

    rows = []
    for s in ws.registry("lsp_server").active():
        state, reason, entry = server_approval(s, ws.binding, ws.profile.home)
        rows.append({"id": s.id, "name": s.name, "scope": s.scope.value, "plugin": s.plugin, "command": s.command,
                     "args": list(s.args), "extension_to_language": s.extension_to_language, "enabled": s.enabled,
                     **approval_fields(state, reason, entry),
                     "path": display_path(s.provenance.absolute_path, ws.source_root)})
    data = {"servers": rows, "diagnostics": kind_diag_dicts(obj, ws, ("lsp",))}

    def human() -> None:
        click.echo(table([[r["id"], r["command"], " ".join(sorted(r["extension_to_language"])), r["approval_text"]]
                          for r in rows], ["ID", "COMMAND", "EXTENSIONS", "APPROVAL"]) if rows else "no LSP servers")
        for line in approve_hints(rows, "lsp"):
            click.echo(safe_text(line))
        print_diag_dicts(data["diagnostics"])

    obj.emit(data, human)


def _record(obj: WsctlContext, name: str, path: str, state: str, digest: str | None = None,
            accept_unverified: bool = False) -> None:
    from wskit.approval.servers import needs_approval, record_server
    from wskit.builtin_plugins.lsp.approval import server_approval

    ws = obj.resolve(path)
    server = ws.registry("lsp_server").get(name)
    if not needs_approval(server, ws.source_root, ws.binding.execution_root):
        click.echo(safe_text(f"{server.id}: a {server.scope.value} server needs no approval; nothing recorded"))
        return
    _, _, entry = server_approval(server, ws.binding, ws.profile.require_home())
    record_server(ws.profile.require_home(), ws.source_root, entry, state, digest,
                  accept_unverified=accept_unverified, command="lsp", path=path)
    covers = f"; covers {', '.join(f.shown for f in entry.files)}" if entry.files else ""
    click.echo(safe_text(f"{server.id}: {state} ({' '.join([server.command, *server.args])}{covers}); "
                         f"recorded for {ws.source_root}"))


@lsp_group.command("approve")
@click.argument("name")
@path_argument
@click.option("--digest", default=None, help="The digest 'wsctl lsp list' showed for the server (what you reviewed).")
@click.option("--accept-unverified", is_flag=True,
              help="Approve although coverage cannot verify some words of its command ('lsp list --json' names them).")
@click.pass_obj
def lsp_approve_cmd(obj: WsctlContext, name: str, path: str, digest: str | None, accept_unverified: bool) -> None:
    """Approve the project LSP server NAME as it is defined now, if it still has DIGEST (a later
    edit of its definition or of a project file its command runs needs approval again)."""
    _record(obj, name, path, "approved", digest, accept_unverified)


@lsp_group.command("deny")
@click.argument("name")
@path_argument
@click.pass_obj
def lsp_deny_cmd(obj: WsctlContext, name: str, path: str) -> None:
    """Deny the project LSP server NAME: it is never started in this project."""
    _record(obj, name, path, "denied")
