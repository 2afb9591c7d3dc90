"""LangChain adapter (``pip install 'wskit[langchain]'``): :class:`WorkspaceMiddleware`.

An agent middleware for LangChain's ``create_agent`` (and agents built on it, such as
deepagents): ``create_agent(model, tools, middleware=[WorkspaceMiddleware(session)])``.

- **instructions**: every model call gets the output style, the static rules and the
  skills catalog (:func:`wskit.system_prompt`) after the agent's own system prompt;
- **a ``load_skill`` tool**: the skill's body through the skill runtime
  (``session.skill_workflows.activate``), which then narrows the tools to the skill's
  ``allowed-tools``;
- **command expansion**: when a run starts with a user message ``/name args``, the
  message is replaced by the session's command ``name`` expanded with ``args``
  (:func:`wskit.integrations.commands.expand_prompt`; ``on_command`` gets the expansion);
- **the workspace's MCP servers**: :func:`workspace_mcp_tools` gives the approved servers'
  tools as LangChain tools calling through the session's MCP client, named as Claude Code
  names them (``mcp__<server>__<tool>``) so the middleware gates them like the host's
  tools; servers not approved, denied or changed since approval are never started and
  are returned with the reason (:func:`wskit.integrations.mcp.workspace_mcp`);
- **the gate around every tool call** (``wrap_tool_call`` / ``awrap_tool_call``):
  ``session.before_tool`` first (``PreToolUse`` hooks, permission rules, skill workflows,
  the rules barrier), ``session.after_tool`` after (``PostToolUse`` hooks, the monitor). A
  denied call does not run: the model gets a ``ToolMessage`` with the reason (``status
  "error"``; for a write the rules barrier held back, with the rules to read before it
  retries); a read's contextual rules are appended to its result. An ``ask`` goes to the
  ``ask`` callback when one is given, else to LangGraph's ``interrupt`` (the agent needs a
  checkpointer; resume with ``Command(resume=True)`` or ``{"type": "approve"}`` to run the
  call, anything else declines it).

The session's tool table (``RuntimeOptions(tools=[ToolSpec(...)])``) says what each tool
is to hooks and permission rules.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool, tool
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command, interrupt

from wskit import Budget, system_prompt
from wskit.errors import WskitError
from wskit.integrations.commands import PromptExpansion, expand_prompt
from wskit.integrations.mcp import RefusedServer, mcp_tool_name, workspace_mcp
from wskit.session import SessionResources
from wskit.session.gate import AfterTool, ToolDecision, UserAnswer

__all__ = ["SKILL_TOOL", "WorkspaceMiddleware", "workspace_mcp_tools"]

#: The name of the skill-loading tool the middleware adds.
SKILL_TOOL = "load_skill"

_ToolResult = ToolMessage | Command[Any]


class WorkspaceMiddleware(AgentMiddleware):
    """A wskit session as a LangChain agent middleware (see the module docstring).

    :param session: the :class:`~wskit.session.SessionResources` (attach its tool table first).
    :param style: output style id for the instructions. :param skills_budget: bound on the
        skills catalog (default 8 KiB).
    :param ask: ``ask(decision) -> bool | UserAnswer``; None: LangGraph's ``interrupt``.
    :param commands: expand a user message ``/name args`` through the session's commands.
    :param on_command: called with each :class:`~wskit.integrations.commands.PromptExpansion`
        that expanded a message (show its diagnostics to the user).
    """

    def __init__(self, session: SessionResources, *, style: str | None = None, skills_budget: Budget | None = None,
                 ask: Callable[[ToolDecision], bool | UserAnswer] | None = None, commands: bool = True,
                 on_command: Callable[[PromptExpansion], None] | None = None) -> None:
        super().__init__()
        self.session = session
        self.style = style
        self.skills_budget = skills_budget or Budget(max_bytes=8192)
        self.ask = ask
        self.commands = commands
        self.on_command = on_command

        @tool(SKILL_TOOL)
        def load_skill(name: str) -> str:
            """Load a skill from the available skills by its name; returns its instructions."""
            return session.skill_workflows.activate(name).content

        self.tools: list[BaseTool] = [load_skill]

    def instructions(self) -> str:
        """The workspace's instructions: output style, static rules, skills catalog."""
        return system_prompt(self.session, style=self.style, skills_budget=self.skills_budget).text

    def _expand(self, state: Any) -> dict[str, Any] | None:
        """The state update replacing a last user message ``/name args`` by its expansion
        (same message id: LangGraph's ``add_messages`` replaces it), or None."""
        messages = (state.get("messages") or []) if self.commands else []
        last = messages[-1] if messages else None
        if not isinstance(last, HumanMessage) or not isinstance(last.content, str):
            return None
        done = expand_prompt(self.session, last.content)
        if not done.expanded:
            return None
        if self.on_command is not None:
            self.on_command(done)
        return {"messages": [last.model_copy(update={"content": done.prompt})]}

    def before_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self._expand(state)

    async def abefore_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self._expand(state)

    def _with_instructions(self, request: ModelRequest) -> ModelRequest:
        own = request.system_message.text if request.system_message is not None else ""
        text = self.instructions()
        return request.override(system_message=SystemMessage(content=f"{own}\n\n{text}" if own else text))

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
                        ) -> ModelResponse:
        return handler(self._with_instructions(request))

    async def awrap_model_call(self, request: ModelRequest,
                               handler: Callable[[ModelRequest], Awaitable[ModelResponse]]) -> ModelResponse:
        return await handler(self._with_instructions(request))

    # -- tools -----------------------------------------------------------------------------

    def _decide(self, decision: ToolDecision) -> ToolDecision:
        """An ``ask`` without a callback goes to LangGraph's interrupt."""
        if decision.decision != "ask":
            return decision
        answer = interrupt({"action": decision.tool, "args": decision.input, "reason": decision.reason,
                            "source": decision.source})
        approved = answer is True or (isinstance(answer, dict) and answer.get("type") == "approve")
        return self.session.answer(decision, approved)

    @staticmethod
    def _denied(request: ToolCallRequest, decision: ToolDecision) -> ToolMessage:
        return ToolMessage(content=decision.message(), tool_call_id=request.tool_call["id"],
                           name=request.tool_call["name"], status="error")

    @staticmethod
    def _with_feedback(result: _ToolResult, after: AfterTool) -> _ToolResult:
        if not isinstance(result, ToolMessage) or not after.for_model(""):
            return result
        content = result.content if isinstance(result.content, str) else str(result.content)
        return result.model_copy(update={"content": after.for_model(content)})

    def wrap_tool_call(self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], _ToolResult]
                       ) -> _ToolResult:
        call = request.tool_call
        if call["name"] == SKILL_TOOL:
            return handler(request)
        decision = self._decide(self.session.before_tool(call["name"], call["args"], tool_use_id=call["id"],
                                                         ask=self.ask))
        if not decision.allowed:
            return self._denied(request, decision)
        result = handler(request.override(tool_call={**call, "args": decision.input}))
        output = result.content if isinstance(result, ToolMessage) else None
        after = self.session.after_tool(call["name"], decision.input, output, tool_use_id=call["id"],
                                        decision=decision)
        return self._with_feedback(result, after)

    async def awrap_tool_call(self, request: ToolCallRequest,
                              handler: Callable[[ToolCallRequest], Awaitable[_ToolResult]]) -> _ToolResult:
        call = request.tool_call
        if call["name"] == SKILL_TOOL:
            return await handler(request)
        decision = self._decide(await self.session.abefore_tool(call["name"], call["args"], tool_use_id=call["id"],
                                                                ask=self.ask))
        if not decision.allowed:
            return self._denied(request, decision)
        result = await handler(request.override(tool_call={**call, "args": decision.input}))
        output = result.content if isinstance(result, ToolMessage) else None
        after = await self.session.aafter_tool(call["name"], decision.input, output, tool_use_id=call["id"],
                                               decision=decision)
        return self._with_feedback(result, after)



