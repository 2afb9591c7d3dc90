"""Text of safely read files (design §4): bytes decoded as UTF-8 with one leading BOM
stripped and CRLF and CR normalised to LF (a bad byte is ``invalid-utf8`` naming its
line), and the hidden control and bidirectional characters refused in rule and style
text (Blade §0).

Part of :mod:`wskit.fs`, which re-exports :func:`decode_text` and
:func:`find_hidden_chars`; nothing here opens a file.
"""

from __future__ import annotations

from collections.abc import Iterator

from wskit.errors import SafeFsError
from wskit.util.lazyre import lazy_pattern

#: hidden control and bidirectional characters (Blade §0; tab, LF and CR are allowed),
#: compiled on first use, so start-up does not pay for it (:mod:`wskit.util.lazyre`)
_HIDDEN = lazy_pattern(
    globals(), "_HIDDEN", "[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]")


def decode_text(raw: bytes, path: str | None = None) -> str:
    """Decode UTF-8 with one leading BOM stripped, CRLF and CR normalised to LF.

    :raises SafeFsError: ``invalid-utf8`` naming the 1-based line of the first bad byte.
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        exc = SafeFsError("invalid-utf8", path or "<bytes>", f"invalid UTF-8 at line {line}")
        exc.line = line  # type: ignore[attr-defined]
        raise exc from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def find_hidden_chars(text: str) -> Iterator[tuple[int, str]]:
    """Yield ``(line, "U+XXXX")`` for each hidden control or bidirectional
    character in ``text`` (Blade's set, §0; tab/LF/CR allowed)."""
    line, pos = 1, 0
    for m in _HIDDEN.finditer(text):
        # count newlines incrementally: recounting from 0 per match was
        # quadratic on text full of hidden characters
        line += text.count("\n", pos, m.start())
        pos = m.start()
        yield line, f"U+{ord(m.group()):04X}"
