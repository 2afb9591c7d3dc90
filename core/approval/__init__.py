"""Approval machinery shared by hooks, MCP servers and LSP servers (docs/hooks.md, docs/security.md).

:mod:`wskit.approval.coverage` decides which project and plugin files an approved
command or server executes, and names the words it could not follow;
:mod:`wskit.approval.entries` is what one approval covers (an
:class:`~wskit.approval.entries.ApprovalEntry`: one hook, MCP server or LSP server);
:mod:`wskit.approval.store` is the per-user store of approvals, one record per entry;
:mod:`wskit.approval.servers` builds the entries of MCP and LSP servers.
"""

from __future__ import annotations

from wskit.approval.coverage import Coverage, CoveredFile, Unverified, argv_coverage, command_coverage

__all__ = ["Coverage", "CoveredFile", "Unverified", "argv_coverage", "command_coverage"]
