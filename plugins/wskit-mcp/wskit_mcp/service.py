"""MCP connections of one session (official ``mcp`` SDK; reference/blade.md §12,
reference/conventions.md §1.9).

The SDK is async (anyio). :class:`McpService` runs one event loop in a background
thread (an anyio blocking portal) and exposes a synchronous API. Each connection
lives in its own task, which enters the transport and the :class:`mcp.ClientSession`,
then waits for its stop event, so the contexts are entered and exited in the same
task as anyio requires.

- stdio servers: the command runs with ``cwd`` = the definition's ``cwd`` resolved
  against the *execution root* (default: the execution root itself), env = the SDK's
  safe defaults (``PATH``, ``HOME``…) + the session's variables + the definition's ``env``;
- http servers: streamable HTTP with the definition's headers and, when the server asks
  for it, the SDK's OAuth client (tokens per server in ``<home>/.wskit/mcp-oauth/``);
  ``sse`` servers: the legacy SSE transport; over both, every JSON body and SSE event is
  bounded by ``McpLimits.max_message_bytes`` (:mod:`wskit_mcp.http`), as each stdio line is;
- roots: the client answers ``roots/list`` with the execution root only;
- interaction: ``elicitation/create`` runs the ``Elicitation`` hooks, then
  ``McpOptions.on_elicit``, then the ``ElicitationResult`` hooks; ``sampling/createMessage``
  goes to ``McpOptions.on_sample``; without them the capability is not advertised;
- recovery: a server whose connection ended is restarted on the next call (a new
  *generation*), with exponential back-off and a restart limit per session
  (:class:`~wskit_mcp.options.McpRecovery`);
- catalog: tools, prompts and resources are listed once and refreshed on
  ``notifications/*/list_changed``; every entry is size-checked and every result bounded
  (:mod:`wskit_mcp.projection`);
- approval: a project server starts only once approved (``wsctl mcp approve``, the
  user's ``enabledMcpjsonServers``/``enableAllProjectMcpServers``, or ``McpOptions.approve``);
  ``${VAR}`` in project and plugin definitions is substituted here, at start, and the
  values never appear in a message.
"""

from __future__ import annotations

import concurrent.futures
import os
import tempfile
import threading
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, Callable

import anyio
from anyio.from_thread import start_blocking_portal

from wskit.builtin_plugins.mcp import expand_server, server_approval
from wskit.errors import UnknownResourceError, WskitError
from wskit.resources.servers import McpServer
from wskit.util.bytecode import PrivateBytecode
from wskit.values import FrozenValue, Value, field

from .options import McpElicitation, McpElicitResponse, McpLimits, McpOptions, McpSampleRequest, McpSampleResponse
from .projection import check_catalog_entry, project_content, tool_full_name
from .sdklog import route_sdk_logging, watch_secrets
from .stdio import StdioReport

# before any connection, for every entry point: the SDK's records never reach the terminal raw
route_sdk_logging()

__all__ = [
    "CONNECT_TIMEOUT", "McpApprovalError", "McpAuthRequiredError", "McpCall", "McpCallCancelled",
    "McpConnection", "McpConnectError", "McpLaunch", "McpServerStatus", "McpService", "server_key",
]

#: Seconds allowed for starting a server and the initialize handshake (McpOptions.connect_timeout).
CONNECT_TIMEOUT = 30.0
_CONNECTION_CLOSED = -32000


class McpConnectError(WskitError):
    """An MCP server could not be started, reached or initialised, or a request to it
    failed at the protocol level (the message names the server)."""


class McpApprovalError(McpConnectError):
    """A project MCP server was not approved (or was denied): nothing was started."""


class McpAuthRequiredError(McpConnectError):
    """An HTTP MCP server needs an OAuth login first (``wsctl mcp login NAME``)."""


class McpCallCancelled(McpConnectError):
    """The host cancelled the call (or its timeout passed); the server was sent
    ``notifications/cancelled`` for the request."""


def server_key(server: McpServer) -> str:
    """The server part of tool names: the name, or ``plugin_<plugin>_<server>`` for a plugin
    server, as Claude Code spells them (``mcp__plugin_<plugin>_<server>__<tool>``)."""
    return f"plugin_{server.plugin}_{server.name}" if server.plugin else server.name


class McpServerStatus(FrozenValue):
    """One server's state in this session.

    :ivar id: qualified id. :ivar name: its name. :ivar status: one of
        :data:`~wskit_mcp.options.SERVER_STATUSES`. :ivar generation: how many times it was
        started (0: never). :ivar restarts: restarts so far; :ivar restarts_left: before it
        stays ``failed``. :ivar tools: tool count (None: not listed yet).
    :ivar error: the last failure (secrets masked). :ivar approval: the approval state of a
        project server (``approved``, ``awaiting``, ``modified``, ``denied``, ``not-required``).
    """

    id: str
    name: str
    status: str
    generation: int = 0
    restarts: int = 0
    restarts_left: int = 0
    tools: int | None = None
    error: str | None = None
    approval: str = "not-required"

    def to_json(self) -> dict[str, Any]:
        """The fields as a JSON object."""
        return dict(self.__dict__)


class McpLaunch(FrozenValue):
    """How to start one approved server with another MCP client (a framework's own):
    :meth:`McpService.launch`. Variables are substituted: ``env`` and ``headers`` may hold
    secrets, to hand to the client, never to print (``repr`` leaves them out).

    :ivar id: qualified id. :ivar name: its name. :ivar key: the server part of Claude Code's
        tool names (``mcp__<key>__<tool>``, :func:`server_key`).
    :ivar transport: ``stdio``, ``http`` or ``sse``.
    :ivar command, args: the process (stdio). :ivar cwd: its folder, absolute (the
        definition's ``cwd`` against the execution root, default the execution root).
    :ivar env: the session's variables and the definition's ``env`` (the client adds its
        own safe defaults, as wskit's does).
    :ivar url, headers: the endpoint (http, sse).
    """

    id: str
    name: str
    key: str
    transport: str
    command: str | None = None
    args: tuple[str, ...] = ()
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict, repr=False)
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict, repr=False)


