"""Built-in plugin ``mcp``: the ``mcp_server`` kind (definitions only), the
project ``.mcp.json`` source, and ``wsctl mcp list``. See :mod:`wskit.builtin_plugins.mcp.loader`."""

from __future__ import annotations

from wskit.builtin_plugins.mcp.loader import KIND, load_mcp_servers
from wskit.kinds import ResourceKind
from wskit.models import ResourceSource, Scope
from wskit.plugin import hookimpl

__all__ = [
    "ROOT_RANK", "wskit_mcp_servers", "wskit_register_commands", "wskit_resource_kinds",
    "wskit_resource_sources"
]


#: ``.mcp.json`` ranks just below the project config folders (whose settings files win).
ROOT_RANK = 19


@hookimpl
def wskit_resource_kinds():
    # a manifest's "mcpServers" adds files to .mcp.json, or holds the servers inline
    return [ResourceKind(name=KIND, hook="wskit_mcp_servers", default_dir=".mcp.json", plural="mcp_servers",
                         manifest_keys=("mcpServers",), manifest_adds=True, manifest_inline=True)]


@hookimpl
def wskit_resource_sources(binding, profile, trust):
    if not trust.trusted:
        return []
    root = str(binding.source_root)
    return [ResourceSource(scope=Scope.PROJECT, root=root, base=root, rank=ROOT_RANK, label="project:.mcp.json",
                           kinds=frozenset({KIND}))]


@hookimpl
def wskit_mcp_servers(source):
    return load_mcp_servers(source)


@hookimpl
def wskit_register_commands(cli):
    """Add ``mcp`` to ``wsctl`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "mcp", "wskit.builtin_plugins.mcp.cli:mcp_group",
                     "MCP server definitions; `check` starts one.")
