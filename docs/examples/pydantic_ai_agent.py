"""A pydantic-ai agent on a wskit workspace (``pip install 'wskit[pydantic-ai]'``).

Run it: ``python docs/examples/pydantic_ai_agent.py``. The model is pydantic-ai's own
``FunctionModel`` playing a script (no network). The user types ``/tour Ada``, which the
capability expands through the project's command (the model gets the command's text); the
model then loads a skill, tries ``rm -rf`` (a
project hook blocks it), reads ``.env`` (a permission rule denies it), reads
``docs/guide.md`` (the nested ``docs/AGENTS.md`` comes with the result) and answers.
The instructions it sees hold the static rules and the skills catalog.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from demo_workspace import PROMPT, make_tree, open_session, run_tool
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from wskit.integrations.pydantic_ai import WorkspaceCapability

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

    :returns: ``{"instructions", "prompt" (the user prompt the model got), "tool_results":
        {tool_call_id: text}, "output"}``.
    """
    home, project = make_tree(root)
    session = open_session(home, project)
    seen: dict[str, Any] = {}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen["instructions"] = info.instructions
        seen.setdefault("prompt", next(p.content for m in messages if isinstance(m, ModelRequest)
                                       for p in m.parts if isinstance(p, UserPromptPart)))
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        if turn < len(SCRIPT):
            name, args = SCRIPT[turn]
            return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=f"call-{turn}")])
        return ModelResponse(parts=[TextPart("Ahoy! The guide says: run make colour.")])

    agent = Agent(FunctionModel(model), capabilities=[WorkspaceCapability(session)])

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Read a file of the project."""
        return run_tool(project, "read_file", {"path": path})

    @agent.tool_plain
    def shell(command: str) -> str:
        """Run a shell command in the project."""
        return run_tool(project, "shell", {"command": command})

    result = agent.run_sync(PROMPT)
    returns = {p.tool_call_id: str(p.content) for m in result.all_messages() if isinstance(m, ModelRequest)
               for p in m.parts if isinstance(p, ToolReturnPart)}
    session.close()
    return {"instructions": seen["instructions"], "prompt": seen["prompt"], "tool_results": returns,
            "output": result.output}


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
