"""``wsctl hooks list|status|trust|revoke`` (definitions and hook trust) and ``wsctl hooks run``
(docs/hooks.md, docs/wsctl.md)."""

from __future__ import annotations

import shlex
from typing import Any

import click

from wskit.builtin_plugins.hooks.bodies import run_hooks
from wskit.cli.context import (
    WsctlContext,
    json_option,
    kind_diag_dicts,
    path_argument,
    print_diag_dicts,
    safe_text,
    table,
)
from wskit.errors import WskitError
from wskit.models import display_path

# the hook trust and runner modules are imported by the commands that use them, so
# registering these commands (every run) imports neither


@click.group("hooks")
def hooks_group() -> None:
    """Hook definitions and hook approval (one approval per hook)."""


def hooks_enabled(ws, profile) -> bool:
    """See :func:`wskit.builtin_plugins.hooks.trust.hooks_enabled`."""
    from wskit.builtin_plugins.hooks.trust import hooks_enabled as _hooks_enabled

    return _hooks_enabled(ws.binding, ws.trust, profile)


def _status(obj: WsctlContext, ws):
    from wskit.builtin_plugins.hooks.trust import hook_approval_status

    return hook_approval_status(obj.home, ws.source_root, ws.registry("hook").active(),
                                enabled=hooks_enabled(ws, obj.profile()), files_root=ws.binding.execution_root,
                                folder_trusted=ws.trust.trusted, host=ws.profile.name)


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
             "path": display_path(h.provenance.absolute_path, ws.source_root),
             "switched_off_by": h.switched_off_by} for h in ws.registry("hook").active()]
    data = {"hooks": rows, "diagnostics": kind_diag_dicts(obj, ws, ("hook",))}
    obj.emit(data, lambda: (click.echo(table(
        [[r["event"], (r["matcher"] or "*") + (f" if {r['if']}" if r["if"] else ""), r["type"],
          (r["command"] or r["url"] or "") + "".join(f" [{k}: {v}]" for k, v in r["headers"].items()),
          (r["plugin"] or r["scope"]) + (" (switched off by project settings)" if r["switched_off_by"] else "")]
         for r in rows], ["EVENT", "MATCHER", "TYPE", "RUNS", "FROM"]) if rows else "no hooks"),
        print_diag_dicts(data["diagnostics"])))


def _status_json(st, ws=None) -> dict[str, Any]:
    by_source: dict[str, list] = {}
    for r in st.awaiting:
        by_source.setdefault(r.entry.source, []).append(r.entry)
    from wskit.approval.entries import selection_digest

    out = {"path": st.root, "state": st.state, "enabled": st.enabled, "count": st.count, "error": st.error,
           "awaiting_approval": st.awaiting_approval, "digest": st.digest, "sources": list(st.sources),
           "source_digests": {k: selection_digest(v) for k, v in by_source.items()},
           "notes": list(st.notes),
           "entries": [{**r.to_json(), "hook_id": r.entry.resource_id} for r in st.rows]}
    if ws is not None:
        out["headers"] = {h.id: _headers(h) for h in ws.registry("hook").active() if h.type == "http" and h.headers}
    return out


#: the first line of ``hooks status``: hook approval in words, never to be read as folder trust
_APPROVAL_WORDS = {"awaiting": "hooks await approval", "modified": "hooks changed since approved",
                   "approved": "hooks approved", "not_required": "no hooks need approval",
                   "disabled": "hooks switched off", "error": "hook approval unknown",
                   "switched-off": "a guard of the user's is switched off by project settings (not decided)"}


