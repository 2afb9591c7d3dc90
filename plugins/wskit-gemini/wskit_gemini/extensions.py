"""Gemini CLI extensions (``gemini-extension.json``) as namespaced content plugins.

Where (reference/conventions.md §3.4): every ``<home>/.gemini/extensions/<dir>/``
(user-installed) and, for a *trusted* project, ``<project>/.gemini/extensions/<dir>/``
holding a ``gemini-extension.json``. Manifest fields read: ``name`` (lowercase
letters, digits and ``-``; a name unlike its folder is a warning), ``version``,
``description``, ``contextFileName`` (string or list; default ``GEMINI.md`` when
present), ``mcpServers`` (Gemini's schema: ``command``, ``url`` = SSE, ``httpUrl``
= streamable HTTP; ``trust`` is not allowed in extensions and is dropped with a
warning), ``excludeTools``; folders ``commands/`` (TOML), ``skills/``, ``agents/``.
``${extensionPath}``, ``${workspacePath}`` and ``${/}`` are expanded in the manifest.

Each extension becomes one plugin-scope :class:`~wskit.models.ResourceSource`
(``plugin`` = the extension name), so its resources are ``plugin:<ext>:<name>``
and its MCP servers get the alias ``<ext>__<server>`` (wskit's namespacing).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from wskit import fs
from wskit.models import Diagnostic, ResourceSource, Scope
from wskit.util.lazyre import lazy_pattern
from wskit.values import Value

from . import EXTENSION_LABEL_PREFIX, is_extension_source  # noqa: F401  (is_extension_source re-exported)
from .config import GEMINI_DIR, read_jsonc

MANIFEST = "gemini-extension.json"
LABEL_PREFIX = EXTENSION_LABEL_PREFIX
#: Source ranks: below content plugins (30-35), above native project folders (20-22).
USER_RANK, PROJECT_RANK = 28, 29
#: Kinds an extension contributes (its ``hooks/hooks.json`` is Gemini's own format: not read).
KINDS = frozenset({"skill", "command", "agent", "mcp_server", "gemini_extension"})
_NAME = lazy_pattern(globals(), "_NAME", r"^[a-z0-9][a-z0-9-]*\Z")
#: Largest extension context file, in bytes (the rule catalog applies its own limit too).
MAX_CONTEXT_BYTES = 1 << 20


class Extension(Value):
    """One valid extension: its folder, scope, parsed manifest and derived values (a plain
    class, so start-up compiles nothing: see :mod:`wskit.values`).

    :ivar root: absolute extension folder.
    :ivar base: the folder provenance paths of its context files are relative to
        (the home for user extensions, the project for project ones).
    :ivar context_files: existing context files, relative to ``root``.
    :ivar mcp_servers: ``mcpServers`` translated to wskit's schema (``type`` set); a new
        empty dict unless given.
    """

    __slots__ = ("__weakref__",)
    name: str
    root: str
    scope: str
    base: str
    manifest: dict[str, Any]
    version: str
    description: str
    context_files: tuple[str, ...]
    mcp_servers: dict[str, Any]
    exclude_tools: tuple[str, ...]

    def __init__(self, name: str, root: str, scope: str, base: str, manifest: dict[str, Any], version: str = "",
                 description: str = "", context_files: tuple[str, ...] = (),
                 mcp_servers: dict[str, Any] | None = None, exclude_tools: tuple[str, ...] = ()) -> None:
        self.name = name
        self.root = root
        self.scope = scope
        self.base = base
        self.manifest = manifest
        self.version = version
        self.description = description
        self.context_files = context_files
        self.mcp_servers = {} if mcp_servers is None else mcp_servers
        self.exclude_tools = exclude_tools

    @property
    def rank(self) -> int:
        return USER_RANK if self.scope == "user" else PROJECT_RANK

    def source(self, host: str | None = None) -> ResourceSource:
        """The plugin-scope source the kind loaders read."""
        return ResourceSource(
            scope=Scope.PLUGIN, root=self.root, base=self.root, rank=self.rank, label=LABEL_PREFIX + self.name,
            plugin=self.name, components={"mcp_server": (), "command": ("commands",), "skill": ("skills",),
                                          "agent": ("agents",)},
            kinds=KINDS, inline={"mcp_server": self.mcp_servers}, host=host,
        )


def _expand(value: Any, variables: dict[str, str]) -> Any:
    if isinstance(value, str):
        return re.sub(r"\$\{(extensionPath|workspacePath|/)\}", lambda m: variables[m.group(1)], value)
    if isinstance(value, list):
        return [_expand(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: _expand(v, variables) for k, v in value.items()}
    return value


def _servers(raw: Any, path: str, name: str, diags: list[Diagnostic]) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        diags.append(Diagnostic(level="error", code="gemini-extension-invalid", path=path, plugin=name,
                                message="mcpServers must be an object; no server loaded"))
        return {}
    out: dict[str, Any] = {}
    for server, cfg in raw.items():
        if not isinstance(cfg, dict):
            out[server] = cfg  # reported by wskit's MCP loader (mcp-invalid)
            continue
        cfg = dict(cfg)
        if "trust" in cfg:
            cfg.pop("trust")
            diags.append(Diagnostic(level="warning", code="gemini-extension-trust-ignored", path=path, plugin=name,
                                    message=f"MCP server {server!r}: 'trust' is not allowed in extensions; ignored"))
        if "httpUrl" in cfg:
            cfg.setdefault("type", "http")
            cfg["url"] = cfg.pop("httpUrl")
        elif "url" in cfg:
            cfg.setdefault("type", "sse")
        elif "command" in cfg:
            cfg.setdefault("type", "stdio")
        out[server] = cfg
    return out


def load_extension(root: str, scope: str, base: str, workspace: str | None
                   ) -> tuple[Extension | None, list[Diagnostic]]:
    """Parse the extension in ``root`` (absolute).

    :param scope: ``user`` or ``project``.
    :param base: home (user) or project root (project).
    :param workspace: the project root for ``${workspacePath}`` (None: left as written).
    :returns: the extension, or None with an error diagnostic naming the manifest.
    """
    path = os.path.join(root, MANIFEST)
    data, diags = read_jsonc(root, MANIFEST, follow_links=scope == "user", code="gemini-extension-invalid")
    if data is None:
        if not diags:
            return None, []
        return None, diags
    if not isinstance(data, dict):
        return None, [Diagnostic(level="error", code="gemini-extension-invalid", path=path,
                                 message="gemini-extension.json must hold an object")]
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        return None, [Diagnostic(level="error", code="gemini-extension-invalid", path=path,
                                 message=f"'name' must be lowercase letters, digits and '-' (got {name!r})")]
    if name != os.path.basename(root):
        diags.append(Diagnostic(level="warning", code="gemini-extension-name", path=path, plugin=name,
                                message=f"extension name {name!r} differs from its folder {os.path.basename(root)!r}"))
    variables = {"extensionPath": root, "workspacePath": workspace or "${workspacePath}", "/": os.sep}
    data = _expand(data, variables)
    ctx = data.get("contextFileName")
    names = [ctx] if isinstance(ctx, str) else ctx if isinstance(ctx, list) else ["GEMINI.md"]
    context: list[str] = []
    for n in names:
        if not isinstance(n, str) or n.startswith("/") or ".." in n.replace("\\", "/").split("/"):
            diags.append(Diagnostic(level="error", code="gemini-extension-invalid", path=path, plugin=name,
                                    message=f"contextFileName entry {n!r} must be a relative path inside the extension"))
            continue
        try:
            fs.read_bytes(root, n, max_bytes=MAX_CONTEXT_BYTES, follow_links=scope == "user")
            context.append(n)
        except fs.SafeFsError as err:
            if ctx is not None or err.code != "not-found":
                diags.append(err.diagnostic(plugin=name))
    exclude = data.get("excludeTools", [])
    if not (isinstance(exclude, list) and all(isinstance(t, str) for t in exclude)):
        diags.append(Diagnostic(level="warning", code="gemini-extension-invalid", path=path, plugin=name,
                                message="excludeTools must be a list of strings; ignored"))
        exclude = []
    ext = Extension(
        name=name, root=root, scope=scope, base=base, manifest=data, version=str(data.get("version", "")),
        description=str(data.get("description", "")), context_files=tuple(context),
        mcp_servers=_servers(data.get("mcpServers"), path, name, diags), exclude_tools=tuple(exclude),
    )
    return ext, diags


def find_extensions(home: str | Path, project: str | Path | None) -> tuple[list[Extension], list[Diagnostic]]:
    """Every extension of the user (``~/.gemini/extensions``) and, when ``project``
    is given (trusted projects only), of the project. A project extension of the
    same name replaces the user one (with an info diagnostic).
    """
    found: dict[str, Extension] = {}
    diags: list[Diagnostic] = []
    layers = [("user", str(home))] + ([("project", str(project))] if project is not None else [])
    for scope, base in layers:
        rel = f"{GEMINI_DIR}/extensions"
        try:
            entries = fs.scan_dir(base, rel, follow_links=scope == "user")
        except fs.SafeFsError as err:
            if err.code != "not-found":
                diags.append(err.diagnostic())
            continue
        for e in sorted(entries, key=lambda e: e.name):
            if e.type != "dir" or e.name.startswith("."):
                continue
            ext, d = load_extension(os.path.join(base, rel, e.name), scope, base,
                                    str(project) if project is not None else None)
            diags += d
            if ext is None:
                continue
            if ext.name in found:
                diags.append(Diagnostic(level="info", code="gemini-extension-shadowed", path=ext.root, plugin=ext.name,
                                        message=f"extension {ext.name!r} at {found[ext.name].root} is replaced by this one"))
            found[ext.name] = ext
    return list(found.values()), diags
