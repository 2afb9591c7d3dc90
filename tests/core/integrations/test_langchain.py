"""The LangChain adapter, through docs/examples/langchain_agent.py driven by LangChain's
GenericFakeChatModel: static rules and the skills catalog in the system prompt, a skill
loaded by the model, a call blocked by a project hook, one denied by a permission rule,
contextual rules attached to a read of a nested file; an "ask" as LangGraph's interrupt,
resumed with an approval; the async path. Skipped when the extra is not installed."""

from __future__ import annotations

import asyncio
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("langchain")

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"


@pytest.fixture(scope="module")
def example():
    sys.path.insert(0, str(EXAMPLES))
    try:
        spec = importlib.util.spec_from_file_location("langchain_example", EXAMPLES / "langchain_agent.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # pydantic resolves the model's annotations in its module
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("langchain_example", None)
        sys.path.remove(str(EXAMPLES))


def _check(out: dict) -> None:
    # /tour Ada, expanded by the middleware
    assert out["prompt"] == "Greet Ada as the greeting skill says, then tell them what docs/guide.md says.\n"
    instructions, results = out["instructions"], out["tool_results"]
    assert "<project-instructions>" in instructions and "Answer in one sentence." in instructions
    assert "<name>\ngreeting\n</name>" in instructions and "British" not in instructions
    assert results["call-0"].strip() == "Greet with 'Ahoy'."
    assert results["call-1"] == "deny: rm -rf is not allowed here"  # the project hook
    assert results["call-2"].startswith("deny: deny rule 'Read(./.env)' (project in ")
    assert results["call-3"].startswith("# Guide\nRun make colour.")
    assert 'trigger-paths="docs/guide.md"' in results["call-3"] and "Docs use British spelling." in results["call-3"]
    assert out["output"].startswith("Ahoy!")


def test_the_example_shows_every_part_of_the_workspace(example, tmp_path) -> None:
    _check(example.run(tmp_path))


def test_the_example_runs_as_a_script() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLES / "langchain_agent.py")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert "call-1: deny: rm -rf is not allowed here" in done.stdout


def test_the_async_path_gives_the_same_answers(example, tmp_path) -> None:
    from langchain.agents import create_agent
    from langchain_core.messages import ToolMessage
    from langchain_core.tools import tool

    from wskit.integrations.langchain import WorkspaceMiddleware

    home, project = example.make_tree(tmp_path)
    session = example.open_session(home, project)

    @tool
    def read_file(path: str) -> str:
        """Read a file."""
        return example.run_tool(project, "read_file", {"path": path})

    @tool
    def shell(command: str) -> str:
        """Run a command."""
        return example.run_tool(project, "shell", {"command": command})

    model = example.ScriptedChatModel(messages=iter(example.script_messages()), seen=[])
    agent = create_agent(model, tools=[read_file, shell], middleware=[WorkspaceMiddleware(session)])
    state = asyncio.run(agent.ainvoke({"messages": [{"role": "user", "content": example.PROMPT}]}))
    returns = {m.tool_call_id: str(m.content) for m in state["messages"] if isinstance(m, ToolMessage)}
    _check({"instructions": str(model.seen[0][0].content), "prompt": str(model.seen[0][1].content),
            "tool_results": returns, "output": str(state["messages"][-1].content)})
    # the user message was replaced in the state (same id), not added next to the typed one
    humans = [m for m in state["messages"] if m.type == "human"]
    assert [m.content for m in humans] == [str(model.seen[0][1].content)]
    session.close()


def test_an_ask_interrupts_and_an_approval_runs_the_call(example, tmp_path) -> None:
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    from wskit.integrations.langchain import WorkspaceMiddleware

    home, project = example.make_tree(tmp_path)
    session = example.open_session(home, project)
    session.mark_delivered(session.rules.rules_for([], "shell"))  # the rules barrier has nothing to hold back
    ran: list[str] = []

    @tool
    def shell(command: str) -> str:
        """Run a command."""
        ran.append(command)
        return "built"

    replies = iter([AIMessage(content="", tool_calls=[{"name": "shell", "args": {"command": "make build"},
                                                       "id": "c1", "type": "tool_call"}]),
                    AIMessage(content="done")])
    model = example.ScriptedChatModel(messages=replies, seen=[])
    agent = create_agent(model, tools=[shell], middleware=[WorkspaceMiddleware(session)],
                         checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    first = agent.invoke({"messages": [{"role": "user", "content": "build it"}]}, config)
    assert "__interrupt__" in first and ran == []
    (pending,) = first["__interrupt__"]
    assert pending.value["action"] == "shell" and "make build" in str(pending.value["args"])
    second = agent.invoke(Command(resume=True), config)
    assert ran == ["make build"] and second["messages"][-1].content == "done"
    session.close()
