"""Permission rules as Claude Code writes them: ``Tool`` or ``Tool(specifier)``.

Grammar and matching follow Claude Code's permissions documentation
(code.claude.com/docs/en/permissions):

- ``Bash`` (or ``Bash(*)``) matches every use of the tool; so does any bare tool name.
- ``Bash(npm run test:*)``: the legacy prefix form, the command is ``npm run test`` or
  starts with ``npm run test`` and a space (a word boundary: ``npm run tests`` does not
  match). ``Bash(git * main)``: ``*`` matches any run of characters, spaces included; a
  rule whose only ``*`` ends it after a space (``Bash(ls *)``) also matches the bare
  command (``ls``). Anything else matches the whole command exactly.
  Compound commands (``&&``, ``||``, ``;``, ``|``, ``&``, newlines, outside quotes) are
  split: a deny or ask rule matches when any part matches, an allow rule when every part
  matches it (and :meth:`PermissionPolicy.check` allows the call when every part is
  allowed by some rule, each part on its own, as Claude Code checks subcommands). A command holding a substitution (``$(``, a backtick, ``<(``, ``>(``)
  is never allowed by a command rule (it could run anything); deny and ask still apply.
  Nor is a command whose output redirection writes a file (``echo hi > f``, ``2> log``,
  ``&> f``): Claude Code asks before it whatever allow rule matches; ``2>&1``, ``>&-``
  and ``> /dev/null`` write no file and are allowed like the bare command.
- ``Read(path)``, ``Edit(path)``: gitignore patterns (``*`` within one folder, ``**``
  across folders) anchored by their prefix: ``//p`` absolute, ``~/p`` the home, ``/p``
  the project root, ``./p`` or ``p`` the working directory. ``Read`` rules cover the
  reading tools (Read, Grep, Glob, LS, NotebookRead), ``Edit`` rules the editing tools
  (Edit, MultiEdit, Write, NotebookEdit). A path is matched as written (normalised) and
  as resolved through links: a deny or ask rule matches when either does, an allow rule
  only when both do, so a link cannot carry a call past a deny rule.
- ``WebFetch(domain:example.com)``: the URL's host is ``example.com``;
  ``domain:*.example.com`` also matches its subdomains.
- ``mcp__server`` and ``mcp__server__*`` match every tool of that MCP server,
  ``mcp__server__tool`` one tool.
- ``Agent(Explore)`` (also ``Task(...)``) matches the subagent type, ``Skill(name)``
  the skill (``*`` allowed in both).

Nothing here evaluates a regular expression written in a settings file: ``*`` is
translated by this module, and paths by pathspec's gitignore matcher.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from wskit.builtin_plugins.permissions import EDIT_TOOLS, READ_TOOLS, SHELL_TOOLS  # noqa: F401  (re-exported)
from wskit.formats.shell import command_forms, split_command, writes_file
from wskit.util.lazyre import lazy_pattern
from wskit.values import FrozenValue

_AGENT_TOOLS = frozenset({"Agent", "Task"})
_TOOL_NAME = lazy_pattern(globals(), "_TOOL_NAME", r"^[A-Za-z][A-Za-z0-9_.\-]*(\*)?\Z")
_SUBSTITUTION = ("$(", "`", "<(", ">(")


class RuleSyntaxError(ValueError):
    """A permission rule that cannot be read; the message says why."""


class PermissionRule(FrozenValue):
    """One rule of a ``permissions.allow|ask|deny`` list.

    :ivar text: the rule as written (``Bash(npm run test:*)``).
    :ivar tool: the tool name part (``Bash``; ``mcp__github__*`` for an MCP wildcard).
    :ivar specifier: the part in parentheses, or None for a bare tool rule.
    :ivar behavior: ``allow``, ``ask`` or ``deny``.
    :ivar scope: the settings layer it came from (``managed``, ``user``, ``project``,
        ``local``, ``invocation``, or ``session`` for rules a host adds).
    :ivar path: the settings file, absolute (None for the invocation/session layers).
    :ivar base: the folder a ``/path`` specifier is anchored at (the project root).
    """

    text: str
    tool: str
    specifier: str | None
    behavior: str
    scope: str
    path: str | None = None
    base: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"rule", "behavior", "scope", "path"}``."""
        return {"rule": self.text, "behavior": self.behavior, "scope": self.scope, "path": self.path}

    # -- matching ------------------------------------------------------------------

    def covers_tool(self, tool: str) -> bool:
        """Whether the rule is about ``tool`` at all (before its specifier is looked at)."""
        if self.tool.startswith("mcp__"):
            return _mcp_covers(self.tool, tool)
        if self.tool == "Read":
            return tool in READ_TOOLS or tool == "Read"
        if self.tool == "Edit":
            return tool in EDIT_TOOLS or tool == "Edit"
        if self.tool in _AGENT_TOOLS:
            return tool in _AGENT_TOOLS
        return self.tool == tool

    def matches(self, tool: str, tool_input: Mapping[str, Any], ctx: MatchContext) -> bool:
        """Whether this rule matches a call of ``tool`` with ``tool_input`` (see the module doc).

        :param ctx: where relative paths are anchored (:class:`MatchContext`).
        """
        if not self.covers_tool(tool):
            return False
        if self.specifier is None:
            return True
        if self.tool in SHELL_TOOLS:
            return _command_matches(self.specifier, str(tool_input.get("command") or ""), self.behavior)
        if self.tool in ("Read", "Edit") or tool in READ_TOOLS | EDIT_TOOLS:
            return _path_matches(self, tool, tool_input, ctx)
        if self.tool == "WebFetch":
            return _domain_matches(self.specifier, str(tool_input.get("url") or ""))
        if self.tool in _AGENT_TOOLS:
            return _glob(self.specifier, str(tool_input.get("subagent_type") or ""))
        if self.tool == "Skill":
            return _glob(self.specifier, str(tool_input.get("skill") or tool_input.get("name") or ""))
        return False


