"""Per-server approval of project LSP servers (the entries and the store are :mod:`wskit.approval`).

A language server is a program the project names, like an MCP server: folder trust alone
does not start a project's (or ``settings.local.json``'s) LSP server; it starts only once
``wsctl lsp approve NAME --digest D`` recorded its entry as it is now — its definition and
the bytes and executable bit of the project files its command runs
(:func:`~wskit.approval.servers.server_entry`). An edit of either makes it ``modified``
(not started) until approved again; ``wsctl lsp deny NAME`` makes it ``denied``. Plugin
servers come with enabling their plugin, and the user's own need no approval
(``not-required``), as for MCP servers — unless their command runs project files or words
coverage cannot follow (:func:`~wskit.approval.servers.server_status`: ``untrusted-project``
in a project that is not trusted, approved per entry in a trusted one). States:
``approved``, ``awaiting``, ``modified``, ``denied``, ``not-required``,
``untrusted-project``, ``error`` (the store is unusable: nothing starts).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wskit.approval.entries import ApprovalEntry
    from wskit.resources.servers import LspServer


def server_approval(server: LspServer, binding: Any, home: str | os.PathLike[str] | None, *,
                    folder_trusted: bool | None = None) -> tuple[str, str, ApprovalEntry]:
    """``(state, reason, entry)`` of ``server`` in the workspace ``binding`` (module doc);
    ``entry.digest`` is what ``wsctl lsp approve --digest`` takes. Never raises.

    :param folder_trusted: the project's folder trust (the session's or workspace's
        ``trust.trusted``); None: not trusted (fails closed). A server of the user's own
        that reaches the project is ``untrusted-project`` in a project that is not trusted
        and approved per entry in one that is (:func:`~wskit.approval.servers.server_status`)."""
    from wskit.approval.servers import server_status

    st = server_status(server, "lsp", binding.execution_root, binding.source_root, home,
                       folder_trusted=bool(folder_trusted))
    return st.state, st.reason, st.entry
