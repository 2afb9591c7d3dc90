"""The byte bound of every content read: :data:`MAX_READ_BYTES` and :func:`read_limit`.

Every read of content through safe file access has a byte limit. A caller
that names no smaller one (a skill body, a ``--payload`` file, a settings
file, a language-server document, ``session verify``'s state file) gets
:func:`read_limit`: the host setting ``max_read_bytes`` when the caller passes
the host's settings, else the environment variable ``WSKIT_MAX_READ_BYTES``,
else :data:`MAX_READ_BYTES` (8 MiB). The size is checked with ``fstat``
before a byte is read and again while reading (a file that grows past the
limit is refused, never truncated): the refusal is ``too-large`` naming the file.

A value that is not a positive integer (``"0"``, ``"-1"``, ``"8M"``) is not a
limit: the default applies, so a typo never switches the bound off.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

#: Default bound of one content read, in bytes (8 MiB): far above any real
#: instruction file, skill body or configuration, far below what hurts a host.
MAX_READ_BYTES = 8 * 1024 * 1024
#: Environment variable that changes the default bound (bytes).
ENV_VAR = "WSKIT_MAX_READ_BYTES"
#: ``HostProfile.settings`` key that changes it for one host (bytes).
SETTING = "max_read_bytes"


def _positive(value: Any) -> int | None:
    if value.__class__ is int and value > 0:
        return value
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 18:
        n = int(value.strip())
        return n if n > 0 else None
    return None


def read_limit(settings: Mapping[str, Any] | None = None) -> int:
    """The byte bound of a content read whose caller names no smaller one.

    :param settings: the host's ``HostProfile.settings`` (its ``max_read_bytes``
        wins), or None.
    :returns: a positive number of bytes; never unbounded.
    """
    if settings:
        n = _positive(settings.get(SETTING))
        if n is not None:
            return n
    n = _positive(os.environ.get(ENV_VAR))
    return MAX_READ_BYTES if n is None else n
