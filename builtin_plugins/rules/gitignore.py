"""``.gitignore`` matching for the project walk, with pre-filters.

pathspec's ``GitIgnoreSpec`` decides; :class:`GitIgnore` answers "no pattern
matches" first, without pathspec's per-pattern loop, from each pattern's literal
part and from one alternation of the patterns' regular expressions. A file whose
every pattern is a plain name or path (``node_modules/``, ``/dist``, ``build``,
``docs/out/``: no wildcard, escape, negation or blank) is answered by
:class:`SimpleGitIgnore` with string tests, without importing pathspec (its
package imports its ``re2`` and ``hyperscan`` back-ends: ≈ 18 ms of a start).
All three are property-tested against ``GitIgnoreSpec.check_file``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from wskit.util.lazyre import lazy_pattern

if TYPE_CHECKING:  # imported where a .gitignore is parsed
    import pathspec


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
        if self._any is not None and self._any.search(path) is None:  # pathspec searches too
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


#: characters of a pattern :func:`simple_gitignore` answers itself: none but ``*`` and ``?``
#: is special to gitignore's wildcard syntax (``[]\\!#``, blanks) or to pathspec's translation
_SIMPLE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-+@=,~%/*?")
_WILD = frozenset("*?")


class SimpleGitIgnore:
    """A ``.gitignore`` of simple patterns only — plain names and paths with ``*`` and
    ``?`` inside a segment (``node_modules/``, ``*.pyc``, ``/dist``, ``docs/*.txt``; no
    ``**``, bracket, escape, negation or blank) — answered as ``GitIgnoreSpec.check_file``
    answers it, without pathspec.

    gitignore's rules, as pathspec applies them: a pattern with no ``/`` but a trailing one
    matches a path segment at any depth, any other is anchored at the ``.gitignore``'s
    folder (a leading ``/`` dropped) and matches the path's first segments; a trailing
    ``/`` matches folders only (the segment is followed by ``/``); ``*`` is any run of
    characters but ``/``, ``?`` one; a segment is never empty. What a pattern matches, it
    matches with everything below. With no negation the last match is an include, so
    :meth:`check` is True when any pattern matches, else None. Plain names are set
    lookups; patterns with wildcards are one alternation of regular expressions (the
    project is trusted: its ``.gitignore`` would be compiled by pathspec otherwise). A
    path with a line break (where pathspec's ``$`` and ``.`` differ from these tests) is
    handed to pathspec itself. Paths are the walk's: relative, no ``.`` or ``..`` segment.

    :ivar lines: the file's lines, as given to pathspec.
    """

    __slots__ = ("lines", "_names", "_dir_names", "_paths", "_dir_paths", "_search", "_match", "_spec")

    def __init__(self, lines: list[str], names: frozenset[str], dir_names: frozenset[str],
                 paths: tuple[str, ...], dir_paths: tuple[str, ...], search: list[str], match: list[str]) -> None:
        self.lines = lines
        self._names = names
        self._dir_names = dir_names
        self._paths = paths
        self._dir_paths = dir_paths
        self._search = re.compile("|".join(search)) if search else None
        self._match = re.compile("|".join(match)) if match else None
        self._spec: GitIgnore | None = None

    def check(self, path: str) -> bool | None:
        """True (ignored) or None (no pattern matches) for ``path`` (relative to the
        ``.gitignore``'s folder, a folder with a trailing ``/``), as ``check_file``."""
        if "\n" in path or "\r" in path:
            if self._spec is None:
                import pathspec

                self._spec = GitIgnore(pathspec.GitIgnoreSpec.from_lines(self.lines))
            return self._spec.check(path)
        if self._names or self._dir_names:
            segments = path.split("/")
            if self._names and not self._names.isdisjoint(segments):
                return True
            if self._dir_names and not self._dir_names.isdisjoint(segments[:-1]):
                return True
        for p in self._paths:
            if path.startswith(p) and (len(path) == len(p) or path[len(p)] == "/"):
                return True
        for p in self._dir_paths:
            if path.startswith(p) and path[len(p):len(p) + 1] == "/":
                return True
        if self._search is not None and self._search.search(path) is not None:
            return True
        if self._match is not None and self._match.match(path) is not None:
            return True
        return None


def _segment_regex(segment: str) -> str:
    """One pattern segment as a regular expression: never empty, ``*`` any run of
    non-``/`` characters, ``?`` one, the rest literal."""
    out = ["(?=[^/])"]
    for ch in segment:
        out.append("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch))
    return "".join(out)


def simple_gitignore(lines: list[str]) -> SimpleGitIgnore | None:
    """A :class:`SimpleGitIgnore` for ``lines`` (a ``.gitignore`` split at ``\\n``) when
    every line is empty or a simple pattern: characters of :data:`_SIMPLE_CHARS` only,
    no ``**``, no empty, ``.`` or ``..`` segment (a leading and a trailing ``/`` aside);
    None otherwise (pathspec decides)."""
    names: set[str] = set()
    dir_names: set[str] = set()
    paths: list[str] = []
    dir_paths: list[str] = []
    search: list[str] = []
    match: list[str] = []
    for line in lines:
        if not line:
            continue
        if not _SIMPLE_CHARS.issuperset(line) or "**" in line:
            return None
        dir_only = line.endswith("/")
        body = line[:-1] if dir_only else line
        anchored = body.startswith("/")
        body = body[1:] if anchored else body
        segments = body.split("/")
        if any(seg in ("", ".", "..") for seg in segments):
            return None
        end = "/" if dir_only else r"(?:/|\Z)"
        if len(segments) == 1 and not anchored:
            if _WILD.isdisjoint(body):
                (dir_names if dir_only else names).add(body)
            else:
                search.append(f"(?:^|/){_segment_regex(body)}{end}")
        elif _WILD.isdisjoint(body):
            (dir_paths if dir_only else paths).append(body)
        else:
            match.append("/".join(_segment_regex(seg) for seg in segments) + end)
    return SimpleGitIgnore(lines, frozenset(names), frozenset(dir_names), tuple(paths), tuple(dir_paths),
                            search, match)
