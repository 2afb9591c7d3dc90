"""Per-entry approval shared by hooks, MCP servers and LSP servers (docs/security.md).

Submodules: :mod:`wskit.approval.entries` (what one approval covers: an
:class:`~wskit.approval.entries.ApprovalEntry` and the files its command runs) and
:mod:`wskit.approval.store` (the per-user store of approvals, one record per entry),
:mod:`wskit.approval.servers` (the entries of MCP and LSP servers).
"""

__all__ = ["entries", "servers", "store"]