class McpConnection(Value):
    """One live connection (one generation of a server).

    :ivar server: the definition (variables substituted). :ivar session: the SDK ClientSession.
    :ivar server_info: ``{"name", "version"}`` the server reported. :ivar stderr_path: stdio
        server's stderr log. :ivar generation: 1 for the first start, +1 per restart.
    """

    server: McpServer
    session: Any = None
    server_info: dict[str, Any] = field(default_factory=dict)
    stderr_path: str | None = None
    generation: int = 1
    closed: threading.Event = field(default_factory=threading.Event)
    report: StdioReport = field(default_factory=StdioReport)
    _stop: Any = None
    _done: Any = None


class _Record(Value):
    __slots__ = ("__weakref__",)  # sdklog keeps a weak reference to the record holding a connection

    server: McpServer
    status: str = "idle"
    generation: int = 0
    restarts: int = 0
    died_at: float | None = None
    error: str | None = None
    conn: McpConnection | None = None
    secrets: tuple[str, ...] = ()
    tools: list[dict[str, Any]] | None = None
    prompts: list[dict[str, Any]] | None = None
    resources: list[dict[str, Any]] | None = None
    problems: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class McpCall:
    """A call running in the background (:meth:`McpService.start_call`): poll it with
    :meth:`done`, wait with :meth:`result`, stop it with :meth:`cancel` (the server gets
    ``notifications/cancelled``)."""

    def __init__(self, future: concurrent.futures.Future, finish: Callable[[Any], Any],
                 fail: Callable[[BaseException], BaseException], server: str) -> None:
        self._future = future
        self._finish = finish
        self._fail = fail
        self.server = server

    def done(self) -> bool:
        """True once the call finished, failed or was cancelled."""
        return self._future.done()

    def cancel(self) -> bool:
        """Cancel the request (on the server too: the SDK sends ``notifications/cancelled``
        before this returns). :returns: False when it had already finished."""
        if self._future.done():
            return False
        self._future.cancel()
        _settle(self._future)
        return True

    def result(self, timeout: float | None = None) -> dict[str, Any]:
        """The projected result (see :meth:`McpService.call_tool`).

        :raises TimeoutError: not finished within ``timeout`` seconds (the call goes on).
        :raises McpCallCancelled: it was cancelled. :raises McpConnectError: it failed.
        """
        try:
            raw = self._future.result(timeout)
        except concurrent.futures.CancelledError:
            raise McpCallCancelled(f"MCP server {self.server}: the call was cancelled") from None
        except concurrent.futures.TimeoutError:
            raise TimeoutError(f"MCP server {self.server}: the call has not finished") from None
        except BaseException as err:  # noqa: BLE001
            raise self._fail(err) from None
        return self._finish(raw)


