"""MCP connections of one session (official ``mcp`` SDK; reference/blade.md §12,
reference/conventions.md §1.9).

The SDK is async (anyio). :class:`McpService` runs one event loop in a
background thread (an anyio blocking portal) and exposes a synchronous API.
Each connection lives in its own task, which enters the transport and the
:class:`mcp.ClientSession`, then waits for its stop event, so the contexts are
entered and exited in the same task as anyio requires.

- stdio servers: the command runs with ``cwd`` = the definition's ``cwd``
  resolved against the *execution root* (default: the execution root itself),
  env = the session's variables plus the definition's ``env``;
- http servers: streamable HTTP with the definition's headers; ``sse`` servers: the
  legacy SSE transport;
- roots: the client answers ``roots/list`` with the execution root only (never
  the source project of a worktree).
"""

from __future__ import annotations

import tempfile
import threading
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.from_thread import start_blocking_portal

from wskit.errors import UnknownResourceError, WskitError
from wskit.resources.servers import McpServer

#: Seconds allowed for starting a server and the initialize handshake.
CONNECT_TIMEOUT = 30.0


class McpConnectError(WskitError):
    """An MCP server could not be started, reached or initialised (names the server)."""


@dataclass
class McpConnection:
    """One live connection. :ivar server: the definition. :ivar session: the SDK ClientSession.
    :ivar server_info: ``{"name", "version"}`` the server reported. :ivar stderr_path: stdio server's stderr log."""

    server: McpServer
    session: Any = None
    server_info: dict[str, Any] = field(default_factory=dict)
    stderr_path: str | None = None
    _stop: Any = None
    _done: Any = None


