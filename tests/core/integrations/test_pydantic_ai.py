"""The pydantic-ai adapter, through docs/examples/pydantic_ai_agent.py driven by pydantic-ai's
own FunctionModel: static rules and the skills catalog in the instructions, a skill loaded
by the model, a call blocked by a project hook, one denied by a permission rule, contextual
rules attached to a read of a nested file; and an "ask" as pydantic-ai's ApprovalRequired.
Skipped when the extra is not installed."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"


@pytest.fixture(scope="module")
def example():
    sys.path.insert(0, str(EXAMPLES))
    try:
        spec = importlib.util.spec_from_file_location("pydantic_ai_agent_example", EXAMPLES / "pydantic_ai_agent.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(EXAMPLES))


def test_the_example_shows_every_part_of_the_workspace(example, tmp_path) -> None:
    out = example.run(tmp_path)
    # /tour Ada, expanded by the capability
    assert out["prompt"] == "Greet Ada as the greeting skill says, then tell them what docs/guide.md says.\n"
    instructions, results = out["instructions"], out["tool_results"]
    assert "<project-instructions>" in instructions and "Answer in one sentence." in instructions
    assert "<name>\ngreeting\n</name>" in instructions and "How to greet the user" in instructions
    assert "British" not in instructions  # the nested rule is contextual, not static
    assert results["call-0"].strip() == "Greet with 'Ahoy'."
    assert results["call-1"] == "deny: rm -rf is not allowed here"  # the project hook
    assert results["call-2"].startswith("deny: deny rule 'Read(./.env)' (project in ")
    assert results["call-3"].startswith("# Guide\nRun make colour.")
    assert 'trigger-paths="docs/guide.md"' in results["call-3"] and "Docs use British spelling." in results["call-3"]
    assert out["output"].startswith("Ahoy!")


def test_the_example_runs_as_a_script() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLES / "pydantic_ai_agent.py")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert "call-1: deny: rm -rf is not allowed here" in done.stdout


def test_an_ask_is_approval_required_and_an_approved_resume_runs_the_call(example, tmp_path) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.tools import DeferredToolRequests, DeferredToolResults

    from wskit.integrations.pydantic_ai import WorkspaceCapability

    home, project = example.make_tree(tmp_path)
    session = example.open_session(home, project)
    session.mark_delivered(session.rules.rules_for([], "shell"))  # the rules barrier has nothing to hold back
    ran: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if not any(isinstance(m, ModelResponse) for m in messages):
            return ModelResponse(parts=[ToolCallPart("shell", {"command": "make build"}, tool_call_id="c1")])
        return ModelResponse(parts=[TextPart("done")])

    agent: Agent[None, Any] = Agent(FunctionModel(model), capabilities=[WorkspaceCapability(session)],
                                    output_type=[str, DeferredToolRequests])

    @agent.tool_plain
    def shell(command: str) -> str:
        ran.append(command)
        return "built"

    first = agent.run_sync("build it")
    assert isinstance(first.output, DeferredToolRequests) and [c.tool_call_id for c in first.output.approvals] == ["c1"]
    assert ran == []  # no rule allows "make build": the mode asks, the tool did not run
    second = agent.run_sync(message_history=first.all_messages(),
                            deferred_tool_results=DeferredToolResults(approvals={"c1": True}))
    assert second.output == "done" and ran == ["make build"]
    session.close()