class MatchContext(FrozenValue):
    """Where a call's relative paths are anchored.

    :ivar cwd: the working directory (``./p`` and ``p``; relative input paths).
    :ivar project: the project root (``/p``).
    :ivar home: the user home (``~/p``).
    """

    cwd: str
    project: str
    home: str


def parse_rule(text: Any, behavior: str, scope: str, path: str | None = None, base: str | None = None
               ) -> PermissionRule:
    """Read one rule.

    :raises RuleSyntaxError: not a string, an empty or malformed tool name, unbalanced
        parentheses, an empty ``WebFetch`` domain, or a specifier on a tool whose input
        wskit cannot match (an MCP tool).
    """
    if not isinstance(text, str):
        raise RuleSyntaxError(f"a rule must be a string, got {type(text).__name__}")
    raw = text.strip()
    if not raw:
        raise RuleSyntaxError("a rule must not be empty")
    tool, spec = raw, None
    if "(" in raw:
        if not raw.endswith(")"):
            raise RuleSyntaxError(f"rule {text!r}: a specifier must end with ')'")
        tool, spec = raw[:-1].split("(", 1)
        tool = tool.strip()
        if spec == "*" or spec == "":
            spec = None  # Bash(*) is Bash
    elif raw.endswith(")"):
        raise RuleSyntaxError(f"rule {text!r}: ')' without '('")
    if not _TOOL_NAME.match(tool) or (tool.endswith("*") and not tool.startswith("mcp__")):
        raise RuleSyntaxError(f"rule {text!r}: {tool!r} is not a tool name")
    if spec is not None and tool.startswith("mcp__"):
        raise RuleSyntaxError(f"rule {text!r}: MCP tools take no specifier; use mcp__<server>__<tool>")
    if tool == "WebFetch" and spec is not None:
        if not spec.startswith("domain:") or not spec[len("domain:"):].strip():
            raise RuleSyntaxError(f"rule {text!r}: WebFetch takes 'domain:<host>'")
    return PermissionRule(text=raw, tool=tool, specifier=spec, behavior=behavior, scope=scope, path=path, base=base)


# -- Bash -----------------------------------------------------------------------------


_MAX_FORMS = 256


@functools.lru_cache(maxsize=256)
def deny_forms(command: str) -> tuple[str, ...]:
    """Every form of ``command`` a deny or ask rule is tested against, so that an
    equivalent spelling of a denied command is denied too: the whole command, each part of
    the allow split (:func:`split_command`), and every simple command the one shell
    normaliser finds in it (:func:`wskit.formats.shell.command_forms`, which the hooks'
    ``if`` uses too): compound bodies, wrappers, ``bash -c``, ``eval``, program paths,
    ``$'…'`` and ``${IFS}`` read through. At most 256 forms. Only deny and ask use it; an
    allow rule still has to match the command as written, part by part."""
    found = dict.fromkeys([command.strip(), *split_command(command), *command_forms(command).commands])
    return tuple(f for f in found if f)[:_MAX_FORMS]