class McpService:
    """``session.mcp``: lazy MCP connections for one session.

    :param runtime: the :class:`~wskit.session.runtime.SessionRuntime`.
    """

    def __init__(self, runtime) -> None:
        self.runtime = runtime
        self.root = Path(runtime.execution_root)
        self._conns: dict[str, McpConnection] = {}
        self._lock = threading.RLock()
        self._portal_cm = None
        self._portal = None
        self._tmp = tempfile.TemporaryDirectory(prefix="wskit-mcp-")
        self.closed = False

    # -- lookup ------------------------------------------------------------

    def servers(self) -> list[McpServer]:
        """The session's MCP server definitions (active, by id)."""
        return list(self.runtime.session.registry("mcp_server").active())

    def definition(self, server_id: str) -> McpServer:
        """Resolve ``server_id``: a qualified id, ``<plugin>:<name>``, a bare name or an alias.

        :raises UnknownResourceError: nothing answers. :raises AmbiguousNameError: several do.
        """
        reg = self.runtime.session.registry("mcp_server")
        found = reg.find(server_id)
        if found is None:
            found = next((s for s in reg.active() if s.alias == server_id), None)
        if found is None:
            raise UnknownResourceError("mcp_server", server_id, reg.ids())
        return found

    # -- connecting --------------------------------------------------------

    def _ensure_portal(self):
        if self._portal is None:
            self._portal_cm = start_blocking_portal()
            self._portal = self._portal_cm.__enter__()
        return self._portal

    def connect(self, server_id: str) -> McpConnection:
        """The live connection to ``server_id``, started on first use.

        :raises McpConnectError: start, transport or handshake failed (the process is
            stopped), or the definition is not startable (a ``${VAR}`` without default
            was undefined when it was loaded: nothing is started, as ``wsctl mcp list``
            and its diagnostic say).
        :raises WskitError: the service is closed.
        """
        server = self.definition(server_id)
        if not server.startable:
            why = (f"undefined {', '.join(server.unresolved)} (no default)" if server.unresolved
                   else f"empty {', '.join(getattr(server, 'incomplete', ()))}")
            raise McpConnectError(f"MCP server {server.id} is not startable: {why}; nothing was started")
        with self._lock:
            if self.closed:
                raise WskitError("MCP service is closed")
            conn = self._conns.get(server.id)
            if conn is not None:
                return conn
            conn = McpConnection(server=server)
            portal = self._ensure_portal()
            try:
                fut, _ = portal.start_task(self._hold, conn, name=f"mcp:{server.id}")
            except BaseException as err:  # noqa: BLE001 — report every SDK failure the same way
                raise McpConnectError(f"MCP server {server.id}: {_describe(err)}") from None
            conn._done = fut
            self._conns[server.id] = conn
            return conn

    async def _hold(self, conn: McpConnection, *, task_status=anyio.TASK_STATUS_IGNORED) -> None:
        from mcp import ClientSession, types

        root = self.root

        async def list_roots(_context):
            return types.ListRootsResult(roots=[types.Root(uri=root.as_uri(), name=root.name)])

        conn._stop = anyio.Event()
        async with AsyncExitStack() as stack:
            read, write = await stack.enter_async_context(self._transport(conn, stack))
            session = await stack.enter_async_context(ClientSession(read, write, list_roots_callback=list_roots))
            with anyio.fail_after(CONNECT_TIMEOUT):  # never around a context entry (anyio scopes nest)
                init = await session.initialize()
            conn.session = session
            info = getattr(init, "server_info", None) or getattr(init, "serverInfo", None)
            conn.server_info = {"name": getattr(info, "name", None), "version": getattr(info, "version", None)}
            task_status.started()
            await conn._stop.wait()

    def _transport(self, conn: McpConnection, stack: AsyncExitStack):
        server = conn.server
        if server.transport == "stdio":
            from mcp import StdioServerParameters, stdio_client

            if not server.command:
                raise McpConnectError(f"MCP server {server.id} has no command")
            cwd = self.root / server.cwd if server.cwd else self.root
            env = {**dict(self.runtime.options.env), **server.env}
            log = Path(self._tmp.name) / f"{len(self._conns)}-{server.name}.stderr"
            conn.stderr_path = str(log)
            errlog = stack.enter_context(open(log, "w", encoding="utf-8"))
            params = StdioServerParameters(command=server.command, args=list(server.args), env=env, cwd=str(cwd))
            return stdio_client(params, errlog=errlog)
        if server.transport == "http":
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            if not server.url:
                raise McpConnectError(f"MCP server {server.id} has no url")
            client = create_mcp_http_client(headers=dict(server.headers))
            return _with_client(stack, client, server.url, streamable_http_client)
        if server.transport == "sse":
            from mcp.client.sse import sse_client

            if not server.url:
                raise McpConnectError(f"MCP server {server.id} has no url")
            return sse_client(server.url, headers=dict(server.headers))
        raise McpConnectError(f"MCP server {server.id}: transport {server.transport!r} is not supported")

    # -- calls ---------------------------------------------------------------

    def list_tools(self, server_id: str) -> list[dict[str, Any]]:
        """Tools of ``server_id`` as ``[{"name", "description", "input_schema"}]`` (connects lazily)."""
        conn = self.connect(server_id)
        result = self._call(conn, lambda: conn.session.list_tools())
        return [{"name": t.name, "description": t.description or "",
                 "input_schema": getattr(t, "input_schema", None) or getattr(t, "inputSchema", None)}
                for t in result.tools]

    def call_tool(self, server_id: str, tool: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """Call ``tool`` on ``server_id``.

        :returns: ``{"is_error": bool, "text": joined text content, "content": [...], "structured": ...}``.
        :raises McpConnectError: the call failed at the protocol level.
        """
        conn = self.connect(server_id)
        res = self._call(conn, lambda: conn.session.call_tool(tool, arguments or {}))
        content = [c.model_dump(mode="json", exclude_none=True) for c in res.content]
        text = "\n".join(c.get("text", "") for c in content if c.get("type") == "text")
        structured = getattr(res, "structured_content", None) or getattr(res, "structuredContent", None)
        is_error = bool(getattr(res, "is_error", None) or getattr(res, "isError", False))
        return {"is_error": is_error, "text": text, "content": content, "structured": structured}

    def _call(self, conn: McpConnection, make):
        async def run():
            return await make()

        try:
            return self._portal.call(run)
        except BaseException as err:  # noqa: BLE001
            if isinstance(err, KeyboardInterrupt):
                raise
            raise McpConnectError(f"MCP server {conn.server.id}: {_describe(err)}") from None

    def connected(self) -> list[str]:
        """Ids of the servers connected so far."""
        return list(self._conns)

    def disconnect(self, server_id: str) -> None:
        """Close one connection (its process is stopped); no-op when not connected."""
        server = self.definition(server_id)
        with self._lock:
            conn = self._conns.pop(server.id, None)
        if conn is not None:
            self._stop(conn)

    def _stop(self, conn: McpConnection) -> None:
        if conn._stop is not None and self._portal is not None:
            self._portal.call(conn._stop.set)
        if conn._done is not None:
            try:
                conn._done.result(timeout=15)
            except BaseException:  # noqa: BLE001 — a server dying on close is not our failure
                pass

    def close(self) -> None:
        """Close every connection, stop every server process and the event loop; idempotent."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            conns = list(self._conns.values())
            self._conns.clear()
        for conn in conns:
            self._stop(conn)
        if self._portal_cm is not None:
            self._portal_cm.__exit__(None, None, None)
            self._portal_cm = self._portal = None
        self._tmp.cleanup()


def _with_client(stack: AsyncExitStack, client, url: str, factory):
    """Enter the httpx client on ``stack`` then return the transport context."""
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def cm():
        async with client:
            async with factory(url, http_client=client) as streams:
                yield streams[0], streams[1]

    return cm()


def _describe(err: BaseException) -> str:
    """A readable message for an exception or (nested) exception group."""
    while isinstance(err, BaseExceptionGroup) and len(err.exceptions) == 1:
        err = err.exceptions[0]
    if isinstance(err, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in err.exceptions)
    if isinstance(err, TimeoutError):
        return "timed out"
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__


__all__ = ["McpConnection", "McpConnectError", "McpService"]
