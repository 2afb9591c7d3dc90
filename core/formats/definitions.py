"""Where a source keeps MCP, LSP and hook definitions, shared by their loaders.

- a plugin source: its component files (``.mcp.json``, ``.lsp.json``,
  ``hooks/hooks.json`` plus manifest paths, each once) and inline objects;
- a project-root source (``root == base``, contributed by the ``mcp``/``lsp``
  built-ins): ``.mcp.json`` / ``.lsp.json``;
- a config folder (``~/.claude``, ``<ws>/.blade``…; not ``.agents``): the ``settings.json`` and
  ``settings.local.json`` key (``mcpServers``, ``lspServers``, ``hooks``);
  definitions from ``settings.local.json`` get scope ``local``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from typing import Any

from wskit.formats.placeholders import plugin_root_vars
from wskit.fs.jsonfile import read_json
from wskit.models import Diagnostic, Provenance, ResourceSource, Scope
from wskit.values import Value

__all__ = [
    "blocks", "canonical_sha", "ConfigBlock", "fixed_vars", "ident", "iter_named", "path_field_problem",
    "provenance", "rel_root", "server_map"
]


class ConfigBlock(Value):
    """One object of definitions: ``data`` (the map), where it came from, and its scope
    (a plain class, so start-up compiles nothing: see :mod:`wskit.values`).

    :ivar file_level: True for a dedicated file (it may hold the map flat) rather than a settings key.
    """

    __slots__ = ("__weakref__",)
    data: Any
    rel: str
    scope: Scope
    file_level: bool

    def __init__(self, data: Any, rel: str, scope: Scope, file_level: bool) -> None:
        self.data = data
        self.rel = rel
        self.scope = scope
        self.file_level = file_level


def rel_root(source: ResourceSource) -> str:
    r = os.path.relpath(source.root, source.base).replace(os.sep, "/")
    return "" if r == "." else r


def blocks(source: ResourceSource, kind: str, default_file: str, settings_key: str
           ) -> tuple[list[ConfigBlock], list[Diagnostic]]:
    """The definition blocks ``source`` holds for ``kind`` (see module doc)."""
    out: list[ConfigBlock] = []
    diags: list[Diagnostic] = []
    follow = source.follow_links
    if source.plugin:
        for rel in source.dirs_for(kind, default_file):
            data, d = read_json(source.root, rel, plugin=source.plugin)
            diags.extend(d)
            if data is not None:
                out.append(ConfigBlock(data, rel, source.scope, True))
        if source.inline.get(kind) is not None:
            out.append(ConfigBlock(source.inline[kind], f"(inline {settings_key})", source.scope, True))
        return out, diags
    base_rel = rel_root(source)
    if base_rel == "":
        # a host's own file name for the folder (``~/.copilot/mcp-config.json``, ``.cursor/mcp.json``)
        default_file = (source.components.get(kind) or (default_file,))[0]
        data, d = read_json(source.base, default_file, follow_links=follow)
        diags.extend(d)
        if data is not None:
            out.append(ConfigBlock(data, default_file, source.scope, True))
        return out, diags
    if base_rel.rsplit("/", 1)[-1] == ".agents":  # not a settings folder in any convention
        return out, diags
    for name, scope in (("settings.json", source.scope), ("settings.local.json", Scope.LOCAL)):
        rel = f"{base_rel}/{name}"
        data, d = read_json(source.base, rel, follow_links=follow)
        diags.extend(d)
        if isinstance(data, dict) and settings_key in data:
            if scope is Scope.LOCAL and source.scope is not Scope.PROJECT:
                scope = source.scope
            out.append(ConfigBlock(data[settings_key], rel, scope, False))
    return out, diags


def server_map(block: ConfigBlock, key: str, path: str, plugin: str | None
               ) -> tuple[dict[str, Any], list[Diagnostic]]:
    """``{key: {...}}`` or a flat map (dedicated files only) -> the name -> definition map."""
    data = block.data
    if block.file_level and isinstance(data, dict) and key in data:
        data = data[key]
    if block.file_level and isinstance(data, dict) and "servers" in data and key == "mcpServers" and len(data) == 1:
        return {}, [Diagnostic(level="error", code="mcp-servers-key", path=path, plugin=plugin,
                               message="top-level key 'servers' (VS Code style) is not valid; use 'mcpServers'")]
    if not isinstance(data, dict):
        return {}, [Diagnostic(level="error", code="config-invalid", path=path, plugin=plugin,
                               message=f"'{key}' must be an object of name -> definition")]
    return data, []


def fixed_vars(source: ResourceSource) -> dict[str, str]:
    """Plugin-root placeholders for a plugin source (empty otherwise)."""
    return plugin_root_vars(source.root, source.host) if source.plugin else {}


def canonical_sha(value: Any) -> str:
    """Hex SHA-256 of the canonical JSON of ``value`` (sorted keys, no spaces)."""
    from wskit.util.digest import sha256_hex

    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return sha256_hex(text.encode("utf-8"))


def provenance(source: ResourceSource, block: ConfigBlock, raw: Any) -> Provenance:
    """Provenance of one definition: the block's file and the digest of the entry's canonical JSON."""
    return Provenance(scope=block.scope, source_root=source.base, path=block.rel, plugin=source.plugin,
                      sha256=canonical_sha(raw))


def ident(source: ResourceSource, scope: Scope, name: str) -> str:
    """``plugin:<plugin>:<name>`` for plugin sources, else ``<scope>:<name>``."""
    return f"plugin:{source.plugin}:{name}" if source.plugin else f"{scope.value}:{name}"


def iter_named(mapping: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    yield from mapping.items()


#: Scopes whose files strangers write (a cloned project, a downloaded plugin).
_STRANGER_SCOPES = frozenset({Scope.PROJECT, Scope.LOCAL, Scope.PLUGIN})


def path_field_problem(value: str, scope: Scope, roots: Mapping[str, str] | None = None) -> str | None:
    """Why a path-naming field of a server definition (MCP ``cwd``, LSP
    ``workspaceFolder``) is refused, or None when it is acceptable.

    NUL and newlines are always refused. In project, local and plugin sources
    (files strangers write) a relative value must pass
    :func:`wskit.fs.split_relative` (no ``..`` escape, backslash, drive or
    ``:``), and an absolute one must lie inside one of ``roots`` (the plugin
    root a ``${CLAUDE_PLUGIN_ROOT}`` placeholder expanded to); user, admin and
    CLI definitions are the user's own and may name any folder.

    :returns: a message fragment (the caller wraps it in its own diagnostic).
    """
    if "\0" in value or "\n" in value or "\r" in value:
        return "holds a NUL or newline"
    if scope not in _STRANGER_SCOPES:
        return None
    if value.startswith("/"):
        norm = os.path.normpath(value)
        for root in (roots or {}).values():
            r = os.path.normpath(str(root))
            if norm == r or norm.startswith(r.rstrip("/") + "/"):
                return None
        return f"is absolute and outside the {scope.value} source (path-absolute)"
    from wskit import fs

    try:
        fs.split_written(value)
    except fs.SafeFsError as err:
        if err.code != "not-found":
            return f"is refused ({err.code}): {err.args[0]}"
    return None
