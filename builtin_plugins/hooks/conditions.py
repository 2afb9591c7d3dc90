"""The ``if`` field of a hook handler: one Claude Code permission rule that narrows
a handler to the tool calls it matches (reference/conventions.md §1.7; Claude
Code's permission-rule syntax, code.claude.com/docs permissions).

- Grammar: ``Tool`` or ``Tool(pattern)``; the tool name is letters, digits, ``_``
  and ``-`` (MCP tools ``mcp__server__tool``); ``\\(`` and ``\\)`` escape
  parentheses in the pattern; ``Tool()`` and ``Tool(*)`` mean the whole tool.
  An empty ``if`` is no condition. Anything else is *unparsable*
  (:class:`IfRuleError`).
- Tool events only (:data:`TOOL_EVENTS`): on any other event a handler that has
  an ``if`` never runs (Claude Code); the loader warns about it.
- Matching (:func:`if_matches`): the tool name must be equal (``Task`` and
  ``Agent`` are one tool). ``Bash``: the pattern is a wildcard (``*`` any text,
  ``\\*`` a star; a trailing `` *`` also matches the bare command; the legacy
  ``:*`` suffix means `` *``) tested against each subcommand, not the whole compound
  command (:func:`subcommands`: split at unquoted ``&& || ; | &``, newlines,
  parentheses, braces, ``$(`` and back-quotes, in double quotes too; comments, leading
  keywords such as ``then`` and ``!``, and ``VAR=value`` assignments dropped; the
  answers Claude Code gave are ``tests/conformance/hook_if_recorded.json``). File tools
  (``Read Edit Write MultiEdit NotebookEdit Glob Grep``): a gitignore-style
  pattern against the file path: ``//p`` is absolute, ``~/p`` under the home,
  ``/p`` under the project root, ``p`` or ``./p`` under the call's ``cwd``.
  ``WebFetch(domain:host)`` compares the URL's host. Any other tool: its
  ``command`` input as for Bash, else its file path (Blade §11.3); no value,
  no match.

Evaluation is bounded (:mod:`wskit.builtin_plugins.hooks.patterns`): an ``if`` longer
than ``MAX_PATTERN_CHARS`` is unparsable, and wildcards and path rules run on the
linear-time RE2 engine, so no condition can freeze the host; a translated rule the
engine refuses raises :class:`~wskit.builtin_plugins.hooks.patterns.PatternRefused`.

This is not :mod:`wskit.builtin_plugins.skills.tools` (Sakura's ``allowed-tools`` grammar).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from typing import Any

from wskit.builtin_plugins.hooks.patterns import MAX_PATTERN_CHARS, PatternRefused, fullmatch
from wskit.formats.shell import command_forms
from wskit.values import FrozenValue

#: Events whose payload carries ``tool_name``/``tool_input``: the only ones where ``if`` is evaluated.
TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"})
#: Tools whose ``if`` pattern is a path.
FILE_TOOLS = frozenset({"Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "NotebookRead", "Glob", "Grep"})
#: Tool-input keys that hold a file path, in the order they are looked at.
PATH_KEYS = ("file_path", "notebook_path", "path", "filePath")
_ALIASES = {"Task": "Agent"}
#: :func:`if_allows`' answer when the command may hide a program the ``if`` names: run restrict-only
IF_UNCERTAIN = "uncertain"
_TOOL = re.compile(r"[A-Za-z0-9_\-]+")


class IfRuleError(ValueError):
    """An ``if`` value that is not one permission rule."""


class IfRule(FrozenValue):
    """A parsed ``if``: ``tool`` and the pattern inside the parentheses (None: the whole tool)."""

    tool: str
    content: str | None = None


def parse_if(value: Any) -> IfRule:
    """Parse an ``if`` value.

    :raises IfRuleError: not a string, empty, or not ``Tool`` / ``Tool(pattern)``.
    """
    if not isinstance(value, str) or not value.strip():
        raise IfRuleError(f"'if' must be one permission rule such as Bash(git *), not {value!r}")
    if len(value) > MAX_PATTERN_CHARS:
        raise IfRuleError(f"'if' is longer than {MAX_PATTERN_CHARS} characters")
    text = value.strip()
    open_at = _unescaped(text, "(")
    if open_at < 0:
        if not _TOOL.fullmatch(text):
            raise IfRuleError(f"'if' {value!r} is not a permission rule (Tool or Tool(pattern))")
        return IfRule(text)
    tool, rest = text[:open_at], text[open_at + 1:]
    if not _TOOL.fullmatch(tool) or not rest.endswith(")") or _unescaped(rest[:-1], ")") >= 0 \
            or _unescaped(rest[:-1], "(") >= 0:
        raise IfRuleError(f"'if' {value!r} is not a permission rule (Tool or Tool(pattern))")
    content = rest[:-1].replace("\\(", "(").replace("\\)", ")")
    return IfRule(tool, None if content in ("", "*") else content)


def _unescaped(text: str, ch: str) -> int:
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == ch:
            return i
        i += 1
    return -1


def if_matches(rule: IfRule, tool_name: str | None, tool_input: Any, *, cwd: str, project_dir: str,
               home: str | None = None) -> bool:
    """True when the tool call (``tool_name``, ``tool_input``) matches ``rule``.

    :param cwd: the call's working folder (relative patterns and paths).
    :param project_dir: the project root (``/p`` patterns).
    :param home: the user's home for ``~/p`` patterns (default ``$HOME``).
    """
    if tool_name is None or _ALIASES.get(rule.tool, rule.tool) != _ALIASES.get(tool_name, tool_name):
        return False
    if rule.content is None:
        return True
    args = tool_input if isinstance(tool_input, Mapping) else {}
    pat = rule.content
    if tool_name in FILE_TOOLS:
        search = tool_name in ("Glob", "Grep")  # their path is a folder searched below
        paths = _paths(args) or ([cwd] if search else [])
        return any(path_matches(pat, p, cwd=cwd, project_dir=project_dir, home=home, folder=search) for p in paths)
    if tool_name == "WebFetch" and pat.startswith("domain:"):
        from urllib.parse import urlsplit

        url = args.get("url")
        host = urlsplit(url).hostname if isinstance(url, str) else None
        return host is not None and wildcard_matches(pat[len("domain:"):].lower(), host.lower())
    command = args.get("command")
    if isinstance(command, str):
        return command_matches(pat, command)
    if tool_name == "Bash":
        return False
    return any(path_matches(pat, p, cwd=cwd, project_dir=project_dir, home=home) for p in _paths(args))


def _paths(args: Mapping[str, Any]) -> list[str]:
    return [args[k] for k in PATH_KEYS if isinstance(args.get(k), str) and args[k]]


def wildcard_matches(pattern: str, text: str) -> bool:
    """Claude Code's Bash wildcard: ``*`` is any text (newlines too), ``\\*`` a literal star,
    a trailing `` *`` (the only wildcard) also matches the text without it, ``:*`` at the
    end means `` *``; the whole ``text`` must match."""
    if pattern.endswith(":*") and not pattern.endswith("\\:*"):
        pattern = pattern[:-2] + " *"
    parts, stars, i = [], 0, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern) and pattern[i + 1] in "*\\":
            parts.append(_esc(pattern[i + 1]))
            i += 2
            continue
        if c == "*":
            parts.append(".*")
            stars += 1
        else:
            parts.append(_esc(c))
        i += 1
    rx = "".join(parts)
    if stars == 1 and pattern.endswith(" *") and not pattern.endswith("\\ *"):
        rx = rx[: -len(_esc(" ") + ".*")] + "(?: .*)?"
    # linear-time engine: a wildcard with many stars cannot backtrack for ever
    return fullmatch(rx, text, dot_nl=True, limit=8 * MAX_PATTERN_CHARS)


def _esc(ch: str) -> str:
    """``ch`` as a literal in an RE2 pattern (RE2 refuses Python's escape of a space)."""
    return ch if ch.isalnum() or ch == "_" else ("\\x%02x" % ord(ch) if ord(ch) < 0x80 else ch)


def subcommands(command: str) -> list[str]:
    """The subcommands of ``command`` a Bash ``if`` pattern is tested against: the one
    shell normaliser the permission rules use too
    (:func:`wskit.formats.shell.command_forms`): each simple command as written and
    normalised, through compound bodies, wrappers, ``bash -c``, ``eval``, program paths,
    ``$'…'`` and ``${IFS}`` (the whole compound command is not one of them)."""
    return list(command_forms(command).commands)


def command_matches(pattern: str, command: str) -> bool:
    """True when any of the :func:`subcommands` of ``command`` matches ``pattern``."""
    return any(wildcard_matches(pattern, s) for s in subcommands(command))


def command_hidden(command: str) -> str | None:
    """Why a program of ``command`` cannot be known before it runs (``$x -rf /``,
    ``eval "$v"``), or None: an ``if`` pattern could match what runs there."""
    unresolved = command_forms(command).unresolved
    return unresolved[0] if unresolved else None


def path_matches(pattern: str, path: str, *, cwd: str, project_dir: str, home: str | None = None,
                 folder: bool = False) -> bool:
    """True when file ``path`` (absolute, or relative to ``cwd``) matches the gitignore-style
    ``pattern`` anchored as the module doc says; a path outside the pattern's base never matches.
    ``folder``: ``path`` is a folder searched below (Glob, Grep): a file in it matching counts."""
    if pattern.startswith("//"):
        base, pat = "/", pattern[2:]
    elif pattern.startswith("~/"):
        base, pat = home or os.path.expanduser("~"), pattern[2:]
    elif pattern.startswith("/"):
        base, pat = project_dir, pattern[1:]
    else:
        base, pat = cwd, pattern[2:] if pattern.startswith("./") else pattern
    if not pat:
        return False
    full = os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))
    rel = os.path.relpath(full, os.path.normpath(base))
    if rel == os.pardir or rel.startswith(os.pardir + os.sep) or (rel == os.curdir and not folder):
        return False
    rx = _gitignore_regex(pat)
    if rx is None:
        return False
    if rel == os.curdir:
        return _path_hit(rx, "x")
    return _path_hit(rx, rel) or (folder and _path_hit(rx, os.path.join(rel, "x")))


