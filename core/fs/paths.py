"""Lexical path checks of safe file access (design §4): what :mod:`wskit.fs`
decides about a relative path before touching the file system, and the secret-name
test that :func:`wskit.fs.scan_dir` and the walks apply to every entry.

Codes (see the table of :mod:`wskit.fs`): ``path-absolute`` (an absolute
target, or a drive/URL-looking one), ``path-escape`` (a ``..`` component),
``path-invalid`` (NUL, backslash or an empty path), ``path-not-utf8`` (only
:func:`split_written`: a byte that is not UTF-8, a lone surrogate U+DC80–U+DCFF,
in a path written in a file such as a manifest's ``"./cmd\\udcff"``) and ``secret-path`` (a
component matching :data:`SECRET_PATTERNS`, case-insensitively).

Part of :mod:`wskit.fs`, which re-exports every public name here; nothing here opens a file.
"""

from __future__ import annotations

from fnmatch import translate
from pathlib import PurePosixPath

from wskit.errors import SafeFsError
from wskit.fs.names import _is_drive_or_url, _secret_tests, not_utf8, shown_path
from wskit.util.lazyre import lazy_pattern

#: Component patterns refused everywhere (matched case-insensitively).
SECRET_PATTERNS: tuple[str, ...] = (
    ".env",
    ".env.*",
    ".ssh",
    ".aws",
    ".gnupg",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "*.pem",
    "*.key",
    "credentials*",
    ".git",
    ".netrc",
)

#: regular expressions compiled on first use (an empty workspace needs
#: none of them; :mod:`wskit.util.lazyre`): a drive or URL at the start of a path (the
#: definition :func:`wskit.fs.names._is_drive_or_url` is property-tested against) ...
_DRIVE_OR_URL = lazy_pattern(globals(), "_DRIVE_OR_URL", r"^[A-Za-z]:|^[A-Za-z][A-Za-z0-9+.-]*://")
#: ... and :data:`SECRET_PATTERNS` as one expression (only consulted for patterns the
#: string tests of :mod:`wskit.fs.names` cannot decide; its source is built when needed)
_SECRET_RE = lazy_pattern(globals(), "_SECRET_RE",
                          lambda: "|".join(f"(?:{translate(p)})" for p in SECRET_PATTERNS))

_SECRET_EXACT, _SECRET_PREFIXES, _SECRET_SUFFIXES, _SECRET_OTHER = _secret_tests(SECRET_PATTERNS)


def split_relative(rel: str | PurePosixPath) -> list[str]:
    """Validate a relative path lexically and return its components.

    Names that are not UTF-8 pass (a walk lists them and its loader refuses
    the one file with its own code, e.g. ``rule-name-invalid``); a path
    *written in a file* is checked with :func:`split_written`.

    :raises SafeFsError: ``path-absolute``, ``path-escape``, ``path-invalid``
        or ``secret-path``.
    """
    text = str(rel)
    if "\x00" in text:
        raise SafeFsError("path-invalid", text.replace("\x00", "\\0"), "path contains a NUL byte")
    if "\\" in text:
        raise SafeFsError("path-invalid", text, "path contains a backslash")
    if text.startswith("/") or _is_drive_or_url(text):
        raise SafeFsError("path-absolute", text, "absolute paths are not allowed here")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if not parts:
        raise SafeFsError("path-invalid", text, "empty path")
    for part in parts:
        if part == "..":
            raise SafeFsError("path-escape", text, "path escapes its root ('..')")
    check_not_secret(parts, text)
    return parts


def split_written(rel: str | PurePosixPath) -> list[str]:
    """:func:`split_relative` for a path written in a file or given by a caller
    (a manifest's ``commands``/``hooks``/``mcpServers``… field, a server's
    ``cwd``, a skill file asked for by name), which must also be UTF-8 text: a
    JSON ``"\\udcff"`` escape decodes to a lone surrogate that names a file
    whose name holds the byte 0xFF, which no id, JSON or session file can hold.

    :raises SafeFsError: ``path-not-utf8`` (the error's path shows the byte as
        ``\\xNN``), or as :func:`split_relative`.
    """
    text = str(rel)
    if not text.isascii():
        why = not_utf8(text)
        if why is not None:
            raise SafeFsError("path-not-utf8", shown_path(text), f"path {why}")
    return split_relative(text)


def _is_secret_lower(low: str) -> bool:
    if low in _SECRET_EXACT or low.startswith(_SECRET_PREFIXES) or low.endswith(_SECRET_SUFFIXES):
        return True
    return _SECRET_OTHER and _SECRET_RE.match(low) is not None


def check_not_secret(parts: list[str], shown: str) -> None:
    """Refuse secret-looking components (``.env*``, ``.ssh``, ``*.pem``, ``.git`` …).

    :raises SafeFsError: code ``secret-path``.
    """
    for part in parts:
        if _is_secret_lower(part.lower()):
            raise SafeFsError(
                "secret-path", shown, f"refusing secret-looking path component {part!r}"
            )


def is_secret_name(name: str) -> bool:
    """True when a single file or folder name looks like a secret (see :data:`SECRET_PATTERNS`)."""
    return _is_secret_lower(name.lower())
