"""Hook definitions from settings files and plugins (Claude Code
reference/conventions.md §1.7, Blade reference/blade.md §11.2–11.3).

Shape: ``{"hooks": {"<Event>": [{"matcher": "<m>", "hooks": [<handler>…]}]}}``
(plugin ``hooks/hooks.json`` may also be the event map itself, with an optional
``description``). One :class:`~wskit.resources.hooks.HookDefinition` per
handler. Handler types ``command`` and ``http`` (and ``prompt``, kept for the
host); others (``agent``, ``mcp_tool``) are reported and skipped. Commands are
kept unexpanded: the runner sets ``CLAUDE_PLUGIN_ROOT`` from ``plugin_root``.
A handler's ``if`` is kept as ``if_condition`` (:mod:`wskit.builtin_plugins.hooks.conditions`).
"""

from __future__ import annotations

import json
import math
import os
from typing import TYPE_CHECKING, Any

from wskit.builtin_plugins.hooks import KIND, MAX_TIMEOUT  # declared with the plugin
from wskit.builtin_plugins.hooks.patterns import matcher_matches as _matcher_matches
from wskit.builtin_plugins.hooks.patterns import matcher_problem
from wskit.formats.definitions import blocks, ident, provenance
from wskit.models import Diagnostic, LoadResult, ResourceSource
from wskit.util.lazyre import lazy_pattern

if TYPE_CHECKING:
    from wskit.resources.hooks import HookDefinition


