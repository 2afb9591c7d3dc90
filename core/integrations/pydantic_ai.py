"""pydantic-ai adapter (``pip install 'wskit[pydantic-ai]'``): :class:`WorkspaceCapability`.

A pydantic-ai capability (``Agent(model, capabilities=[WorkspaceCapability(session)])``)
that gives the agent what a wskit session holds:

- **instructions**: the output style, the static rules (``AGENTS.md``, ``CLAUDE.md``,
  unconditional rules) and the skills catalog (:func:`wskit.system_prompt`);
- **a ``load_skill`` tool**: the skill's body through the skill runtime
  (``session.skill_workflows.activate``), which then narrows the tools to the skill's
  ``allowed-tools``;
- **command expansion**: a run's user prompt ``/name args`` is replaced, before the first
  model request, by the session's command ``name`` expanded with ``args``
  (:func:`wskit.integrations.commands.expand_prompt`), in the request and in the run's
  message history; ``on_command`` gets each expansion (its diagnostics are for the user);
- **the workspace's MCP servers** (``mcp=True``): each approved server as pydantic-ai's
  ``MCPToolset`` (stdio, streamable HTTP or SSE), its tools named as Claude Code names them
  (``mcp__<server>__<tool>``, so hooks and permission rules match them) and gated like the
  host's; servers not approved, denied or changed since approval are never started and are
  listed in :attr:`WorkspaceCapability.mcp_refused` (:func:`wskit.integrations.mcp.workspace_mcp`);
- **the gate around every tool call** (``wrap_tool_execute``): ``session.abefore_tool``
  before the tool runs (``PreToolUse`` hooks, permission rules, skill workflows, the rules
  barrier), ``session.aafter_tool`` after it (``PostToolUse`` hooks, the monitor). A
  denied call does not run: the model gets the reason as the tool's result (and, when the
  rules barrier held a write back, the rules to read before it retries). A read's
  contextual rules are appended to its result. An ``ask`` is answered by the ``ask``
  callback when one is given, else raised as pydantic-ai's ``ApprovalRequired`` (the run
  ends with a ``DeferredToolRequests``; a resumed run that approved the call runs it).

Tool names: the host's tools are described to the gate by the session's tool table
(``RuntimeOptions(tools=[ToolSpec(...)])``); ``load_skill`` itself is not gated (it
reads through the skill runtime, which applies ``skills_enabled`` and the byte limits).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import ApprovalRequired
from pydantic_ai.messages import ModelRequest, UserPromptPart
from pydantic_ai.toolsets import AbstractToolset, CombinedToolset, FunctionToolset

from wskit import Budget, system_prompt
from wskit.integrations.commands import PromptExpansion, expand_prompt
from wskit.integrations.mcp import RefusedServer, workspace_mcp
from wskit.session.gate import ToolDecision, UserAnswer

if TYPE_CHECKING:
    from pydantic_ai.messages import ToolCallPart
    from pydantic_ai.models import ModelRequestContext
    from pydantic_ai.tools import ToolDefinition

    from wskit.session import SessionResources

__all__ = ["SKILL_TOOL", "WorkspaceCapability"]

#: The name of the skill-loading tool the capability adds.
SKILL_TOOL = "load_skill"


@dataclass(init=False)
class WorkspaceCapability(AbstractCapability[Any]):
    """A wskit session as a pydantic-ai capability (see the module docstring).

    :param session: the :class:`~wskit.session.SessionResources` (attach its tool table first).
    :param style: the output style id to put in the instructions (None: none).
    :param skills_budget: bound on the skills catalog (default 8 KiB).
    :param ask: ``ask(decision) -> bool | UserAnswer`` for calls the permission rules ask
        about; None: pydantic-ai's ``ApprovalRequired``.
    :param commands: expand a user prompt ``/name args`` through the session's commands.
    :param on_command: called with each :class:`~wskit.integrations.commands.PromptExpansion`
        that expanded a prompt (show its diagnostics to the user).
    :param mcp: hand the workspace's approved MCP servers to the agent as toolsets.
    """

    session: SessionResources
    style: str | None
    skills_budget: Budget
    ask: Callable[[ToolDecision], bool | UserAnswer] | None
    commands: bool
    on_command: Callable[[PromptExpansion], None] | None
    mcp: bool
    #: the MCP servers not handed to the agent, with the reason (filled with the toolsets)
    mcp_refused: tuple[RefusedServer, ...]

    def __init__(self, session: SessionResources, *, style: str | None = None,
                 skills_budget: Budget | None = None,
                 ask: Callable[[ToolDecision], bool | UserAnswer] | None = None,
                 commands: bool = True, on_command: Callable[[PromptExpansion], None] | None = None,
                 mcp: bool = True) -> None:
        self.session = session
        self.style = style
        self.skills_budget = skills_budget or Budget(max_bytes=8192)
        self.ask = ask
        self.commands = commands
        self.on_command = on_command
        self.mcp = mcp
        self.mcp_refused = ()
        self._mcp_toolsets: list[AbstractToolset[Any]] | None = None

    def instructions(self) -> str:
        """The instructions text: output style, static rules, skills catalog."""
        return system_prompt(self.session, style=self.style, skills_budget=self.skills_budget).text

    def get_instructions(self) -> str:
        return self.instructions()

    def mcp_toolsets(self) -> list[AbstractToolset[Any]]:
        """The workspace's approved MCP servers as ``MCPToolset`` s, tools prefixed
        ``mcp__<server>_`` (pydantic-ai adds one ``_``: ``mcp__<server>__<tool>``); made once.
        The servers left out are in :attr:`mcp_refused`."""
        if self._mcp_toolsets is None:
            found = workspace_mcp(self.session)
            toolsets: list[AbstractToolset[Any]] = []
            if found.servers:  # pydantic-ai's MCP client (fastmcp), only when there is a server to run
                from fastmcp.client import Client
                from fastmcp.client.transports import SSETransport, StdioTransport, StreamableHttpTransport
                from pydantic_ai.mcp import MCPToolset
            for launch in found.servers:
                transport: Any
                if launch.transport == "stdio":
                    transport = StdioTransport(launch.command, list(launch.args), env=dict(launch.env), cwd=launch.cwd)
                elif launch.transport == "http":
                    transport = StreamableHttpTransport(launch.url, headers=dict(launch.headers))
                else:
                    transport = SSETransport(launch.url, headers=dict(launch.headers))
                toolsets.append(MCPToolset(Client(transport), id=f"mcp-{launch.key}").prefixed(f"mcp__{launch.key}_"))
            self._mcp_toolsets, self.mcp_refused = toolsets, found.refused
        return self._mcp_toolsets

    def get_toolset(self) -> AbstractToolset[Any]:
        session = self.session

        def load_skill(name: str) -> str:
            """Load a skill from the available skills by its name; returns its instructions."""
            return session.skill_workflows.activate(name).content

        toolset: FunctionToolset[Any] = FunctionToolset()
        toolset.add_function(load_skill, name=SKILL_TOOL, takes_ctx=False)
        servers = self.mcp_toolsets() if self.mcp else []
        return CombinedToolset([toolset, *servers]) if servers else toolset

    async def before_model_request(self, ctx: RunContext[Any], request_context: ModelRequestContext
                                   ) -> ModelRequestContext:
        """Expand a ``/name args`` user prompt of the request about to be sent (the run's new
        prompt: the last message), in the request and in the run's history."""
        last = request_context.messages[-1] if request_context.messages else None
        if not self.commands or not isinstance(last, ModelRequest):
            return request_context
        parts, done = list(last.parts), None
        for i, part in enumerate(parts):
            if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                done = expand_prompt(self.session, part.content)
                if done.expanded:
                    parts[i] = dataclasses.replace(part, content=done.prompt)
                    break
        if done is None or not done.expanded:
            return request_context
        new = dataclasses.replace(last, parts=parts)
        for i, message in enumerate(ctx.messages):  # the persistent history holds the same object
            if message is last:
                ctx.messages[i] = new
        if self.on_command is not None:
            self.on_command(done)
        return dataclasses.replace(request_context, messages=[*request_context.messages[:-1], new])

    async def wrap_tool_execute(self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition,
                                args: Any, handler: Any) -> Any:
        if tool_def.name == SKILL_TOOL:
            return await handler(args)
        tool_input = dict(args) if isinstance(args, dict) else {}
        use_id = call.tool_call_id
        decision = await self.session.abefore_tool(tool_def.name, tool_input, tool_use_id=use_id, ask=self.ask)
        if decision.decision == "ask":
            if getattr(ctx, "tool_call_approved", False):  # the user approved it in a resumed run
                decision = self.session.answer(decision, True)
            else:
                raise ApprovalRequired(metadata={"reason": decision.reason, "source": decision.source})
        if not decision.allowed:
            return decision.message()
        run_args = {**args, **decision.input} if isinstance(args, dict) else args
        result = await handler(run_args)
        after = await self.session.aafter_tool(tool_def.name, decision.input, result, tool_use_id=use_id,
                                               decision=decision)
        extra = after.for_model("")
        if not extra:
            return result
        return after.for_model(result if isinstance(result, str) else str(result))
