"""Built-in plugin ``mcp``: the ``mcp_server`` kind (definitions only), the
project ``.mcp.json`` source, and ``wsctl mcp list``. See :mod:`wskit.builtin_plugins.mcp.loader`."""

from __future__ import annotations

from wskit.builtin_plugins.mcp.loader import KIND, load_mcp_servers
from wskit.kinds import ResourceKind
from wskit.models import ResourceSource, Scope
from wskit.plugin import hookimpl

__all__ = [
    "ROOT_RANK", "managed_server_filter", "wskit_mcp_servers", "wskit_register_commands", "wskit_resource_kinds",
    "wskit_resource_sources"
]


#: ``.mcp.json`` ranks just below the project config folders (whose settings files win).
ROOT_RANK = 19


@hookimpl
def wskit_resource_kinds():
    # a manifest's "mcpServers" adds files to .mcp.json, or holds the servers inline
    return [ResourceKind(name=KIND, hook="wskit_mcp_servers", default_dir=".mcp.json", plural="mcp_servers",
                         manifest_keys=("mcpServers",), manifest_adds=True, manifest_inline=True,
                         filter=managed_server_filter)]


def _server_names(value) -> set[str]:
    return {e["serverName"] for e in value or () if isinstance(e, dict) and isinstance(e.get("serverName"), str)}


def managed_server_filter(resources: list, profile) -> tuple[list, list]:
    """The ``mcp_server`` kind's filter: managed settings (Claude Code's
    ``deniedMcpServers`` and ``allowedMcpServers``, ``[{"serverName": …}]``) switch
    servers off; a denied name always loses, and when ``allowedMcpServers`` is present only
    the servers it names stay. Each server switched off is a ``mcp-managed-denied``
    warning naming the managed file."""
    from wskit.formats.settings import managed_layer
    from wskit.models import Diagnostic

    layer, _ = managed_layer(profile)
    if layer is None:
        return resources, []
    denied = _server_names(layer.data.get("deniedMcpServers"))
    allowed = _server_names(layer.data.get("allowedMcpServers")) if "allowedMcpServers" in layer.data else None
    kept, diags = [], []
    for r in resources:
        if r.name in denied or (allowed is not None and r.name not in allowed):
            diags.append(Diagnostic(level="warning", code="mcp-managed-denied", path=layer.path, plugin=r.plugin,
                                    message=f"MCP server {r.name!r} is switched off by managed settings"))
        else:
            kept.append(r)
    return kept, diags


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
