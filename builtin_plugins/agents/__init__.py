"""Built-in plugin ``agents``: subagent definitions (see :mod:`wskit.builtin_plugins.agents.loader`)."""

from __future__ import annotations

from wskit.builtin_plugins.agents.loader import DEFAULT_DIR, KIND, agents_filter, load_agents
from wskit.kinds import ResourceKind
from wskit.plugin import hookimpl

__all__ = ["wskit_load_agents", "wskit_register_commands", "wskit_resource_kinds"]


@hookimpl
def wskit_resource_kinds():
    return [ResourceKind(name=KIND, hook="wskit_load_agents", default_dir=DEFAULT_DIR, filter=agents_filter)]


@hookimpl
def wskit_load_agents(source):
    return load_agents(source)


@hookimpl
def wskit_register_commands(cli):
    """Add ``agents`` to ``wsctl`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "agents", "wskit.builtin_plugins.agents.cli:agents_group",
                     "Subagents: .claude/agents, .<host>/agents and plugin agents.")
