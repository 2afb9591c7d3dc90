"""The MCP server of ``wsctl serve`` (official ``mcp`` SDK, low-level ``Server``).

One :class:`WorkspaceServer` serves the workspace holding a path, on stdio or
streamable HTTP. Each client connection gets its own
:class:`~wskit_serve.catalog.ServedWorkspace` (a session snapshot) on its first
request. A watcher re-validates the workspace every ``poll`` seconds through
:meth:`wskit.cache.WorkspaceCache.resolve` (with ``--watch``, the default, the
operating system's file notifications say what changed, :mod:`wskit.fs.watch`;
else one ``stat`` per recorded path; a reload only when something changed);
when what a connection can list
changed, that connection's snapshot is replaced and it is sent
``notifications/tools/list_changed``, ``prompts/list_changed`` and
``resources/list_changed`` (clients on the 2026-07-28 protocol get the same
events through ``subscriptions/listen``). A new connection always starts from
the current workspace.

Tools: ``skills_list``, ``skill_load``, ``rules_for``, ``rules_explain``,
``static_rules``. Prompts: the workspace's custom commands. Resources:
``rules://static`` and ``skill://<id>``. Nothing is executed, nothing outside
the workspace is read, and the only socket is the listening one.
"""

from __future__ import annotations

import hmac
import json
import socket
import threading
import weakref
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread

from wskit_serve.catalog import ServedWorkspace, ServeError, ServeLimits
from wskit_serve.guard import (
    HostGuard,
    HttpLimits,
    ServeLog,
    bind,
    bounded_protocol,
    connection_cap,
    host_guard,
    is_loopback,
    limit_sessions,
)

__all__ = ["TOOLS", "HttpLimits", "WorkspaceServer", "bearer_guard", "connection_of"]


def _obj(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        out["required"] = list(required)
    return out


_STR = {"type": "string"}
#: name -> (description, JSON schema of the arguments).
TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    "skills_list": ("List the workspace's skills (name, description, id), a page at a time. "
                    "Load one with skill_load when a task matches its description.",
                    _obj({"query": {**_STR, "description": "keep skills whose name or description holds this"},
                          "offset": {"type": "integer", "minimum": 0},
                          "limit": {"type": "integer", "minimum": 1, "maximum": 1000}})),
    "skill_load": ("Load a skill's instructions (SKILL.md body), or one named file of the skill's folder. "
                   "Follow the instructions; allowed_tools, when present, limits the tools the skill may use.",
                   _obj({"name": {**_STR, "description": "the skill's name or id, as skills_list shows it"},
                         "file": {**_STR, "description": "a file of the skill folder (default SKILL.md)"},
                         "arguments": {**_STR, "description": "the skill's arguments ($ARGUMENTS)"}}, ("name",))),
    "rules_for": ("The instruction files (AGENTS.md, CLAUDE.md, path-scoped rules) that apply to a file, "
                  "beyond the static ones in the server instructions. Call it before editing a file.",
                  _obj({"path": {**_STR, "description": "a file, relative to the workspace or absolute"}},
                       ("path",))),
    "rules_explain": ("Every candidate instruction file for a path: whether it applies and why.",
                      _obj({"path": _STR}, ("path",))),
    "static_rules": ("The workspace's static instruction files, with their paths and digests.", _obj({})),
}


