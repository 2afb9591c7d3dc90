"""MCP server definitions (Claude Code reference/conventions.md §1.9, Blade
reference/blade.md §8.8, §12). Definitions only: nothing is started here.

Sources, lowest first: user settings (``mcpServers`` of ``~/.claude/settings.json``,
``~/.<host>/settings.json``; not for host ``claude``: Claude Code reads none there),
``~/.claude.json``'s ``mcpServers`` (Claude Code's user scope), project ``.mcp.json``, project host settings
files, plugins (namespaced ``plugin:<plugin>:<server>``, alias
``<plugin>__<server>``, never replacing others), session-supplied, explicit
(``--mcp-config``), and ``~/.claude.json``'s ``projects[<project>].mcpServers`` (Claude
Code's local scope) above every project file. Later wins for a bare name; ``strict`` keeps only explicit ones.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from wskit import fs
from wskit.builtin_plugins.mcp import CLAUDE_JSON, KIND  # declared with the plugin
from wskit.formats.definitions import (
    ConfigBlock,
    blocks,
    canonical_sha,
    fixed_vars,
    ident,
    path_field_problem,
    provenance,
    server_map,
)
from wskit.formats.placeholders import expand, expand_tree, variables
from wskit.fs import SafeFsError
from wskit.fs.jsonfile import MAX_JSON_BYTES
from wskit.fs.jsonsafe import check_depth
from wskit.models import Diagnostic, LoadResult, Provenance, ResourceSource, Scope
from wskit.registry import Candidate, Registry

if TYPE_CHECKING:
    from wskit.resources.servers import McpServer


_TRANSPORTS = ("stdio", "sse", "http", "ws")
#: the scheme each remote transport's url must have
_SCHEMES = {"http": r"^https?://", "sse": r"^https?://", "ws": r"^wss?://"}
#: Blade's timeout bounds (ms).
TIMEOUT_RANGE = (1000, 1_800_000)
SESSION_RANK, EXPLICIT_RANK = 60, 70
#: Scopes whose ``${VAR}`` placeholders are substituted only when the server is started
#: (:func:`expand_server`), never at load: what a repository or a plugin wrote is what
#: ``wsctl mcp list`` prints, snapshots record and approval covers.
DEFERRED_SCOPES = frozenset({Scope.PROJECT, Scope.LOCAL, Scope.PLUGIN})


def alias_for(plugin: str | None, name: str) -> str:
    """Identifier-safe alias: ``<plugin>__<server>`` (characters outside ``[A-Za-z0-9_-]`` -> ``_``)."""
    raw = f"{plugin}__{name}" if plugin else name
    return re.sub(r"[^A-Za-z0-9_-]", "_", raw)


def parse_server(name: str, raw: Any, *, rid: str, prov: Provenance, plugin: str | None,
                 env: Mapping[str, str] | None, fixed: Mapping[str, str], path: str
                 ) -> tuple[McpServer | None, list[Diagnostic]]:
    """Validate one server entry and expand its placeholders.

    :returns: the server (None when invalid, with an ``mcp-invalid`` error naming the field).
    """
    diags: list[Diagnostic] = []

    def bad(msg: str) -> tuple[None, list[Diagnostic]]:
        diags.append(Diagnostic(level="error", code="mcp-invalid", path=path, plugin=plugin,
                                message=f"MCP server {name!r}: {msg}"))
        return None, diags

    if not isinstance(raw, dict):
        return bad("definition must be an object")
    missing: list[str] = []
    cfg = expand_tree(raw, env, fixed, missing)
    deferred = prov.scope in DEFERRED_SCOPES
    names = tuple(variables(raw, fixed)) if deferred else ()
    checked = cfg
    if deferred:  # the url is checked as it will run; everything is kept as written
        cfg = expand_tree(raw, None, fixed)
    kind = cfg.get("type") or ("stdio" if "command" in cfg else "http" if "url" in cfg else None)
    if kind is None and "type" not in cfg:
        # nothing to infer the transport from: say what is missing, not "type None"
        return bad("has neither 'command' (stdio server) nor 'url' (http or sse server)")
    if kind not in _TRANSPORTS:
        return bad(f"'type' must be one of {', '.join(_TRANSPORTS)} (got {cfg.get('type')!r})")
    command, args, env_map, url = cfg.get("command"), cfg.get("args", []), cfg.get("env", {}), cfg.get("url")
    headers, cwd = cfg.get("headers", {}), cfg.get("cwd")
    if kind == "stdio" and (not isinstance(command, str) or not command.strip()):
        return bad("stdio servers need a non-empty 'command'")
    checked_url = checked.get("url") if isinstance(checked, dict) else url
    incomplete: list[str] = []
    if kind != "stdio" and isinstance(url, str) and not url.strip():
        incomplete.append("url")  # a placeholder the user fills in: listed, never started
        diags.append(Diagnostic(level="warning", code="mcp-not-startable", path=path, plugin=plugin,
                                message=f"MCP server {name!r}: 'url' is empty; the definition is listed but "
                                "cannot start until a url is configured"))
    elif kind != "stdio" and (not isinstance(url, str) or not re.match(_SCHEMES[kind], str(checked_url))
                              and not missing):
        return bad(f"{kind} servers need a {'ws(s)' if kind == 'ws' else 'http(s)'} 'url'")
    if not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
        return bad("'args' must be an array of strings")
    for label, m in (("env", env_map), ("headers", headers)):
        if not (isinstance(m, dict) and all(isinstance(v, str) for v in m.values())):
            return bad(f"'{label}' must be an object of strings")
    if cwd is not None and not isinstance(cwd, str):
        return bad("'cwd' must be a string")
    if isinstance(cwd, str) and (problem := path_field_problem(cwd, prov.scope, fixed)):
        return bad(f"'cwd' {cwd!r} {problem}")
    timeouts: dict[str, int | None] = {}
    for key in ("timeout", "idleTimeout"):
        v = cfg.get(key)
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or not TIMEOUT_RANGE[0] <= v <= TIMEOUT_RANGE[1]):
            return bad(f"'{key}' must be an integer between {TIMEOUT_RANGE[0]} and {TIMEOUT_RANGE[1]} (ms)")
        timeouts[key] = v
    if timeouts["timeout"] and timeouts["idleTimeout"] and timeouts["idleTimeout"] > timeouts["timeout"]:
        return bad("idleTimeout must not exceed timeout")
    if missing:
        diags.append(Diagnostic(level="warning", code="mcp-undefined-variable", path=path, plugin=plugin,
                                message=f"MCP server {name!r}: undefined variable(s) {', '.join(missing)} without "
                                "default; the server will not be started"))
    from wskit.resources.servers import McpServer  # the model class is built where a file defines one

    return McpServer(
        id=rid, name=name, description=str(cfg.get("description", "")), provenance=prov, transport=kind,
        command=command if kind == "stdio" else None, args=tuple(args), env=dict(env_map), cwd=cwd,
        url=url if kind != "stdio" else None, headers=dict(headers), alias=alias_for(plugin, name),
        config=cfg, timeout=timeouts["timeout"], idle_timeout=timeouts["idleTimeout"], unresolved=tuple(missing),
        incomplete=tuple(incomplete),
        variables=names,
    ), diags


def expand_server(server: McpServer, env: Mapping[str, str]) -> tuple[McpServer, list[str]]:
    """The definition with its deferred ``${VAR}`` placeholders substituted from ``env``, for
    starting it (the MCP service calls this; nothing else should).

    Fields: ``command``, ``args``, ``env`` values, ``url``, ``headers`` values (``cwd`` keeps
    only the plugin-root placeholders, as checked at load). A variable without value and
    default stays literal, as at load.

    :returns: ``(server, values)``: the values substituted, so callers can mask them in
        every message they print.
    """
    if not server.variables:
        return server, []
    values = sorted({env[v] for v in server.variables if env.get(v)}, key=len, reverse=True)

    def ex(text: str | None) -> str | None:
        return None if text is None else expand(text, env)

    update = {"command": ex(server.command), "args": tuple(ex(a) for a in server.args),
              "env": {k: ex(v) for k, v in server.env.items()}, "url": ex(server.url),
              "headers": {k: ex(v) for k, v in server.headers.items()}}
    return server.model_copy(update=update), values


def load_mcp_servers(source: ResourceSource, env: Mapping[str, str] | None = None) -> LoadResult:
    """The MCP servers ``source`` holds (see :mod:`wskit.formats.definitions` for where).

    :param env: variables for ``${VAR}`` (default ``os.environ`` at load time).
    """
    env = os.environ if env is None else env
    found, diags = blocks(source, KIND, ".mcp.json", "mcpServers")
    if source.host == "claude" and not source.plugin:
        # Claude Code reads no mcpServers from settings.json (only .mcp.json, ~/.claude.json, plugins)
        found = [b for b in found if b.file_level]
    servers: list[McpServer] = []
    for block in found:
        path = os.path.join(source.base, block.rel)
        mapping, d = server_map(block, "mcpServers", path, source.plugin)
        diags.extend(d)
        for name, raw in mapping.items():
            srv, d = parse_server(name, raw, rid=ident(source, block.scope, name), prov=provenance(source, block, raw),
                                  plugin=source.plugin, env=env, fixed=fixed_vars(source), path=path)
            diags.extend(d)
            if srv is not None:
                servers.append(srv)
    return LoadResult(resources=tuple(servers), diagnostics=tuple(diags))


def load_claude_json(source: ResourceSource, env: Mapping[str, str] | None = None) -> LoadResult:
    """The MCP servers of Claude Code's ``~/.claude.json`` (``source.base`` is the home):
    its top-level ``mcpServers`` (Claude Code's *user* scope) when the source's components
    name only the file, else ``projects[<project>].mcpServers`` (its *local* scope) where
    ``<project>`` is the second component, the source root's absolute path. Both are the
    user's own configuration: scope ``user``, no approval (Claude Code's ``local`` servers
    are listed as ``user`` ones of the higher-ranked ``local:~/.claude.json`` source).
    The rest of the file (Claude Code's state) is not looked at."""
    env = os.environ if env is None else env
    from wskit.fs.jsonfile import read_json

    parts = source.components.get(KIND, ())
    data, diags = read_json(source.base, CLAUDE_JSON, follow_links=True, max_bytes=16 << 20)
    diags = list(diags)
    if not isinstance(data, dict):
        return LoadResult(diagnostics=tuple(diags))
    where = "mcpServers"
    if len(parts) > 1:
        projects = data.get("projects")
        entry = projects.get(parts[1]) if isinstance(projects, dict) else None
        data = entry if isinstance(entry, dict) else {}
        where = f"projects[{parts[1]!r}].mcpServers"
    if "mcpServers" not in data:
        return LoadResult(diagnostics=tuple(diags))
    path = os.path.join(source.base, CLAUDE_JSON)
    block = ConfigBlock(data["mcpServers"], CLAUDE_JSON, source.scope, False)
    mapping, d = server_map(block, "mcpServers", f"{path} ({where})", None)
    diags.extend(d)
    servers: list[McpServer] = []
    for name, raw in mapping.items():
        srv, d = parse_server(name, raw, rid=ident(source, block.scope, name), prov=provenance(source, block, raw),
                              plugin=None, env=env, fixed={}, path=path)
        diags.extend(d)
        if srv is not None:
            servers.append(srv)
    return LoadResult(resources=tuple(servers), diagnostics=tuple(diags))


def parse_mcp_config(text_or_path: str, cwd: str, env: Mapping[str, str] | None = None,
                     scope: Scope = Scope.CLI) -> tuple[list[McpServer], list[Diagnostic]]:
    """One ``--mcp-config`` argument: a JSON string or a file path (relative to
    ``cwd``) holding ``{mcpServers: {...}}``, a flat map, or one ``{name, type, …}``."""
    env = os.environ if env is None else env
    text, path = text_or_path, "<--mcp-config>"
    if not text_or_path.lstrip().startswith("{"):
        path = os.path.abspath(os.path.join(cwd, text_or_path))
        try:
            # safe file access: bounded (over MAX_JSON_BYTES is refused, never read
            # whole), and a FIFO or device named here is refused instead of blocking
            raw = fs.read_bytes(os.path.dirname(path), os.path.basename(path), max_bytes=MAX_JSON_BYTES,
                                follow_links=True).raw
            text = fs.decode_text(raw, path)
        except SafeFsError as err:
            return [], [Diagnostic(level="error", code="mcp-config", path=path, message=f"cannot read: {err}")]
    try:
        check_depth(text, 64, path)  # json.loads raised RecursionError on deep nesting
        data = json.loads(text)
    except (ValueError, RecursionError, SafeFsError) as err:
        return [], [Diagnostic(level="error", code="invalid-json", path=path, message=f"invalid JSON: {err}")]
    if isinstance(data, dict) and isinstance(data.get("name"), str) and ("command" in data or "url" in data):
        data = {data["name"]: {k: v for k, v in data.items() if k != "name"}}
    block = ConfigBlock(data, path, scope, True)
    mapping, diags = server_map(block, "mcpServers", path, None)
    out: list[McpServer] = []
    for name, raw in mapping.items():
        prov = Provenance(scope=scope, source_root=cwd, path=path, sha256=canonical_sha(raw))
        srv, d = parse_server(name, raw, rid=f"{scope.value}:{name}", prov=prov, plugin=None, env=env, fixed={}, path=path)
        diags.extend(d)
        if srv is not None:
            out.append(srv)
    return out, diags


def resolve_mcp_servers(workspace: Any, *, session: Iterable[McpServer] = (), explicit: Iterable[str] = (),
                        strict: bool = False, env: Mapping[str, str] | None = None
                        ) -> tuple[Registry, list[Diagnostic]]:
    """The effective MCP servers of a workspace or session (Blade §12 merge order).

    Workspace servers (user < project < local by source rank), plugin servers
    (namespaced, never replacing), then ``session`` servers, then each
    ``explicit`` config (later wins). ``strict`` keeps only explicit ones.
    A stdio server without ``cwd`` gets the execution root; a relative one is
    resolved against it.

    :param workspace: a :class:`~wskit.workspace.WorkspaceResources` or
        :class:`~wskit.session.SessionResources`.
    :returns: ``(registry, diagnostics)``.
    """
    binding = workspace.binding
    exec_root = str(binding.execution_root)
    cands: list[Candidate] = []
    diags: list[Diagnostic] = []
    if not strict:
        reg = workspace.registry(KIND)
        cands += [Candidate(r, 0, 0) for r in reg.active()]
        cands += [Candidate(r, SESSION_RANK, i) for i, r in enumerate(session)]
    for i, cfg in enumerate(explicit):
        servers, d = parse_mcp_config(cfg, str(binding.cwd), env)
        diags.extend(d)
        cands += [Candidate(s, EXPLICIT_RANK, i) for s in servers]
    from wskit.resources.servers import McpServer

    fixed: list[Candidate] = []
    for c in cands:
        s = c.resource
        if isinstance(s, McpServer) and s.transport == "stdio":
            cwd = os.path.join(exec_root, s.cwd) if s.cwd else exec_root
            s = s.model_copy(update={"cwd": cwd})
        fixed.append(Candidate(s, c.rank, c.order))
    reg = Registry.build(KIND, fixed)
    return reg, diags + list(reg.diagnostics)
