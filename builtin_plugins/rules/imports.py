"""``@path`` imports in instruction and rule files (Claude Code / Gemini CLI).

- An ``@`` counts at the start of a line or after a space or tab; the path runs
  to the next whitespace and must start with ``.``, ``/``, ``~`` or an ASCII
  letter, digit or ``_`` (``@AGENTS.md``, ``@./docs/x.md``, ``@~/x.md``).
  Trailing sentence punctuation (``.,;:!?)]``) is not part of the path.
- Code spans (`` `@x` ``) and fenced code blocks are left alone.
- The path resolves relative to the file that contains it; imported files may
  import further, at most :data:`MAX_DEPTH` (4) hops deep; a file already in
  the current import chain is a ``rule-import-cycle`` diagnostic.
- Imports are confined to the root of the file's source (the source project
  for project files, the user home for user files): anything outside is a
  ``rule-import-outside`` diagnostic and is never read (a drive-letter
  target such as ``c:/x`` counts as absolute, as it would on Windows). Reads go through
  :mod:`wskit.fs` (no links in project files, no secrets, size limit).
- A successful import replaces the ``@path`` token by the imported text
  (itself expanded); a failed one leaves the token as written and adds a
  diagnostic naming the file and line. A missing file is an ``info``
  diagnostic (an ``@name`` may be a mention, not an import).
"""

from __future__ import annotations

import os
import posixpath
import re

from wskit import fs
from wskit.models import Diagnostic
from wskit.util.lazyre import lazy_pattern
from wskit.values import Value

MAX_DEPTH = 4

_TOKEN = lazy_pattern(globals(), "_TOKEN", r"(?:^|(?<=[ \t]))@([A-Za-z0-9_./~][^\s`]*)", re.M)
_FENCE = lazy_pattern(globals(), "_FENCE", r"^[ \t]{0,3}(```+|~~~+)")
_TRAIL = ".,;:!?)]}>\"'"


class ImportResult(Value):
    """Text with imports inlined, the files read (relative to the root) and diagnostics;
    each list is a new empty one unless given. A plain class, so start-up compiles nothing
    (see :mod:`wskit.values`)."""

    __slots__ = ("__weakref__",)
    text: str
    imported: list[str]
    diagnostics: list[Diagnostic]

    def __init__(self, text: str, imported: list[str] | None = None,
                 diagnostics: list[Diagnostic] | None = None) -> None:
        self.text = text
        self.imported = [] if imported is None else imported
        self.diagnostics = [] if diagnostics is None else diagnostics


def _code_mask(text: str) -> list[tuple[int, int]]:
    """Character ranges inside fenced blocks or inline code spans."""
    ranges: list[tuple[int, int]] = []
    pos, fence, fence_start = 0, None, 0
    for line in text.splitlines(keepends=True):
        m = _FENCE.match(line)
        if fence is None and m:
            fence, fence_start = m.group(1)[0] * len(m.group(1)), pos
        elif fence is not None and m and m.group(1).startswith(fence):
            ranges.append((fence_start, pos + len(line)))
            fence = None
        elif fence is None:
            for cm in re.finditer(r"(`+)(?:.+?)\1", line):
                ranges.append((pos + cm.start(), pos + cm.end()))
        pos += len(line)
    if fence is not None:
        ranges.append((fence_start, len(text)))
    return ranges


def _in(ranges: list[tuple[int, int]], i: int) -> bool:
    return any(a <= i < b for a, b in ranges)


