"""``wsctl mcp approve|deny`` and ``wsctl lsp approve|deny``: one pair of click commands for
both server capabilities (their entries are :func:`~wskit.approval.servers.server_entry`).

A capability's ``cli.py`` calls :func:`add_approval_commands` on its click group; what
differs between MCP and LSP servers is a parameter (the capability's name and words, and
an optional step after the record, which MCP uses to drop its earlier per-definition
record). Importing this module imports click: only a ``cli.py`` does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from wskit.cli.context import WsctlContext, path_argument, safe_text


def add_approval_commands(group: click.Group, capability: str, kind: str, label: str, *,
                          after_record: Callable[[Any, Any], None] | None = None) -> None:
    """Add ``approve NAME [PATH] --digest D [--accept-unverified]`` and ``deny NAME [PATH]`` to
    ``group`` (``wsctl <capability> …``).

    :param capability: ``mcp`` or ``lsp`` (the entries' capability and the command words).
    :param kind: the registry kind of the servers (``mcp_server``, ``lsp_server``).
    :param label: the servers' name in help texts (``MCP``, ``LSP``).
    :param after_record: ``after_record(ws, server)``, called after an approval or denial is
        recorded (not for a server that needs none).
    Errors: an unknown or ambiguous NAME (:class:`~wskit.errors.UnknownResourceError`,
    :class:`~wskit.errors.AmbiguousNameError`) and what
    :func:`~wskit.approval.servers.record_server` raises; nothing is recorded then.
    """

    def record(obj: WsctlContext, name: str, path: str, state: str, digest: str | None = None,
               accept_unverified: bool = False) -> None:
        from wskit.approval.servers import record_server, server_status, shown_digests, shown_server
        from wskit.errors import WskitError

        ws = obj.resolve(path)
        server = ws.registry(kind).get(name)
        st = server_status(server, capability, ws.binding.execution_root, ws.source_root, ws.profile.home,
                           folder_trusted=ws.trust.trusted)
        if st.state == "untrusted-project" and state == "approved":
            raise WskitError(f"{server.id} {st.reason}: it cannot run there, approved or not; trust the folder "
                             f"first ('wsctl trust grant {path}'); nothing recorded")
        if st.state == "not-required":
            click.echo(safe_text(f"{server.id}: a {server.scope.value} server that runs no file of this project "
                                 "needs no approval; nothing recorded"))
            return
        entry = st.entry
        # a digest that is not this server's: say whose it is (another server, a hook entry)
        known = {d: w for d, w in shown_digests(ws).items() if d != entry.digest} \
            if digest is not None and digest != entry.digest else None
        record_server(ws.profile.require_home(), ws.source_root, entry, state, digest,
                      accept_unverified=accept_unverified, command=capability, path=path, known=known)
        if after_record is not None:
            after_record(ws, server)
        shown = shown_server(server)
        covers = f"; covers {', '.join(f.shown for f in entry.files)}" if entry.files else ""
        click.echo(safe_text(f"{server.id}: {state} ({shown}{covers}); recorded for {ws.source_root}"))

    @group.command("approve", help=(
            f"Approve the project {label} server NAME as it is defined now, if it still has DIGEST (a later\n"
            "edit of its definition or of a project file its command runs needs approval again)."))
    @click.argument("name")
    @path_argument
    @click.option("--digest", default=None,
                  help=f"The digest 'wsctl {capability} list' showed for the server (what you reviewed).")
    @click.option("--accept-unverified", is_flag=True,
                  help=f"Approve although coverage cannot verify some words of its command "
                       f"('{capability} list --json' names them).")
    @click.pass_obj
    def approve_cmd(obj: WsctlContext, name: str, path: str, digest: str | None, accept_unverified: bool) -> None:
        record(obj, name, path, "approved", digest, accept_unverified)

    @group.command("deny", help=f"Deny the project {label} server NAME: it is never started in this project.")
    @click.argument("name")
    @path_argument
    @click.pass_obj
    def deny_cmd(obj: WsctlContext, name: str, path: str) -> None:
        record(obj, name, path, "denied")
