"""``allowed-tools`` selectors and the :class:`ToolPolicy` that enforces them.

The grammar is Sakura's (reference/holon-sakura.md B4):

- a **bare name** ``[A-Za-z][A-Za-z0-9_.:-]*``; the aliases ``Read`` ->
  ``read_file``, ``Bash`` -> ``run_command`` and ``Shell`` -> ``run_command``;
  any other name is a runtime tool name. A bare shell tool allows any command;
- ``Shell(<cmd>)`` / ``Bash(<cmd>)``: an exact literal argv; a trailing ``:*``
  or `` *`` makes it a token prefix (``Bash(git status:*)`` -> ``[git, status]``,
  ``Bash(git *)`` -> ``[git]``). ``<cmd>`` is non-empty, holds none of
  ``; & | < > $ ` \\ ( ) { } * ? [ ] ~``, CR or LF, parses with :mod:`shlex`,
  and its first token neither contains ``=`` nor starts with ``-``;
- anything else is invalid and fails closed (``Read(foo/**)``,
  ``Bash(git* status)``, ``Bash(git status && id)``, ``*``, non-strings);
- the value is a YAML list, a JSON string holding a list, or a string of
  selectors separated by commas/whitespace; ``None`` or ``""`` mean absent
  (no restriction) and ``[]`` denies every ordinary tool.

Selectors of one skill form a *clause* (a union); clauses accumulate and are
intersected: a call is allowed only when every clause allows it. A command is
parsed with the same literal rules, so a command holding any shell operator,
substitution, redirect, glob, ``~``, ``$`` or newline never matches a command
selector. Restrictions only narrow: they never register a tool.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Sequence
from typing import Any

from wskit.fs import SafeFsError
from wskit.fs.jsonsafe import check_depth
from wskit.values import FrozenValue, field

#: Aliases of bare names (Sakura B4).
ALIASES = {"Read": "read_file", "Bash": "run_command", "Shell": "run_command"}
#: Runtime tool names that take a ``command`` argument.
SHELL_TOOLS = frozenset({"run_command"})
#: Tools every workflow allows (Sakura B4: ``use_skill`` and ``finish_task``).
ALWAYS_ALLOWED = frozenset({"use_skill", "finish_task"})

_BARE = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]*\Z")
_CALL = re.compile(r"^(Shell|Bash)\((.*)\)$", re.S)
_FORBIDDEN = set(";&|<>$`\\(){}*?[]~\r\n")
_SPLIT = re.compile(r"[,\s]+(?![^()]*\))")


class SelectorError(ValueError):
    """An ``allowed-tools`` value that the grammar refuses (fails closed).

    :ivar selector: the offending selector text (or the whole value).
    """

    def __init__(self, selector: Any, message: str) -> None:
        self.selector = selector
        super().__init__(f"invalid allowed-tools selector {selector!r}: {message}")


class Selector(FrozenValue):
    """One parsed selector.

    :ivar tool: canonical runtime tool name (aliases resolved).
    :ivar argv: for a command selector, the literal argv (tuple of tokens); None for a bare name.
    :ivar prefix: True for a token-prefix command selector.
    :ivar text: the selector as written.
    """

    tool: str
    argv: tuple[str, ...] | None = None
    prefix: bool = False
    text: str = ""

    def allows(self, tool: str, argv: tuple[str, ...] | None) -> bool:
        """Whether this selector allows ``tool`` with the parsed command ``argv``
        (``argv`` None: no command given, or the command did not parse)."""
        if tool != self.tool:
            return False
        if self.argv is None:
            return True
        if argv is None:
            return False
        if self.prefix:
            return argv[: len(self.argv)] == self.argv
        return argv == self.argv


def canonical_tool(name: str) -> str:
    """The runtime tool name of ``name`` (``Read`` -> ``read_file``, ``Bash``/``Shell`` -> ``run_command``)."""
    return ALIASES.get(name, name)


def parse_command(command: str) -> tuple[str, ...] | None:
    """Parse a command literally (the Sakura B4 rules); None when it holds a shell
    operator, substitution, redirect, glob, ``~``, ``$``, newline, or does not parse."""
    if not isinstance(command, str) or not command.strip():
        return None
    if any(c in _FORBIDDEN for c in command):
        return None
    try:
        argv = tuple(shlex.split(command, posix=True))
    except ValueError:
        return None
    return argv or None


def parse_selector(text: Any) -> Selector:
    """Parse one selector.

    :raises SelectorError: when it is not a bare name or a valid ``Shell(...)``/``Bash(...)``.
    """
    if not isinstance(text, str):
        raise SelectorError(text, "selectors must be strings")
    s = text.strip()
    if _BARE.match(s):
        return Selector(tool=canonical_tool(s), text=s)
    m = _CALL.match(s)
    if not m:
        raise SelectorError(text, "expected a tool name or Shell(<cmd>) / Bash(<cmd>)")
    cmd, prefix = m.group(2), False
    if cmd.endswith(":*"):
        cmd, prefix = cmd[:-2], True
    elif cmd.endswith(" *"):
        cmd, prefix = cmd[:-2], True
    if not cmd.strip():
        raise SelectorError(text, "the command is empty")
    bad = sorted({c for c in cmd if c in _FORBIDDEN})
    if bad:
        raise SelectorError(text, f"the command contains {''.join(bad)!r} (operators, globs and substitutions are refused)")
    argv = parse_command(cmd)
    if argv is None:
        raise SelectorError(text, "the command does not parse as a literal argv")
    if "=" in argv[0] or argv[0].startswith("-"):
        raise SelectorError(text, "the first token may not contain '=' or start with '-'")
    return Selector(tool="run_command", argv=argv, prefix=prefix, text=s)


_SEPARATORS = re.compile(r"[,\s]+")


def split_selector_text(text: str) -> list[str]:
    """Split on runs of commas/blanks that are not inside ``Tool(...)``: a
    separator is kept when the next parenthesis after it is ``)``.

    Same result as ``_SPLIT.split(text)``, in linear time: the regex's
    lookahead rescans the rest of the text at every separator, so 60 KB of
    ``a a a …`` in one SKILL.md takes about 10 s (a 64 KiB frontmatter fits that).
    Without parentheses every separator run splits (one ``re.split``).
    """
    if "(" not in text and ")" not in text:
        return _SEPARATORS.split(text)  # ``\s`` is ``str.isspace`` for str patterns
    next_paren = [""] * (len(text) + 1)
    for i in range(len(text) - 1, -1, -1):
        c = text[i]
        next_paren[i] = c if c in "()" else next_paren[i + 1]
    parts, start, i = [], 0, 0
    while i < len(text):
        if text[i] == "," or text[i].isspace():
            j = i
            while j < len(text) and (text[j] == "," or text[j].isspace()):
                j += 1
            if next_paren[j] != ")":
                parts.append(text[start:i])
                start = i = j
                continue
            i = j
            continue
        i += 1
    parts.append(text[start:])
    return parts


def split_value(value: Any) -> list[Any] | None:
    """Split an ``allowed-tools`` value into raw selector items.

    :returns: None when absent (``None`` or ``""``: no restriction); a list
        otherwise (``[]`` denies everything).
    :raises SelectorError: for a value that is neither a list nor a string.
    """
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str):
        s = value.strip()
        if not s:
            return None
        if s.startswith("["):
            try:
                # depth first: json.loads raised RecursionError on a deep list,
                # which escaped the skills loader and lost every sibling skill
                check_depth(s, 8)
                parsed = json.loads(s)
            except (ValueError, SafeFsError):
                raise SelectorError(value, "a string starting with '[' must be a JSON list") from None
            if not isinstance(parsed, list):
                raise SelectorError(value, "expected a JSON list")
            return parsed
        return [p for p in split_selector_text(s) if p]
    raise SelectorError(value, f"expected a list or a string, not {type(value).__name__}")


def parse_selectors(value: Any) -> tuple[Selector, ...] | None:
    """Parse a whole ``allowed-tools`` value into a clause.

    :returns: None (absent: no restriction) or a tuple of :class:`Selector` (possibly empty: deny all).
    :raises SelectorError: when the value or any selector is invalid (fail closed).
    """
    items = split_value(value)
    if items is None:
        return None
    return tuple(parse_selector(i) for i in items)


class Decision(FrozenValue):
    """The answer of :meth:`ToolPolicy.check`: ``allowed`` and, when denied, the ``reason``."""

    allowed: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.allowed


class ToolPolicy(FrozenValue):
    """An intersection of clauses: a call is allowed when every clause allows it.

    :ivar clauses: ``(owner, selectors)`` pairs; ``selectors`` None means the
        owner denies everything (missing or corrupt metadata, fail closed).
    :ivar always_allowed: tools no clause can deny (:data:`ALWAYS_ALLOWED`).
    """

    clauses: tuple[tuple[str, tuple[Selector, ...] | None], ...] = ()
    always_allowed: frozenset[str] = field(default=ALWAYS_ALLOWED)

    @classmethod
    def from_value(cls, value: Any, owner: str = "allowed-tools") -> "ToolPolicy":
        """A policy of one clause parsed from an ``allowed-tools`` value (absent: no clause).

        :raises SelectorError: for an invalid value.
        """
        sels = parse_selectors(value)
        return cls(() if sels is None else ((owner, sels),))

    @classmethod
    def from_clauses(cls, clauses: Iterable[tuple[str, Sequence[str] | None]]) -> "ToolPolicy":
        """Build from ``(owner, selector texts or None)``; an invalid selector makes
        that clause deny everything (fail closed)."""
        out = []
        for owner, texts in clauses:
            if texts is None:
                out.append((owner, None))
                continue
            try:
                out.append((owner, tuple(parse_selector(t) for t in texts)))
            except SelectorError:
                out.append((owner, None))
        return cls(tuple(out))

    def check(self, tool: str, command: str | None = None) -> Decision:
        """Whether ``tool`` (a runtime name or an alias) may run, with ``command``
        for shell tools. Without a command, a command selector makes the shell
        tool visible (schema projection, Sakura B4).

        :returns: :class:`Decision`; the reason names the denying owner.
        """
        name = canonical_tool(tool)
        if name in self.always_allowed:
            return Decision(True)
        argv = parse_command(command) if command is not None else None
        for owner, sels in self.clauses:
            if sels is None:
                return Decision(False, f"{owner}: denies every tool (missing or invalid restriction)")
            if command is None and name in SHELL_TOOLS:
                ok = any(s.tool == name for s in sels)
            else:
                ok = any(s.allows(name, argv) for s in sels)
            if not ok:
                what = f"{name} {command!r}" if command is not None else name
                if command is not None and argv is None and name in SHELL_TOOLS:
                    return Decision(False, f"{owner}: command {command!r} contains shell syntax and never matches")
                return Decision(False, f"{owner}: {what} is not in allowed-tools")
        return Decision(True)

    def __and__(self, other: "ToolPolicy") -> "ToolPolicy":
        return ToolPolicy(self.clauses + other.clauses, self.always_allowed & other.always_allowed)
