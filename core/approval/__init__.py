"""Per-entry approval shared by hooks, MCP servers and LSP servers (docs/security.md).

Submodules: :mod:`wskit.approval.entries` (what one approval covers: an
:class:`~wskit.approval.entries.ApprovalEntry` and the files its command runs) and
:mod:`wskit.approval.store` (the per-user store of approvals, one record per entry).
"""

__all__ = ["entries", "store"]