def workspace_mcp_tools(session: SessionResources) -> tuple[list[BaseTool], tuple[RefusedServer, ...]]:
    """The tools of the workspace's approved MCP servers as LangChain tools, named as Claude
    Code names them (``mcp__<server>__<tool>``) so the :class:`WorkspaceMiddleware` gates them.

    ``langchain-mcp-adapters`` needs an ``mcp`` SDK older than the one wskit's MCP client
    needs, so the tools call through the session's own MCP client (``session.mcp``, plugin
    ``wskit-mcp``): its approval checks, its bounds on results and catalogs, its restarts.
    A server is started when its tools are listed here (the sync API: from async code,
    call this in a worker thread).

    :returns: ``(tools, refused)``: the tools, and the servers not started with the reason
        (not approved, denied, changed since approval; or its start failed).
    """
    found = workspace_mcp(session)
    refused = list(found.refused)
    tools: list[BaseTool] = []
    if not found.servers:
        return tools, tuple(refused)
    from langchain_core.tools import StructuredTool

    service = session.mcp
    for launch in found.servers:
        try:
            listed = service.list_tools(launch.id)
        except WskitError as err:  # could not start: said, not dropped
            refused.append(RefusedServer(launch.id, str(err)))
            continue
        for entry in listed:
            tools.append(StructuredTool.from_function(
                func=_mcp_call(service, launch.id, entry["name"]),
                coroutine=_amcp_call(service, launch.id, entry["name"]),
                name=mcp_tool_name(launch.key, entry["name"]), description=entry.get("description") or "",
                args_schema=entry.get("input_schema") or {"type": "object", "properties": {}}))
    return tools, tuple(refused)


def _mcp_call(service: Any, server_id: str, tool: str) -> Callable[..., str]:
    def call(**arguments: Any) -> str:
        result = service.call_tool(server_id, tool, arguments)
        return f"error: {result['text']}" if result["is_error"] else str(result["text"])
    return call


def _amcp_call(service: Any, server_id: str, tool: str) -> Callable[..., Awaitable[str]]:
    call = _mcp_call(service, server_id, tool)

    async def acall(**arguments: Any) -> str:
        return await asyncio.to_thread(call, **arguments)  # the MCP service's API waits on its own loop
    return acall