class WorkspaceServer:
    """Serves the workspace holding ``path``.

    :param resolve: ``resolve(path) -> WorkspaceResources`` (a
        :meth:`wskit.cache.WorkspaceCache.resolve`: trust-gated, stat-revalidated).
    :param path: a path inside the workspace.
    :param limits: the :class:`ServeLimits` of every answer.
    :param poll: seconds between change checks (0: never; a new connection still
        sees the current workspace).
    :param log: where the server says what went wrong (default: a :class:`ServeLog`
        on stderr, rate-limited, never blocking).
    """

    def __init__(self, resolve: Callable[[str], Any], path: str, limits: ServeLimits | None = None,
                 poll: float = 1.0, log: ServeLog | None = None) -> None:
        self._resolve = resolve
        self.log = log or ServeLog()
        self.path = path
        self.limits = limits or ServeLimits()
        self.poll = poll
        self._lock = threading.Lock()
        self.workspace = resolve(path)
        self._first = ServedWorkspace(self.workspace, self.limits)
        self._conns: weakref.WeakKeyDictionary[Any, ServedWorkspace] = weakref.WeakKeyDictionary()
        from mcp.server.subscriptions import InMemorySubscriptionBus

        self.bus = InMemorySubscriptionBus()
        self.server = self._build()

    # -- per connection --------------------------------------------------------

    def served(self, session: Any) -> ServedWorkspace:
        """The served set of the connection ``session`` (made from the current
        workspace on its first request)."""
        with self._lock:
            sw = self._conns.get(session)
            if sw is None:
                if self._first is not None and self._first.workspace is self.workspace:
                    sw, self._first = self._first, None
                else:
                    sw = ServedWorkspace(self.workspace, self.limits)
                self._conns[session] = sw
            return sw

    def instructions(self) -> str:
        """The ``instructions`` a new connection gets (the current workspace's)."""
        with self._lock:
            first = self._first if self._first is not None else ServedWorkspace(self.workspace, self.limits)
            self._first = first
        return first.instructions()

    def refresh(self) -> list[Any]:
        """Re-validate the workspace; give every connection whose listing changed a new
        snapshot. :returns: the sessions to notify."""
        ws = self._resolve(self.path)
        if ws is self.workspace:
            return []
        notify = []
        with self._lock:
            self.workspace = ws
            self._first = None
            conns = list(self._conns.items())
        # one snapshot to compare with (its signature computed once, each connection's
        # memoized); a connection whose listing changed takes it, or a fresh one of its own
        candidate: ServedWorkspace | None = ServedWorkspace(ws, self.limits)
        current = candidate.signature()
        for session, old in conns:
            if old.signature() == current:
                continue
            new, candidate = (candidate, None) if candidate is not None else (ServedWorkspace(ws, self.limits), None)
            with self._lock:
                self._conns[session] = new
            notify.append(session)
        with self._lock:
            if candidate is not None and self._first is None and self.workspace is ws:
                self._first = candidate  # unclaimed: the next connection starts from it
        self.server.instructions = self.instructions()  # what a new connection is told
        return notify

    async def watch(self) -> None:
        """Check for changes every ``poll`` seconds and notify the connections whose
        listing changed; runs until cancelled."""
        if self.poll <= 0:
            return
        from mcp.shared.subscriptions import PromptsListChanged, ResourcesListChanged, ToolsListChanged

        while True:
            await anyio.sleep(self.poll)
            try:
                sessions = await anyio.to_thread.run_sync(self.refresh)
            except Exception as err:  # noqa: BLE001 — a failed reload keeps serving the last good snapshot
                self.log.say("reload", f"re-reading {self.path} failed ({type(err).__name__}: {err}); "
                                       "still serving the last snapshot")
                continue
            for session in sessions:
                for send in ("send_tool_list_changed", "send_prompt_list_changed", "send_resource_list_changed"):
                    try:
                        await getattr(session, send)()
                    except Exception:  # noqa: BLE001 — a closed connection is not the server's failure
                        break
            if sessions:
                for event in (ToolsListChanged(), PromptsListChanged(), ResourcesListChanged()):
                    await self.bus.publish(event)

    # -- the SDK server ----------------------------------------------------------

    def _build(self):
        import mcp_types as types
        from mcp.server.lowlevel.server import Server
        from mcp.server.subscriptions import ListenHandler

        async def call(ctx, fn: Callable[[ServedWorkspace], Any]):
            sw = self.served(connection_of(ctx))
            return await anyio.to_thread.run_sync(lambda: fn(sw))

        async def list_tools(ctx, params):
            return types.ListToolsResult(tools=[types.Tool(name=n, description=d, input_schema=s)
                                                for n, (d, s) in TOOLS.items()])

        def run_tool(sw: ServedWorkspace, name: str, args: dict[str, Any]) -> Any:
            allowed = set(TOOLS[name][1]["properties"])
            extra = sorted(set(args) - allowed)
            if extra:
                raise ServeError(f"{name} has no argument {', '.join(extra)}")
            if name == "skills_list":
                return sw.list_skills(int(args.get("offset", 0)), args.get("limit"), args.get("query"))
            if name == "skill_load":
                return sw.load_skill(str(args["name"]), args.get("file"), args.get("arguments"))
            if name == "rules_for":
                return sw.rules_for(str(args["path"]))
            if name == "rules_explain":
                return sw.explain(str(args["path"]))
            return sw.static_rules()

        async def call_tool(ctx, params):
            name, args = params.name, dict(params.arguments or {})
            if name not in TOOLS:
                return _error(f"unknown tool {name!r}; tools: {', '.join(TOOLS)}")
            for key in TOOLS[name][1].get("required", ()):
                if not isinstance(args.get(key), str) or not args[key]:
                    return _error(f"{name} needs the argument {key!r} (a non-empty string)")
            try:
                text = await call(ctx, lambda sw: sw.bounded(run_tool(sw, name, args)))
            except (ServeError, ValueError, TypeError) as err:
                return _error(str(err))
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                        structured_content=json.loads(text))

        def _error(message: str):
            return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)

        async def list_prompts(ctx, params):
            prompts = await call(ctx, lambda sw: sw.prompts())
            return types.ListPromptsResult(prompts=[
                types.Prompt(name=p["name"], description=p["description"],
                             arguments=[types.PromptArgument(**a) for a in p["arguments"]]) for p in prompts])

        async def get_prompt(ctx, params):
            from mcp.shared.exceptions import MCPError

            try:
                data = await call(ctx, lambda sw: sw.get_prompt(params.name, dict(params.arguments or {})))
            except ServeError as err:
                raise MCPError(code=types.INVALID_PARAMS, message=str(err)) from None
            return types.GetPromptResult(description=data["description"], messages=[
                types.PromptMessage(role="user", content=types.TextContent(type="text", text=data["text"]))])

        async def list_resources(ctx, params):
            items = await call(ctx, lambda sw: sw.resources())
            return types.ListResourcesResult(resources=[
                types.Resource(uri=r["uri"], name=r["name"], description=r["description"],
                               mime_type=r["mime_type"]) for r in items])

        async def list_templates(ctx, params):
            items = await call(ctx, lambda sw: sw.resource_templates())
            return types.ListResourceTemplatesResult(resource_templates=[
                types.ResourceTemplate(uri_template=t["uri_template"], name=t["name"],
                                       description=t["description"], mime_type=t["mime_type"]) for t in items])

        async def read_resource(ctx, params):
            from mcp.shared.exceptions import MCPError

            uri = str(params.uri)
            try:
                text = await call(ctx, lambda sw: sw.read_resource(uri))
            except ServeError as err:
                raise MCPError(code=types.INVALID_PARAMS, message=str(err)) from None
            return types.ReadResourceResult(contents=[
                types.TextResourceContents(uri=uri, mime_type="text/markdown", text=text)])

        from wskit import __version__

        return Server(
            "wskit", version=__version__, instructions=self.instructions(),
            on_list_tools=list_tools, on_call_tool=call_tool, on_list_prompts=list_prompts,
            on_get_prompt=get_prompt, on_list_resources=list_resources, on_read_resource=read_resource,
            on_list_resource_templates=list_templates,
            on_subscriptions_listen=ListenHandler(self.bus))

    def _options(self):
        from mcp.server.lowlevel.server import NotificationOptions

        self.server.instructions = self.instructions()
        return self.server.create_initialization_options(
            NotificationOptions(prompts_changed=True, resources_changed=True, tools_changed=True))

    # -- transports ----------------------------------------------------------------

    async def serve_stdio(self) -> None:
        """Serve one client on stdin/stdout until it closes the stream."""
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read, write):
            async with anyio.create_task_group() as tg:
                tg.start_soon(self.watch)
                await self.server.run(read, write, self._options())
                tg.cancel_scope.cancel()

    async def serve_http(self, host: str, port: int, token: str | None = None,
                         ready: Callable[[int], None] | None = None, *,
                         sockets: list[socket.socket] | None = None, limits: HttpLimits | None = None,
                         log: ServeLog | None = None) -> None:
        """Serve streamable HTTP at ``http://host:port/mcp`` until cancelled (or SIGINT/SIGTERM
        in the main thread: open requests get ``limits.graceful_shutdown`` seconds).

        :param token: when given, every request needs ``Authorization: Bearer <token>``.
        :param ready: called with the bound port once listening (port 0 picks one).
        :param sockets: listening sockets already bound (:func:`~wskit_serve.guard.bind`);
            default: bind ``host``/``port`` here.
        :param limits: connection, header, session and shutdown bounds (:class:`HttpLimits`).
        :param log: where conditions are said (default: a :class:`ServeLog` on stderr).
        :raises ServeError: a non-loopback address without ``token``.

        When every bound address is a loopback address, the DNS-rebinding guard
        (:class:`~wskit_serve.guard.HostGuard`) allows only ``Host``/``Origin`` values
        naming a bound address and the bound port, ``localhost`` or the name written
        as ``host``; otherwise the token is the guard.
        """
        import asyncio
        import time

        import uvicorn
        from mcp.server.transport_security import TransportSecuritySettings
        from uvicorn.protocols.http.auto import AutoHTTPProtocol

        limits = limits or HttpLimits()
        log = log or self.log
        sockets = sockets if sockets is not None else bind(host, port)
        loopback = all(is_loopback(s.getsockname()[0]) for s in sockets)
        if not loopback and token is None:
            for s in sockets:
                s.close()
            raise ServeError(f"{host} is not a loopback address: serving it needs a bearer token")
        self.server.instructions = self.instructions()
        # the SDK's own Host check knows three spellings and any port: ours replaces it
        app = self.server.streamable_http_app(
            host=host, transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            session_idle_timeout=limits.session_idle_timeout, max_sessions=limits.max_sessions)
        manager = getattr(self.server, "_session_manager", None)
        if manager is not None:
            limit_sessions(manager, log)
        if token is not None:
            app = bearer_guard(app, token)
        if loopback:
            app = host_guard(app, HostGuard.for_sockets(sockets, host), log)
        protocol, conns = bounded_protocol(AutoHTTPProtocol, connection_cap(limits.max_connections),
                                           limits.header_timeout, log)
        config = uvicorn.Config(app, http=protocol, log_config=None, access_log=False, log_level="warning",
                                lifespan="on", timeout_graceful_shutdown=max(1, int(limits.graceful_shutdown)))
        server = uvicorn.Server(config)
        loop = asyncio.get_running_loop()
        old_handler = loop.get_exception_handler()

        def on_loop_error(_loop, context: dict) -> None:
            exc = context.get("exception")
            message = str(context.get("message") or "event loop error")
            log.say(f"loop:{message[:60]}", f"{message}" + (f": {type(exc).__name__}: {exc}" if exc else ""))

        loop.set_exception_handler(on_loop_error)  # accept() out of descriptors: one line, not a traceback each
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self.watch)

                async def announce() -> None:
                    while not server.started:
                        await anyio.sleep(0.02)
                    if ready is not None:
                        ready(sockets[0].getsockname()[1])

                async def sweep() -> None:
                    while True:
                        await anyio.sleep(conns.interval)
                        conns.sweep(time.monotonic())

                tg.start_soon(announce)
                tg.start_soon(sweep)
                await server.serve(sockets=sockets)
                tg.cancel_scope.cancel()
        finally:
            loop.set_exception_handler(old_handler)
            for s in sockets:
                s.close()


def connection_of(ctx: Any) -> Any:
    """The client connection a request arrived on: the SDK builds a new
    ``ServerSession`` proxy per request around one ``Connection`` per client, which
    is what a per-connection snapshot must be keyed by (and what notifications go
    to). Falls back to the proxy when an SDK version has no such object."""
    return getattr(ctx.session, "_connection", None) or ctx.session


def bearer_guard(app: Any, token: str) -> Any:
    """An ASGI wrapper refusing HTTP requests without ``Authorization: Bearer <token>``
    (401, compared in constant time); lifespan events pass through."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope, receive, send):
        if scope.get("type") == "http":
            given = dict(scope.get("headers") or ()).get(b"authorization", b"")
            if not hmac.compare_digest(given, expected):
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": b"a bearer token is required\n"})
                return
        await app(scope, receive, send)

    return guarded
