"""An OpenAI Agents SDK agent on a wskit workspace (``pip install 'wskit[openai-agents]'``).

Run it: ``python docs/examples/openai_agents_agent.py``. The model is the SDK's own
``agents.testing.ScriptedModel`` (no network). The user types ``/tour Ada``, expanded
through the project's command by ``expand_input`` (the model gets the command's text); the
model then loads a skill, tries ``rm -rf`` (a
project hook blocks it), reads ``.env`` (a permission rule denies it), reads
``docs/guide.md`` (the nested ``docs/AGENTS.md`` comes with the result) and answers. The
instructions it gets hold the static rules and the skills catalog.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from agents import RunConfig, Runner, function_tool
from agents.items import ToolCallOutputItem
from agents.testing import ScriptedModel, assistant_message, function_call
from demo_workspace import PROMPT, make_tree, open_session, run_tool

from wskit.integrations.openai_agents import expand_input, workspace_agent

__all__ = ["SCRIPT", "main", "run"]

#: the scripted model's tool calls, one per turn, then its answer
SCRIPT: list[tuple[str, dict[str, Any]]] = [
    ("load_skill", {"name": "greeting"}),
    ("shell", {"command": "rm -rf build"}),
    ("read_file", {"path": ".env"}),
    ("read_file", {"path": "docs/guide.md"}),
]


def run(root: Path) -> dict[str, Any]:
    """Run the scripted agent in a workspace under ``root``.

    :returns: ``{"instructions", "prompt" (the user input the model got), "tool_results":
        {call_id: text}, "output"}``.
    """
    home, project = make_tree(root)
    session = open_session(home, project)

    @function_tool
    def read_file(path: str) -> str:
        """Read a file of the project.

        Args:
            path: the file, relative to the project.
        """
        return run_tool(project, "read_file", {"path": path})

    @function_tool
    def shell(command: str) -> str:
        """Run a shell command in the project.

        Args:
            command: the command line.
        """
        return run_tool(project, "shell", {"command": command})

    model = ScriptedModel([[function_call(name, args, call_id=f"call-{i}")] for i, (name, args) in enumerate(SCRIPT)]
                          + [[assistant_message("Ahoy! The guide says: run make colour.")]])
    agent = workspace_agent(session, tools=[read_file, shell], model=model)
    # the SDK has no hook that may rewrite the input: /tour Ada is expanded before the run
    result = Runner.run_sync(agent, expand_input(session, PROMPT),
                             run_config=RunConfig(tracing_disabled=True))  # nothing leaves the machine
    returns = {str(item.raw_item.get("call_id")): str(item.output) for item in result.new_items
               if isinstance(item, ToolCallOutputItem) and isinstance(item.raw_item, dict)}
    session.close()
    first = model.calls[0].input
    prompt = first if isinstance(first, str) else str(first[0].get("content"))
    return {"instructions": model.calls[0].system_instructions, "prompt": prompt, "tool_results": returns,
            "output": result.final_output}


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = run(Path(tmp))
    print("instructions:", out["instructions"])
    print("prompt:", out["prompt"])
    for call_id, text in out["tool_results"].items():
        print(f"{call_id}: {text}")
    print("output:", out["output"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
