"""Safe JSON parsing for files strangers wrote (manifests, ``.mcp.json``, ``.lsp.json``, state files).

The standard :mod:`json` module recurses once per nesting level, so a document
nested 100,000 levels deep raises :class:`RecursionError` (or, in some builds,
exhausts the C stack) instead of a clean error. This module checks the nesting
depth with a linear, non-recursive scan *before* handing the text to
:func:`json.loads`, and refuses, with a stable code:

=======================  ======================================================
code                     refused
=======================  ======================================================
``json-too-deep``        arrays/objects nested deeper than ``max_depth`` (line given)
``json-error``           text that is not JSON, ``NaN``/``Infinity`` (line given)
``json-duplicate-key``   an object with the same key twice (parsers disagree on
                         which one wins, so a reviewer may see another value than
                         the loader: refused instead of guessed)
``too-large``            raw size over ``max_bytes`` (never read, see :mod:`wskit.fs`)
=======================  ======================================================

plus every code of :mod:`wskit.fs` for :func:`read_json`. Errors are
:class:`~wskit.fs.SafeFsError`, so ``err.diagnostic()`` gives a
:class:`~wskit.models.Diagnostic`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath
from typing import Any

from wskit import fs
from wskit.util.lazyre import lazy_pattern

#: Deepest nesting of arrays and objects accepted by default.
MAX_DEPTH = 64
#: Largest JSON file read by :func:`read_json` by default, in bytes (4 MiB).
MAX_BYTES = 4 * 1024 * 1024

# Strings (with escapes) are skipped whole so brackets inside them do not count.
_TOKENS = lazy_pattern(globals(), "_TOKENS", r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.S)


def _error(code: str, path: str | None, line: int | None, message: str, lang: str = "json") -> fs.SafeFsError:
    err = fs.SafeFsError(code, path or f"<{lang}>", message)
    err.line = line  # type: ignore[attr-defined]
    return err


def bracket_depth(text: str, tokens: "re.Pattern[str]", max_depth: int, path: str | None, lang: str) -> int:
    """The deepest ``[``/``{`` nesting of ``text``, counted on the matches of
    ``tokens`` (strings and other brackets-in-text are matched whole, so they
    are skipped), linearly and without recursion. Shared by the JSON and TOML
    readers (:mod:`wskit.fs.tomlsafe`).

    :param lang: ``json`` or ``toml``: the error code ``<lang>-too-deep`` and the name shown.
    :raises SafeFsError: ``<lang>-too-deep`` naming the 1-based line where ``max_depth`` is crossed.
    """
    depth = deepest = 0
    for m in tokens.finditer(text):
        tok = m.group()
        if tok in "[{":
            depth += 1
            if depth > max_depth:
                line = text.count("\n", 0, m.start()) + 1
                raise _error(f"{lang}-too-deep", path, line, f"{lang.upper()} nested deeper than {max_depth} levels",
                             lang)
            deepest = max(deepest, depth)
        elif tok in "]}":
            depth = max(0, depth - 1)
    return deepest


def check_depth(text: str, max_depth: int = MAX_DEPTH, path: str | None = None) -> int:
    """Return the maximum nesting depth of ``text`` (0 for a scalar), scanning
    linearly without recursion; strings are skipped.

    :raises SafeFsError: ``json-too-deep`` naming the 1-based line where the
        limit is crossed.
    """
    return bracket_depth(text, _TOKENS, max_depth, path, "json")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def loads(text: str | bytes, *, path: str | None = None, max_depth: int = MAX_DEPTH) -> Any:
    """Parse JSON text with a depth bound, refusing duplicate keys and ``NaN``.

    :param text: the document (bytes are decoded as UTF-8 via :func:`wskit.fs.decode_text`).
    :param path: file named in errors.
    :param max_depth: deepest nesting of arrays/objects accepted.
    :returns: the parsed value (dicts, lists, str, int, float, bool, None).
    :raises SafeFsError: ``json-too-deep``, ``json-duplicate-key``, ``json-error``
        or ``invalid-utf8``; never :class:`RecursionError`.
    """
    if isinstance(text, (bytes, bytearray)):
        text = fs.decode_text(bytes(text), path)
    check_depth(text, max_depth, path)
    try:
        return json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constant)
    except _DuplicateKey as err:
        raise _error("json-duplicate-key", path, None, f"object has the key {err.key!r} twice") from None
    except json.JSONDecodeError as err:
        raise _error("json-error", path, err.lineno, f"invalid JSON: {err.msg} (line {err.lineno}, column {err.colno})") from None
    except (ValueError, RecursionError) as err:
        raise _error("json-error", path, None, f"invalid JSON: {err}") from None


def read_json(
    base: str | Path,
    rel: str | PurePosixPath,
    *,
    max_bytes: int = MAX_BYTES,
    max_depth: int = MAX_DEPTH,
    follow_links: bool = False,
) -> Any:
    """Read ``base/rel`` through safe file access and parse it with :func:`loads`.

    :raises SafeFsError: any :mod:`wskit.fs` code (``too-large`` without
        reading an oversized file) or a code of :func:`loads`.
    """
    res = fs.read_bytes(base, rel, max_bytes=max_bytes, follow_links=follow_links)
    return loads(res.raw, path=res.path, max_depth=max_depth)
