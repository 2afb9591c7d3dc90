"""Approval entries of MCP and LSP servers (one entry per server; docs/security.md).

Shared by the ``mcp`` and ``lsp`` capabilities: a project (or local) server starts only
once *that server as defined now* is approved — its definition as written and the bytes and
executable bit of the project files its command runs (``command: sh ./srv.sh``: editing
``srv.sh`` makes it ``modified``). Plugin servers come with enabling their plugin, the
user's, an administrator's and ``--mcp-config`` servers are the user's own: they need no
approval (Claude Code's rule for MCP servers, applied to LSP servers too).
"""

from __future__ import annotations

import os
from typing import Any

from wskit.approval.entries import ApprovalEntry, entry_coverage
from wskit.approval.store import ApprovalStore, EntryStatus
from wskit.models import Scope

__all__ = ["APPROVAL_SCOPES", "server_entry", "server_status"]

#: Scopes whose servers need approval (what a repository can write).
APPROVAL_SCOPES = frozenset({Scope.PROJECT, Scope.LOCAL})


def server_entry(server: Any, capability: str, project_root: str | os.PathLike[str], *,
                 cover: bool = True) -> ApprovalEntry:
    """The :class:`~wskit.approval.entries.ApprovalEntry` of an MCP or LSP ``server``.

    :param capability: ``mcp`` or ``lsp``.
    :param project_root: the folder the server starts in (the execution root); a relative
        ``cwd`` of an MCP server is read below it.
    :param cover: read the files its command names (False: definition only).
    Source ``<scope> <file>`` (``project .mcp.json``), identity its name, definition the
    entry as written; covered: the project files its ``command`` and ``args`` name (read
    in its ``cwd``), with the words coverage could not follow.
    """
    p = server.provenance
    root = os.path.abspath(str(project_root))
    cwd = getattr(server, "cwd", None)
    cwd = os.path.normpath(os.path.join(root, cwd)) if isinstance(cwd, str) and cwd else root
    files, unverified = (), ()
    command = getattr(server, "command", None)
    if command and cover:
        files, unverified = entry_coverage(argv=[command, *getattr(server, "args", ())], cwd=cwd, project_root=root,
                                           plugin_root=p.source_root if p.scope is Scope.PLUGIN else None, env={})
    target = command or getattr(server, "url", None) or ""
    label = f"{server.name}: " + " ".join([target, *getattr(server, "args", ())]).strip()
    source = f"plugin {server.plugin}" if server.plugin else f"{p.scope.value} {p.path}"
    return ApprovalEntry(capability=capability, source=source, identity={"name": server.name},
                         definition=dict(server.config), files=files, unverified=unverified, label=label[:300],
                         resource_id=server.id)


def server_status(server: Any, capability: str, project_root: str | os.PathLike[str],
                  source_root: str | os.PathLike[str], home: str | os.PathLike[str] | None) -> EntryStatus:
    """The approval state of ``server`` (never raises): ``not-required`` outside
    :data:`APPROVAL_SCOPES`, else its record in ``<home>/.wskit/approvals.json`` (no home:
    ``awaiting``)."""
    if server.scope not in APPROVAL_SCOPES:
        return EntryStatus(server_entry(server, capability, project_root, cover=False), "not-required")
    entry = server_entry(server, capability, project_root)
    if home is None:
        return EntryStatus(entry, "awaiting", "no approval store (no home)")
    return ApprovalStore.for_home(home).status(str(source_root), [entry])[0]
