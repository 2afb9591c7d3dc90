"""``wsctl mcp list``: the effective MCP server definitions (``mcp check`` comes with wskit-mcp)."""

from __future__ import annotations

import click

from wskit.cli.context import WsctlContext, json_option, kind_diag_dicts, path_argument, print_diag_dicts, table
from wskit.models import display_path

__all__ = ["mcp_group", "mcp_list_cmd"]


@click.group("mcp")
def mcp_group() -> None:
    """MCP server definitions; `check` starts one."""


@mcp_group.command("list")
@path_argument
@click.option("--mcp-config", "configs", multiple=True, help="Explicit servers: a JSON string or file (repeatable).")
@click.option("--strict", is_flag=True, help="Keep only the --mcp-config servers.")
@json_option
@click.pass_obj
def mcp_list_cmd(obj: WsctlContext, path: str, configs: tuple[str, ...], strict: bool) -> None:
    """List the effective MCP servers of the workspace holding PATH."""
    ws = obj.resolve(path)
    from wskit.builtin_plugins.mcp.loader import resolve_mcp_servers

    reg, diags = resolve_mcp_servers(ws, explicit=configs, strict=strict)
    rows = [{"id": s.id, "name": s.name, "alias": s.alias, "scope": s.scope.value, "plugin": s.plugin,
             "transport": s.transport, "command": s.command, "args": list(s.args), "url": s.url, "cwd": s.cwd,
             "startable": s.startable, "unresolved": list(s.unresolved), "incomplete": list(s.incomplete),
             "path": display_path(s.provenance.absolute_path, ws.source_root)} for s in reg.active()]
    data = {"servers": rows, "diagnostics": kind_diag_dicts(obj, ws, ("mcp", "invalid-json")) + [d.to_json() for d in diags]}
    obj.emit(data, lambda: (click.echo(table(
        [[r["id"], r["alias"], r["transport"], r["command"] or r["url"] or "",
          "yes" if r["startable"] else "no: " + ",".join([*r["unresolved"], *r["incomplete"]])] for r in rows],
        ["ID", "ALIAS", "TRANSPORT", "TARGET", "STARTABLE"]) if rows else "no MCP servers"),
        print_diag_dicts(data["diagnostics"])))
