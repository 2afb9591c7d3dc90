"""OpenAI Agents SDK adapter (``pip install 'wskit[openai-agents]'``): :func:`workspace_agent`.

``workspace_agent(session, tools=[...], **agent_kwargs)`` returns an ``agents.Agent`` that
has what a wskit session holds:

- **dynamic instructions**: the caller's ``instructions`` (if any), then the output style,
  the static rules and the skills catalog (:func:`wskit.system_prompt`), computed per run;
- **a ``load_skill`` tool**: the skill's body through the skill runtime
  (``session.skill_workflows.activate``), which then narrows the tools to the skill's
  ``allowed-tools``;
- **the host's function tools wrapped by the gate**: each ``FunctionTool``'s
  ``on_invoke_tool`` runs ``session.abefore_tool`` first (``PreToolUse`` hooks, permission
  rules, skill workflows, the rules barrier) and ``session.aafter_tool`` after (``PostToolUse``
  hooks, the monitor). A denied call does not run: the model gets the reason as the tool's
  output (and, for a write the rules barrier held back, the rules it must read before
  retrying); a read's contextual rules are appended to its output. An ``ask`` goes to the
  ``ask`` callback when one is given; else the tool's ``needs_approval`` says so, and the
  SDK interrupts the run for the user (``result.interruptions``, ``state.approve(...)``).

MCP servers: :func:`workspace_mcp_servers` gives the workspace's approved MCP servers as the
SDK's own ``MCPServerStdio`` / ``MCPServerStreamableHttp`` / ``MCPServerSse`` (the host
enters them, ``async with``, and passes ``mcp_servers=`` to :func:`workspace_agent`), each
with the gate as a tool input guardrail (under Claude Code's name ``mcp__<server>__<tool>``:
a denied call is rejected with the reason) and ``PostToolUse`` hooks as a tool output
guardrail; servers not approved, denied or changed since approval are never started and
are listed with the reason (:func:`wskit.integrations.mcp.workspace_mcp`).

Command expansion: the SDK has no hook that may rewrite a run's input, so the host passes
it through :func:`expand_input` (``Runner.run(agent, expand_input(session, text))``): a
``/name args`` prompt becomes the session's command ``name`` expanded with ``args``
(:func:`wskit.integrations.commands.expand_prompt`).

The tools keep their names, descriptions and schemas; the session's tool table
(``RuntimeOptions(tools=[ToolSpec(...)])``) says what each is to hooks and permission rules.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any

from agents import (
    Agent,
    FunctionTool,
    RunContextWrapper,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolOutputGuardrail,
    function_tool,
)
from agents.mcp import MCPServer, MCPServerSse, MCPServerStdio, MCPServerStreamableHttp
from agents.tool_context import ToolContext
from agents.tool_guardrails import ToolInputGuardrailData, ToolOutputGuardrailData

from wskit import Budget, system_prompt
from wskit.integrations.commands import PromptExpansion, expand_prompt
from wskit.integrations.mcp import RefusedServer, mcp_tool_name, workspace_mcp
from wskit.session import SessionResources
from wskit.session.gate import ToolDecision, UserAnswer

__all__ = ["SKILL_TOOL", "expand_input", "gate_tool", "workspace_agent", "workspace_mcp_servers"]

#: The name of the skill-loading tool the agent gets.
SKILL_TOOL = "load_skill"


def expand_input(session: SessionResources, input: str | list[Any], *,
                 on_command: Callable[[PromptExpansion], None] | None = None) -> str | list[Any]:
    """A run's input with a user prompt ``/name args`` expanded through the session's
    commands (:func:`~wskit.integrations.commands.expand_prompt`): the string itself, or in
    a list of input items the last one, when it is a user message with text content.

    :param input: what the host would pass to ``Runner.run``.
    :param on_command: called with the expansion when a command expanded the prompt.
    :returns: the input to pass instead (a new list; the given one is not changed).
    """
    if isinstance(input, str):
        done = expand_prompt(session, input)
        if done.expanded and on_command is not None:
            on_command(done)
        return done.prompt
    items = list(input)
    last = items[-1] if items else None
    if isinstance(last, dict) and last.get("role") == "user" and isinstance(last.get("content"), str):
        done = expand_prompt(session, last["content"])
        if done.expanded:
            items[-1] = {**last, "content": done.prompt}
            if on_command is not None:
                on_command(done)
    return items


def gate_tool(session: SessionResources, tool: FunctionTool, *,
              ask: Callable[[ToolDecision], bool | UserAnswer] | None = None) -> FunctionTool:
    """``tool`` with the session's gate around every call (see the module docstring).

    :param ask: answers an ``ask``; None: the SDK's approval (``needs_approval``).
    """
    invoke = tool.on_invoke_tool
    # the decision needs_approval made, by call id: the call is decided once (the rules it
    # delivers are delivered with this call's output, not lost to a second check)
    decided: dict[str, ToolDecision] = {}

    async def needs_approval(ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str) -> bool:
        decision = await session.abefore_tool(tool.name, params, tool_use_id=call_id)
        decided[call_id] = decision
        return decision.decision == "ask"

    async def on_invoke_tool(ctx: ToolContext[Any], raw: str) -> Any:
        try:
            args = json.loads(raw or "{}")
        except ValueError:
            args = {}
        args = args if isinstance(args, dict) else {}
        decision = decided.pop(ctx.tool_call_id, None) or await session.abefore_tool(
            tool.name, args, tool_use_id=ctx.tool_call_id, ask=ask)
        if decision.decision == "ask":
            # the SDK invokes a tool whose needs_approval said yes only once the user approved it
            decision = session.answer(decision, True)
        if not decision.allowed:
            return decision.message()
        result = await invoke(ctx, json.dumps(decision.input))
        after = await session.aafter_tool(tool.name, decision.input, result, tool_use_id=ctx.tool_call_id,
                                          decision=decision)
        if not after.for_model(""):
            return result
        return after.for_model(result if isinstance(result, str) else str(result))

    return dataclasses.replace(tool, on_invoke_tool=on_invoke_tool,
                               needs_approval=needs_approval if ask is None else False)


def _mcp_guardrails(session: SessionResources, key: str,
                    ask: Callable[[ToolDecision], bool | UserAnswer] | None
                    ) -> tuple[ToolInputGuardrail[Any], ToolOutputGuardrail[Any]]:
    """The gate before and the ``PostToolUse`` hooks after the MCP tools of server ``key``."""
    decided: dict[str, ToolDecision] = {}

    def _args(raw: str) -> dict[str, Any]:
        try:
            args = json.loads(raw or "{}")
        except ValueError:
            return {}
        return args if isinstance(args, dict) else {}

    async def before(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        ctx = data.context
        args = _args(ctx.tool_arguments)
        decision = await session.abefore_tool(mcp_tool_name(key, ctx.tool_name), args, tool_use_id=ctx.tool_call_id,
                                              ask=ask)
        if decision.decision == "ask":
            return ToolGuardrailFunctionOutput.reject_content(
                f"{decision.message()} (the user must approve this call; it was not run)")
        if not decision.allowed:
            return ToolGuardrailFunctionOutput.reject_content(decision.message())
        if decision.input != args:  # a guardrail cannot hand the SDK a rewritten input: never run the old one
            return ToolGuardrailFunctionOutput.reject_content(
                "deny: a PreToolUse hook rewrote this MCP call's input, which cannot be applied here; not run")
        decided[ctx.tool_call_id] = decision
        return ToolGuardrailFunctionOutput.allow()

    async def after(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
        ctx = data.context
        decision = decided.pop(ctx.tool_call_id, None)
        done = await session.aafter_tool(mcp_tool_name(key, ctx.tool_name), _args(ctx.tool_arguments), data.output,
                                         tool_use_id=ctx.tool_call_id, decision=decision)
        if not done.for_model(""):
            return ToolGuardrailFunctionOutput.allow()
        # the output with the contextual rules and the hooks' feedback after it
        output = data.output if isinstance(data.output, str) else str(data.output)
        return ToolGuardrailFunctionOutput.reject_content(done.for_model(output))

    return (ToolInputGuardrail(before, name=f"wskit-gate:{key}"),
            ToolOutputGuardrail(after, name=f"wskit-post:{key}"))


def workspace_mcp_servers(session: SessionResources, *,
                          ask: Callable[[ToolDecision], bool | UserAnswer] | None = None,
                          **server_kwargs: Any) -> tuple[list[MCPServer], tuple[RefusedServer, ...]]:
    """The workspace's approved MCP servers as the SDK's MCP server objects, gated (see the
    module docstring); enter them (``async with``) before the run.

    :param ask: answers an ``ask`` of the gate; None: such a call is rejected (not run).
    :param server_kwargs: passed to each server object (``cache_tools_list``,
        ``client_session_timeout_seconds``…).
    :returns: ``(servers, refused)``: the servers, and those not started with the reason.
    """
    found = workspace_mcp(session)
    servers: list[MCPServer] = []
    for launch in found.servers:
        before, after = _mcp_guardrails(session, launch.key, ask)
        common: dict[str, Any] = {"name": launch.key, "tool_input_guardrails": [before],
                                  "tool_output_guardrails": [after], **server_kwargs}
        if launch.transport == "stdio":
            servers.append(MCPServerStdio({"command": launch.command, "args": list(launch.args),
                                           "env": dict(launch.env), "cwd": launch.cwd}, **common))
        elif launch.transport == "http":
            servers.append(MCPServerStreamableHttp({"url": launch.url, "headers": dict(launch.headers)}, **common))
        else:
            servers.append(MCPServerSse({"url": launch.url, "headers": dict(launch.headers)}, **common))
    return servers, found.refused


def workspace_agent(session: SessionResources, *, tools: Sequence[FunctionTool] = (), style: str | None = None,
                    skills_budget: Budget | None = None,
                    ask: Callable[[ToolDecision], bool | UserAnswer] | None = None,
                    **agent_kwargs: Any) -> Agent[Any]:
    """An ``agents.Agent`` over ``session`` (see the module docstring).

    :param tools: the host's function tools (each wrapped by the gate).
    :param style: output style id for the instructions. :param skills_budget: bound on the
        skills catalog (default 8 KiB).
    :param ask: answers an ``ask``; None: the SDK's tool approval.
    :param agent_kwargs: passed to ``Agent`` (``name`` defaults to the session's host name;
        a string ``instructions`` goes before the workspace's).
    """
    budget = skills_budget or Budget(max_bytes=8192)
    own = agent_kwargs.pop("instructions", None)
    if own is not None and not isinstance(own, str):
        raise TypeError("workspace_agent: instructions must be a string (the workspace's are added after it)")

    def instructions(ctx: RunContextWrapper[Any], agent: Agent[Any]) -> str:
        text = system_prompt(session, style=style, skills_budget=budget).text
        return f"{own}\n\n{text}" if own else text

    @function_tool(name_override=SKILL_TOOL)
    def load_skill(name: str) -> str:
        """Load a skill from the available skills by its name; returns its instructions.

        Args:
            name: the skill's name, as the available skills list it.
        """
        return session.skill_workflows.activate(name).content

    gated = [gate_tool(session, t, ask=ask) for t in tools]
    extra = list(agent_kwargs.pop("tools", []))
    return Agent(name=agent_kwargs.pop("name", session.host), instructions=instructions,
                 tools=[load_skill, *gated, *extra], **agent_kwargs)
