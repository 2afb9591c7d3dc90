"""``wsctl mcp list``, ``wsctl lsp list`` and ``wsctl hooks list|status|trust|revoke``
(definitions only; docs/hooks.md, docs/wsctl.md)."""

from __future__ import annotations

from typing import Any

import click

from wskit.models import display_path
from wskit.cli.context import WsctlContext, json_option, path_argument, print_diag_dicts, table

# wskit.servers.mcp and .hook_trust are imported by the commands that use them: registering
# these commands happens on every run, `inspect` included (issue 8, B7)


def _diags(obj: WsctlContext, ws, kind_codes: tuple[str, ...]) -> list[dict[str, Any]]:
    """The JSON form of ``ws``'s diagnostics with one of ``kind_codes``, and the
    failures of ``--plugin-dir`` folders (:meth:`WsctlContext.listing_diagnostics`)."""
    return [d.to_json(ws.source_root)
            for d in obj.listing_diagnostics(ws, (d for d in ws.diagnostics if d.code.startswith(kind_codes)))]


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
    from wskit.servers.mcp import resolve_mcp_servers

    reg, diags = resolve_mcp_servers(ws, explicit=configs, strict=strict)
    rows = [{"id": s.id, "name": s.name, "alias": s.alias, "scope": s.scope.value, "plugin": s.plugin,
             "transport": s.transport, "command": s.command, "args": list(s.args), "url": s.url, "cwd": s.cwd,
             "startable": s.startable, "unresolved": list(s.unresolved),
             "path": display_path(s.provenance.absolute_path, ws.source_root)} for s in reg.active()]
    data = {"servers": rows, "diagnostics": _diags(obj, ws, ("mcp", "invalid-json")) + [d.to_json() for d in diags]}
    obj.emit(data, lambda: (click.echo(table(
        [[r["id"], r["alias"], r["transport"], r["command"] or r["url"] or "",
          "yes" if r["startable"] else "no: " + ",".join(r["unresolved"])] for r in rows],
        ["ID", "ALIAS", "TRANSPORT", "TARGET", "STARTABLE"]) if rows else "no MCP servers"),
        print_diag_dicts(data["diagnostics"])))


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
    data = {"servers": rows, "diagnostics": _diags(obj, ws, ("lsp",))}
    obj.emit(data, lambda: (click.echo(table(
        [[r["id"], r["command"], " ".join(sorted(r["extension_to_language"]))] for r in rows],
        ["ID", "COMMAND", "EXTENSIONS"]) if rows else "no LSP servers"), print_diag_dicts(data["diagnostics"])))


@click.group("hooks")
def hooks_group() -> None:
    """Hook definitions and hook trust (approval by configuration digest)."""


def hooks_enabled(ws, profile) -> bool:
    """See :func:`wskit.servers.hook_trust.hooks_enabled`."""
    from wskit.servers.hook_trust import hooks_enabled as _hooks_enabled

    return _hooks_enabled(ws.binding, ws.trust, profile)


def _status(obj: WsctlContext, ws):
    from wskit.servers.hook_trust import HookTrustStore

    store = HookTrustStore.for_home(obj.home)
    return store, store.status(ws.source_root, ws.registry("hook").active(), enabled=hooks_enabled(ws, obj.profile()))


@hooks_group.command("list")
@path_argument
@json_option
@click.pass_obj
def hooks_list_cmd(obj: WsctlContext, path: str) -> None:
    """List the hooks configured for the workspace holding PATH."""
    ws = obj.resolve(path)
    rows = [{"id": h.id, "event": h.event, "matcher": h.matcher, "if": h.if_condition, "type": h.type,
             "command": h.command, "url": h.url, "scope": h.scope.value, "plugin": h.plugin,
             "path": display_path(h.provenance.absolute_path, ws.source_root)} for h in ws.registry("hook").active()]
    data = {"hooks": rows, "diagnostics": _diags(obj, ws, ("hook",))}
    obj.emit(data, lambda: (click.echo(table(
        [[r["event"], (r["matcher"] or "*") + (f" if {r['if']}" if r["if"] else ""), r["type"], r["command"] or r["url"] or "", r["plugin"] or r["scope"]]
         for r in rows], ["EVENT", "MATCHER", "TYPE", "RUNS", "FROM"]) if rows else "no hooks"),
        print_diag_dicts(data["diagnostics"])))


def _status_json(st) -> dict[str, Any]:
    return {"path": st.root, "state": st.state, "digest": st.digest, "trusted_digest": st.trusted_digest,
            "count": st.count, "error": st.error}


@hooks_group.command("status")
@path_argument
@json_option
@click.pass_obj
def hooks_status_cmd(obj: WsctlContext, path: str) -> None:
    """Show the hook trust state of the project holding PATH and the digest to approve."""
    ws = obj.resolve(path)
    _, st = _status(obj, ws)
    obj.emit(_status_json(st), lambda: click.echo(
        f"{st.root}: {st.state} ({st.count} hooks)" + (f"\ndigest: {st.digest}" if st.digest else "")
        + (f"\nerror: {st.error}" if st.error else "")))


@hooks_group.command("trust")
@path_argument
@click.option("--digest", required=True, help="The digest shown by 'wsctl hooks status' (what you reviewed).")
@json_option
@click.pass_obj
def hooks_trust_cmd(obj: WsctlContext, path: str, digest: str) -> None:
    """Trust the hooks of the project holding PATH, if they still have DIGEST."""
    ws = obj.resolve(path)
    from wskit.servers.hook_trust import HookTrustStore

    from wskit.errors import WskitError
    from wskit.servers.hook_trust import HookTrustDigestMismatchError

    store = HookTrustStore.for_home(obj.home)
    try:
        store.trust(ws.source_root, ws.registry("hook").active(), digest)
    except HookTrustDigestMismatchError as err:
        raise WskitError(f"{err} ('wsctl hooks status {path}' shows it, 'wsctl hooks list {path}' the hooks "
                         "it covers)") from None
    _, st = _status(obj, ws)
    obj.emit(_status_json(st), lambda: click.echo(f"{st.root}: {st.state}"))


@hooks_group.command("revoke")
@path_argument
@json_option
@click.pass_obj
def hooks_revoke_cmd(obj: WsctlContext, path: str) -> None:
    """Remove the hook trust of the project holding PATH."""
    ws = obj.resolve(path)
    from wskit.servers.hook_trust import HookTrustStore

    store = HookTrustStore.for_home(obj.home)
    removed = store.revoke(ws.source_root)
    _, st = _status(obj, ws)
    data = {**_status_json(st), "removed": removed}
    obj.emit(data, lambda: click.echo(f"{st.root}: {st.state}" + ("" if removed else " (nothing was trusted)")))