def _status_text(st, data: dict[str, Any], folder_trust: str | None = None) -> str:
    words = _APPROVAL_WORDS.get(st.state, st.state)
    lines = [f"{st.root}: {words} ({st.count} hook{'s' if st.count != 1 else ''}"
             + (f"; folder {folder_trust}" if folder_trust else "") + ")"]
    if st.awaiting_approval:
        lines.append(st.approval_text())
    lines.extend(f"note: {n}" for n in st.notes)
    if st.rows:
        lines.append(table([[r.entry.key, r.text if st.enabled else "disabled", r.entry.source, r.entry.label]
                            for r in st.rows], ["ENTRY", "STATE", "SOURCE", "HOOK"]))
    seen: set[tuple[str, str]] = set()
    for r in st.rows:
        for f in r.entry.files:
            # a script several hooks run is one file to review: named once
            shown = f.path if f.base == "project" else f"<{r.entry.source}>/{f.path}"
            if (shown, f.token) in seen:
                continue
            seen.add((shown, f.token))
            lines.append(f"covers: {shown}" + (" (missing now: creating it changes the entry)"
                                                 if f.digest is None else " (executable)" if f.executable else ""))
        for w in r.entry.unverified:
            lines.append(f"not verified: {w.word} in {r.entry.key} ({w.reason})")
    for hid, hdrs in (data.get("headers") or {}).items():
        lines.extend(f"header: {hid} {k}: {v}" for k, v in hdrs.items())
    if st.awaiting and st.enabled:
        folder = shlex.quote(st.root)
        flag = " --accept-unverified" if any(r.entry.unverified for r in st.awaiting) else ""
        lines.append(f"approve all awaiting: wsctl hooks trust {folder} --digest {st.digest}{flag}")
        for src, digest in data.get("source_digests", {}).items():
            if len(data["source_digests"]) > 1:
                lines.append(f"approve {src}: wsctl hooks trust {folder} --source {shlex.quote(src)} "
                             f"--digest {digest}{flag}")
        if len(st.awaiting) > 1:
            lines.append(f"approve one: wsctl hooks trust {folder} --entry ENTRY --digest <its digest: "
                         "'hooks status --json'>")
    if st.error:
        lines.append(f"error: {st.error}")
    return "\n".join(lines)


@hooks_group.command("status")
@path_argument
@json_option
@click.pass_obj
def hooks_status_cmd(obj: WsctlContext, path: str) -> None:
    """Show the approval state of each hook of the project holding PATH (one row per hook
    entry: approved, awaiting, modified and why) and how to approve them."""
    ws = obj.resolve(path)
    st = _status(obj, ws)
    data = _status_json(st, ws)
    obj.emit(data, lambda: click.echo("\n".join(safe_text(line) for line in
                                                _status_text(st, data, ws.trust.state).split("\n"))))


@hooks_group.command("trust")
@path_argument
@click.option("--digest", required=True,
              help="The digest 'wsctl hooks status' showed for what you approve (what you reviewed).")
@click.option("--source", "source", default=None,
              help="Approve the awaiting entries of this source only ('plugin NAME', 'project .claude/settings.json').")
@click.option("--entry", "entries", multiple=True, help="Approve this entry (ENTRY of 'hooks status'; repeatable).")
@click.option("--accept-unverified", is_flag=True,
              help="Approve although coverage cannot verify some words (status names them).")
@json_option
@click.pass_obj
def hooks_trust_cmd(obj: WsctlContext, path: str, digest: str, source: str | None, entries: tuple[str, ...],
                    accept_unverified: bool) -> None:
    """Approve hooks of the project holding PATH: every entry awaiting approval, those of
    --source, or the --entry ones, if they still have DIGEST."""
    ws = obj.resolve(path)
    from wskit.approval.store import ApprovalDigestMismatchError, ApprovalStore, UnverifiedNotAcceptedError

    st = _status(obj, ws)
    if entries:
        wanted = set(entries)
        chosen = list({r.entry.key: r.entry for r in st.rows if (r.entry.key in wanted or r.entry.resource_id in wanted)
                       and r.state in ("awaiting", "modified", "approved")}.values())
        unknown = wanted - {e.key for e in chosen} - {r.entry.resource_id for r in st.rows
                                                      if r.entry.key in {e.key for e in chosen}}
        if unknown:
            raise WskitError(f"no hook entry needing approval is {', '.join(sorted(unknown))} "
                             f"('wsctl hooks status {path}' lists them)")
    else:
        chosen = [r.entry for r in st.awaiting if source is None or r.entry.source == source]
        if not chosen:  # all approved already: approving them again with their digest is a no-op
            chosen = list({r.entry.key: r.entry for r in st.rows if r.state == "approved"
                           and (source is None or r.entry.source == source)}.values())
    if not chosen:
        raise WskitError("no hook awaits approval" + (f" in {source}" if source else "")
                         + f" ('wsctl hooks status {path}' shows each hook's state)")
    # the other digests shown ('hooks status', 'mcp list', 'lsp list'), so a digest of another
    # selection or entry is named as such
    from wskit.approval.entries import selection_digest

    known: dict[str, str] = {}
    if digest != selection_digest(chosen):
        from wskit.approval.servers import shown_digests

        known = {**shown_digests(ws, catalogs=False), **st.shown_digests()}
    try:
        ApprovalStore.for_home(obj.home).approve(ws.source_root, chosen, digest, accept_unverified=accept_unverified,
                                                 known=known)
    except ApprovalDigestMismatchError as err:
        raise WskitError(f"{err} ('wsctl hooks status {path}' shows it)") from None
    except UnverifiedNotAcceptedError as err:
        raise WskitError(str(err)) from None
    _forget_legacy(obj, ws)
    st = _status(obj, ws)
    data = {**_status_json(st), "approved": [e.key for e in chosen],
            "approved_entries": [{"key": e.key, "source": e.source, "label": e.label, "digest": e.digest}
                                 for e in chosen]}
    obj.emit(data, lambda: click.echo("\n".join(safe_text(line) for line in _trust_text(st, chosen, digest,
                                                                                          ws.trust.state))))


