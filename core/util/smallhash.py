"""SHA-256 of small inputs without loading OpenSSL first.

:mod:`hashlib` loads OpenSSL's ``libcrypto`` on import (≈ 3.4 ms of a process that
reuses a persistent index: the index name, its settings fingerprint, and the id and
digest of each rule file it restores are the only hashing there). CPython's built-in
SHA-256 (``_sha2``; ``_sha256`` before 3.12) gives the same digest with no library to
load, at ≈ 4 µs per KiB instead of ≈ 1 µs: cheaper until a few hundred KiB have been
hashed. So :func:`sha256_hex_small` uses OpenSSL when :mod:`hashlib` is loaded already
(by anyone) or once this process has hashed :data:`BUILTIN_BUDGET` bytes through it,
and the built-in module until then. The digest is the same either way.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["BUILTIN_BUDGET", "sha256_hex_small"]

#: Bytes hashed with the built-in SHA-256 before :func:`sha256_hex_small` loads OpenSSL
#: (at ≈ 3 µs more per KiB, 512 KiB costs about what loading ``hashlib`` does).
BUILTIN_BUDGET = 512 * 1024

_builtin: Any = None
_spent = 0


def _builtin_sha256() -> Any:
    """The built-in SHA-256 constructor, or False when this Python has none."""
    global _builtin
    if _builtin is None:
        try:
            from _sha2 import sha256 as ctor  # type: ignore[import-not-found]  # 3.12+
        except ImportError:
            try:
                from _sha256 import sha256 as ctor  # type: ignore[import-not-found,no-redef]  # 3.11
            except ImportError:  # pragma: no cover - a build without the built-in hashes
                ctor = False
        _builtin = ctor
    return _builtin


def sha256_hex_small(data: bytes) -> str:
    """Hex SHA-256 of ``data`` (bytes): OpenSSL's (:func:`wskit.models.sha256_hex`) once
    :mod:`hashlib` is loaded or :data:`BUILTIN_BUDGET` bytes were hashed here, CPython's
    built-in one before. Same result either way; raises nothing for bytes input."""
    global _spent
    if "hashlib" not in sys.modules and _spent + len(data) <= BUILTIN_BUDGET:
        ctor = _builtin_sha256()
        if ctor:
            _spent += len(data)
            return ctor(data).hexdigest()
    from wskit.models import sha256_hex

    return sha256_hex(data)
