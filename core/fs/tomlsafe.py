"""Safe TOML parsing for files strangers wrote (Gemini CLI command files, state files).

:mod:`tomllib` recurses once per nesting level of arrays and inline tables, so
a value nested 60,000 levels deep raises :class:`RecursionError`, and an
integer of more than 4,300 digits raises a plain :class:`ValueError` (Python's
int-string conversion limit), neither of them a :class:`tomllib.TOMLDecodeError`.
:func:`loads` checks the nesting depth with a linear, non-recursive scan before
parsing and turns every failure into one :class:`~wskit.fs.SafeFsError`:

=======================  ======================================================
code                     refused
=======================  ======================================================
``toml-too-deep``        arrays/inline tables nested deeper than ``max_depth`` (line given)
``toml-error``           text that is not TOML, or a value Python cannot hold
                         (a 5,000-digit integer) (line given when known)
``invalid-utf8``         bytes that are not UTF-8
=======================  ======================================================
"""

from __future__ import annotations

import re
from typing import Any

from wskit import fs
from wskit.util.lazyre import lazy_pattern

#: Deepest nesting of arrays and inline tables accepted by default.
MAX_DEPTH = 64

# strings (multi-line first) and comments are skipped whole, so brackets inside them do not count
_TOKENS = lazy_pattern(
    globals(), "_TOKENS",
    r'"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]', re.S)
_LINE = lazy_pattern(globals(), "_LINE", r"line (\d+)")


def _error(code: str, path: str | None, line: int | None, message: str) -> fs.SafeFsError:
    err = fs.SafeFsError(code, path or "<toml>", message)
    err.line = line  # type: ignore[attr-defined]
    return err


def check_depth(text: str, max_depth: int = MAX_DEPTH, path: str | None = None) -> int:
    """The deepest nesting of arrays and inline tables in ``text``, found by a
    linear scan without recursion (table headers ``[a]``/``[[a]]`` open and close
    on their line, so they count one level).

    :raises SafeFsError: ``toml-too-deep`` naming the 1-based line where the limit is crossed.
    """
    from wskit.fs.jsonsafe import bracket_depth

    return bracket_depth(text, _TOKENS, max_depth, path, "toml")


def loads(text: str | bytes, *, path: str | None = None, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """Parse TOML with a depth bound.

    :param text: the document (bytes are decoded as UTF-8 via :func:`wskit.fs.decode_text`).
    :param path: file named in errors.
    :returns: the table :func:`tomllib.loads` returns.
    :raises SafeFsError: ``toml-too-deep``, ``toml-error`` or ``invalid-utf8``; never
        :class:`RecursionError` or a bare :class:`ValueError`.
    """
    if isinstance(text, (bytes, bytearray)):
        text = fs.decode_text(bytes(text), path)
    check_depth(text, max_depth, path)
    import tomllib  # imported when a TOML file is read, not at start-up

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        m = _LINE.search(str(err))
        raise _error("toml-error", path, int(m.group(1)) if m else None, str(err)) from None
    except (ValueError, RecursionError) as err:
        raise _error("toml-error", path, None, f"value not accepted: {str(err)[:200]}") from None
