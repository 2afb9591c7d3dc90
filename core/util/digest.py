"""SHA-256 of small inputs without loading OpenSSL at start-up.

:mod:`hashlib` loads OpenSSL's ``libcrypto`` when first imported (≈ 2.7 ms of a
``wsctl`` start), to hash a few hundred bytes: the index file's name, a settings
fingerprint, a handful of rule files. CPython also ships its own SHA-256 (the module
:mod:`hashlib` falls back to without OpenSSL: ``_sha256`` up to 3.11, ``_sha2`` from
3.12), ≈ 0.2 ms to import but ≈ 5× slower per byte. :func:`sha256_hex` uses it for
small inputs until :data:`SMALL_BUDGET` bytes have been hashed that way, and
OpenSSL's otherwise (or as soon as anything imported :mod:`hashlib`). The digest is
SHA-256 either way (tests/core/util/test_digest.py compares them).
"""

from __future__ import annotations

import sys
from typing import Any

#: largest input, in bytes, hashed by the built-in module
SMALL_INPUT = 16 * 1024
#: bytes hashed by the built-in module in all before OpenSSL's is loaded (≈ 1 ms of hashing)
SMALL_BUDGET = 256 * 1024

_builtin: Any = None
_spent = 0
_openssl: Any = None


def _builtin_sha256() -> Any:
    global _builtin
    if _builtin is None:
        try:
            from _sha256 import sha256 as made  # CPython ≤ 3.11
        except ImportError:
            try:
                from _sha2 import sha256 as made  # CPython ≥ 3.12
            except ImportError:
                made = False  # another interpreter: hashlib only
        _builtin = made
    return _builtin


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of ``data`` (bytes-like).

    :returns: 64 lowercase hex digits, as ``hashlib.sha256(data).hexdigest()``.
    """
    global _spent
    if _openssl is None and "hashlib" not in sys.modules and len(data) <= SMALL_INPUT \
            and _spent + len(data) <= SMALL_BUDGET:
        made = _builtin_sha256()
        if made:
            _spent += len(data)
            return made(data).hexdigest()
    h = (_openssl or openssl_sha256()).copy()
    h.update(data)
    return h.hexdigest()


def openssl_sha256() -> Any:
    """OpenSSL's ready SHA-256 hasher (:mod:`hashlib`, loaded on the first call), to be
    copied: constructing one looks the digest up by name each time (a third of hashing a
    300-byte frontmatter). For bulk hashing (a 10,000-skill listing)."""
    global _openssl
    if _openssl is None:
        import hashlib

        _openssl = hashlib.sha256()
    return _openssl