@functools.lru_cache(maxsize=256)
def _gitignore_regex(pat: str) -> str | None:
    """The regular expression pathspec makes of one gitignore line (None: the line
    selects nothing: blank, a comment or a negation). It is matched with RE2, not
    ``re``: pathspec's ``[^/]*`` runs backtrack polynomially in the stars."""
    from pathspec import GitIgnoreSpec  # imported where a path rule is evaluated, not at start-up

    p = GitIgnoreSpec.from_lines([pat]).patterns[0]
    if not p.include or p.regex is None:
        return None
    return p.regex.pattern


def _path_hit(rx: str, rel: str) -> bool:
    try:
        return fullmatch(f"(?:{rx}).*", rel.replace(os.sep, "/"), dot_nl=True, limit=8 * MAX_PATTERN_CHARS)
    except ValueError as err:
        if isinstance(err, PatternRefused):
            raise
        return False


@functools.lru_cache(maxsize=256)
def _parsed(text: str) -> IfRule | IfRuleError:
    """:func:`parse_if` of a kept ``if`` text, once per distinct text: the runner asks
    at selection (:func:`if_allows`) and again for the result (:func:`if_unparsable`)
    on every run; the refusal is returned, not raised, so it is cached too."""
    try:
        return parse_if(text)
    except IfRuleError as err:
        return err


