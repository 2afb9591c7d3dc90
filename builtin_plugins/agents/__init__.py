"""Built-in plugin ``agents``: subagent definitions (see :mod:`wskit.builtin_plugins.agents.loader`)."""

from __future__ import annotations

from wskit.builtin_plugins.agents.loader import AGENT_FOLDERS, agents_filter, load_agents
from wskit.plugin import hookimpl


@hookimpl
def wskit_resource_kinds():
    return [AGENT_FOLDERS.model_copy(update={"hook": "wskit_load_agents", "filter": agents_filter})]


@hookimpl
def wskit_load_agents(source):
    return load_agents(source)


@hookimpl
def wskit_register_commands(cli):
    """Add ``agents`` to ``wsctl`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "agents", "wskit.builtin_plugins.agents.cli:agents_group",
                     "Subagents: .claude/agents, .<host>/agents and plugin agents.")
