"""MCP and LSP server definitions (reference/conventions.md §1.9, §1.12;
reference/blade.md §12–13). Definitions only: runtimes live in the
``wskit-mcp`` and ``wskit-lsp`` plugins.

Ids: ``<scope>:<name>`` for native servers, ``plugin:<plugin>:<name>`` for
plugin ones; plugin MCP servers also carry the identifier-safe ``alias``
``<plugin>__<name>`` (design §4).
"""

from __future__ import annotations

from typing import Any, Literal

from wskit.models import Resource

__all__ = ["LspServer", "McpServer"]


class McpServer(Resource):
    """An MCP server definition.

    :ivar transport: ``stdio`` (``command``/``args``/``env``/``cwd``) or
        ``http``/``sse`` (``url``/``headers``).
    :ivar alias: identifier-safe name (``<plugin>__<server>`` for plugin servers, else ``name``).
    :ivar config: the definition as read, placeholders expanded.
    :ivar timeout, idle_timeout: milliseconds (None: the runtime default).
    :ivar unresolved: undefined variables (no default) left literal; see :attr:`startable`.
    :ivar incomplete: fields left empty for the user to fill (``url: ""``: published
        marketplaces ship such placeholders); the definition is valid but cannot start yet.
    :ivar variables: ``${VAR}`` names left as written for the runtime to substitute when it
        starts the server (project, local and plugin definitions; never printed expanded).
    """

    kind: Literal["mcp_server"] = "mcp_server"
    transport: Literal["stdio", "http", "sse"] = "stdio"
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = {}
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = {}
    alias: str = ""
    config: dict[str, Any] = {}
    timeout: int | None = None
    idle_timeout: int | None = None
    unresolved: tuple[str, ...] = ()
    incomplete: tuple[str, ...] = ()
    variables: tuple[str, ...] = ()

    @property
    def startable(self) -> bool:
        """False when a ``${VAR}`` without default was undefined at load time
        (``unresolved`` names them) or a field is an empty placeholder (``incomplete``,
        Claude Code shows such a server as failed, its plugin stays valid): such a server
        must not be started."""
        return not self.unresolved and not self.incomplete


class LspServer(Resource):
    """An LSP server definition (Blade's schema and limits, §13).

    :ivar extension_to_language: ``{".py": "python"}``, extensions lower-cased with a dot.
    :ivar startup_timeout, shutdown_timeout, request_timeout: milliseconds.
    :ivar max_restarts: how often a dead server is restarted (0..10).
    :ivar transport: ``stdio`` (``socket`` is accepted and run as stdio, Claude Code §1.12).
    :ivar workspace_folder, restart_on_crash, diagnostics: Claude Code's fields.
    :ivar config: the definition as read, plugin-root placeholders expanded.
    """

    kind: Literal["lsp_server"] = "lsp_server"
    command: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = {}
    extension_to_language: dict[str, str] = {}
    initialization_options: Any = None
    settings: Any = None
    enabled: bool = True
    priority: int = 0
    startup_timeout: int = 10000
    shutdown_timeout: int = 2000
    request_timeout: int = 10000
    diagnostic_wait_timeout: int = 750
    max_restarts: int = 3
    transport: Literal["stdio", "socket"] = "stdio"
    workspace_folder: str | None = None
    restart_on_crash: bool = True
    diagnostics: bool = True
    config: dict[str, Any] = {}
