"""The workspace's MCP servers for a framework's own MCP client: approved ones only.

Each adapter of :mod:`wskit.integrations` hands the session's MCP servers to its
framework as the framework's own MCP objects (pydantic-ai toolsets, the Agents SDK's
``MCPServerStdio``…). :func:`workspace_mcp` is the one step they share: it asks the
session's MCP service (plugin ``wskit-mcp``) how to start each server
(:meth:`McpService.launch <wskit_mcp.service.McpService.launch>`), which applies the same
checks as wskit's own client: a project server that is not approved, changed since it
was approved, or denied is never described, so never started; one with undefined
variables or no command is not either. Every server left out is in
:attr:`WorkspaceMcp.refused` with the reason, for the host to show its user.

The framework's client then runs the server: wskit's bounds on its messages and catalog
(docs/runtime.md "MCP") do not apply to it; the tool-call gate does, since each adapter
gates the framework's MCP tools as it gates the host's, under Claude Code's tool names
``mcp__<server>__<tool>`` (:attr:`McpLaunch.key <wskit_mcp.service.McpLaunch>`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wskit.errors import WskitError
from wskit.values import FrozenValue

if TYPE_CHECKING:
    from wskit.session import SessionResources

__all__ = ["RefusedServer", "WorkspaceMcp", "mcp_tool_name", "workspace_mcp"]


class RefusedServer(FrozenValue):
    """An MCP server of the workspace that is not handed to the framework.

    :ivar id: its qualified id. :ivar reason: why, one sentence (what the user can do).
    """

    id: str
    reason: str


class WorkspaceMcp(FrozenValue):
    """What :func:`workspace_mcp` found.

    :ivar servers: how to start each approved server (``wskit_mcp.service.McpLaunch``:
        ``key``, ``transport``, ``command``/``args``/``env``/``cwd`` or ``url``/``headers``).
    :ivar refused: the servers left out (:class:`RefusedServer`).
    """

    servers: tuple[Any, ...] = ()
    refused: tuple[RefusedServer, ...] = ()


def mcp_tool_name(key: str, tool: str) -> str:
    """Claude Code's name of an MCP tool, what hooks and permission rules match:
    ``mcp__<key>__<tool>``."""
    return f"mcp__{key}__{tool}"


def workspace_mcp(session: SessionResources) -> WorkspaceMcp:
    """The session's MCP servers a framework may start (see the module docstring).

    :returns: a :class:`WorkspaceMcp`; without the MCP service (``wskit-mcp`` not installed
        or blocked) every server of the workspace is refused, saying so.
    """
    definitions = list(session.registry("mcp_server").active())
    try:
        service = session.mcp
    except LookupError:  # no MCP service: nothing can be checked, so nothing is started
        return WorkspaceMcp((), tuple(RefusedServer(d.id, "no MCP service in this session (the wskit-mcp plugin is "
                                                          "not installed or is blocked); not started")
                                      for d in definitions))
    servers: list[Any] = []
    refused: list[RefusedServer] = []
    for definition in definitions:
        try:
            servers.append(service.launch(definition.id))
        except WskitError as err:  # not approved, denied, modified, incomplete: said, not started
            refused.append(RefusedServer(definition.id, str(err)))
    return WorkspaceMcp(tuple(servers), tuple(refused))