def hidden_program(command: str) -> str | None:
    """Why a program of ``command`` cannot be known before it runs (``$x -rf /``,
    ``eval "$v"``: :attr:`wskit.formats.shell.CommandForms.unresolved`), or None. A deny or
    ask rule could match what runs there: the policy asks (fails closed) rather than allow."""
    unresolved = command_forms(command).unresolved
    return unresolved[0] if unresolved else None


def _one_command_matches(spec: str, cmd: str) -> bool:
    if spec.endswith(":*"):
        prefix = spec[:-2].rstrip()
        return cmd == prefix or cmd.startswith(prefix + " ")
    if "*" not in spec:
        return cmd == spec
    if spec.count("*") == 1 and spec.endswith(" *") and cmd == spec[:-2].rstrip():
        return True
    return _glob(spec, cmd)


def _command_matches(spec: str, command: str, behavior: str) -> bool:
    parts = split_command(command)
    if not parts:
        return False
    if behavior == "allow":
        if any(s in command for s in _SUBSTITUTION) or writes_file(command) is not None:
            return False  # a substitution could run anything; a redirection writes a file the rule does not name
        return all(_one_command_matches(spec, p) for p in parts)
    return any(_one_command_matches(spec, form) for form in deny_forms(command))


@functools.lru_cache(maxsize=1024)
def _glob_re(spec: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if ch == "*" else re.escape(ch) for ch in spec), re.DOTALL)


def _glob(spec: str, value: str) -> bool:
    """``*`` matches any run of characters (spaces and slashes included); the rest literally
    (the pattern is built here from the rule's text, never taken as a regular expression)."""
    return _glob_re(spec).fullmatch(value) is not None


@functools.lru_cache(maxsize=1024)
def _gitignore(pattern: str):
    from pathspec import GitIgnoreSpec

    return GitIgnoreSpec.from_lines([pattern])


# -- paths ----------------------------------------------------------------------------


def _anchor(spec: str, ctx: MatchContext, rule: PermissionRule) -> tuple[str, str]:
    """``(base folder, gitignore pattern)`` of a path specifier."""
    if spec.startswith("//"):
        return "/", spec[1:]
    if spec.startswith("~/"):
        return ctx.home, spec[1:]
    if spec.startswith("/"):
        return rule.base or ctx.project, spec
    if spec.startswith("./"):
        return ctx.cwd, spec[1:]
    return ctx.cwd, spec


def _input_path(tool: str, tool_input: Mapping[str, Any], ctx: MatchContext) -> str | None:
    for key in ("file_path", "notebook_path", "path"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            break
    else:
        if tool in ("Grep", "Glob", "LS"):
            value = ctx.cwd  # they search the working directory when no path is given
        else:
            return None
    value = os.path.expanduser(value) if value.startswith("~/") else value
    return posixpath.normpath(value if os.path.isabs(value) else os.path.join(ctx.cwd, value))


def _under(path: str, base: str, pattern: str) -> bool:
    base = posixpath.normpath(base)
    if base != "/" and path != base and not path.startswith(base + "/"):
        return False
    rel = posixpath.relpath(path, base)
    if rel == ".":
        return pattern.strip("/") in ("", "**")
    spec = _gitignore(pattern)
    return spec.match_file(rel) or spec.match_file(rel + "/")


def _path_matches(rule: PermissionRule, tool: str, tool_input: Mapping[str, Any], ctx: MatchContext) -> bool:
    path = _input_path(tool, tool_input, ctx)
    if path is None:
        return False
    base, pattern = _anchor(rule.specifier or "", ctx, rule)
    candidates = {path, posixpath.normpath(os.path.realpath(path))}
    hits = [_under(p, base, pattern) for p in candidates]
    return all(hits) if rule.behavior == "allow" else any(hits)


# -- WebFetch and MCP -----------------------------------------------------------------


def _domain_matches(spec: str, url: str) -> bool:
    want = spec[len("domain:"):].strip().lower().rstrip(".")
    try:
        host = (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:
        return False
    if not host:
        return False
    if want.startswith("*."):
        return host.endswith(want[1:])
    return host == want


def _mcp_covers(rule_tool: str, tool: str) -> bool:
    if rule_tool.endswith("__*"):
        return tool.startswith(rule_tool[:-1])
    if rule_tool.count("__") == 1:  # mcp__server: every tool of the server
        return tool == rule_tool or tool.startswith(rule_tool + "__")
    return tool == rule_tool
