"""Approval machinery shared by hooks, MCP servers and LSP servers (docs/hooks.md).

:mod:`wskit.approval.coverage` decides which project and plugin files an approved
command or server executes, and names the words it could not follow.
"""

from __future__ import annotations

from wskit.approval.coverage import Coverage, CoveredFile, Unverified, argv_coverage, command_coverage

__all__ = ["Coverage", "CoveredFile", "Unverified", "argv_coverage", "command_coverage"]
