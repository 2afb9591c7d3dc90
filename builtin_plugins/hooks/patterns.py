"""Bounded pattern evaluation for hooks: the one matcher grammar, and the regular
expressions behind ``if`` wildcards and path rules.

Every pattern a hook configuration supplies is evaluated here, with the
linear-time RE2 engine (``google-re2``), never with Python's backtracking
``re``: a pattern such as ``(a+)+$`` or a wildcard with many stars costs time
linear in the text, so no hook definition can freeze the host (``re`` holds
the GIL while it backtracks). Bounds, checked before a pattern is compiled:

- a pattern is at most :data:`MAX_PATTERN_CHARS` characters;
- its compiled program fits in :data:`MAX_PROGRAM_BYTES` (RE2's ``max_mem``);
  RE2 itself refuses counted repetitions over 1000;
- what it is matched against is at most :data:`MAX_SUBJECT_CHARS` characters
  (a longer value never matches a regular expression; exact names still compare).

A pattern past these bounds, or one RE2 cannot run (look-around,
back-references), is *refused* (:class:`PatternRefused`); callers decide what a
refused pattern means (the runner runs the handler as if it had no matcher or
``if``, restrict-only, so a guard never silently stops).

Matcher grammar (:func:`matcher_matches`, Claude Code's hooks reference): empty
or ``*`` matches every value; a matcher of only letters, digits, ``_``, ``-``,
spaces, ``,`` and ``|`` is a list of exact names separated by ``|`` or ``,``;
anything else is an unanchored regular expression (``Edit.*`` also matches
``NotebookEdit``); a syntactically invalid expression compares exactly
(Blade §11.3). The loader, ``wsctl hooks list`` and the runner all use it.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from wskit.util.lazyre import lazy_pattern

#: Longest pattern (matcher, ``if`` content) evaluated, characters.
MAX_PATTERN_CHARS = 1024
#: RE2 memory budget of one compiled pattern, bytes.
MAX_PROGRAM_BYTES = 1 << 20
#: Longest text a pattern is matched against, characters (the runner's stdin cap is 100 KiB).
MAX_SUBJECT_CHARS = 256 * 1024

_EXACT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_- ,|")
_SPLIT = lazy_pattern(globals(), "_SPLIT", r"[|,]")


class PatternRefused(ValueError):
    """A pattern outside the bounds of this module, or one the linear-time engine cannot run.

    :ivar pattern: the pattern (at most its first 80 characters). :ivar why: the reason.
    """

    def __init__(self, pattern: str, why: str) -> None:
        shown = pattern if len(pattern) <= 80 else pattern[:77] + "..."
        super().__init__(f"pattern {shown!r} refused: {why}")
        self.pattern, self.why = shown, why


class _Invalid:
    """A pattern that is not a regular expression at all (a syntax error in any engine)."""

    def __init__(self, why: str) -> None:
        self.why = why


def exact_names(matcher: str) -> frozenset[str] | None:
    """The names of an exact-list matcher (``Edit|Write``, ``Edit, Write``), or None when
    ``matcher`` is a regular expression by the grammar above."""
    if not set(matcher) <= _EXACT_CHARS:
        return None
    return frozenset(p.strip() for p in _SPLIT.split(matcher) if p.strip())


@functools.lru_cache(maxsize=1024)
def _compiled(pattern: str, dot_nl: bool, limit: int = MAX_PATTERN_CHARS) -> Any:
    """The RE2 program of ``pattern``, a :class:`PatternRefused` or an :class:`_Invalid` (cached)."""
    if len(pattern) > limit:
        return PatternRefused(pattern, f"longer than {limit} characters")
    import re2  # the engine is loaded where a pattern is first evaluated, not at start-up

    opts = re2.Options()
    opts.log_errors = False
    opts.max_mem = MAX_PROGRAM_BYTES
    opts.dot_nl = dot_nl
    try:
        return re2.compile(pattern, opts)
    except re2.error as err:
        why = err.args[0].decode("utf-8", "replace") if err.args and isinstance(err.args[0], bytes) else str(err)
    # tell "not a regular expression" from "a regular expression RE2 will not run"
    try:
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError, ValueError) as err:
        return _Invalid(str(err))
    return PatternRefused(pattern, f"not supported by the linear-time engine ({why})")


def compile_bounded(pattern: str, *, dot_nl: bool = False, limit: int = MAX_PATTERN_CHARS) -> Any:
    """The compiled RE2 pattern (``search``/``fullmatch`` methods).

    :param limit: longest ``pattern`` accepted, characters (a regular expression
        translated from a bounded wildcard may be longer than its source).

    :raises PatternRefused: over a bound, or not runnable by RE2.
    :raises ValueError: not a regular expression (its message says why).
    """
    prog = _compiled(pattern, dot_nl, limit)
    if isinstance(prog, PatternRefused):
        raise prog
    if isinstance(prog, _Invalid):
        raise ValueError(prog.why)
    return prog


def search(pattern: str, text: str, *, dot_nl: bool = False, limit: int = MAX_PATTERN_CHARS) -> bool:
    """True when ``pattern`` matches somewhere in ``text`` (a ``text`` over
    :data:`MAX_SUBJECT_CHARS` never matches). Raises as :func:`compile_bounded`."""
    prog = compile_bounded(pattern, dot_nl=dot_nl, limit=limit)
    return len(text) <= MAX_SUBJECT_CHARS and prog.search(text) is not None


def fullmatch(pattern: str, text: str, *, dot_nl: bool = False, limit: int = MAX_PATTERN_CHARS) -> bool:
    """True when ``pattern`` matches all of ``text`` (bounded as :func:`search`)."""
    prog = compile_bounded(pattern, dot_nl=dot_nl, limit=limit)
    return len(text) <= MAX_SUBJECT_CHARS and prog.fullmatch(text) is not None


def matcher_problem(matcher: str | None) -> tuple[str, str] | None:
    """Why ``matcher`` cannot be evaluated as a regular expression, or None when it can
    (or is an exact list): ``("invalid", why)`` — it compares exactly — or
    ``("refused", why)`` — see :class:`PatternRefused`."""
    m = (matcher or "").strip()
    if m in ("", "*") or exact_names(m) is not None:
        return None
    prog = _compiled(m, False)
    if isinstance(prog, _Invalid):
        return "invalid", prog.why
    if isinstance(prog, PatternRefused):
        return "refused", prog.why
    return None


def matcher_matches(matcher: str | None, value: str | None) -> bool:
    """Whether ``matcher`` (the grammar in the module doc) matches ``value``.

    ``value`` None means the event offers nothing to match (Claude Code ignores the
    matcher of such events): every matcher matches.

    :raises PatternRefused: a regular expression over the bounds (never for an exact list).
    """
    m = (matcher or "").strip()
    if m in ("", "*") or value is None:
        return True
    names = exact_names(m)
    if names is not None:
        return value in names
    prog = _compiled(m, False)
    if isinstance(prog, _Invalid):
        return m == value
    if isinstance(prog, PatternRefused):
        raise prog
    return len(value) <= MAX_SUBJECT_CHARS and prog.search(value) is not None
