"""``.gitignore`` matching for the project walk, with pre-filters.

pathspec's ``GitIgnoreSpec`` decides; :class:`GitIgnore` answers "no pattern
matches" first, without pathspec's per-pattern loop, from each pattern's literal
part and from one alternation of the patterns' regular expressions. Both are
property-tested against ``GitIgnoreSpec.check_file``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from wskit.util.lazyre import lazy_pattern

if TYPE_CHECKING:  # imported where a .gitignore is parsed
    import pathspec

__all__ = ["GitIgnore"]


class GitIgnore:
    """One parsed ``.gitignore`` with a pre-filter: the alternation of its patterns'
    regular expressions. A path none of them matches has no result in pathspec
    (its backends decide only among matching patterns), so :meth:`check` answers
    None without pathspec's per-pattern loop (most folders match no
    pattern). Tested against ``GitIgnoreSpec.check_file``.
    """

    __slots__ = ("spec", "_any", "_literals")

    def __init__(self, spec: pathspec.GitIgnoreSpec) -> None:
        self.spec = spec
        self._literals = _literals(spec)
        parts = []
        for pat in spec.patterns:
            regex = getattr(pat, "regex", None)
            if getattr(pat, "include", None) is None or regex is None:
                continue
            if not isinstance(getattr(regex, "pattern", None), str) or regex.flags & ~re.UNICODE:
                parts = None  # a pattern we cannot fold in safely: no pre-filter
                break
            # named groups (pathspec's directory mark) cannot repeat in one alternation
            parts.append(_NAMED_GROUP.sub("(?:", regex.pattern))
        try:
            self._any = re.compile("|".join(f"(?:{p})" for p in parts)) if parts else (
                None if parts is None else _NEVER)
        except re.error:
            self._any = None  # e.g. a back-reference to a renamed group: no pre-filter

    def check(self, path: str) -> bool | None:
        """True (ignored), False (re-included by a ``!`` pattern) or None (no pattern matches)."""
        literals = self._literals
        if literals is not None:
            for lit in literals:
                if lit in path:
                    break
            else:
                return None  # no pattern's literal part is in the path: none can match
        if self._any is not None and self._any.match(path) is None:
            return None
        res = self.spec.check_file(path)
        return None if res.include is None else bool(res.include)


_GLOB_SPLIT = lazy_pattern(globals(), "_GLOB_SPLIT", r"\[[^\]]*\]|[*?]")


def _literals(spec: pathspec.GitIgnoreSpec) -> tuple[str, ...] | None:
    """One literal every match of each pattern must contain (its longest run of plain
    characters, ``/`` stripped at both ends), or None when some pattern has no safe
    literal (escapes, an open ``[``, trailing blanks): then only the regex pre-filter
    runs. A path holding none of them matches no pattern."""
    out: list[str] = []
    for pat in spec.patterns:
        if getattr(pat, "include", None) is None:
            continue  # comments and blank lines
        text = getattr(pat, "pattern", None)
        if not isinstance(text, str):
            return None
        text = text[1:] if text.startswith("!") else text
        plain = _GLOB_SPLIT.sub("", text)
        if "\\" in text or text != text.rstrip() or "[" in plain or "]" in plain:
            return None
        longest = max((piece.strip("/") for piece in _GLOB_SPLIT.split(text)), key=len, default="")
        if not longest:
            return None  # e.g. "*": may match anything
        out.append(longest)
    return tuple(out)


_NAMED_GROUP = lazy_pattern(globals(), "_NAMED_GROUP", r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")
_NEVER = re.compile(r"(?!)")
