"""The OpenAI Agents SDK adapter, through docs/examples/openai_agents_agent.py driven by the
SDK's own ScriptedModel: static rules and the skills catalog in the instructions, a skill
loaded by the model, a call blocked by a project hook, one denied by a permission rule,
contextual rules attached to a read of a nested file; and an "ask" as the SDK's tool
approval (an interrupted run, resumed once approved). Skipped when the extra is not installed."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("agents")

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"


@pytest.fixture(scope="module")
def example():
    sys.path.insert(0, str(EXAMPLES))
    try:
        spec = importlib.util.spec_from_file_location("openai_agents_example", EXAMPLES / "openai_agents_agent.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(EXAMPLES))


def test_the_example_shows_every_part_of_the_workspace(example, tmp_path) -> None:
    out = example.run(tmp_path)
    # /tour Ada, through expand_input
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


def test_the_example_runs_as_a_script() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLES / "openai_agents_agent.py")], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "call-1: deny: rm -rf is not allowed here" in done.stdout


def test_an_ask_interrupts_the_run_and_an_approval_runs_the_call(example, tmp_path) -> None:
    from agents import RunConfig, Runner, function_tool
    from agents.testing import ScriptedModel, assistant_message, function_call

    from wskit.integrations.openai_agents import workspace_agent

    home, project = example.make_tree(tmp_path)
    session = example.open_session(home, project)
    session.mark_delivered(session.rules.rules_for([], "shell"))  # the rules barrier has nothing to hold back
    ran: list[str] = []

    @function_tool
    def shell(command: str) -> str:
        """Run a command.

        Args:
            command: the command line.
        """
        ran.append(command)
        return "built"

    model = ScriptedModel([[function_call("shell", {"command": "make build"}, call_id="c1")],
                           [assistant_message("done")]])
    agent = workspace_agent(session, tools=[shell], model=model)
    config = RunConfig(tracing_disabled=True)
    first = Runner.run_sync(agent, "build it", run_config=config)
    assert [i.raw_item.call_id for i in first.interruptions] == ["c1"] and ran == []
    state = first.to_state()
    state.approve(first.interruptions[0])
    second = Runner.run_sync(agent, state, run_config=config)
    assert second.final_output == "done" and ran == ["make build"]
    session.close()