def if_problem(value: str) -> IfRuleError | None:
    """Why the kept ``if`` text ``value`` is not one permission rule, or None (the
    loader's ``hook-if-invalid`` warning and the runner decide on the same parse)."""
    parsed = _parsed(value)
    return parsed if isinstance(parsed, IfRuleError) else None


def if_unparsable(value: str) -> bool:
    """True when the kept ``if`` text ``value`` is not one permission rule (:func:`parse_if` raises)."""
    return isinstance(_parsed(value), IfRuleError)


def if_allows(hook_id: str, value: str, event: str, tool: str | None, payload: Mapping[str, Any],
              notes: list[str], project_dir: str, home: str | None) -> bool | str:
    """Whether a handler whose ``if`` is ``value`` runs for this call: False, True, or
    :data:`IF_UNCERTAIN` (truthy: it runs, restrict-only).

    On events outside :data:`TOOL_EVENTS` it never runs (Claude Code). An
    unparsable value is ignored with a note in ``notes`` and the handler runs as
    if it had none — unlike Claude Code, where such a handler silently never runs,
    which would switch off a guard. Such a run may only restrict: the runtime
    drops its ``allow`` decision and ``updatedInput`` (``HookResult.restrict_only``),
    so a broken condition can never widen what a hook grants. The same holds when the
    command's program cannot be known before it runs (``$x -rf /``, ``eval "$v"``:
    :func:`command_hidden`) and the pattern matches no subcommand: what runs there could
    match it, so the guard runs (answer :data:`IF_UNCERTAIN`, with a note).

    :param payload: the hook input (``tool_input``, ``cwd``).
    :param project_dir: the execution root (``/p`` patterns); ``home``: for ``~/p``.
    """
    if event not in TOOL_EVENTS:
        return False
    rule = _parsed(value)
    if isinstance(rule, IfRuleError):
        notes.append(f"hook {hook_id}: {rule}; ran it without the condition (it may block or ask, not allow)")
        return True
    tool_input = payload.get("tool_input")
    if if_matches(rule, tool, tool_input, cwd=str(payload.get("cwd") or project_dir), project_dir=project_dir,
                  home=home):
        return True
    command = tool_input.get("command") if isinstance(tool_input, Mapping) else None
    if rule.content is None or tool is None or tool in FILE_TOOLS or not isinstance(command, str) \
            or _ALIASES.get(rule.tool, rule.tool) != _ALIASES.get(tool, tool):
        return False
    why = command_hidden(command)
    if why is None:
        return False
    notes.append(f"hook {hook_id}: 'if' {value} could match what runs at {why}; ran it (it may block or ask, "
                 "not allow)")
    return IF_UNCERTAIN
