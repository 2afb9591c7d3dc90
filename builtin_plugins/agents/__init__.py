"""Built-in plugin ``agents``: subagent definitions (see :mod:`wskit.builtin_plugins.agents.loader`)
and ``wsctl agents list|show``, a :class:`~wskit.kit.markdown.MarkdownKind`."""

from __future__ import annotations

from typing import Any

from wskit.kinds import ResourceKind
from wskit.kit.markdown import MarkdownKind
from wskit.util.deferred import folders_present, idle_unless

__all__ = ["AGENT_FOLDERS", "AGENTS", "AgentsKind", "wskit_load_agents", "wskit_register_commands",
           "wskit_resource_kinds"]

#: The kind's folders: ``agents/`` of a source, or what a plugin manifest's ``agents`` names instead
#: (declared here so that registering the plugin does not import its loader)
AGENT_FOLDERS = ResourceKind(name="agent", default_dir="agents", manifest_keys=("agents",), markdown=True)

__all__ = ["wskit_load_agents", "wskit_register_commands", "wskit_resource_kinds"]


class AgentsKind(MarkdownKind):
    """The ``agent`` kind: listings add the model and tools, ``show`` prints the
    system prompt (and ``--json`` the preloaded skills)."""

    def row(self, resource: Any, root: Any) -> dict[str, Any]:
        return {**super().row(resource, root), "model": resource.model,
                "tools": list(resource.tools) if resource.tools is not None else None}

    def details(self, resource: Any) -> dict[str, Any]:
        return {"skills": list(resource.skills), "prompt": resource.prompt}

    def heading(self, resource: Any, data: dict[str, Any]) -> list[str]:
        a = resource
        lines = [f"{a.id} ({a.scope.value}, model {a.model}) — {a.description}"]
        if a.tools is not None:
            lines.append(f"tools: {', '.join(a.tools)}")
        return lines

    def body(self, resource: Any) -> str:
        return resource.prompt


AGENTS = AgentsKind(
    AGENT_FOLDERS.model_copy(update={"hook": "wskit_load_agents",
                                     "filter": idle_unless("wskit.builtin_plugins.agents.loader:agents_filter",
                                                           bool, idle=lambda resources: (list(resources), []))}),
    load=idle_unless("wskit.builtin_plugins.agents.loader:load_agents", folders_present(AGENT_FOLDERS)),  # nothing imported without its folder
    help="Subagents: .claude/agents, .<host>/agents and plugin agents.", noun="subagents",
    columns=(("ID", lambda a: a.id), ("MODEL", lambda a: a.model), ("DESCRIPTION", lambda a: _shorten(a.description))),
    show_help="Show one subagent, with its system prompt.",
)

wskit_resource_kinds = AGENTS.wskit_resource_kinds
wskit_load_agents = AGENTS.hook_impl()
wskit_register_commands = AGENTS.wskit_register_commands


def _shorten(text: str) -> str:
    from wskit.cli.context import shorten

    return shorten(text)
