"""LSP server definitions: ``.lsp.json`` (project, plugins), ``lspServers``
settings keys and marketplace inline ``lspServers`` (Claude Code
reference/conventions.md §1.12), validated with Blade's schema and limits
(reference/blade.md §13). Plugin servers have ids ``plugin:<plugin>:<server>``.

Two deliberate differences from Blade: a timeout outside Blade's range is
clamped into it with an ``lsp-timeout-clamped`` warning instead of failing
the server (the published jdtls and kotlin entries ask for a 120000 ms
startup); other out-of-range values are errors. And extensions keep their case (Blade
lower-cases them), because case-sensitive file systems distinguish ``.C``
(C++) from ``.c`` and clangd's published map relies on it.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from wskit.builtin_plugins.lsp import KIND  # declared with the plugin
from wskit.models import Diagnostic, LoadResult, Provenance, ResourceSource

if TYPE_CHECKING:
    from wskit.resources.servers import LspServer
from wskit.formats.definitions import blocks, fixed_vars, ident, path_field_problem, provenance, server_map
from wskit.formats.placeholders import expand_tree
from wskit.util.lazyre import lazy_pattern

MAX_SERVERS = 32
NAME_RE = lazy_pattern(globals(), "NAME_RE", r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}\Z")
EXT_RE = lazy_pattern(globals(), "EXT_RE", r"^\.[A-Za-z0-9_+-]{1,32}\Z")
MAX_JSON_OPTIONS = 256 * 1024
#: field -> (attribute, min, max, default) for Blade's integer limits.
INT_FIELDS = {
    "priority": ("priority", -1000, 1000),
    "startupTimeout": ("startup_timeout", 100, 60000),
    "shutdownTimeout": ("shutdown_timeout", 100, 10000),
    "requestTimeout": ("request_timeout", 100, 60000),
    "diagnosticWaitTimeout": ("diagnostic_wait_timeout", 0, 5000),
    "maxRestarts": ("max_restarts", 0, 10),
}
KNOWN = {"command", "args", "extensionToLanguage", "env", "initializationOptions", "settings", "enabled",
         "transport", "workspaceFolder", "restartOnCrash", "diagnostics", "description", *INT_FIELDS}


def parse_lsp_server(name: str, raw: Any, *, rid: str, prov: Provenance, plugin: str | None,
                     fixed: dict[str, str], path: str) -> tuple[LspServer | None, list[Diagnostic]]:
    """Validate one server (Blade §13 limits); plugin-root placeholders are expanded
    in command, args and env. :returns: the server or None with an ``lsp-invalid`` error."""
    def bad(msg: str) -> tuple[None, list[Diagnostic]]:
        return None, [Diagnostic(level="error", code="lsp-invalid", path=path, plugin=plugin,
                                 message=f"LSP server {name!r}: {msg}")]

    if not NAME_RE.match(name):
        return bad("name must match [A-Za-z0-9][A-Za-z0-9_.:-]{0,127}")
    if not isinstance(raw, dict):
        return bad("definition must be an object")
    unknown = sorted(set(raw) - KNOWN)
    if unknown:
        return bad(f"Unknown LSP server field: {name}.{unknown[0]}")
    cfg = dict(raw)
    for key in ("command", "args", "env"):
        if key in cfg:
            cfg[key] = expand_tree(cfg[key], None, fixed)
    command = cfg.get("command")
    if not isinstance(command, str) or not command.strip() or "\0" in command or "\n" in command:
        return bad("'command' must be a non-empty string without NUL or newline")
    args = cfg.get("args", [])
    if not (isinstance(args, list) and len(args) <= 128 and all(isinstance(a, str) for a in args)):
        return bad("'args' must be an array of at most 128 strings")
    ext = cfg.get("extensionToLanguage")
    if not isinstance(ext, dict) or not 1 <= len(ext) <= 64:
        return bad("'extensionToLanguage' must map 1 to 64 extensions to language ids")
    ext_map: dict[str, str] = {}
    for e, lang in ext.items():
        key = e if e.startswith(".") else f".{e}"
        if not EXT_RE.match(key) or not isinstance(lang, str) or not lang:
            return bad(f"invalid extensionToLanguage entry {e!r}: {lang!r}")
        ext_map[key] = lang
    env = cfg.get("env", {})
    if not (isinstance(env, dict) and all(isinstance(v, str) for v in env.values())):
        return bad("'env' must be an object of strings")
    for key in ("initializationOptions", "settings"):
        if key in cfg and len(json.dumps(cfg[key])) > MAX_JSON_OPTIONS:
            return bad(f"'{key}' is larger than {MAX_JSON_OPTIONS} bytes of JSON")
    for key in ("enabled", "restartOnCrash", "diagnostics"):
        if key in cfg and not isinstance(cfg[key], bool):
            return bad(f"'{key}' must be a boolean")
    transport = cfg.get("transport", "stdio")
    if transport not in ("stdio", "socket"):
        return bad("'transport' must be stdio or socket")
    ints: dict[str, int] = {}
    notes: list[Diagnostic] = []
    for key, (attr, lo, hi) in INT_FIELDS.items():
        if key in cfg:
            v = cfg[key]
            if isinstance(v, int) and not isinstance(v, bool) and key.endswith("Timeout") and not lo <= v <= hi:
                clamped = min(max(v, lo), hi)
                notes.append(Diagnostic(level="warning", code="lsp-timeout-clamped", path=path, plugin=plugin,
                                        message=f"LSP server {name!r}: {key} {v} ms is outside Blade's range "
                                        f"{lo}..{hi}; using {clamped}"))
                v = clamped
            if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
                return bad(f"{key} must be an integer between {lo} and {hi}")
            ints[attr] = v
    wf = cfg.get("workspaceFolder")
    if wf is not None and not isinstance(wf, str):
        return bad("'workspaceFolder' must be a string")
    if isinstance(wf, str) and (problem := path_field_problem(wf, prov.scope, fixed)):
        return bad(f"'workspaceFolder' {wf!r} {problem}")
    from wskit.resources.servers import LspServer  # the model class is built where a file defines one

    return LspServer(
        id=rid, name=name, description=str(cfg.get("description", "")), provenance=prov, command=command,
        args=tuple(args), env=dict(env), extension_to_language=ext_map,
        initialization_options=cfg.get("initializationOptions"), settings=cfg.get("settings"),
        enabled=cfg.get("enabled", True), transport=transport, workspace_folder=wf,
        restart_on_crash=cfg.get("restartOnCrash", True), diagnostics=cfg.get("diagnostics", True),
        config=cfg, **ints,
    ), notes


def load_lsp_servers(source: ResourceSource) -> LoadResult:
    """The LSP servers ``source`` holds (see :mod:`wskit.formats.definitions`); more
    than 32 in one file is an ``lsp-too-many`` error and none of them load."""
    found, diags = blocks(source, KIND, ".lsp.json", "lspServers")
    if source.host == "claude" and not source.plugin:
        # Claude Code reads LSP servers from plugins only, never from settings files
        found = [b for b in found if b.file_level]
    servers: list[LspServer] = []
    for block in found:
        path = os.path.join(source.base, block.rel)
        mapping, d = server_map(block, "lspServers", path, source.plugin)
        diags.extend(d)
        if len(mapping) > MAX_SERVERS:
            diags.append(Diagnostic(level="error", code="lsp-too-many", path=path, plugin=source.plugin,
                                    message=f"{len(mapping)} LSP servers defined; at most {MAX_SERVERS} are allowed"))
            continue
        for name, raw in mapping.items():
            srv, d = parse_lsp_server(name, raw, rid=ident(source, block.scope, name),
                                      prov=provenance(source, block, raw), plugin=source.plugin,
                                      fixed=fixed_vars(source), path=path)
            diags.extend(d)
            if srv is not None:
                servers.append(srv)
    return LoadResult(resources=tuple(servers), diagnostics=tuple(diags))