_ENV_NAME = lazy_pattern(globals(), "_ENV_NAME", r"[A-Za-z_][A-Za-z0-9_]*\Z")
_TOKEN = lazy_pattern(globals(), "_TOKEN", r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def header_problem(name: object, value: object) -> str | None:
    """Why a header cannot be sent as written (the loader refuses the hook), or None."""
    if not isinstance(name, str) or not _TOKEN.fullmatch(name):
        return f"header name {name!r} is not an HTTP token"
    if not isinstance(value, str):
        return f"header {name!r} must be a string"
    if any(c in value for c in "\r\n\x00"):
        return f"header {name!r} holds CR, LF or NUL (header injection)"
    return None


def timeout_problem(timeout: object) -> str | None:
    """Why a hook's ``timeout`` (seconds; None: the runner's default) is refused, or None."""
    if timeout is None or (not isinstance(timeout, bool) and isinstance(timeout, (int, float))
                           and math.isfinite(timeout) and 0 < timeout <= MAX_TIMEOUT):
        return None
    return f"'timeout' must be a number of seconds above 0 and at most {MAX_TIMEOUT:g}, not {timeout!r}"


#: the field each hook type needs, non-empty (Claude Code's hooks settings; Cursor's take command and prompt)
HOOK_FIELDS = {"command": "command", "http": "url", "prompt": "prompt"}


def handler_problem(h: object, types: tuple[str, ...], label: str) -> tuple[str, str, str] | None:
    """Why one hook handler ``h`` (an object of a hooks array, Claude Code's or Cursor's) is
    skipped, as ``(message, level, code)``, or None when it passes these checks: an object, a
    ``type`` (default ``command``) among ``types``, that type's :data:`HOOK_FIELDS` field a
    non-empty string, a valid ``timeout`` (:func:`timeout_problem`). ``label`` names the
    handler in the message (``hook 2``, ``preToolUse[0]``). Never raises."""
    if not isinstance(h, dict):
        return f"{label} must be an object", "error", "hooks-invalid"
    htype = h.get("type", "command")
    if htype not in types:
        return (f"{label}: hook type {htype!r} is not supported here ({', '.join(types)}); skipped", "warning",
                "hook-type-unsupported")
    need = HOOK_FIELDS[htype]
    if not isinstance(h.get(need), str) or not h[need].strip():
        return f"{label}: a {htype} hook needs a non-empty {need!r}", "error", "hooks-invalid"
    why = timeout_problem(h.get("timeout"))
    if why:
        return f"{label}: {why}; skipped", "error", "hooks-invalid"
    return None


def matcher_matches(matcher: str | None, value: str | None) -> bool:
    """Claude Code's matcher rule, the one the runner applies:
    :func:`wskit.builtin_plugins.hooks.patterns.matcher_matches` (empty or ``*`` matches
    all; only letters, digits, ``_``, ``-``, spaces, ``,`` and ``|`` -> exact names
    separated by ``|`` or ``,``; anything else -> an unanchored regular expression on
    the linear-time engine; an invalid one matches exactly, Blade §11.3). ``value`` None
    (an event with nothing to match): True.

    :raises PatternRefused: a regular expression past the bounds of that module."""
    return _matcher_matches(matcher, value)


def _matcher_text(raw: Any) -> tuple[str | None, str | None]:
    """The matcher as a string (Blade's ``{tools: [...]}`` object joined by ``|``), or an error."""
    if raw is None or isinstance(raw, str):
        return raw or "", None
    if isinstance(raw, dict):
        tools = raw.get("tools")
        if tools is None:
            return "", None
        if isinstance(tools, str):
            return tools, None
        if isinstance(tools, list) and all(isinstance(t, str) for t in tools):
            return "|".join(tools), None
    return None, "'matcher' must be a string (or Blade's {tools, paths, commands} object)"


def _if_condition(event: str, j: int, h: dict[str, Any], bad) -> str | None:
    """The handler's ``if`` as kept on the definition (None: absent or empty), with a
    warning when it can never be evaluated as written (see :mod:`wskit.builtin_plugins.hooks.conditions`):
    on a non-tool event the handler never runs (Claude Code); an unparsable value is
    kept and the runner ignores it, running the handler on every call its matcher
    matches, so a guard that was meant to restrict calls still runs (fails closed)."""
    raw = h.get("if")
    if raw is None or raw == "":
        return None
    from wskit.builtin_plugins.hooks.conditions import TOOL_EVENTS, if_problem

    # a non-string is kept as text the runner can never read as a rule ("5" or "true"
    # alone would be a tool name): the runner and this warning decide on the same text
    text = raw if isinstance(raw, str) else f"{json.dumps(raw)} (not a string)"
    if event not in TOOL_EVENTS:
        bad(f"hook {j}: 'if' {text!r} applies to tool events only; on {event} this handler never runs",
            "warning", "hook-if-not-tool-event")
        return text
    problem = if_problem(text)
    if problem is not None:
        bad(f"hook {j}: {problem}; the condition is ignored and the handler runs on every call its matcher "
            "matches", "warning", "hook-if-invalid")
    return text


def load_hook_definitions(source: ResourceSource) -> LoadResult:
    """The hooks ``source`` holds (see :mod:`wskit.formats.definitions` for where)."""
    found, diags = blocks(source, KIND, "hooks/hooks.json", "hooks")
    out: list[HookDefinition] = []
    for block in found:
        from wskit.resources.hooks import HOOK_EVENTS  # the model class is built where a file defines one

        path = os.path.join(source.base, block.rel)
        data = block.data
        if block.file_level and isinstance(data, dict) and isinstance(data.get("hooks"), dict):
            data = data["hooks"]
        if not isinstance(data, dict):
            diags.append(Diagnostic(level="error", code="hooks-invalid", path=path, plugin=source.plugin,
                                    message="'hooks' must be an object of event -> matcher entries"))
            continue
        for event, entries in data.items():
            if event == "description" and block.file_level:
                continue
            if event not in HOOK_EVENTS:
                diags.append(Diagnostic(level="warning", code="hook-unknown-event", path=path, plugin=source.plugin,
                                        message=f"unknown hook event {event!r} (names are case-sensitive); skipped"))
                continue
            if not isinstance(entries, list):
                diags.append(Diagnostic(level="error", code="hooks-invalid", path=path, plugin=source.plugin,
                                        message=f"hooks for {event} must be an array of matcher entries"))
                continue
            for i, entry in enumerate(entries):
                out.extend(_entry(source, block, path, event, i, entry, diags))
    return LoadResult(resources=tuple(out), diagnostics=tuple(diags))


def _entry(source, block, path, event, i, entry, diags) -> list[HookDefinition]:
    from wskit.resources.hooks import HookDefinition
    from wskit.util.digest import sha256_hex

    def bad(msg: str, level: str = "error", code: str = "hooks-invalid") -> None:
        diags.append(Diagnostic(level=level, code=code, path=path, plugin=source.plugin,
                                message=f"{event}[{i}]: {msg}"))

    if not isinstance(entry, dict) or not isinstance(entry.get("hooks"), list):
        bad("a matcher entry needs a 'hooks' array")
        return []
    matcher, err = _matcher_text(entry.get("matcher"))
    if err:
        bad(err)
        return []
    problem = matcher_problem(matcher)
    if problem is not None and problem[0] == "invalid":
        bad(f"matcher {matcher!r} is not a valid regular expression ({problem[1]}); it matches exactly",
            "warning", "hook-matcher-regex")
    elif problem is not None:
        bad(f"matcher {matcher[:80]!r} is refused ({problem[1]}); its handlers run on every {event} call and "
            "may block or ask, never allow", "warning", "hook-matcher-refused")
    out = []
    for j, h in enumerate(entry["hooks"]):
        problem = handler_problem(h, ("command", "http", "prompt"), f"hook {j}")
        if problem is not None:
            bad(*problem)
            continue
        htype, timeout = h.get("type", "command"), h.get("timeout")
        headers = h.get("headers", {})
        if not (isinstance(headers, dict) and all(isinstance(v, str) for v in headers.values())):
            bad(f"hook {j}: 'headers' must be an object of strings")
            continue
        why = next((w for k, v in headers.items() if (w := header_problem(k, v)) is not None), None)
        if why is not None:
            bad(f"hook {j}: {why}; skipped")
            continue
        names = h.get("allowedEnvVars")
        if names is not None and not (isinstance(names, list) and all(
                isinstance(n, str) and _ENV_NAME.fullmatch(n) for n in names)):
            bad(f"hook {j}: 'allowedEnvVars' must be a list of environment variable names; skipped")
            continue
        cond = _if_condition(event, j, h, bad)
        tag = sha256_hex(f"{block.scope.value}|{block.rel}|{event}|{i}|{j}".encode())[:8]
        name = f"{event}-{i}-{j}-{tag}"
        out.append(HookDefinition(
            id=ident(source, block.scope, name), name=name, description=str(h.get("statusMessage", "")),
            provenance=provenance(source, block, {"matcher": entry.get("matcher"), "hook": h}),
            event=event, matcher=matcher or "", if_condition=cond, type=htype, command=h.get("command") if htype == "command" else None,
            url=h.get("url") if htype == "http" else None, headers=dict(headers),
            prompt=h.get("prompt") if htype == "prompt" else None,
            timeout=float(timeout) if timeout is not None else None,
            plugin_root=source.root if source.plugin else None, config=dict(h),
            switched_off_by=source.switched_off_by,
        ))
    return out
