"""What a host gives a session's MCP service: interaction callbacks, limits, recovery
and OAuth settings, and the types those callbacks see.

Pass them as ``RuntimeOptions(services={"mcp": McpService.factory(McpOptions(...))})``,
or set ``session.mcp.options`` before the first connection.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from wskit.values import FrozenValue, Value, field

__all__ = [
    "ElicitAction", "McpElicitation", "McpElicitResponse", "McpLimits", "McpOptions", "McpRecovery",
    "McpSampleRequest", "McpSampleResponse", "SERVER_STATUSES",
]

ElicitAction = Literal["accept", "decline", "cancel"]

#: Per-server states a session reports (``McpService.status``): ``idle`` (not started yet),
#: ``connecting``, ``connected``, ``restarting`` (gone; restarted on the next call),
#: ``failed`` (could not start, or the restart limit is spent), ``needs-auth`` (OAuth login
#: needed: ``wsctl mcp login NAME``), ``needs-approval`` (a project server nobody approved),
#: ``denied`` (``disabledMcpjsonServers`` or ``wsctl mcp deny``), ``untrusted-project`` (a
#: server of the user's own that would run files of a project that is not trusted).
SERVER_STATUSES = ("idle", "connecting", "connected", "restarting", "failed", "needs-auth", "needs-approval",
                   "denied", "untrusted-project")


class McpElicitation(FrozenValue):
    """A server's question for the user (MCP ``elicitation/create``).

    :ivar server: the server's qualified id. :ivar server_name: its name (what hook matchers see).
    :ivar message: the question. :ivar mode: ``form`` or ``url``.
    :ivar requested_schema: the JSON schema of the answer (``form`` mode).
    :ivar url: the page to open (``url`` mode). :ivar elicitation_id: ``url`` mode's id.
    """

    server: str
    server_name: str
    message: str
    mode: str = "form"
    requested_schema: Mapping[str, Any] | None = None
    url: str | None = None
    elicitation_id: str | None = None


class McpElicitResponse(FrozenValue):
    """The answer to an elicitation. :ivar action: ``accept``, ``decline`` or ``cancel``.
    :ivar content: the answer's fields (``accept`` only)."""

    action: ElicitAction
    content: Mapping[str, Any] | None = None


class McpSampleRequest(FrozenValue):
    """A server asking the host's model for a completion (MCP ``sampling/createMessage``).

    :ivar server: the server's qualified id. :ivar messages: ``[{"role", "content": {...}}]``
        as the server sent them (content is MCP JSON: ``{"type": "text", "text": ...}``).
    :ivar system_prompt, max_tokens, temperature, stop_sequences, model_preferences: the request's fields.
    """

    server: str
    messages: tuple[Mapping[str, Any], ...]
    max_tokens: int
    system_prompt: str | None = None
    temperature: float | None = None
    stop_sequences: tuple[str, ...] = ()
    model_preferences: Mapping[str, Any] | None = None


class McpSampleResponse(FrozenValue):
    """The host model's answer. :ivar text: the reply. :ivar model: the model that wrote it.
    :ivar stop_reason: ``endTurn``, ``stopSequence``, ``maxTokens`` or the host's own."""

    text: str
    model: str = "host"
    stop_reason: str | None = "endTurn"


