"""wskit-mcp: the ``mcp`` session service (official ``mcp`` SDK) and ``wsctl mcp check``.

Registered through the entry point group ``wskit``; wskit core does not depend on it.
"""

from __future__ import annotations

import wskit


def __getattr__(name: str):
    """Lazy public names: the service module (and its asyncio/SDK imports) loads on first use,
    so merely registering the plugin keeps ``wsctl`` start-up cheap."""
    if name in _OPTIONS:
        from . import options

        return getattr(options, name)
    if name in __all__:
        from . import service

        return getattr(service, name)
    raise AttributeError(name)


__all__ = [
    "McpApprovalError", "McpAuthRequiredError", "McpCall", "McpCallCancelled", "McpConnection", "McpConnectError",
    "McpElicitation", "McpElicitResponse", "McpLimits", "McpOptions", "McpRecovery", "McpSampleRequest",
    "McpSampleResponse", "McpServerStatus", "McpService",
]
_OPTIONS = {"McpElicitation", "McpElicitResponse", "McpLimits", "McpOptions", "McpRecovery", "McpSampleRequest",
            "McpSampleResponse"}


@wskit.hookimpl
def wskit_session_services():
    """``[("mcp", factory)]``: ``session.mcp`` is an :class:`McpService`, made by ``factory(runtime)``.
    The service module (asyncio, the SDK) is imported when the service is first asked for,
    not when the runtime collects the factories (every ``wsctl hooks run`` does)."""
    return [("mcp", _start_service)]


def _start_service(runtime):
    from .service import McpService

    return McpService(runtime)


@wskit.hookimpl
def wskit_register_commands(cli):
    """Add ``check``, ``call``, ``login`` and ``logout`` to the ``wsctl mcp`` group (created
    when no other plugin made it), imported when used (the same as :func:`wskit_mcp.cli.register`)."""
    from wskit.cli.lazy import add_lazy_command

    for name, help_text in (
            ("check", "Connect to the MCP server NAME of the workspace holding PATH, list its tools, disconnect."),
            ("call", "Call TOOL of the MCP server NAME with --arg key=value pairs and print the result."),
            ("login", "OAuth login to the HTTP MCP server NAME: opens the browser, stores its tokens."),
            ("logout", "Forget the stored OAuth tokens of the MCP server NAME.")):
        add_lazy_command(cli, name, f"wskit_mcp.cli:mcp_{name}_cmd", help_text,
                         parent="mcp", parent_help="MCP servers of a workspace.")
