"""A LangChain agent (``create_agent``) on a wskit workspace (``pip install 'wskit[langchain]'``).

Run it: ``python docs/examples/langchain_agent.py``. The model is LangChain's own
``GenericFakeChatModel`` playing a script (no network; ``bind_tools`` added, since the
fake model has none). The user types ``/tour Ada``, which the middleware expands through
the project's command (the model gets the command's text); the model then loads a skill, tries ``rm -rf`` (a project hook blocks it),
reads ``.env`` (a permission rule denies it), reads ``docs/guide.md`` (the nested
``docs/AGENTS.md`` comes with the result) and answers. The system prompt it gets holds
the static rules and the skills catalog.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from demo_workspace import PROMPT, make_tree, open_session, run_tool
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool

from wskit.integrations.langchain import WorkspaceMiddleware

__all__ = ["SCRIPT", "ScriptedChatModel", "main", "run"]

#: the scripted model's tool calls, one per turn, then its answer
SCRIPT: list[tuple[str, dict[str, Any]]] = [
    ("load_skill", {"name": "greeting"}),
    ("shell", {"command": "rm -rf build"}),
    ("read_file", {"path": ".env"}),
    ("read_file", {"path": "docs/guide.md"}),
]


class ScriptedChatModel(GenericFakeChatModel):
    """``GenericFakeChatModel`` that accepts tools (it answers from its script) and keeps
    the messages of each call (``seen``)."""

    seen: list[list[BaseMessage]] = []

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def script_messages() -> list[AIMessage]:
    """The scripted replies: one tool call per turn, then the answer."""
    calls = [AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call-{i}", "type": "tool_call"}])
             for i, (name, args) in enumerate(SCRIPT)]
    return [*calls, AIMessage(content="Ahoy! The guide says: run make colour.")]


def run(root: Path) -> dict[str, Any]:
    """Run the scripted agent in a workspace under ``root``.

    :returns: ``{"instructions", "prompt" (the user message the model got), "tool_results":
        {tool_call_id: text}, "output"}``.
    """
    home, project = make_tree(root)
    session = open_session(home, project)

    @tool
    def read_file(path: str) -> str:
        """Read a file of the project."""
        return run_tool(project, "read_file", {"path": path})

    @tool
    def shell(command: str) -> str:
        """Run a shell command in the project."""
        return run_tool(project, "shell", {"command": command})

    model = ScriptedChatModel(messages=iter(script_messages()), seen=[])
    agent = create_agent(model, tools=[read_file, shell], middleware=[WorkspaceMiddleware(session)])
    state = agent.invoke({"messages": [{"role": "user", "content": PROMPT}]})
    returns = {m.tool_call_id: str(m.content) for m in state["messages"] if isinstance(m, ToolMessage)}
    session.close()
    return {"instructions": str(model.seen[0][0].content), "prompt": str(model.seen[0][1].content),
            "tool_results": returns,
            "output": str(state["messages"][-1].content)}


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
