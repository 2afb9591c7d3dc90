"""Built-in plugin ``agents``: subagent definitions (see :mod:`wskit.agents`)."""

from __future__ import annotations

from wskit.agents import DEFAULT_DIR, KIND, agents_filter, load_agents
from wskit.kinds import ResourceKind
from wskit.plugin import hookimpl


@hookimpl
def wskit_resource_kinds():
    return [ResourceKind(name=KIND, hook="wskit_load_agents", default_dir=DEFAULT_DIR, filter=agents_filter)]


@hookimpl
def wskit_load_agents(source):
    return load_agents(source)


@hookimpl
def wskit_register_commands(cli):
    from wskit.cli.agents import agents_group

    cli.add_command(agents_group)
