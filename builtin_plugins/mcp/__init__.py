"""Built-in plugin ``mcp``: the ``mcp_server`` kind (definitions only), the
project ``.mcp.json`` source, Claude Code's ``~/.claude.json`` (user and local scopes), and
``wsctl mcp list``. See :mod:`wskit.builtin_plugins.mcp.loader`."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from wskit import changes
from wskit.kinds import ResourceKind
from wskit.models import LoadResult, ResourceSource, Scope
from wskit.plugin import hookimpl
from wskit.util.deferred import definitions_present, lazy_exports

__all__ = [
    "CLAUDE_JSON_LOCAL_RANK", "CLAUDE_JSON_USER_RANK", "HOST_MCP_FILES", "ROOT_RANK", "duplicate_plugin_servers",
    "managed_server_filter", "server_filter", "wskit_mcp_servers", "wskit_register_commands", "wskit_resource_kinds",
    "wskit_resource_sources", "approval_status", "expand_server",
    "load_mcp_servers", "server_approval",
]

#: the kind's name (declared here, with :data:`CLAUDE_JSON`, so that registering the plugin
#: does not import :mod:`wskit.builtin_plugins.mcp.loader`)
KIND = "mcp_server"
#: Claude Code's own state file in the home: ``mcpServers`` (user scope) and
#: ``projects[<absolute project path>].mcpServers`` (local scope)
CLAUDE_JSON = ".claude.json"


#: ``.mcp.json`` ranks just below the project config folders (whose settings files win).
ROOT_RANK = 19


@hookimpl
def wskit_resource_kinds():
    # a manifest's "mcpServers" adds files to .mcp.json, or holds the servers inline
    return [ResourceKind(name=KIND, hook="wskit_mcp_servers", default_dir=".mcp.json", plural="mcp_servers",
                         manifest_keys=("mcpServers",), manifest_adds=True, manifest_inline=True,
                         filter=server_filter)]


def server_filter(resources: list, profile) -> tuple[list, list]:
    """The ``mcp_server`` kind's filter: :func:`managed_server_filter`, then
    :func:`duplicate_plugin_servers` on what managed settings leave."""
    kept, diags = managed_server_filter(resources, profile)
    kept, more = duplicate_plugin_servers(kept, profile)
    return kept, diags + more


def duplicate_plugin_servers(resources: list, profile) -> tuple[list, list]:
    """A plugin server that would start exactly what an earlier server
    starts (same transport and command, arguments and environment, or same url and headers,
    as written) is left out with an ``mcp-duplicate`` info, as Claude Code suppresses a
    plugin server identical to a configured one. Non-plugin servers come first (user,
    project, local), then plugin servers in source order; only plugin ones are dropped. A
    server that cannot start (an empty ``url``, an undefined variable: ``startable`` false)
    is never a duplicate: Claude Code 2.1.337 lists each such server, ``failed``."""
    from wskit.models import Diagnostic

    def key(s) -> tuple:
        if s.transport == "stdio":
            return ("stdio", s.command, s.args, tuple(sorted(s.env.items())))
        return (s.transport, s.url, tuple(sorted(s.headers.items())))

    seen: dict[tuple, object] = {}
    for s in resources:
        if not s.plugin and s.startable:
            seen.setdefault(key(s), s)
    kept, diags = [], []
    for s in resources:
        if s.plugin and s.startable:  # a server that cannot start duplicates nothing (Claude Code lists each)
            first = seen.get(key(s))
            if first is not None:
                diags.append(Diagnostic(level="info", code="mcp-duplicate", plugin=s.plugin,
                                        path=str(s.provenance.absolute_path),
                                        message=f"MCP server {s.id!r} starts the same server as {first.id!r}; "
                                                "not offered twice"))
                continue
            seen[key(s)] = s
        kept.append(s)
    return kept, diags


#: ``~/.claude.json``: its top-level ``mcpServers`` (Claude Code's user scope) rank above the
#: user settings folders; ``projects[<source root>].mcpServers`` (its local scope) above every
#: project file, as Claude Code ranks local over project over user.
CLAUDE_JSON_USER_RANK, CLAUDE_JSON_LOCAL_RANK = 13, 29


def _server_names(value) -> set[str]:
    return {e["serverName"] for e in value or () if isinstance(e, dict) and isinstance(e.get("serverName"), str)}


def managed_server_filter(resources: list, profile) -> tuple[list, list]:
    """The ``mcp_server`` kind's filter: managed settings (Claude Code's
    ``deniedMcpServers`` and ``allowedMcpServers``, ``[{"serverName": …}]``) switch
    servers off; a denied name always loses, and when ``allowedMcpServers`` is present only
    the servers it names stay. Each server switched off is a ``mcp-managed-denied``
    warning naming the managed file. A managed file the host named that cannot be read (or
    does not exist) allows no server: an unknown allow list is not taken as none."""
    from wskit.formats.settings import managed_layer
    from wskit.models import Diagnostic

    layer, bad = managed_layer(profile)
    if bad:  # named but unusable: its allow list is unknown, so it allows nothing
        path, denied, allowed, why = bad[0].path, set(), set(), "switched off: managed settings cannot be read"
    elif layer is None:
        return resources, []
    else:
        path, why = layer.path, "switched off by managed settings"
        denied = _server_names(layer.data.get("deniedMcpServers"))
        allowed = _server_names(layer.data.get("allowedMcpServers")) if "allowedMcpServers" in layer.data else None
    kept, diags = [], []
    for r in resources:
        if r.name in denied or (allowed is not None and r.name not in allowed):
            diags.append(Diagnostic(level="warning", code="mcp-managed-denied", path=path, plugin=r.plugin,
                                    message=f"MCP server {r.name!r} is {why}"))
        else:
            kept.append(r)
    return kept, diags


#: where each host with its own MCP files reads them: ``user``: ``(folder below the home,
#: file)``; ``project``: ``(folder below a project folder, file)``; ``chain``: every folder
#: from the project root to the cwd (GitHub Copilot CLI 1.0.102, asked with
#: ``copilot mcp list --json``), else the project root alone (Cursor's documentation)
HOST_MCP_FILES: dict[str, dict] = {
    "copilot": {"user": (".copilot", "mcp-config.json"), "project": ("", ".mcp.json"), "chain": True},
    "cursor": {"user": (".cursor", "mcp.json"), "project": (".cursor", "mcp.json"), "chain": False},
}


def _host_mcp_sources(binding, profile, trust, table: dict) -> list:
    """The MCP sources of a host with its own files (:data:`HOST_MCP_FILES`)."""
    home = profile.require_home()
    folder, name = table["user"]
    user = str(home / folder)
    out = [ResourceSource(scope=Scope.USER, root=user, base=user, rank=CLAUDE_JSON_USER_RANK,
                          label=f"user:~/{folder}/{name}", kinds=frozenset({KIND}), follow_links=True,
                          components={KIND: (name,)})]
    if not trust.trusted:
        return out
    root = binding.source_root
    chain = [root]
    if table["chain"]:
        try:
            for part in binding.to_source(binding.cwd).relative_to(root).parts:
                chain.append(chain[-1] / part)
        except (ValueError, AttributeError):
            pass
    sub, name = table["project"]
    for i, where in enumerate(chain):
        at = str(where / sub) if sub else str(where)
        rel = where.relative_to(root).as_posix()
        shown = f"{sub}/{name}" if sub else name
        out.append(ResourceSource(scope=Scope.PROJECT, root=at, base=at, rank=min(ROOT_RANK + i, 29),
                                  label=f"project:{shown}" if rel == "." else f"project:{rel}/{shown}",
                                  kinds=frozenset({KIND}), components={KIND: (name,)}))
    return out


@hookimpl
def wskit_resource_sources(binding, profile, trust):
    table = HOST_MCP_FILES.get(getattr(profile, "family", None) or "")
    if table is not None:
        return _host_mcp_sources(binding, profile, trust, table)
    out = []
    if profile.claude_conventions:
        # the user's own file: read whatever the project's trust (nothing of it comes from the project)
        home = str(profile.require_home())
        root = str(binding.source_root)
        out.append(ResourceSource(scope=Scope.USER, root=home, base=home, rank=CLAUDE_JSON_USER_RANK,
                                  label="user:~/.claude.json", kinds=frozenset({KIND}), follow_links=True,
                                  components={KIND: (CLAUDE_JSON,)}))
        out.append(ResourceSource(scope=Scope.USER, root=home, base=home, rank=CLAUDE_JSON_LOCAL_RANK,
                                  label="local:~/.claude.json", kinds=frozenset({KIND}), follow_links=True,
                                  components={KIND: (CLAUDE_JSON, root)}))
    default = getattr(profile, "family", None) is None
    # GitHub Copilot's and Cursor's MCP files, read by wskit's default host too
    for fam in ("copilot", "cursor") if default else ():
        folder, name = HOST_MCP_FILES[fam]["user"]
        user = str(profile.require_home() / folder)
        out.append(ResourceSource(scope=Scope.USER, root=user, base=user, rank=CLAUDE_JSON_USER_RANK - 1,
                                  label=f"user:~/{folder}/{name}", kinds=frozenset({KIND}), follow_links=True,
                                  components={KIND: (name,)}))
    if not trust.trusted:
        return out
    root = str(binding.source_root)
    cursor = os.path.join(root, ".cursor")
    if default:
        out.append(ResourceSource(scope=Scope.PROJECT, root=cursor, base=cursor, rank=ROOT_RANK - 1,
                                  label="project:.cursor/mcp.json", kinds=frozenset({KIND}),
                                  components={KIND: ("mcp.json",)}))
    out.append(ResourceSource(scope=Scope.PROJECT, root=root, base=root, rank=ROOT_RANK, label="project:.mcp.json",
                              kinds=frozenset({KIND})))
    return out


@hookimpl
def wskit_mcp_servers(source):
    own = source.components.get(KIND, ())[:1]  # a host's own file name (Cursor's mcp.json, Copilot's mcp-config.json)
    claude_json = not source.plugin and own == (CLAUDE_JSON,)
    if not (changes.lexists(os.path.join(source.base, CLAUDE_JSON)) if claude_json
            else definitions_present(source, own[0] if own and isinstance(own[0], str) else ".mcp.json")):
        return LoadResult()  # nothing there: the loader is not imported
    from wskit.builtin_plugins.mcp.loader import load_claude_json, load_mcp_servers  # when a source is read

    if claude_json:
        return load_claude_json(source)
    return load_mcp_servers(source)


@hookimpl
def wskit_register_commands(cli):
    """Add ``mcp`` to ``wsctl`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "mcp", "wskit.builtin_plugins.mcp.cli:mcp_group",
                     "MCP server definitions; `check` starts one.")


#: public name -> its submodule and name there, imported on first access (PEP 562), so
#: registering the plugin imports none of them
__getattr__ = lazy_exports(__name__, {
    "approval_status": "approval:approval_status", "expand_server": "loader:expand_server",
    "load_mcp_servers": "loader:load_mcp_servers", "server_approval": "approval:server_approval",
})

if TYPE_CHECKING:
    from wskit.builtin_plugins.mcp.approval import approval_status, server_approval
    from wskit.builtin_plugins.mcp.loader import expand_server, load_mcp_servers