class McpService:
    """``session.mcp``: lazy MCP connections for one session.

    :param runtime: the :class:`~wskit.session.runtime.SessionRuntime`.
    :param options: :class:`~wskit_mcp.options.McpOptions` (callbacks, limits, recovery);
        may also be set as ``service.options`` before the first connection.
    """

    def __init__(self, runtime, options: McpOptions | None = None) -> None:
        self.runtime = runtime
        self.root = Path(runtime.execution_root)
        self.options = options or McpOptions()
        self._records: dict[str, _Record] = {}
        self._lock = threading.RLock()
        self._portal_cm = None
        self._portal = None
        self._tmp = tempfile.TemporaryDirectory(prefix="wskit-mcp-")
        self._bytecode = PrivateBytecode("wskit-mcp-pycache-")
        self._names: dict[str, tuple[str, str]] = {}
        self._closers: list[Callable[[], None]] = []
        self._oauth_memory: dict[str, Any] = {}
        self.closed = False

    @classmethod
    def factory(cls, options: McpOptions) -> Callable[[Any], "McpService"]:
        """A ``RuntimeOptions.services["mcp"]`` factory that builds the service with ``options``."""
        return lambda runtime: cls(runtime, options)

    # -- lookup ------------------------------------------------------------

    def servers(self) -> list[McpServer]:
        """The session's MCP server definitions (active, by id)."""
        return list(self.runtime.session.registry("mcp_server").active())

    def definition(self, server_id: str) -> McpServer:
        """Resolve ``server_id``: a qualified id, ``<plugin>:<name>``, a bare name, an alias or
        the ``mcp__<server>`` key of tool names.

        :raises UnknownResourceError: nothing answers. :raises AmbiguousNameError: several do.
        """
        reg = self.runtime.session.registry("mcp_server")
        found = reg.find(server_id)
        if found is None:
            found = next((s for s in reg.active() if server_id in (s.alias, server_key(s))), None)
        if found is None:
            raise UnknownResourceError("mcp_server", server_id, reg.ids())
        return found

    def _record(self, server: McpServer) -> _Record:
        with self._lock:
            rec = self._records.get(server.id)
            if rec is None:
                rec = self._records[server.id] = _Record(server=server)
            return rec

    @property
    def _connect_timeout(self) -> float:
        return self.options.connect_timeout if self.options.connect_timeout is not None else CONNECT_TIMEOUT

    @property
    def limits(self) -> McpLimits:
        """The limits in force: ``options.limits``, with ``max_item_bytes`` from a session
        variable ``MAX_MCP_OUTPUT_TOKENS`` (×4 bytes, as Claude Code reads it) when set."""
        limits = self.options.limits
        raw = dict(self.runtime.options.env).get("MAX_MCP_OUTPUT_TOKENS")
        if raw and raw.isdigit() and int(raw) > 0:
            limits = limits.copy_with(max_item_bytes=int(raw) * 4)
        return limits

    # -- status ------------------------------------------------------------

    def _approval(self, server: McpServer) -> tuple[str, str]:
        """``(state, reason)`` of ``server`` (:func:`wskit.builtin_plugins.mcp.server_approval`,
        the decision ``wsctl mcp list`` shows), with the session's folder trust."""
        session = self.runtime.session
        home = getattr(getattr(session, "profile", None), "home", None)
        state, reason, _ = server_approval(server, session.binding, session.profile, home=home,
                                           folder_trusted=bool(getattr(session.trust, "trusted", False)))
        return state, reason

    def status(self, server_id: str | None = None, *, connect: bool = False) -> list[McpServerStatus]:
        """Each server's state (or one server's).

        :param connect: start every server that is not connected yet first (failures are
            reported in the status, never raised), as ``wsctl mcp list --status`` does.
        """
        servers = [self.definition(server_id)] if server_id else self.servers()
        out = []
        for s in servers:
            if connect:
                try:
                    self.list_tools(s.id)
                except WskitError:
                    pass
            rec = self._record(s)
            approval = self._approval(s)[0]
            status = rec.status
            if status == "idle" and approval in ("awaiting", "modified", "error"):
                status = "needs-approval"
            elif status == "idle" and approval in ("denied", "untrusted-project"):
                status = approval
            elif status == "idle" and not s.startable:
                status = "failed"
            left = max(self.options.recovery.max_restarts - rec.restarts, 0)
            error = rec.error or (f"undefined {', '.join(s.unresolved)}" if not s.startable else None)
            out.append(McpServerStatus(id=s.id, name=s.name, status=status, generation=rec.generation,
                                       restarts=rec.restarts, restarts_left=left,
                                       tools=None if rec.tools is None else len(rec.tools),
                                       error=error, approval=approval))
        return out

    def problems(self, server_id: str) -> list[str]:
        """What the catalog left out or cut for ``server_id`` (oversized schemas, long names
        and descriptions)."""
        return list(self._record(self.definition(server_id)).problems)

    # -- connecting --------------------------------------------------------

    def _ensure_portal(self):
        if self._portal is None:
            self._portal_cm = start_blocking_portal()
            self._portal = self._portal_cm.__enter__()
        return self._portal

    def _mask(self, rec: _Record, text: str) -> str:
        for value in rec.secrets:
            if value:
                text = text.replace(value, "***")
        return text

    def _mask_quoted(self, rec: _Record, conn: McpConnection, text: str) -> str:
        """``text`` quoting what a server sent, with the substituted secrets and every
        environment value of 8 characters or more (the host's, the session's, the
        server's ``env``) replaced by ``***``: a server echoing a token it was given
        (a user definition's ``${VAR}`` is substituted at load) never gets it printed."""
        text = self._mask(rec, text)
        env = {**os.environ, **dict(self.runtime.options.env), **dict(conn.server.env or {})}
        values = {v for v in (*rec.secrets, *env.values()) if len(v) >= 8}
        # as quoted: a bytes literal escapes quotes, backslashes and non-ASCII characters
        forms = values | {repr(v.encode("utf-8", "surrogateescape"))[2:-1] for v in values}
        for value in sorted(forms, key=len, reverse=True):
            if value in text:
                text = text.replace(value, "***")
        return text

    def connect(self, server_id: str) -> McpConnection:
        """The live connection to ``server_id``: started on first use, restarted (a new
        generation) when the last one ended, after the back-off, within the restart limit.

        :raises McpApprovalError: a project server that is not approved, or is denied.
        :raises McpAuthRequiredError: an HTTP server that needs ``wsctl mcp login``.
        :raises McpConnectError: start, transport or handshake failed (the process is
            stopped), the restart limit is spent, or the definition is not startable (a
            ``${VAR}`` without default was undefined: nothing is started).
        :raises WskitError: the service is closed.
        """
        server = self.definition(server_id)
        rec = self._record(server)
        with rec.lock:
            if self.closed:
                raise WskitError("MCP service is closed")
            conn = rec.conn
            if conn is not None and not conn.closed.is_set():
                return conn
            if not server.startable:
                why = (f"undefined {', '.join(server.unresolved)} (no default)" if server.unresolved
                       else f"empty {', '.join(getattr(server, 'incomplete', ()))}")
                rec.status, rec.error = "failed", why
                raise McpConnectError(f"MCP server {server.id} is not startable: {why}; nothing was started")
            self._check_approval(rec)
            if conn is not None:  # it ended: this is a restart
                self._teardown(conn)
                rec.conn = None
            if rec.generation > 0:
                rec.status = "restarting"
                policy = self.options.recovery
                if rec.restarts >= policy.max_restarts:
                    rec.status = "failed"
                    raise McpConnectError(f"MCP server {server.id}: restart limit ({policy.max_restarts}) reached; "
                                          f"last error: {rec.error or 'connection closed'}")
                wait = (rec.died_at or 0) + policy.delay(rec.restarts + 1) - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                rec.restarts += 1
            return self._start(rec)

    def _check_approval(self, rec: _Record) -> None:
        server = rec.server
        state, reason = self._approval(server)
        if state == "untrusted-project":
            # folder trust, not an approval, is what is missing: the host's approve callback
            # is not asked (nothing of an untrusted repository runs)
            rec.status = "untrusted-project"
            raise McpApprovalError(f"MCP server {server.id} is not started: it {reason} (`wsctl trust grant` "
                                   "first, then review it with `wsctl mcp list`); nothing was started")
        if state == "denied":
            rec.status = "denied"
            raise McpApprovalError(f"MCP server {server.id} is denied (disabledMcpjsonServers or `wsctl mcp deny`); "
                                   "nothing was started")
        if state not in ("approved", "not-required"):
            if state in ("awaiting", "modified", "error") and self.options.approve is not None and self.options.approve(server):
                return
            rec.status = "needs-approval"
            why = {"modified": "changed since it was approved", "error": "not approved (the approval store is "
                   "unusable: see `wsctl mcp list`)"}.get(state, "not approved")
            raise McpApprovalError(f"MCP server {server.id} is {why}"
                                   + (f" ({reason})" if reason and reason != "not approved" else "")
                                   + f": review it with `wsctl mcp list` "
                                   f"and run `wsctl mcp approve {server.name} --digest …`; nothing was started")

    def launch(self, server_id: str) -> McpLaunch:
        """How another MCP client starts ``server_id``, after the same checks as
        :meth:`connect`: approval first (a project server not approved, changed since, or
        denied is never described), then the definition's completeness; ``${VAR}`` is
        substituted here, as at start. Nothing is started.

        :raises McpApprovalError: not approved, modified since, or denied.
        :raises McpConnectError: undefined variables, no command or url, or a transport
            other clients cannot take (``ws``).
        :raises UnknownResourceError: no such server.
        """
        rec = self._record(self.definition(server_id))
        self._check_approval(rec)
        server = rec.server
        if not server.startable:
            raise McpConnectError(f"MCP server {server.id}: undefined {', '.join(server.unresolved)}; not started")
        expanded, _ = expand_server(server, {**os.environ, **dict(self.runtime.options.env)})
        key = server_key(server)
        if expanded.transport == "stdio":
            if not expanded.command:
                raise McpConnectError(f"MCP server {server.id} has no command")
            cwd = self.root / expanded.cwd if expanded.cwd else self.root
            return McpLaunch(server.id, server.name, key, "stdio", command=expanded.command,
                             args=tuple(expanded.args), cwd=str(cwd),
                             env={**dict(self.runtime.options.env), **expanded.env})
        if expanded.transport in ("http", "sse"):
            if not expanded.url:
                raise McpConnectError(f"MCP server {server.id} has no url")
            return McpLaunch(server.id, server.name, key, expanded.transport, url=expanded.url,
                             headers=dict(expanded.headers))
        raise McpConnectError(f"MCP server {server.id}: transport {expanded.transport!r} is not supported")

    def _start(self, rec: _Record) -> McpConnection:
        env = {**os.environ, **dict(self.runtime.options.env)}
        server, secrets = expand_server(rec.server, env)
        rec.secrets = tuple(sorted(secrets, key=len, reverse=True))
        watch_secrets(rec)
        rec.generation += 1
        conn = McpConnection(server=server, generation=rec.generation)
        rec.status = "connecting"
        portal = self._ensure_portal()
        try:
            fut, _ = portal.start_task(self._hold, rec, conn, name=f"mcp:{server.id}:{rec.generation}")
        except (KeyboardInterrupt, SystemExit):
            raise  # stopped by the user or a signal: close() cancels the half-started task
        except BaseException as err:  # noqa: BLE001 — report every SDK failure the same way
            rec.died_at = time.monotonic()
            auth = _find(err, McpAuthRequiredError)
            if auth is not None or _is_unauthorized(err):
                why = str(auth).removeprefix(f"MCP server {server.id}: ") if auth is not None else ""
                if not why or "needs an OAuth login" in why:
                    why = f"OAuth login needed: run `wsctl mcp login {server.name}`"
                rec.status, rec.error = "needs-auth", self._mask(rec, why)
                raise McpAuthRequiredError(f"MCP server {server.id}: {rec.error}") from None
            why = conn.report.violation or _with_report(_describe(err), conn.report)
            rec.status, rec.error = "failed", self._mask_quoted(rec, conn, why)
            raise McpConnectError(f"MCP server {server.id}: {rec.error}") from None
        conn._done = fut
        rec.conn, rec.status, rec.error = conn, "connected", None
        rec.tools = rec.prompts = rec.resources = None
        return conn

    async def _hold(self, rec: _Record, conn: McpConnection, *, task_status=anyio.TASK_STATUS_IGNORED) -> None:
        from mcp import ClientSession, types

        root = self.root

        async def list_roots(_context):
            return types.ListRootsResult(roots=[types.Root(uri=root.as_uri(), name=root.name)])

        async def on_message(message) -> None:
            if isinstance(message, Exception):
                return
            kind = {types.ToolListChangedNotification: "tools", types.PromptListChangedNotification: "prompts",
                    types.ResourceListChangedNotification: "resources"}.get(type(message))
            if kind is not None and rec.conn is conn:
                setattr(rec, kind, None)  # stale: listed again on next use
                try:
                    await self._list_async(rec, conn, kind)
                except Exception:  # noqa: BLE001 — the next list call says what is wrong
                    pass
                if self.options.on_list_changed is not None:
                    await anyio.to_thread.run_sync(self.options.on_list_changed, rec.server.id, kind)

        kwargs: dict[str, Any] = {"list_roots_callback": list_roots, "message_handler": on_message}
        if self._elicits(rec.server):
            kwargs["elicitation_callback"] = self._elicitation_callback(rec)
        if self.options.on_sample is not None:
            kwargs["sampling_callback"] = self._sampling_callback(rec)
        conn._stop = anyio.Event()

        def refused() -> None:  # an HTTP message over the bound: this connection ends
            if rec.conn is conn:
                rec.status, rec.died_at = "restarting", time.monotonic()
                rec.error = self._mask_quoted(rec, conn, conn.report.violation or "connection closed")
            conn.closed.set()
            conn._stop.set()

        try:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport(conn, stack, refused))
                session = await stack.enter_async_context(ClientSession(_Watched(read, conn), write, **kwargs))
                with anyio.fail_after(self._connect_timeout):  # never around a context entry
                    init = await session.initialize()
                conn.session = session
                info = getattr(init, "server_info", None) or getattr(init, "serverInfo", None)
                conn.server_info = {"name": getattr(info, "name", None), "version": getattr(info, "version", None)}
                task_status.started()
                await conn._stop.wait()
        finally:
            conn.closed.set()

    def _transport(self, conn: McpConnection, stack: AsyncExitStack, on_violation: Callable[[], None]):
        """The transport context of ``conn`` (yields the SDK's two streams);
        ``on_violation`` closes the connection when an HTTP message is over the bound."""
        server = conn.server
        if server.transport == "stdio":
            from .stdio import bounded_stdio_client

            if not server.command:
                raise McpConnectError(f"MCP server {server.id} has no command")
            cwd = self.root / server.cwd if server.cwd else self.root
            host_env = dict(self.runtime.options.env)
            env = {**host_env, **server.env}
            # a Python server never runs bytecode from the project's __pycache__ (not in its
            # approval's coverage): a private folder, unless the host set its own
            self._bytecode.apply(env, keep=host_env)
            log = Path(self._tmp.name) / f"{server.name}.{conn.generation}.stderr"
            conn.stderr_path = str(log)
            errlog = stack.enter_context(open(log, "w", encoding="utf-8"))
            return bounded_stdio_client(server.command, list(server.args), env, str(cwd), errlog,
                                        max_message_bytes=self.limits.max_message_bytes, report=conn.report)
        if server.transport in ("http", "sse"):
            from .http import bounded_http_client

            if not server.url:
                raise McpConnectError(f"MCP server {server.id} has no url")
            # every JSON body and SSE event bounded like a stdio line; over it, the connection closes
            from .http import LEGACY_SSE_EVENT_BYTES

            bound = self.limits.max_message_bytes
            factory = bounded_http_client(
                max_message_bytes=bound, report=conn.report, on_violation=on_violation,
                max_event_bytes=min(bound, LEGACY_SSE_EVENT_BYTES) if server.transport == "sse" else None)
        if server.transport == "http":
            from mcp.client.streamable_http import streamable_http_client

            auth = None
            if not any(k.lower() == "authorization" for k in server.headers):
                from .oauth import oauth_provider

                auth = oauth_provider(self, server)
            client = factory(headers=dict(server.headers), auth=auth)
            return _with_client(client, server.url, streamable_http_client,
                                max_sse_event_size=self.limits.max_message_bytes)
        if server.transport == "sse":
            from mcp.client.sse import sse_client

            return sse_client(server.url, headers=dict(server.headers), httpx_client_factory=factory)
        raise McpConnectError(f"MCP server {server.id}: transport {server.transport!r} is not supported")

    # -- interaction ---------------------------------------------------------

    def _hook_runner(self):
        try:
            return self.runtime.hooks
        except WskitError:
            return None

    def _elicits(self, server: McpServer) -> bool:
        if self.options.on_elicit is not None:
            return True
        runner = self._hook_runner()
        return bool(runner and runner.matching("Elicitation", server.name))

    def _elicitation_callback(self, rec: _Record):
        from mcp import types

        async def elicit(_context, params):
            req = McpElicitation(
                server=rec.server.id, server_name=rec.server.name, message=str(getattr(params, "message", "")),
                mode=str(getattr(params, "mode", None) or "form"),
                requested_schema=getattr(params, "requested_schema", None), url=getattr(params, "url", None),
                elicitation_id=getattr(params, "elicitation_id", None))
            answer = await anyio.to_thread.run_sync(self._answer_elicitation, req)
            content = dict(answer.content) if answer.action == "accept" and answer.content is not None else None
            return types.ElicitResult(action=answer.action, content=content)

        return elicit

    def _answer_elicitation(self, req: McpElicitation) -> McpElicitResponse:
        """Claude Code's order: ``Elicitation`` hooks may answer (``hookSpecificOutput.action``
        and ``content``) or decline (exit 2 / block); else the host's ``on_elicit``; then the
        ``ElicitationResult`` hooks may change the answer, and a block there declines."""
        runner = self._hook_runner()
        base = {"mcp_server_name": req.server_name, "message": req.message, "mode": req.mode}
        if req.requested_schema is not None:
            base["requested_schema"] = dict(req.requested_schema)
        if req.url is not None:
            base["url"] = req.url
        if req.elicitation_id is not None:
            base["elicitation_id"] = req.elicitation_id
        answer: McpElicitResponse | None = None
        if runner is not None:
            pre = runner.run("Elicitation", base, tool=req.server_name)
            answer = McpElicitResponse("decline") if pre.blocked else _hook_answer(pre, "Elicitation")
        if answer is None and self.options.on_elicit is not None:
            answer = _as_elicit_response(self.options.on_elicit(req))
        if answer is None:
            answer = McpElicitResponse("decline")
        if runner is not None:
            post = runner.run("ElicitationResult", {**base, "action": answer.action,
                                                    "content": dict(answer.content or {})}, tool=req.server_name)
            if post.blocked:
                answer = McpElicitResponse("decline")
            else:
                answer = _hook_answer(post, "ElicitationResult", answer) or answer
        return answer

    def _sampling_callback(self, rec: _Record):
        from mcp import types

        async def sample(_context, params):
            msgs = tuple(m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in params.messages)
            req = McpSampleRequest(
                server=rec.server.id, messages=msgs, max_tokens=params.max_tokens, system_prompt=params.system_prompt,
                temperature=params.temperature, stop_sequences=tuple(params.stop_sequences or ()),
                model_preferences=params.model_preferences.model_dump(mode="json", exclude_none=True)
                if params.model_preferences is not None else None)
            try:
                raw = await anyio.to_thread.run_sync(self.options.on_sample, req)
            except Exception as err:  # noqa: BLE001 — the server gets an error, the session goes on
                return types.ErrorData(code=types.INTERNAL_ERROR, message=f"sampling failed: {type(err).__name__}")
            resp = McpSampleResponse(text=raw) if isinstance(raw, str) else raw
            return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text=resp.text),
                                             model=resp.model, stop_reason=resp.stop_reason)

        return sample

    # -- requests ------------------------------------------------------------

    def _submit(self, rec: _Record, conn: McpConnection, make) -> concurrent.futures.Future:
        async def run():
            return await make(conn.session)

        return self._portal.start_task_soon(run)

    def _wait(self, rec: _Record, conn: McpConnection, fut: concurrent.futures.Future, timeout: float | None):
        try:
            return fut.result(timeout)
        except concurrent.futures.TimeoutError:
            fut.cancel()
            _settle(fut)
            seen = conn.report.describe()
            raise McpCallCancelled(f"MCP server {rec.server.id}: no answer within {timeout:g} s"
                                   + (f" ({self._mask_quoted(rec, conn, seen)})" if seen else "")
                                   + "; the request was cancelled") from None
        except KeyboardInterrupt:
            fut.cancel()
            _settle(fut)
            raise
        except concurrent.futures.CancelledError:
            raise McpCallCancelled(f"MCP server {rec.server.id}: the call was cancelled") from None
        except BaseException as err:  # noqa: BLE001
            raise self._failure(rec, conn, err) from None

    def _failure(self, rec: _Record, conn: McpConnection, err: BaseException) -> McpConnectError:
        if _is_closed(err) or conn.closed.is_set() or conn.report.violation:
            conn.closed.set()
            rec.status, rec.died_at = "restarting", time.monotonic()
            seen = conn.report.describe()
            rec.error = self._mask_quoted(rec, conn, f"connection closed: {seen}" if seen else "connection closed")
            why = f" ({rec.error.removeprefix('connection closed: ')})" if seen else ""
            return McpConnectError(f"MCP server {rec.server.id}: the connection closed during the request{why}; "
                                   "the server is restarted on the next call")
        if _is_unauthorized(err):
            rec.status, rec.error = "needs-auth", f"OAuth login needed: run `wsctl mcp login {rec.server.name}`"
            return McpAuthRequiredError(f"MCP server {rec.server.id}: {rec.error}")
        return McpConnectError(f"MCP server {rec.server.id}: "
                               f"{self._mask_quoted(rec, conn, _with_report(_describe(err), conn.report))}")

    def _request(self, server_id: str, make, timeout: float | None = None):
        conn = self.connect(server_id)
        rec = self._record(self.definition(server_id))
        if timeout is None:
            timeout = self.options.call_timeout
            if timeout is None and conn.server.timeout:
                timeout = conn.server.timeout / 1000
        return rec, self._wait(rec, conn, self._submit(rec, conn, make), timeout)

    async def _list_async(self, rec: _Record, conn: McpConnection, kind: str) -> list[dict[str, Any]]:
        session = conn.session
        limits = self.limits
        entries: list[dict[str, Any]] = []
        problems: list[str] = []
        cursor = None
        while True:
            from mcp import types

            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            if kind == "tools":
                page = await session.list_tools(params=params)
                items = [{"name": t.name, "title": getattr(t, "title", None), "description": t.description or "",
                          "input_schema": t.input_schema, "output_schema": getattr(t, "output_schema", None),
                          "server": rec.server.id, "full_name": tool_full_name(server_key(rec.server), t.name)}
                         for t in page.tools]
            elif kind == "prompts":
                page = await session.list_prompts(params=params)
                items = [{"name": p.name, "description": p.description or "", "server": rec.server.id,
                          "arguments": [a.model_dump(mode="json", exclude_none=True) for a in (p.arguments or ())]}
                         for p in page.prompts]
            else:
                page = await session.list_resources(params=params)
                items = [{"uri": str(r.uri), "name": r.name, "description": r.description or "",
                          "mime_type": r.mime_type, "server": rec.server.id} for r in page.resources]
            for item in items:
                checked, problem = check_catalog_entry(item, limits, item.get("full_name"))
                if problem:
                    problems.append(problem)
                if checked is not None:
                    entries.append(checked)
            cursor = getattr(page, "next_cursor", None)
            if not cursor:
                break
        if rec.conn is conn:
            setattr(rec, kind, entries)
            rec.problems = [p for p in rec.problems if not p.startswith(f"{kind}: ")] + [f"{kind}: {p}"
                                                                                         for p in problems]
            if kind == "tools":
                with self._lock:
                    self._names = {k: v for k, v in self._names.items() if v[0] != rec.server.id}
                    self._names.update({e["full_name"]: (rec.server.id, e["name"]) for e in entries})
        return entries

    def _listing(self, server_id: str, kind: str) -> list[dict[str, Any]]:
        conn = self.connect(server_id)
        rec = self._record(self.definition(server_id))
        cached = getattr(rec, kind)
        if cached is not None and rec.conn is conn:
            return list(cached)
        fut = self._portal.start_task_soon(self._list_async, rec, conn, kind)
        return list(self._wait(rec, conn, fut, self._connect_timeout))

    def list_tools(self, server_id: str) -> list[dict[str, Any]]:
        """Tools of ``server_id`` (connects lazily; listed again after ``tools/list_changed``).

        :returns: ``[{"name", "full_name" (mcp__<server>__<tool>), "title", "description",
            "input_schema", "output_schema", "server"}]``, size-checked (see :meth:`problems`).
        """
        return self._listing(server_id, "tools")

    def list_prompts(self, server_id: str) -> list[dict[str, Any]]:
        """Prompts of ``server_id``: ``[{"name", "description", "arguments", "server"}]``."""
        return self._listing(server_id, "prompts")

    def list_resources(self, server_id: str) -> list[dict[str, Any]]:
        """Resources of ``server_id``: ``[{"uri", "name", "description", "mime_type", "server"}]``."""
        return self._listing(server_id, "resources")

    def catalog(self) -> list[dict[str, Any]]:
        """Every tool of every server this session may start, for the model's tool list
        (servers that cannot be reached are left out; :meth:`status` says why)."""
        out: list[dict[str, Any]] = []
        for s in self.servers():
            try:
                out.extend(self.list_tools(s.id))
            except WskitError:
                continue
        return out

    def _finish_call(self, raw) -> dict[str, Any]:
        content = [c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in raw.content]
        structured = getattr(raw, "structured_content", None)
        items, structured, steps = project_content(content, structured, self.limits)
        text = "\n".join(c.get("text", "") for c in items if c.get("type") == "text")
        return {"is_error": bool(getattr(raw, "is_error", False)), "text": text, "content": items,
                "structured": structured, "projection": steps}

    def call_tool(self, server_id: str, tool: str, arguments: dict[str, Any] | None = None, *,
                  timeout: float | None = None) -> dict[str, Any]:
        """Call ``tool`` on ``server_id``; the result is bounded by :attr:`limits`.

        :param timeout: seconds (default ``McpOptions.call_timeout``, else the server's
            ``timeout``); when it passes, the request is cancelled on the server too.
        :returns: ``{"is_error", "text" (joined text items), "content", "structured",
            "projection" (what was cut or left out, see :mod:`wskit_mcp.projection`)}``.
        :raises McpCallCancelled: timed out (the server was told to cancel).
        :raises McpConnectError: the call failed at the protocol level.
        """
        rec, raw = self._request(server_id, lambda s: s.call_tool(tool, arguments or {}), timeout)
        return self._finish_call(raw)

    def start_call(self, server_id: str, tool: str, arguments: dict[str, Any] | None = None) -> McpCall:
        """Start ``tool`` in the background and return a handle to poll or cancel it.

        The installed SDK (``mcp`` 2.3) has no client for the MCP tasks utility
        (``tasks/get``, ``tasks/result``, ``tasks/cancel``), so this is the host-side
        equivalent: cancelling the handle cancels the request on the server
        (``notifications/cancelled``).
        """
        conn = self.connect(server_id)
        rec = self._record(self.definition(server_id))
        fut = self._submit(rec, conn, lambda s: s.call_tool(tool, arguments or {}))
        return McpCall(fut, self._finish_call, lambda err: self._failure(rec, conn, err), rec.server.id)

    def call(self, full_name: str, arguments: dict[str, Any] | None = None, **kw) -> dict[str, Any]:
        """Call a tool by its model-facing name ``mcp__<server>__<tool>``.

        :raises UnknownResourceError: no server of the session has that tool name.
        """
        with self._lock:
            hit = self._names.get(full_name)
        if hit is None and full_name.startswith("mcp__"):
            rest = full_name[5:]
            for s in self.servers():
                key = server_key(s)
                if rest.startswith(f"{key}__"):
                    hit = (s.id, rest[len(key) + 2:])
                    break
        if hit is None:
            raise UnknownResourceError("mcp tool", full_name, sorted(self._names))
        return self.call_tool(hit[0], hit[1], arguments, **kw)

    def get_prompt(self, server_id: str, name: str, arguments: dict[str, str] | None = None) -> dict[str, Any]:
        """Get prompt ``name``: ``{"description", "messages": [{"role", "content"}], "projection"}``
        (message contents bounded as tool results are)."""
        rec, raw = self._request(server_id, lambda s: s.get_prompt(name, arguments or {}))
        content = [m.content.model_dump(mode="json", by_alias=True, exclude_none=True) for m in raw.messages]
        items, _, steps = project_content(content, None, self.limits)
        roles = [m.role for m in raw.messages]
        msgs = [{"role": roles[i] if i < len(roles) else "user", "content": c} for i, c in enumerate(items)]
        return {"description": raw.description or "", "messages": msgs, "projection": steps}

    def read_resource(self, server_id: str, uri: str) -> dict[str, Any]:
        """Read resource ``uri``: ``{"contents": [{"uri", "mimeType", "text" | "blob"}], "text", "projection"}``,
        bounded as tool results are."""
        rec, raw = self._request(server_id, lambda s: s.read_resource(uri))
        items = [{"type": "resource", "resource": c.model_dump(mode="json", by_alias=True, exclude_none=True)}
                 for c in raw.contents]
        items, _, steps = project_content(items, None, self.limits)
        contents = [i["resource"] if i.get("type") == "resource" else {"uri": uri, "text": i.get("text", "")}
                    for i in items]
        return {"contents": contents, "text": "\n".join(c.get("text", "") for c in contents if "text" in c),
                "projection": steps}

    # -- lifecycle -------------------------------------------------------------

    def connected(self) -> list[str]:
        """Ids of the servers connected now."""
        with self._lock:
            return [k for k, r in self._records.items() if r.conn is not None and not r.conn.closed.is_set()]

    def disconnect(self, server_id: str) -> None:
        """Close one connection (its process is stopped); no-op when not connected. A later
        call starts it again (not counted as a restart)."""
        server = self.definition(server_id)
        rec = self._record(server)
        with rec.lock:
            conn, rec.conn = rec.conn, None
            if conn is not None:
                self._teardown(conn)
            rec.status, rec.generation, rec.tools, rec.prompts, rec.resources = "idle", 0, None, None, None

    def _on_close(self, fn: Callable[[], None]) -> None:
        self._closers.append(fn)

    def login(self, server_id: str) -> McpConnection:
        """Run the OAuth login of the HTTP server ``server_id`` (opens the browser through
        ``McpOptions.on_authorize``), store its tokens, and return the connection.

        :raises McpConnectError: not an HTTP server, or the login failed.
        """
        server = self.definition(server_id)
        if server.transport != "http":
            raise McpConnectError(f"MCP server {server.id} is a {server.transport} server; OAuth is for http servers")
        self.disconnect(server.id)
        interactive, self.options.interactive_oauth = self.options.interactive_oauth, True
        try:
            return self.connect(server.id)
        finally:
            self.options.interactive_oauth = interactive

    def logout(self, server_id: str) -> bool:
        """Forget the stored OAuth tokens of ``server_id`` and disconnect it.

        :returns: True when tokens were stored."""
        from .oauth import token_store

        server = self.definition(server_id)
        self.disconnect(server.id)
        return token_store(self, server).delete()

    def _teardown(self, conn: McpConnection) -> None:
        if conn._stop is not None and self._portal is not None:
            try:
                self._portal.call(conn._stop.set)
            except BaseException:  # noqa: BLE001 — the loop may already be stopping
                pass
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
            conns = [r.conn for r in self._records.values() if r.conn is not None]
            for r in self._records.values():
                r.conn = None
        for conn in conns:
            self._teardown(conn)
        if self._portal is not None:
            try:  # a start interrupted by a signal left a task no record holds: cancel it
                self._portal.call(self._portal.stop, True)
            except BaseException:  # noqa: BLE001 — the loop may already be stopping
                pass
        if self._portal_cm is not None:
            self._portal_cm.__exit__(None, None, None)
            self._portal_cm = self._portal = None
        for fn in self._closers:
            try:
                fn()
            except Exception:  # noqa: BLE001 — keep closing
                pass
        self._tmp.cleanup()


