"""The workspace's MCP servers in the adapters (wskit.integrations.mcp): approved servers are
handed to the framework as its own MCP objects and their tools gated under Claude Code's
names; a denied and an unapproved server are never started and are reported. A real MCP
server (the official SDK's, tests/plugins/wskit_mcp/mcp_server.py) driven by each
framework's scripted model. Skipped without the MCP plugin or the framework."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("wskit_mcp")

from wskit import HostProfile, TrustStore, WorkspaceCache, snapshot  # noqa: E402
from wskit.integrations.mcp import workspace_mcp  # noqa: E402
from wskit.session import SessionResources  # noqa: E402

SERVER = Path(__file__).resolve().parents[2] / "plugins" / "wskit_mcp" / "mcp_server.py"


def _workspace(tmp_path: Path) -> tuple[SessionResources, Path]:
    """A trusted project with three stdio servers of the real test server: ``good``
    (enabled in the user's settings), ``bad`` (disabled there), ``pending`` (enabled only by
    the project's own settings, which approve nothing);
    each writes its pid to ``pids/<name>`` when started. ``mcp__good__where`` is denied by
    a permission rule."""
    home, project = tmp_path / "home", tmp_path / "project"
    pids = tmp_path / "pids"
    pids.mkdir()

    def server(name: str) -> dict[str, Any]:
        return {"command": sys.executable, "args": [str(SERVER)], "env": {"PID_FILE": str(pids / name)}}

    files = {
        home / ".claude" / "settings.json": json.dumps({"enabledMcpjsonServers": ["good"],
                                                        "disabledMcpjsonServers": ["bad"]}),
        project / ".git" / "HEAD": "ref: refs/heads/main\n",
        project / ".mcp.json": json.dumps({"mcpServers": {n: server(n) for n in ("good", "bad", "pending")}}),
        project / ".claude" / "settings.json": json.dumps({"permissions": {"allow": ["mcp__good__echo"],
                                                                             "deny": ["mcp__good__where"]}}),
        # a repository cannot approve its own servers: this is not honoured
        project / ".claude" / "settings.local.json": json.dumps({"enabledMcpjsonServers": ["pending"]}),
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    TrustStore.for_home(home).grant(project)
    session = snapshot(WorkspaceCache(HostProfile(name="wskit", home=home)).resolve(project))
    return session, pids


def test_only_approved_servers_are_described_the_others_say_why(tmp_path) -> None:
    session, pids = _workspace(tmp_path)
    found = workspace_mcp(session)
    assert [(s.name, s.key, s.transport) for s in found.servers] == [("good", "good", "stdio")]
    good = found.servers[0]
    assert good.command == sys.executable and good.args == (str(SERVER),) and good.env["PID_FILE"]
    assert good.cwd == str(session.binding.execution_root)
    reasons = {r.id.rsplit(":", 1)[-1]: r.reason for r in found.refused}
    assert set(reasons) == {"bad", "pending"}
    assert "denied" in reasons["bad"] and "not approved" in reasons["pending"]
    assert "PID_FILE" not in repr(good)  # env values (secrets) are not in the repr
    assert not list(pids.iterdir())  # describing starts nothing
    session.close()


def test_pydantic_ai_gets_the_approved_server_as_a_gated_toolset(tmp_path) -> None:
    pytest.importorskip("pydantic_ai")
    pytest.importorskip("fastmcp")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from wskit.integrations.pydantic_ai import WorkspaceCapability

    session, pids = _workspace(tmp_path)
    script = [("mcp__good__echo", {"text": "abc"}), ("mcp__good__where", {})]
    offered: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered[:] = [t.name for t in info.function_tools]
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        if turn < len(script):
            name, args = script[turn]
            return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=f"m{turn}")])
        return ModelResponse(parts=[TextPart("done")])

    capability = WorkspaceCapability(session)
    agent = Agent(FunctionModel(model), capabilities=[capability])
    result = agent.run_sync("use the server")
    returns = {p.tool_call_id: str(p.content) for m in result.all_messages() if isinstance(m, ModelRequest)
               for p in m.parts if isinstance(p, ToolReturnPart)}
    assert "mcp__good__echo" in offered and not any("bad" in n or "pending" in n for n in offered)
    assert returns["m0"] == "cba"  # the real server answered through pydantic-ai's client
    assert returns["m1"].startswith("deny: deny rule 'mcp__good__where'")  # the gate, under Claude Code's name
    assert {r.id.rsplit(":", 1)[-1] for r in capability.mcp_refused} == {"bad", "pending"}
    assert sorted(p.name for p in pids.iterdir()) == ["good"]  # the others never started
    session.close()


def test_the_agents_sdk_gets_the_approved_server_with_the_gate_as_guardrails(tmp_path) -> None:
    pytest.importorskip("agents")
    from agents import RunConfig, Runner
    from agents.items import ToolCallOutputItem
    from agents.testing import ScriptedModel, assistant_message, function_call

    from wskit.integrations.openai_agents import workspace_agent, workspace_mcp_servers

    session, pids = _workspace(tmp_path)
    servers, refused = workspace_mcp_servers(session)
    assert [s.name for s in servers] == ["good"]
    assert {r.id.rsplit(":", 1)[-1] for r in refused} == {"bad", "pending"}
    model = ScriptedModel([[function_call("echo", {"text": "abc"}, call_id="m0")],
                           [function_call("where", {}, call_id="m1")],
                           [assistant_message("done")]])

    async def main() -> dict[str, str]:
        async with servers[0]:
            agent = workspace_agent(session, model=model, mcp_servers=servers)
            result = await Runner.run(agent, "use the server", run_config=RunConfig(tracing_disabled=True))
        return {str(item.raw_item.get("call_id")): str(item.output) for item in result.new_items
                if isinstance(item, ToolCallOutputItem) and isinstance(item.raw_item, dict)}

    returns = asyncio.run(main())
    assert "cba" in returns["m0"]
    assert "deny rule 'mcp__good__where'" in returns["m1"]
    assert sorted(p.name for p in pids.iterdir()) == ["good"]
    session.close()


def test_langchain_gets_the_approved_servers_tools_gated_by_the_middleware(tmp_path) -> None:
    pytest.importorskip("langchain")
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, ToolMessage

    from wskit.integrations.langchain import WorkspaceMiddleware, workspace_mcp_tools

    class Scripted(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Scripted:
            return self

    session, pids = _workspace(tmp_path)
    tools, refused = workspace_mcp_tools(session)
    assert {t.name for t in tools} >= {"mcp__good__echo", "mcp__good__where"}
    assert {r.id.rsplit(":", 1)[-1] for r in refused} == {"bad", "pending"}
    calls = [("mcp__good__echo", {"text": "abc"}), ("mcp__good__where", {})]
    script = [AIMessage(content="", tool_calls=[{"name": n, "args": a, "id": f"m{i}", "type": "tool_call"}])
              for i, (n, a) in enumerate(calls)] + [AIMessage(content="done")]
    agent = create_agent(Scripted(messages=iter(script)), tools=tools, middleware=[WorkspaceMiddleware(session)])
    state = asyncio.run(agent.ainvoke({"messages": [{"role": "user", "content": "use the server"}]}))
    returns = {m.tool_call_id: str(m.content) for m in state["messages"] if isinstance(m, ToolMessage)}
    assert "cba" in returns["m0"]
    assert returns["m1"].startswith("deny: deny rule 'mcp__good__where'")
    assert sorted(p.name for p in pids.iterdir()) == ["good"]
    session.close()
