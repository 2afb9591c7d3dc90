"""Adapters that put a wskit session into the Python agent frameworks, each an optional extra:

- :mod:`wskit.integrations.pydantic_ai` (``pip install 'wskit[pydantic-ai]'``):
  :class:`~wskit.integrations.pydantic_ai.WorkspaceCapability`, a pydantic-ai capability;
- :mod:`wskit.integrations.openai_agents` (``pip install 'wskit[openai-agents]'``):
  :func:`~wskit.integrations.openai_agents.workspace_agent`, an ``agents.Agent``;
- :mod:`wskit.integrations.langchain` (``pip install 'wskit[langchain]'``):
  :class:`~wskit.integrations.langchain.WorkspaceMiddleware`, a ``create_agent`` middleware.

Each gives the agent the session's instructions (output style, static rules, skills
catalog), a ``load_skill`` tool, and the tool-call gate (``session.abefore_tool`` /
``session.aafter_tool``: hooks, permission rules, skill workflows, the rules barrier)
around every tool call. Importing this package imports no framework.
"""

from __future__ import annotations

__all__: list[str] = []