class _Watched:
    """The transport's read stream, marking the connection closed when it ends (a server
    that exited while idle is restarted before the next request is sent)."""

    def __init__(self, inner, conn: McpConnection) -> None:
        self._inner, self._conn = inner, conn

    async def receive(self):
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._conn.closed.set()
            raise

    def __aiter__(self):
        return self

    async def __anext__(self):
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    def close(self) -> None:
        self._inner.close()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    def __getattr__(self, name: str):
        return getattr(self._inner, name)


def _settle(fut: concurrent.futures.Future, timeout: float = 5.0) -> None:
    """Wait (bounded) until a cancelled portal task has really finished, so the SDK has
    sent ``notifications/cancelled`` before the host goes on."""
    try:
        fut.exception(timeout)
    except BaseException:  # noqa: BLE001
        pass


def _hook_answer(outcome, event: str, current: McpElicitResponse | None = None) -> McpElicitResponse | None:
    """The last hook's ``hookSpecificOutput`` ``action``/``content`` for ``event``, if any."""
    answer = None
    for res in outcome.results:
        out = res.output if isinstance(res.output, dict) else None
        spec = out.get("hookSpecificOutput") if out else None
        if not isinstance(spec, dict) or spec.get("hookEventName") not in (None, event):
            continue
        action = spec.get("action")
        if action in ("accept", "decline", "cancel"):
            content = spec.get("content")
            if content is None and current is not None and action == "accept":
                content = current.content
            answer = McpElicitResponse(action, content if isinstance(content, dict) else None)
    return answer