class McpLimits(FrozenValue):
    """Size limits applied to what servers send before the host sees it (bytes).

    :ivar max_item_bytes: one text item, a resource's text, structured content (as JSON).
        Default 100,000 bytes: Claude Code's ``MAX_MCP_OUTPUT_TOKENS`` default (25,000 tokens) at
        4 bytes a token; a session variable ``MAX_MCP_OUTPUT_TOKENS`` sets it the same way.
    :ivar max_binary_bytes: one image, audio or blob item (its base64 text). Default 1 MiB.
    :ivar max_result_bytes: every item of one result together. Default 2 MiB.
    :ivar max_description_bytes: a tool, prompt or resource description (Claude Code caps
        tool descriptions at 2 KiB); longer ones are cut with a marker.
    :ivar max_schema_bytes: a tool's input or output schema as JSON; a larger tool is left out
        of the catalog and named in ``McpService.problems``. Default 64 KiB.
    :ivar max_name_chars: a full tool name ``mcp__<server>__<tool>``; longer ones are left out
        (Claude Code leaves out names over 128 characters).
    :ivar max_message_bytes: one JSON-RPC message from a server before it is parsed: a
        stdio line, an HTTP response body, one SSE event (the legacy SSE transport: at most
        1 MiB, its parser's limit). Default 16 MiB; a longer one ends the connection with an
        error naming the server, the bound and its first bytes, after reading at most this
        much of it (:mod:`wskit_mcp.stdio`, :mod:`wskit_mcp.http`).
    """

    max_item_bytes: int = 100_000
    max_binary_bytes: int = 1 << 20
    max_result_bytes: int = 2 << 20
    max_description_bytes: int = 2048
    max_schema_bytes: int = 64 << 10
    max_name_chars: int = 128
    max_message_bytes: int = 16 << 20


class McpRecovery(FrozenValue):
    """Restart policy for a server that exits or drops its connection (per session).

    :ivar max_restarts: restarts allowed per server and session (LSP's default is 3, too);
        past it the server is ``failed`` for the rest of the session.
    :ivar backoff: seconds before the second restart; each later one doubles it.
        The first restart is immediate.
    :ivar max_backoff: the longest wait, seconds.
    """

    max_restarts: int = 3
    backoff: float = 0.5
    max_backoff: float = 8.0

    def delay(self, attempt: int) -> float:
        """Seconds to wait before restart number ``attempt`` (1-based): 0, backoff, 2×backoff…"""
        if attempt <= 1:
            return 0.0
        return min(self.backoff * (2 ** (attempt - 2)), self.max_backoff)


class McpOptions(Value):
    """A session's MCP settings.

    :ivar on_elicit: ``fn(McpElicitation) -> McpElicitResponse | dict | None`` answers a server's
        question when no ``Elicitation`` hook did (None, or returning None: declined). With
        neither a callback nor an ``Elicitation`` hook the server is told the client has no
        elicitation capability.
    :ivar on_sample: ``fn(McpSampleRequest) -> McpSampleResponse | str``; None: the server is told
        the client has no sampling capability.
    :ivar approve: ``fn(McpServer) -> bool`` for a project server that is not approved in settings
        or with ``wsctl mcp approve`` (the host's approval dialog); None: such a server is refused.
    :ivar on_list_changed: ``fn(server_id, kind)`` after a ``tools``/``prompts``/``resources``
        list changed and the catalog was refreshed.
    :ivar on_authorize: ``fn(url)`` opens the OAuth authorization page (default: the
        :mod:`webbrowser` module, and the URL printed to stderr).
    :ivar oauth_callback_port: loopback port for the OAuth redirect (0: any free port; a
        server's ``oauth.callbackPort`` wins).
    :ivar oauth_timeout: seconds to wait for the browser's redirect.
    :ivar interactive_oauth: False: a server that needs a login is ``needs-auth`` instead of
        opening a browser during a call (``wsctl mcp login`` sets it True).
    :ivar limits: :class:`McpLimits`. :ivar recovery: :class:`McpRecovery`.
    :ivar connect_timeout: seconds for start and handshake (None: ``wskit_mcp.service.CONNECT_TIMEOUT``, 30).
    :ivar call_timeout: default seconds for one request (None: a server's ``timeout``, else no limit).
    """

    on_elicit: Callable[[McpElicitation], Any] | None = None
    on_sample: Callable[[McpSampleRequest], Any] | None = None
    approve: Callable[[Any], bool] | None = None
    on_list_changed: Callable[[str, str], None] | None = None
    on_authorize: Callable[[str], None] | None = None
    oauth_callback_port: int = 0
    oauth_timeout: float = 300.0
    interactive_oauth: bool = False
    limits: McpLimits = field(default_factory=McpLimits)
    recovery: McpRecovery = field(default_factory=McpRecovery)
    connect_timeout: float | None = None
    call_timeout: float | None = None
