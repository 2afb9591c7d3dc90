"""Document text arithmetic for the LSP client: positions in the encoding a server
negotiated, and the one-range edit that turns an old text into a new one.

The service's own API counts characters as Python does (code points). LSP counts
in the server's ``positionEncoding`` (``utf-16`` unless the server chose
``utf-32`` or ``utf-8``, LSP 3.17 §positionEncodingKind); these helpers convert
a column in one line between the two.
"""

from __future__ import annotations

__all__ = ["from_lsp_column", "incremental_edit", "line_at", "to_lsp_column"]

_WIDTH = {"utf-8": "utf-8", "utf-16": "utf-16-le", "utf-32": "utf-32-le"}
_UNIT = {"utf-8": 1, "utf-16": 2, "utf-32": 4}


def line_at(text: str, line: int) -> str:
    """Line ``line`` (0-based) of ``text`` without its newline; ``""`` past the end."""
    lines = text.split("\n")
    return lines[line] if 0 <= line < len(lines) else ""


def to_lsp_column(line_text: str, column: int, encoding: str = "utf-16") -> int:
    """A code-point column of ``line_text`` as a column in ``encoding`` units."""
    if encoding == "utf-32":
        return column
    return len(line_text[:column].encode(_WIDTH.get(encoding, "utf-16-le"))) // _UNIT.get(encoding, 2)


def from_lsp_column(line_text: str, units: int, encoding: str = "utf-16") -> int:
    """A column in ``encoding`` units of ``line_text`` as a code-point column
    (clamped to the line; a column inside a surrogate pair lands after it)."""
    if encoding == "utf-32":
        return min(max(units, 0), len(line_text))
    unit = _UNIT.get(encoding, 2)
    codec = _WIDTH.get(encoding, "utf-16-le")
    count = 0
    for i, ch in enumerate(line_text):
        if count >= units:
            return i
        count += len(ch.encode(codec)) // unit
    return len(line_text)


def _position(text: str, offset: int, encoding: str) -> tuple[int, int]:
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", start)
    line_text = text[start:] if end < 0 else text[start:end]
    return line, to_lsp_column(line_text, offset - start, encoding)


def incremental_edit(old: str, new: str, encoding: str = "utf-16") -> tuple[tuple[int, int, int, int], str] | None:
    """The single range replacement that turns ``old`` into ``new``: the common
    prefix and suffix are kept, the middle is replaced.

    :returns: ``((start_line, start_col, end_line, end_col), text)`` with columns in
        ``encoding`` units (an LSP ``TextDocumentContentChangeEvent`` range), or None
        when the texts are equal.
    """
    if old == new:
        return None
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    start_line, start_col = _position(old, prefix, encoding)
    end_line, end_col = _position(old, len(old) - suffix, encoding)
    return (start_line, start_col, end_line, end_col), new[prefix:len(new) - suffix]
