"""``wsctl hooks list|status|trust|revoke`` (definitions and hook trust) and ``wsctl hooks run``
(docs/hooks.md, docs/wsctl.md)."""

from __future__ import annotations

from typing import Any

import click

from wskit.builtin_plugins.hooks.bodies import run_hooks
from wskit.cli.context import (
    WsctlContext,
    json_option,
    kind_diag_dicts,
    path_argument,
    print_diag_dicts,
    table,
)
from wskit.errors import WskitError
from wskit.models import display_path

__all__ = [
    "hooks_enabled", "hooks_group", "hooks_list_cmd", "hooks_revoke_cmd", "hooks_run_cmd",
    "hooks_status_cmd", "hooks_trust_cmd"
]


# the hook trust and runner modules are imported by the commands that use them, so
# registering these commands (every run) imports neither


@click.group("hooks")
def hooks_group() -> None:
    """Hook definitions and hook trust (approval by configuration digest)."""


def hooks_enabled(ws, profile) -> bool:
    """See :func:`wskit.builtin_plugins.hooks.trust.hooks_enabled`."""
    from wskit.builtin_plugins.hooks.trust import hooks_enabled as _hooks_enabled

    return _hooks_enabled(ws.binding, ws.trust, profile)


def _status(obj: WsctlContext, ws):
    from wskit.builtin_plugins.hooks.trust import HookTrustStore

    store = HookTrustStore.for_home(obj.home)
    return store, store.status(ws.source_root, ws.registry("hook").active(), enabled=hooks_enabled(ws, obj.profile()),
                               files_root=ws.binding.execution_root)


def _headers(h) -> dict[str, str]:
    """The HTTP hook's headers as the approver sees them: names, the ``${VAR}`` references
    and whether each may expand, literal text masked (see :func:`~wskit.builtin_plugins.hooks.http.mask_header`)."""
    from wskit.builtin_plugins.hooks.http import allowed_env_vars, mask_header

    allowed = allowed_env_vars(h.config)
    return {k: mask_header(v, allowed) for k, v in (h.headers or {}).items()}


@hooks_group.command("list")
@path_argument
@json_option
@click.pass_obj
def hooks_list_cmd(obj: WsctlContext, path: str) -> None:
    """List the hooks configured for the workspace holding PATH."""
    ws = obj.resolve(path)
    rows = [{"id": h.id, "event": h.event, "matcher": h.matcher, "if": h.if_condition, "type": h.type,
             "command": h.command, "url": h.url, "headers": _headers(h) if h.type == "http" else {},
             "scope": h.scope.value, "plugin": h.plugin,
             "path": display_path(h.provenance.absolute_path, ws.source_root)} for h in ws.registry("hook").active()]
    data = {"hooks": rows, "diagnostics": kind_diag_dicts(obj, ws, ("hook",))}
    obj.emit(data, lambda: (click.echo(table(
        [[r["event"], (r["matcher"] or "*") + (f" if {r['if']}" if r["if"] else ""), r["type"],
          (r["command"] or r["url"] or "") + "".join(f" [{k}: {v}]" for k, v in r["headers"].items()),
          r["plugin"] or r["scope"]]
         for r in rows], ["EVENT", "MATCHER", "TYPE", "RUNS", "FROM"]) if rows else "no hooks"),
        print_diag_dicts(data["diagnostics"])))


def _status_json(st, ws=None) -> dict[str, Any]:
    out = {"path": st.root, "state": st.state, "digest": st.digest, "trusted_digest": st.trusted_digest,
           "count": st.count, "error": st.error, "awaiting_approval": st.awaiting_approval,
           "sources": list(st.sources),
           "files": [{"hook_id": f.hook_id, "path": f.path, "base": f.base, "state": f.state, "covered": f.covered}
                     for f in st.files]}
    if ws is not None:
        out["headers"] = {h.id: _headers(h) for h in ws.registry("hook").active() if h.type == "http" and h.headers}
    return out


#: the first line of ``hooks status``: hook approval in words, never to be read as folder trust
_APPROVAL_WORDS = {"untrusted": "hooks not approved", "modified": "hooks changed since approved",
                   "trusted": "hooks approved", "not_required": "no hooks need approval",
                   "disabled": "hooks switched off", "error": "hook approval unknown"}


