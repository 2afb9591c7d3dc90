"""``paths`` frontmatter of conditional rules and their glob matching.

Glob semantics are Claude Code's (reference/conventions.md §1.2), implemented
with :mod:`wcmatch` (``GLOBSTAR | BRACE | DOTGLOB | CASE``):

- ``**`` spans folders, ``*`` and ``?`` stay inside one path component,
  ``[...]`` character classes, brace expansion ``*.{ts,tsx}``;
- dotfiles match (picomatch's ``dot: true``); matching is case-sensitive;
- a pattern is matched against the target path *relative to the rule's scope
  folder*; ``*.md`` therefore only matches files directly in that folder;
- a ``[`` that does not open a bracket expression makes that one pattern
  invalid: it matches nothing and is reported, the rule's other patterns
  still work (escape it as ``\\[``);
- all patterns of one rule share a budget of 1,000 brace-expanded patterns;
  a pattern over it matches nothing and is reported;
- absolute patterns and patterns with a ``..`` segment are refused (Blade §4.6).

Normalisation (Blade §4.6): a string is split on commas and newlines (commas
inside ``{…}`` are kept); items are trimmed, ``\\`` becomes ``/`` only when it
does not escape a glob character, a leading ``./`` is dropped, empties and
duplicates dropped; no pattern, or only ``**``, means unconditional.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from wskit import fs
from wskit.values import FrozenValue


def _wcglob():
    """wcmatch's glob module and the flags ``GLOBSTAR | BRACE | DOTGLOB | CASE``, imported
    when a pattern is first compiled, not at start-up."""
    from wcmatch import glob as wcglob

    return wcglob, wcglob.GLOBSTAR | wcglob.BRACE | wcglob.DOTGLOB | wcglob.CASE


def __getattr__(name: str):
    if name == "FLAGS":  # the public constant, computed on first access
        return _wcglob()[1]
    raise AttributeError(name)
#: Brace-expanded patterns one rule may use in total (Claude Code's budget).
EXPANSION_LIMIT = 1000

_NEVER = re.compile(r"(?!)")


class PatternProblem(FrozenValue):
    """A pattern that was refused or cannot match: ``code`` is a stable diagnostic code
    (immutable; a plain class, so start-up compiles nothing: see :mod:`wskit.values`)."""

    __slots__ = ("__weakref__",)
    pattern: str
    code: str
    message: str

    def __init__(self, pattern: str, code: str, message: str) -> None:
        _set = object.__setattr__
        _set(self, "pattern", pattern)
        _set(self, "code", code)
        _set(self, "message", message)


def split_paths(value: Any) -> tuple[list[str], list[str]]:
    """Turn a ``paths`` frontmatter value into raw pattern strings.

    :param value: a string (split on commas outside braces and on newlines) or a list.
    :returns: ``(items, problems)``; problems describe dropped non-string list items.
    :raises TypeError: when ``value`` is neither a string nor a list.
    """
    if value is None:
        return [], []
    if isinstance(value, str):
        return _split_string(value), []
    if isinstance(value, (list, tuple)):
        items, problems = [], []
        for v in value:
            if isinstance(v, str):
                items.extend(_split_string(v) if "\n" in v else [v])
            else:
                problems.append(f"non-string paths item {v!r} ignored")
        return items, problems
    raise TypeError(f"'paths' must be a string or a list of strings, not {type(value).__name__}")


def _split_string(text: str) -> list[str]:
    out, cur, depth = [], [], 0
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        if (ch == "," and depth == 0) or ch == "\n":
            out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur))
    return out


def normalise(items: list[str]) -> tuple[str, ...]:
    """Trim, turn path backslashes into ``/``, drop ``./`` prefixes, empties and
    duplicates; return ``()`` when nothing but ``**`` is left (unconditional)."""
    out: list[str] = []
    for raw in items:
        p = re.sub(r"\\(?![\[\]*?{}!\\,])", "/", raw.strip())
        while p.startswith("./"):
            p = p[2:]
        if p and p not in out:
            out.append(p)
    if all(p == "**" for p in out):
        return ()
    return tuple(out)


def bracket_problem(pattern: str) -> str | None:
    """A message when some ``[`` does not open a closed bracket expression, else None."""
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            j = i + 1
            if j < n and pattern[j] in "!^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            if j >= n:
                return f"'[' at column {i + 1} does not start a closed bracket expression (escape it as '\\[')"
            i = j + 1
            continue
        i += 1
    return None


def check_pattern(pattern: str, max_length: int | None = None) -> str | None:
    """Why ``pattern`` is unsafe or invalid (a message), or None when it is usable."""
    if max_length is not None and len(pattern) > max_length:
        return f"pattern longer than {max_length} characters"
    if pattern.startswith("/") or re.match(r"^[A-Za-z]:", pattern):
        return "absolute patterns are not allowed (patterns are relative to the rule's folder)"
    if ".." in pattern.split("/"):
        return "patterns may not contain a '..' segment"
    if any(True for _ in fs.find_hidden_chars(pattern)):
        return "pattern contains hidden control characters"
    return bracket_problem(pattern)


class PathMatcher:
    """The compiled patterns of one rule: :meth:`match` tests a path relative to the rule's scope.

    Built cheaply: the patterns are checked (:func:`check_pattern`) and their literal
    pre-filters taken at once; the glob translation and the regular expression (wcmatch
    and ``re``, ≈ 25 ms for a process's first ones) wait for the first :meth:`match` or
    for :attr:`patterns` / :attr:`problems` (a catalog built from a persistent index, or
    an ``inspect`` that asks no contextual question, compiles nothing).

    :ivar patterns: the usable patterns. :ivar problems: refused patterns.
    """


    def __init__(self, patterns: tuple[str, ...], max_length: int | None = None) -> None:
        self._source = tuple(patterns)
        self._max_length = max_length
        self._compiled: tuple | None = None
        # a pre-filter per pattern that passes the checks: a superset of the usable ones (a
        # pattern wcmatch later refuses only lets more paths through to the regular expression)
        filters = tuple(literal_filter(p) for p in self._source if check_pattern(p, max_length) is None)
        # None: some pattern has no literal part, so every path goes to the regular expression
        self._filters = None if any(f == ("", "") for f in filters) else filters

    def _compile(self) -> tuple:
        """``(usable patterns, problems, regular expression)``, made on first need (a race
        makes the same value twice)."""
        got = self._compiled
        if got is not None:
            return got
        usable: list[str] = []
        regexes: list[str] = []
        problems: list[PatternProblem] = []
        budget = EXPANSION_LIMIT
        for p in self._source:
            why = check_pattern(p, self._max_length)
            if why is not None:
                problems.append(PatternProblem(p, "rule-pattern-invalid", why))
                continue
            fast = simple_translate(p, max(budget, 1))
            if fast is not None:  # the common forms, without importing wcmatch
                budget -= len(fast)
                usable.append(p)
                regexes.extend(fast)
                continue
            try:
                wcglob, FLAGS = _wcglob()
                include, _exclude = wcglob.translate(p, flags=FLAGS, limit=max(budget, 1))
            except Exception as err:  # wcmatch's PatternLimitException, or another refusal
                if type(err).__name__ == "PatternLimitException":
                    problems.append(PatternProblem(
                        p, "rule-pattern-limit",
                        f"brace expansion exceeds the rule's budget of {EXPANSION_LIMIT} patterns"))
                else:
                    problems.append(PatternProblem(p, "rule-pattern-invalid", f"invalid glob: {err}"))
                continue
            budget -= len(include)
            usable.append(p)
            regexes.extend(include)
        regex = re.compile("|".join(f"(?:{r})" for r in regexes)) if regexes else _NEVER
        got = self._compiled = (tuple(usable), tuple(problems), regex)
        return got

    @property
    def patterns(self) -> tuple[str, ...]:
        """The usable patterns (compiles them when not done yet)."""
        return self._compile()[0]

    @property
    def problems(self) -> tuple[PatternProblem, ...]:
        """The refused patterns, each a :class:`PatternProblem` (compiles when not done yet)."""
        return self._compile()[1]

    def match(self, rel_path: str) -> bool:
        """True when some usable pattern matches ``rel_path`` (``/`` separators, no leading ``/``).

        A path that fails every pattern's :func:`literal_filter` (a necessary
        condition) is refused without running the regular expression.
        """
        if not rel_path:
            return False
        filters = self._filters
        if filters is not None:
            slash = rel_path[-1] == "/"
            for pre, suf in filters:
                if rel_path.startswith(pre) and (slash or rel_path.endswith(suf)):
                    break
            else:
                return False
        return (self._compiled or self._compile())[2].match(rel_path) is not None

    def matching_pattern(self, rel_path: str) -> str | None:
        """The first usable pattern that matches ``rel_path`` (for ``wsctl rules explain``)."""
        wcglob, FLAGS = _wcglob()
        for p in self.patterns:
            if rel_path and wcglob.globmatch(rel_path, p, flags=FLAGS):
                return p
        return None


#: characters :func:`simple_translate` handles (after brace expansion): letters, digits,
#: ``._-~`` and ``/``, with ``*`` and ``?`` (none of the others is special to wcmatch
#: without ``EXTGLOB``, ``NEGATE`` or ``MINUSNEGATE``)
_SIMPLE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-~/*?")
#: wcmatch's ``**``: any run of characters that holds no ``.`` or ``..`` segment
_GLOBSTAR = r"(?:(?!(?:[/]|^)(?:\.{1,2})(?:$|[/])).)*?"
_NOT_DOTS = r"(?!\.{1,2}(?:$|[/]))"


def _flat_braces(pattern: str, limit: int) -> list[str] | None:
    """``pattern`` with its ``{a,b}`` groups expanded (bracex's order, a repeated expansion
    kept once, as wcmatch keeps it), or None when a group is not flat (nested, empty item,
    no comma, a ``..`` range), a brace is unpaired, or the expansions would be more than
    ``limit`` before repeats are dropped (wcmatch's limit counts them too; counted before
    they are made: a ``{a,b}{a,b}…`` bomb is never expanded)."""
    out = [""]
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "}":
            return None
        if ch != "{":
            out = [o + ch for o in out]
            i += 1
            continue
        j = pattern.find("}", i)
        if j < 0:
            return None
        items = pattern[i + 1:j].split(",")
        if len(items) < 2 or any(not it or "{" in it or ".." in it for it in items) or \
                len(out) * len(items) > limit:
            return None
        out = [o + it for o in out for it in items]
        i = j + 1
    return list(dict.fromkeys(out))  # as wcmatch: a repeated expansion counts once against the budget


def _segment(seg: str) -> str:
    """One segment without ``**``: literal characters escaped, ``*`` any run of non-``/``
    characters, ``?`` one; a segment that starts with a wildcard is never empty, ``.`` or ``..``."""
    head = ""
    if seg[0] == "*":
        head = "(?=[^/])" + _NOT_DOTS
    elif seg[0] == "?":
        head = _NOT_DOTS
    return head + "".join("[^/]*?" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in seg)


def simple_translate(pattern: str, limit: int) -> list[str] | None:
    """The regular expressions wcmatch's ``translate`` would give ``pattern`` (flags
    ``GLOBSTAR | BRACE | DOTGLOB | CASE``, matched with ``re.match``) for the common
    forms — ``src/**/*.ts``, ``**/*.{ts,tsx}``, ``*.md``, ``test?/**`` — so that rules
    load and match without importing wcmatch (≈ 8 ms of a start); None for anything
    else (character classes, escapes, nested or empty braces, more than one ``*`` in a
    segment, ``**`` inside a segment, an empty, ``.`` or ``..`` segment, a trailing
    ``/``, more than ``limit`` expansions), which wcmatch translates. Differentially
    tested against wcmatch on generated patterns and paths
    (tests/builtin_plugins/rules/test_simple_globs.py).
    """
    expanded = _flat_braces(pattern, limit) if "{" in pattern or "}" in pattern else [pattern]
    if expanded is None:
        return None
    out = []
    for pat in expanded:
        if not _SIMPLE_CHARS.issuperset(pat):
            return None
        segments = pat.split("/")
        parts: list[str] = []
        prev_globstar = False
        for k, seg in enumerate(segments):
            if seg in ("", ".", "..") or seg.count("*") > (2 if seg == "**" else 1):
                return None
            if seg == "**":
                if prev_globstar:  # a run of ** is one
                    if k == len(segments) - 1:
                        parts[-1] = "(?:^|$|[/]+)"
                    continue
                parts.append("(?=[/])" if parts else "")
                parts.append(_GLOBSTAR)
                parts.append("(?:^|$|[/]+)" if k == len(segments) - 1 else "(?:^|[/]+)")
                prev_globstar = True
                continue
            if parts and not prev_globstar:
                parts.append("[/]+")
            parts.append(_segment(seg))
            prev_globstar = False
        if not prev_globstar:
            parts.append("[/]*?")
        out.append("^(?s:" + "".join(parts) + ")$")
    return out


_SPECIAL = frozenset("*?[]{}\\!")


def literal_filter(pattern: str) -> tuple[str, str]:
    """A necessary condition for ``pattern`` to match a path: ``(prefix, suffix)``.

    ``prefix`` is the pattern's literal start (before the first glob character),
    cut before its last ``/`` and before any ``//``; ``suffix`` its literal end
    (after the last glob character) from its last ``/`` on. A path the pattern
    matches starts with ``prefix`` and, unless it ends with ``/``, ends with
    ``suffix`` (property-tested against :func:`reference_match`). ``("", "")``
    when the pattern has no literal part.
    """
    i = 0
    while i < len(pattern) and pattern[i] not in _SPECIAL:
        i += 1
    prefix = pattern[:i]
    if "//" in prefix:
        prefix = prefix[: prefix.index("//")]
    prefix = prefix[: prefix.rfind("/")] if "/" in prefix else prefix
    j = len(pattern)
    while j > 0 and pattern[j - 1] not in _SPECIAL:
        j -= 1
    if j > 0 and pattern[j - 1] == "\\" and j < len(pattern):
        j += 1  # the escaped character itself may not be literal
    suffix = pattern[j:]
    suffix = suffix[suffix.rfind("/") + 1:]
    return prefix, suffix


@functools.lru_cache(maxsize=4096)
def compiled(patterns: tuple[str, ...], max_length: int | None = None) -> PathMatcher:
    """A shared :class:`PathMatcher` for ``patterns`` (it is never mutated): rules with
    the same patterns, and every rebuild of a catalog, compile them once."""
    return PathMatcher(patterns, max_length)


def reference_match(rel_path: str, pattern: str) -> bool:
    """One pattern matched the plain way (no precompilation): the brute-force reference of tests."""
    if check_pattern(pattern) is not None or not rel_path:
        return False
    wcglob, FLAGS = _wcglob()
    return wcglob.globmatch(rel_path, pattern, flags=FLAGS)


MatcherFactory = Callable[[tuple[str, ...]], PathMatcher]
