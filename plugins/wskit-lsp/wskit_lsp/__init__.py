"""wskit-lsp: the ``lsp`` session service (pygls/lsprotocol) and ``wsctl lsp check``.

Registered through the entry point group ``wskit``; wskit core does not depend on it.
"""

from __future__ import annotations

import wskit

from .service import LspError, LspService

__all__ = ["LspError", "LspService"]


@wskit.hookimpl
def wskit_session_services():
    """``[("lsp", LspService)]``: ``session.lsp`` is an :class:`LspService`."""
    return [("lsp", LspService)]


@wskit.hookimpl
def wskit_register_commands(cli):
    """Add ``check`` to the ``wsctl lsp`` group (created when no other plugin made it)."""
    from .cli import register

    register(cli)
