"""Reading Gemini CLI JSON files (comments allowed) and ``context.fileName``.

Gemini CLI reads ``settings.json``, ``trustedFolders.json`` and
``gemini-extension.json`` as JSON with comments (reference/conventions.md §3);
they are parsed with the ``json5`` library (a superset), read through
:mod:`wskit.fs` (no links in project files, no FIFOs, size limit).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from wskit import fs
from wskit.models import Diagnostic
from wskit.util.lazyre import lazy_pattern

#: Largest Gemini JSON file read, in bytes.
MAX_JSON_BYTES = 1 << 20
#: The default memory file name (``context.fileName`` replaces it).
DEFAULT_CONTEXT_NAMES: tuple[str, ...] = ("GEMINI.md",)
GEMINI_DIR = ".gemini"


#: Deepest nesting of arrays/objects accepted in a settings or extension file.
MAX_JSON_DEPTH = 64
# strings (both quotes, JSON5) and comments are skipped whole: brackets inside them do not count
_JSONC_TOKENS = lazy_pattern(globals(), "_JSONC_TOKENS",
                             r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|//[^\n]*|/\*.*?\*/|[\[\]{}]', re.S)


def _depth_over(text: str, limit: int) -> int | None:
    """The 1-based line where ``text`` nests deeper than ``limit``, or None (a linear scan)."""
    depth = 0
    for m in _JSONC_TOKENS.finditer(text):
        tok = m.group()
        if tok in "[{":
            depth += 1
            if depth > limit:
                return text.count("\n", 0, m.start()) + 1
        elif tok in "]}":
            depth = max(0, depth - 1)
    return None


def read_jsonc(base: str | Path, rel: str, *, follow_links: bool = False, code: str = "gemini-json-invalid"
               ) -> tuple[Any, list[Diagnostic]]:
    """Parse ``base/rel`` as JSON with comments.

    :returns: ``(data, diagnostics)``; ``data`` is None when the file is absent
        (no diagnostic), refused by safe file access (its code), or unparseable
        (``code``, with the line when the parser names one).
    """
    try:
        res = fs.read_bytes(str(base), rel, max_bytes=MAX_JSON_BYTES, follow_links=follow_links)
        text = fs.decode_text(res.raw, res.path)
    except fs.SafeFsError as err:
        if err.code == "not-found":
            return None, []
        return None, [err.diagnostic()]
    path = os.path.join(str(base), rel)
    import json5  # only once a file was read: no settings, no json5

    depth = _depth_over(text, MAX_JSON_DEPTH)
    if depth is not None:
        # checked before parsing: json5 recurses per level (slowly, in Python) before it fails
        return None, [Diagnostic(level="error", code=code, path=path, line=depth,
                                 message=f"not valid JSON: nested deeper than {MAX_JSON_DEPTH} levels")]
    try:
        # plain JSON (a subset of JSON5, same values) through the C parser first:
        # json5 parses in Python, ~50 µs a character (a 100,000-character string: 5 s)
        return json.loads(text), []
    except (ValueError, RecursionError):
        pass
    try:
        return json5.loads(text), []
    except RecursionError:
        # json5 recurses per nesting level: a file nested thousands deep must be
        # a diagnostic, not an exception that takes the whole hook down
        return None, [Diagnostic(level="error", code=code, path=path, line=None,
                                 message="not valid JSON: nested too deeply")]
    except ValueError as err:
        m = re.search(r":(\d+) ", str(err))
        return None, [Diagnostic(level="error", code=code, path=path, line=int(m.group(1)) if m else None,
                                 message=f"not valid JSON: {err}")]


def context_names(value: Any, path: str | None = None) -> tuple[tuple[str, ...] | None, list[Diagnostic]]:
    """The memory file names of a ``context.fileName`` value (a string or a list of strings).

    Names may hold sub-folders but no ``..`` and may not be absolute (Gemini CLI's rule).

    :returns: the names (None when ``value`` is None) and diagnostics for refused entries.
    """
    if value is None:
        return None, []
    raw = [value] if isinstance(value, str) else value if isinstance(value, list) else None
    if raw is None:
        return None, [Diagnostic(level="error", code="gemini-settings-invalid", path=path,
                                 message="context.fileName must be a string or a list of strings; using the default")]
    out: list[str] = []
    diags: list[Diagnostic] = []
    for name in raw:
        parts = name.replace("\\", "/").split("/") if isinstance(name, str) else []
        if not parts or not name.strip() or name.startswith("/") or ".." in parts or "" in parts:
            diags.append(Diagnostic(level="error", code="gemini-settings-invalid", path=path,
                                    message=f"context.fileName entry {name!r} refused: a relative file name "
                                    "without '..' is required"))
            continue
        if name not in out:
            out.append(name)
    return tuple(out), diags


def memory_file_names(home: str | Path, project: str | Path | None) -> tuple[tuple[str, ...], list[Diagnostic]]:
    """The configured memory file names: ``context.fileName`` of the project's
    ``.gemini/settings.json`` (pass ``project`` only when it is trusted: Gemini
    ignores it otherwise), else of ``~/.gemini/settings.json``, followed by ``GEMINI.md``
    (Gemini CLI 0.61.0 adds configured names to its default one); else ``GEMINI.md``.
    """
    diags: list[Diagnostic] = []
    chosen: tuple[str, ...] | None = None
    layers = [(home, True)] + ([(project, False)] if project is not None else [])
    for base, follow in layers:
        data, d = read_jsonc(base, f"{GEMINI_DIR}/settings.json", follow_links=follow, code="gemini-settings-invalid")
        diags += d
        ctx = data.get("context") if isinstance(data, dict) else None
        if isinstance(ctx, dict) and "fileName" in ctx:
            names, d = context_names(ctx["fileName"], os.path.join(str(base), GEMINI_DIR, "settings.json"))
            diags += d
            if names:
                chosen = names
    if chosen is None:
        return DEFAULT_CONTEXT_NAMES, diags
    # Gemini CLI adds the configured names to the ones it has (setGeminiMdFilename):
    # GEMINI.md stays a memory file name after them
    return chosen + tuple(n for n in DEFAULT_CONTEXT_NAMES if n not in chosen), diags
