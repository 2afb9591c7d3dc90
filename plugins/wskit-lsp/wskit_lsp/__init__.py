"""wskit-lsp: the ``lsp`` session service (pygls/lsprotocol), ``wsctl lsp check`` and ``wsctl lsp query``.

Registered through the entry point group ``wskit``; wskit core does not depend on it.
"""

from __future__ import annotations

import wskit


def __getattr__(name: str):
    """Lazy public names: the service module (and its asyncio/SDK imports) loads on first use,
    so merely registering the plugin keeps ``wsctl`` start-up cheap."""
    if name in ("QueryResult", "WriteDiagnostics"):
        from . import results

        return getattr(results, name)
    if name in __all__:
        from . import service

        return getattr(service, name)
    raise AttributeError(name)


__all__ = ["DiagnosticsNotReady", "LspApprovalError", "LspError", "LspService", "QueryResult", "WriteDiagnostics"]


@wskit.hookimpl
def wskit_session_services():
    """``[("lsp", factory)]``: ``session.lsp`` is an :class:`LspService`, made by ``factory(runtime)``.
    The service module (asyncio, the SDK) is imported when the service is first asked for,
    not when the runtime collects the factories (every ``wsctl hooks run`` does)."""
    return [("lsp", _start_service)]


def _start_service(runtime):
    from .service import LspService

    return LspService(runtime)


@wskit.hookimpl
def wskit_register_commands(cli):
    """Add ``check`` and ``query`` to the ``wsctl lsp`` group (created when no other plugin
    made it), imported when used (the same as :func:`wskit_lsp.cli.register`)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "check", "wskit_lsp.cli:lsp_check_cmd",
                     "Open FILE in the language server NAME of its workspace, print its diagnostics, shut it down.",
                     parent="lsp", parent_help="Language servers of a workspace.")
    add_lazy_command(cli, "query", "wskit_lsp.cli:lsp_query_cmd",
                     "Ask FILE's language server for a definition, references, hover or symbols; shut it down.",
                     parent="lsp", parent_help="Language servers of a workspace.")
