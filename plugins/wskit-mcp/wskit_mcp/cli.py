"""``wsctl mcp check NAME [PATH]``: connect to one MCP server, list its tools, disconnect."""

from __future__ import annotations

import click

from wskit.cli.context import WsctlContext, json_option, safe_text
from wskit.cli.lazy import ensure_group


@click.command("check")
@click.argument("name")
@click.argument("path", required=False, default=".", type=click.Path(exists=True, file_okay=False))
@json_option
@click.pass_obj
def mcp_check_cmd(obj: WsctlContext, name: str, path: str) -> None:
    """Connect to the MCP server NAME of the workspace holding PATH, list its tools, disconnect."""
    from wskit.session import snapshot

    session = snapshot(obj.resolve(path))
    try:
        server = session.mcp.definition(name)
        conn = session.mcp.connect(name)
        tools = session.mcp.list_tools(name)
        info = dict(conn.server_info)
    finally:
        errors = session.close()
    data = {"server": server.id, "transport": server.transport, "server_info": info, "ok": True,
            "tools": [{"name": t["name"], "description": t["description"]} for t in tools], "close_errors": errors}

    def human() -> None:
        who = " ".join(str(v) for v in (info.get("name"), info.get("version")) if v)
        click.echo(safe_text(f"{server.id}: ok ({server.transport}{', ' + who if who else ''}), {len(tools)} tool(s)"))
        for t in tools:
            click.echo(safe_text(f"  {t['name']}  {t['description'].splitlines()[0] if t['description'] else ''}".rstrip()))

    obj.emit(data, human)


def register(cli: click.Group) -> None:
    """Add ``check`` to the ``mcp`` group."""
    ensure_group(cli, "mcp", "MCP servers of a workspace.").add_command(mcp_check_cmd)