def expand_imports(
    text: str,
    *,
    base: str,
    rel_path: str,
    home: str | None = None,
    follow_links: bool = False,
    max_bytes: int | None = None,
    max_depth: int = MAX_DEPTH,
    confine: str = "",
    _chain: tuple[str, ...] = (),
) -> ImportResult:
    """Inline the ``@path`` imports of ``text``, the content of ``base/rel_path``.

    :param base: absolute root the file belongs to; imports may not leave it.
    :param rel_path: the containing file, relative to ``base`` (``/`` separators).
    :param home: the user home, for ``@~/…`` (None: ``~`` imports are outside).
    :param follow_links: read following links (user-scope files only).
    :param max_bytes: per-file size limit for imported files.
    :param max_depth: import hops allowed (default :data:`MAX_DEPTH`, Claude Code's 4;
        Gemini CLI allows 5).
    :param confine: a folder below ``base`` (relative) imports must stay in, ``""``: ``base``
        itself (Gemini CLI 0.61.0 confines ``~/.gemini/GEMINI.md``'s imports to ``~/.gemini``:
        recorded case ``gemini-home-import-outside``).
    :returns: :class:`ImportResult`; never raises for bad content.
    """
    chain = _chain or (rel_path,)
    result = ImportResult(text=text)
    if "@" not in text:
        return result
    mask = _code_mask(text)
    pieces: list[str] = []
    last = 0
    shown = os.path.join(base, rel_path)
    for m in _TOKEN.finditer(text):
        if _in(mask, m.start()):
            continue
        target = m.group(1).rstrip(_TRAIL)
        if not target or target in (".", ".."):
            continue
        line = text.count("\n", 0, m.start()) + 1
        end = m.start() + 1 + len(target)
        resolved, why = _resolve(target, base, rel_path, home)
        if resolved is not None and confine and not resolved.startswith(confine.rstrip("/") + "/"):
            resolved, why = None, f"resolves outside {confine}"
        if resolved is None:
            result.diagnostics.append(Diagnostic(
                level="warning", code="rule-import-outside", path=shown, line=line,
                message=f"import @{target} {why}; it was not read"))
            continue
        if resolved in chain:
            result.diagnostics.append(Diagnostic(
                level="warning", code="rule-import-cycle", path=shown, line=line,
                message=f"import @{target} forms a cycle ({' -> '.join([*chain, resolved])}); not imported again"))
            continue
        if len(chain) > max_depth:
            result.diagnostics.append(Diagnostic(
                level="warning", code="rule-import-depth", path=shown, line=line,
                message=f"import @{target} is more than {max_depth} levels deep; not imported"))
            continue
        try:
            res = fs.read_bytes(base, resolved, max_bytes=max_bytes, follow_links=follow_links)
            sub = fs.decode_text(res.raw, res.path)
        except fs.SafeFsError as err:
            level = "info" if err.code == "not-found" else "warning"
            result.diagnostics.append(Diagnostic(
                level=level, code="rule-import-not-found" if err.code == "not-found" else "rule-import-refused",
                path=shown, line=line, message=f"import @{target} not read: {err.args[0]}"))
            continue
        hidden = next(iter(fs.find_hidden_chars(sub)), None)
        if hidden is not None:
            result.diagnostics.append(Diagnostic(
                level="warning", code="rule-import-refused", path=shown, line=line,
                message=f"import @{target} contains the hidden character {hidden[1]} (line {hidden[0]}); not imported"))
            continue
        inner = expand_imports(sub, base=base, rel_path=resolved, home=home, follow_links=follow_links,
                               max_bytes=max_bytes, max_depth=max_depth, confine=confine,
                               _chain=(*chain, resolved))
        result.imported.append(resolved)
        result.imported.extend(i for i in inner.imported if i not in result.imported)
        result.diagnostics.extend(inner.diagnostics)
        pieces.append(text[last:m.start()])
        pieces.append(inner.text.strip("\n"))
        last = end
    if pieces:
        pieces.append(text[last:])
        result.text = "".join(pieces)
    return result


def _resolve(target: str, base: str, rel_path: str, home: str | None) -> tuple[str | None, str]:
    """The import's path relative to ``base``, or ``(None, why)`` when it lies outside."""
    if target.startswith(("http://", "https://", "file://")):
        return None, "is a URL"
    if len(target) >= 2 and target[1] == ":" and target[0].isascii() and target[0].isalpha():
        return None, "names a drive (an absolute Windows path)"
    if target.startswith("~/") or target == "~":
        if home is None:
            return None, "points into the user home, outside the project"
        absolute = posixpath.normpath(posixpath.join(home.replace(os.sep, "/"), target[2:]))
    elif target.startswith("/"):
        absolute = posixpath.normpath(target)
    else:
        here = posixpath.dirname(rel_path)
        rel = posixpath.normpath(posixpath.join(here, target))
        if rel == ".." or rel.startswith("../"):
            return None, "resolves outside its root"
        return rel, ""
    root = posixpath.normpath(base.replace(os.sep, "/"))
    if absolute == root or not absolute.startswith(root.rstrip("/") + "/"):
        return None, "resolves outside its root"
    return absolute[len(root.rstrip("/")) + 1:], ""
