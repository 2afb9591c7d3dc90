"""String tests behind :mod:`wskit.fs.paths`'s path checks, without regular
expressions (compiling them would cost every process at start-up); each equals
the expression it replaces (property-tested in tests/core/fs/test_paths.py)."""

from __future__ import annotations

from typing import Any

_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_SCHEME_CHARS = _ASCII_LETTERS | frozenset("0123456789+.-")


def _is_drive_or_url(text: str) -> bool:
    """``wskit.fs.paths._DRIVE_OR_URL.match(text)``, without the regular expression: a drive
    (``C:``) or a URL scheme (``[A-Za-z][A-Za-z0-9+.-]*://``) at the start.
    Property-tested against the expression."""
    if not text or text[0] not in _ASCII_LETTERS:
        return False
    colon = text.find(":")
    if colon == 1:
        return True
    return colon > 1 and text.startswith("//", colon + 1) and all(c in _SCHEME_CHARS for c in text[1:colon])


def _secret_tests(patterns: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...], tuple[str, ...], bool]:
    """:data:`wskit.fs.paths.SECRET_PATTERNS` as string tests: exact names, prefixes (``name*``),
    suffixes (``*.ext``), and whether any pattern needs ``fnmatch`` (then the
    joined ``wskit.fs.paths._SECRET_RE`` decides). ``fnmatch.translate`` gives ``*`` any text
    and anchors the whole name, so these tests equal the expression (property-tested)."""
    exact, prefixes, suffixes, other = set(), [], [], False
    for p in patterns:
        if not any(c in p for c in "*?["):
            exact.add(p)
        elif p.endswith("*") and not any(c in p[:-1] for c in "*?["):
            prefixes.append(p[:-1])
        elif p.startswith("*") and not any(c in p[1:] for c in "*?["):
            suffixes.append(p[1:])
        else:
            other = True
    return frozenset(exact), tuple(prefixes), tuple(suffixes), other


def undecodable(name: str) -> str | None:
    """The first byte of ``name`` that was not UTF-8, as ``"0xFF"``, or None.

    ``os.listdir``/``os.scandir`` on POSIX decode file names with the
    ``surrogateescape`` handler: a byte that is not UTF-8 comes back as a lone
    surrogate U+DC80–U+DCFF. Such a name cannot be encoded as UTF-8 (JSON,
    a session state file, a prompt), so the loaders refuse the file with a
    diagnostic instead of carrying it (Claude Code would show a replacement
    character and address a different path).

    :param name: a file or folder name, or a relative path.
    A lone surrogate outside that range (a JSON ``"\\ud800"`` escape in a manifest)
    cannot be encoded either; it is named as ``"U+D800"``.

    :returns: ``"0x.."`` (the original byte), ``"U+...."`` (another lone surrogate) or
        None when every character is text.
    """
    if name.isascii():
        return None
    for c in name:
        if "\udc80" <= c <= "\udcff":
            return f"0x{ord(c) - 0xDC00:02X}"
        if "\ud800" <= c <= "\udfff":  # a lone surrogate from a JSON "\ud800" escape: no byte, no UTF-8
            return f"U+{ord(c):04X}"
    return None


def not_utf8(text: str) -> str | None:
    """The reason every refusal of such a name gives — ``"holds the byte 0xFF,
    which is not UTF-8"`` — or None when ``text`` is all text (:func:`undecodable`)."""
    bad_byte = undecodable(text)
    if bad_byte is None:
        return None
    if bad_byte.startswith("U+"):
        return f"holds the lone surrogate {bad_byte}, which is not text"
    return f"holds the byte {bad_byte}, which is not UTF-8"


def shown_path(path: str) -> str:
    """``path`` with every byte that was not UTF-8 written as ``\\xNN`` and any other lone
    surrogate as ``\\uXXXX`` (for
    diagnostics: the text stays valid Unicode, so JSON and session files can
    hold it; the name itself is not usable to open the file)."""
    if undecodable(path) is None:
        return path
    return "".join(f"\\x{ord(c) - 0xDC00:02x}" if "\udc80" <= c <= "\udcff"
                   else f"\\u{ord(c):04x}" if "\ud800" <= c <= "\udfff" else c for c in path)


def first_undecodable(value: Any, where: str = "") -> tuple[str, str, str] | None:
    """The first string (a value or a key) in ``value`` (dicts, lists and tuples
    of JSON-like data, e.g. a ``model_dump()``) that holds a byte that is not
    UTF-8, to name it in an error instead of a serializer's "position 14".

    :returns: ``(field path such as "sources[2].root", the string, "0xFF")``, or None.
    """
    if isinstance(value, str):
        bad_byte = undecodable(value)
        return None if bad_byte is None else (where or "value", value, bad_byte)
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, (list, tuple)) else ()
    for key, item in items:
        sub = f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}" if where else str(key)
        if isinstance(key, str) and undecodable(key) is not None:
            return sub, key, undecodable(key)
        found = first_undecodable(item, sub)
        if found is not None:
            return found
    return None