def _as_elicit_response(value: Any) -> McpElicitResponse | None:
    if value is None or isinstance(value, McpElicitResponse):
        return value
    if isinstance(value, dict) and value.get("action") in ("accept", "decline", "cancel"):
        content = value.get("content")
        return McpElicitResponse(value["action"], content if isinstance(content, dict) else None)
    raise McpConnectError(f"on_elicit returned {type(value).__name__}, not an McpElicitResponse")


def _with_client(client, url: str, factory, **options):
    """Enter the httpx client, then the transport context; yield its two streams."""
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def cm():
        async with client:
            async with factory(url, http_client=client, **options) as streams:
                yield streams[0], streams[1]

    return cm()


def _leaves(err: BaseException):
    if isinstance(err, BaseExceptionGroup):
        for e in err.exceptions:
            yield from _leaves(e)
    else:
        yield err
        if err.__cause__ is not None and err.__cause__ is not err:
            yield from _leaves(err.__cause__)


def _find(err: BaseException, cls: type) -> BaseException | None:
    return next((e for e in _leaves(err) if isinstance(e, cls)), None)


def _is_closed(err: BaseException) -> bool:
    for e in _leaves(err):
        if getattr(getattr(e, "error", None), "code", None) == _CONNECTION_CLOSED or \
                getattr(e, "code", None) == _CONNECTION_CLOSED:
            return True
        if isinstance(e, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)):
            return True
        if type(e).__name__ in ("ConnectError", "RemoteProtocolError", "ReadError"):
            return True
    return False