def _trust_text(st, chosen, digest: str, folder_trust: str) -> list[str]:
    """What ``hooks trust`` approved, in words that cannot be read as folder trust: the
    entries (id, source, what each runs, its own digest), the digest the user gave, then
    the project's hook state as ``hooks status`` words it."""
    n = len(chosen)
    lines = [f"approved {n} hook entr{'ies' if n != 1 else 'y'} (reviewed digest {digest}):"]
    lines.extend(table([[e.key, e.source, e.label, e.digest] for e in chosen],
                       ["ENTRY", "SOURCE", "HOOK", "DIGEST"]).split("\n"))
    words = _APPROVAL_WORDS.get(st.state, st.state)
    lines.append(f"{st.root}: {words} ({st.count} hook{'s' if st.count != 1 else ''}; folder {folder_trust})")
    if st.awaiting_approval:
        lines.append(st.approval_text())
    return lines


def _forget_legacy(obj: WsctlContext, ws) -> bool:
    """Remove the project's earlier one-digest approval (replaced by per-entry ones)."""
    from wskit.builtin_plugins.hooks.legacy import HookTrustError, HookTrustStore

    try:
        return HookTrustStore.for_home(obj.home).revoke(ws.source_root)
    except HookTrustError:
        return False


@hooks_group.command("revoke")
@path_argument
@click.option("--entry", "entries", multiple=True, help="Revoke this entry only (repeatable).")
@json_option
@click.pass_obj
def hooks_revoke_cmd(obj: WsctlContext, path: str, entries: tuple[str, ...]) -> None:
    """Remove the hook approvals of the project holding PATH (all, or the --entry ones)."""
    ws = obj.resolve(path)
    from wskit.approval.store import ApprovalStore

    keys = None
    if entries:
        st = _status(obj, ws)
        keys = {r.entry.key for r in st.rows if r.entry.key in entries or r.entry.resource_id in entries} \
            | set(entries)
    n = ApprovalStore.for_home(obj.home).revoke(ws.source_root, capability="hooks", keys=keys)
    removed = n > 0 or (not entries and _forget_legacy(obj, ws))
    st = _status(obj, ws)
    data = {**_status_json(st), "removed": removed, "removed_entries": n}
    obj.emit(data, lambda: click.echo(f"{st.root}: {st.state}" + ("" if removed else " (nothing was approved)")))


@click.command("run")
@click.argument("event")
@click.argument("path", required=False, default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--payload", "payload_file", type=click.Path(dir_okay=False, allow_dash=True),
              help="File holding the JSON object given to the hooks (Claude Code's hook input: tool_name, "
                   "tool_input…); '-' reads it from standard input (at most 8 MiB).")
@click.option("--tool", help="Tool name to match (default: the payload's tool_name).")
@click.option("--allow-http", is_flag=True, help="HTTP hooks may use plain http.")
@click.option("--allow-loopback", is_flag=True, help="HTTP hooks may post to loopback addresses.")
@click.option("--allow-private", is_flag=True, help="HTTP hooks may post to private ranges.")
@click.option("--unapproved", type=click.Choice(["report", "block"]), default="report", show_default=True,
              help="What a guard that did not run (awaiting approval) means: report it, or block the call.")
@json_option
@click.pass_obj
def hooks_run_cmd(obj: WsctlContext, event: str, path: str, payload_file: str | None, tool: str | None,
                  allow_http: bool, allow_loopback: bool, allow_private: bool, unapproved: str) -> None:
    """Run the hooks of EVENT for the workspace holding PATH and print the outcome.

    Exit status 0 when the hooks decided (allowed or blocked), 3 when not decided: a hook
    of the event did not run (awaiting approval…) and nothing blocked."""
    run_hooks(obj, event, path, payload_file, tool, allow_http, allow_loopback, allow_private, unapproved)
