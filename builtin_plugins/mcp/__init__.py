"""Built-in plugin ``mcp``: the ``mcp_server`` kind (definitions only), the
project ``.mcp.json`` source, Claude Code's ``~/.claude.json`` (user and local scopes), and
``wsctl mcp list``. See :mod:`wskit.builtin_plugins.mcp.loader`."""

from __future__ import annotations

from wskit.builtin_plugins.mcp.loader import CLAUDE_JSON, KIND, load_claude_json, load_mcp_servers
from wskit.kinds import ResourceKind
from wskit.models import ResourceSource, Scope
from wskit.plugin import hookimpl

__all__ = [
    "CLAUDE_JSON_LOCAL_RANK", "CLAUDE_JSON_USER_RANK", "ROOT_RANK", "duplicate_plugin_servers", "wskit_mcp_servers", "wskit_register_commands", "wskit_resource_kinds",
    "wskit_resource_sources"
]


#: ``.mcp.json`` ranks just below the project config folders (whose settings files win).
ROOT_RANK = 19


@hookimpl
def wskit_resource_kinds():
    # a manifest's "mcpServers" adds files to .mcp.json, or holds the servers inline
    return [ResourceKind(name=KIND, hook="wskit_mcp_servers", default_dir=".mcp.json", plural="mcp_servers",
                         manifest_keys=("mcpServers",), manifest_adds=True, manifest_inline=True,
                         filter=duplicate_plugin_servers)]


def duplicate_plugin_servers(resources: list, profile) -> tuple[list, list]:
    """The kind's filter: a plugin server that would start exactly what an earlier server
    starts (same transport and command, arguments and environment, or same url and headers,
    as written) is left out with an ``mcp-duplicate`` info, as Claude Code suppresses a
    plugin server identical to a configured one. Non-plugin servers come first (user,
    project, local), then plugin servers in source order; only plugin ones are dropped."""
    from wskit.models import Diagnostic

    def key(s) -> tuple:
        if s.transport == "stdio":
            return ("stdio", s.command, s.args, tuple(sorted(s.env.items())))
        return (s.transport, s.url, tuple(sorted(s.headers.items())))

    seen: dict[tuple, object] = {}
    for s in resources:
        if not s.plugin:
            seen.setdefault(key(s), s)
    kept, diags = [], []
    for s in resources:
        if s.plugin:
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


@hookimpl
def wskit_resource_sources(binding, profile, trust):
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
    if not trust.trusted:
        return out
    root = str(binding.source_root)
    out.append(ResourceSource(scope=Scope.PROJECT, root=root, base=root, rank=ROOT_RANK, label="project:.mcp.json",
                              kinds=frozenset({KIND})))
    return out


@hookimpl
def wskit_mcp_servers(source):
    if not source.plugin and source.components.get(KIND, ())[:1] == (CLAUDE_JSON,):
        return load_claude_json(source)
    return load_mcp_servers(source)


@hookimpl
def wskit_register_commands(cli):
    """Add ``mcp`` to ``wsctl`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "mcp", "wskit.builtin_plugins.mcp.cli:mcp_group",
                     "MCP server definitions; `check` starts one.")
