"""``wsctl mcp list``: the effective MCP server definitions (``mcp check`` comes with wskit-mcp)."""

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


@click.group("mcp")
def mcp_group() -> None:
    """MCP server definitions; `check` starts one."""


@mcp_group.command("list")
@path_argument
@click.option("--mcp-config", "configs", multiple=True, help="Explicit servers: a JSON string or file (repeatable).")
@click.option("--strict", is_flag=True, help="Keep only the --mcp-config servers.")
@click.option("--status", "live", is_flag=True,
              help="Connect to each server (wskit-mcp) and show its status and tool count.")
@json_option
@click.pass_obj
def mcp_list_cmd(obj: WsctlContext, path: str, configs: tuple[str, ...], strict: bool, live: bool) -> None:
    """List the effective MCP servers of the workspace holding PATH.

    ``${VAR}`` in project and plugin definitions is shown as written (it is substituted
    only when the server starts); APPROVAL says whether a project server may start.
    """
    ws = obj.resolve(path)
    from wskit.approval.servers import approval_fields, approve_hints, shown_server
    from wskit.builtin_plugins.mcp.approval import server_approval
    from wskit.builtin_plugins.mcp.loader import resolve_mcp_servers

    reg, diags = resolve_mcp_servers(ws, explicit=configs, strict=strict)
    rows = []
    for s in reg.active():
        state, reason, entry = server_approval(s, ws.binding, ws.profile, folder_trusted=ws.trust.trusted)
        rows.append({"id": s.id, "name": s.name, "alias": s.alias, "scope": s.scope.value, "plugin": s.plugin,
                     "transport": s.transport, "command": s.command, "args": list(s.args), "url": s.url,
                     "runs": shown_server(s), "cwd": s.cwd, "startable": s.startable, "unresolved": list(s.unresolved),
                     "variables": list(s.variables), "incomplete": list(s.incomplete),
                     **approval_fields(state, reason, entry),
                     "path": display_path(s.provenance.absolute_path, ws.source_root)})
    if live:
        _add_status(obj, ws, rows, configs, strict)
    data = {"servers": rows, "diagnostics": kind_diag_dicts(obj, ws, ("mcp", "invalid-json")) + [d.to_json() for d in diags]}
    headers = ["ID", "ALIAS", "TRANSPORT", "TARGET", "STARTABLE", "APPROVAL"] + (["STATUS", "TOOLS"] if live else [])

    def row(r):
        # the whole command line (command and args) or URL: what an approval approves
        cells = [r["id"], r["alias"], r["transport"], r["runs"],
                 "yes" if r["startable"] else "no: " + ",".join([*r["unresolved"], *r["incomplete"]]),
                 r["approval_text"]]
        if live:
            cells += [r["status"] + (f" ({r['error']})" if r.get("error") else ""),
                      "" if r["tools"] is None else str(r["tools"])]
        return cells

    def human() -> None:
        click.echo(table([row(r) for r in rows], headers) if rows else "no MCP servers")
        for line in approve_hints(rows, "mcp"):
            click.echo(safe_text(line))
        print_diag_dicts(data["diagnostics"])

    obj.emit(data, human)


def _add_status(obj: WsctlContext, ws, rows: list[dict], configs: tuple[str, ...], strict: bool) -> None:
    """Connect through the session's ``mcp`` service (wskit-mcp) and add ``status``,
    ``tools``, ``generation`` and ``error`` to each row."""
    from wskit.errors import WskitError
    from wskit.session import snapshot

    if configs or strict:
        raise click.UsageError("--status shows the workspace's own servers; it does not combine with "
                               "--mcp-config or --strict")
    from wskit.cli.signals import stop_on_signals

    with stop_on_signals():  # SIGTERM/SIGHUP: the servers started are stopped first
        session = snapshot(ws)
        try:
            try:
                service = session.runtime.service("mcp")
            except WskitError as err:
                raise click.ClickException(f"--status needs the wskit-mcp plugin: {err}") from None
            found = {st.id: st for st in service.status(connect=True)}
        finally:
            session.close()
    for r in rows:
        st = found.get(r["id"])
        r["status"] = st.status if st else "unknown"
        r["tools"] = st.tools if st else None
        r["generation"] = st.generation if st else 0
        r["error"] = st.error if st else None


def _forget_definition_record(ws, server) -> None:
    """Drop the earlier per-definition record of ``server`` (the approval entry replaces it)."""
    from wskit.builtin_plugins.mcp.approval import McpApprovalStore
    from wskit.errors import WskitError

    try:
        McpApprovalStore.for_home(ws.profile.require_home()).forget(str(ws.source_root), server.name)
    except WskitError:
        pass


add_approval_commands(mcp_group, "mcp", "mcp_server", "MCP", after_record=_forget_definition_record)