def _status_text(st, data: dict[str, Any], folder_trust: str | None = None) -> str:
    words = _APPROVAL_WORDS.get(st.state, st.state)
    lines = [f"{st.root}: {words} ({st.count} hook{'s' if st.count != 1 else ''}"
             + (f"; folder {folder_trust}" if folder_trust else "") + ")"]
    if st.awaiting_approval:
        lines.append(st.approval_text() + (" (changed since approved)" if st.state == "modified" else ""))
    if st.digest:
        lines.append(f"digest: {st.digest}")
    seen: set[tuple[str, str, str]] = set()
    for f in st.files:
        # a script several hooks run is one file to review: named once
        if (f.base, f.path, f.state) in seen:
            continue
        seen.add((f.base, f.path, f.state))
        shown = f.path if f.base != "plugin" else f"<plugin {_plugin_of(f.hook_id)}>/{f.path}"
        if f.state == "covered":
            lines.append(f"covers: {shown}")
        elif f.state == "missing":
            lines.append(f"covers: {shown} (missing now: creating it changes the digest)")
        else:
            why = {"outside": "outside the project", "too-large": "too large to hash", "link": "a link",
                   "unreadable": "unreadable"}.get(f.state, f.state)
            lines.append(f"not covered: {shown} ({why}: changing it does not change the digest)")
    for hid, hdrs in (data.get("headers") or {}).items():
        lines.extend(f"header: {hid} {k}: {v}" for k, v in hdrs.items())
    if st.error:
        lines.append(f"error: {st.error}")
    return "\n".join(lines)


def _plugin_of(hook_id: str) -> str:
    """The plugin name of a plugin hook's id (``plugin:NAME:…``)."""
    parts = hook_id.split(":")
    return parts[1] if len(parts) > 2 and parts[0] == "plugin" else "root"


@hooks_group.command("status")
@path_argument
@json_option
@click.pass_obj
def hooks_status_cmd(obj: WsctlContext, path: str) -> None:
    """Show the hook trust state of the project holding PATH and the digest to approve."""
    ws = obj.resolve(path)
    _, st = _status(obj, ws)
    data = _status_json(st, ws)
    obj.emit(data, lambda: click.echo(_status_text(st, data, ws.trust.state)))


@hooks_group.command("trust")
@path_argument
@click.option("--digest", required=True, help="The digest shown by 'wsctl hooks status' (what you reviewed).")
@json_option
@click.pass_obj
def hooks_trust_cmd(obj: WsctlContext, path: str, digest: str) -> None:
    """Trust the hooks of the project holding PATH, if they still have DIGEST."""
    ws = obj.resolve(path)
    from wskit.builtin_plugins.hooks.trust import HookTrustDigestMismatchError, HookTrustStore

    store = HookTrustStore.for_home(obj.home)
    try:
        store.trust(ws.source_root, ws.registry("hook").active(), digest, files_root=ws.binding.execution_root)
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
    from wskit.builtin_plugins.hooks.trust import HookTrustStore

    store = HookTrustStore.for_home(obj.home)
    removed = store.revoke(ws.source_root)
    _, st = _status(obj, ws)
    data = {**_status_json(st), "removed": removed}
    obj.emit(data, lambda: click.echo(f"{st.root}: {st.state}" + ("" if removed else " (nothing was trusted)")))


@click.command("run")
@click.argument("event")
@click.argument("path", required=False, default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--payload", "payload_file", type=click.Path(dir_okay=False), help="JSON object given to the hooks.")
@click.option("--tool", help="Tool name to match (default: the payload's tool_name).")
@click.option("--allow-http", is_flag=True, help="HTTP hooks may use plain http.")
@click.option("--allow-loopback", is_flag=True, help="HTTP hooks may post to loopback addresses.")
@click.option("--allow-private", is_flag=True, help="HTTP hooks may post to private ranges.")
@json_option
@click.pass_obj
def hooks_run_cmd(obj: WsctlContext, event: str, path: str, payload_file: str | None, tool: str | None,
                  allow_http: bool, allow_loopback: bool, allow_private: bool) -> None:
    """Run the hooks of EVENT for the workspace holding PATH and print the outcome."""
    run_hooks(obj, event, path, payload_file, tool, allow_http, allow_loopback, allow_private)