def _is_unauthorized(err: BaseException) -> bool:
    for e in _leaves(err):
        if isinstance(e, McpAuthRequiredError):
            return True
        resp = getattr(e, "response", None)
        if getattr(resp, "status_code", None) == 401:
            return True
    return False


def _describe(err: BaseException) -> str:
    """A readable message for an exception or (nested) exception group."""
    while isinstance(err, BaseExceptionGroup) and len(err.exceptions) == 1:
        err = err.exceptions[0]
    if isinstance(err, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in err.exceptions)
    if isinstance(err, TimeoutError):
        return "timed out"
    if _is_validation_error(err):
        return _describe_invalid(err)
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__


def _is_validation_error(err: BaseException) -> bool:
    try:
        from pydantic import ValidationError
    except ImportError:  # pragma: no cover — the SDK depends on pydantic
        return False
    return isinstance(err, ValidationError)


def _describe_invalid(err: Any) -> str:
    """One line for a pydantic error about what a server sent: which MCP type it failed,
    how many problems, the first one, and the first bytes of what was sent (escaped)."""
    import json

    from .stdio import first_bytes

    problems = err.errors(include_url=False)
    first = problems[0] if problems else {}
    loc = ".".join(str(p) for p in first.get("loc", ())) or "(top)"
    msg = " ".join(str(first.get("msg", "")).split())[:120]
    try:
        sent = json.dumps(first.get("input"), ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        sent = str(first.get("input"))
    title = getattr(err, "title", "") or "message"
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return (f"its answer is not a valid MCP {title}: {loc}: {msg}{more}; "
            f"it sent {first_bytes(sent.encode('utf-8', 'replace'))}")


def _with_report(text: str, report: StdioReport) -> str:
    """``text`` with what the stdio transport saw (an over-long message, a line that is
    not JSON-RPC), when it saw something."""
    seen = report.describe()
    return f"{text} ({seen})" if seen else text

