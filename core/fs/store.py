"""Private JSON state files: one mechanism for every per-user store of wskit.

The hook trust store (``~/.wskit/hook-trust.json``), the MCP approval store
(``~/.wskit/mcp-approvals.json``) and the MCP OAuth token files
(``~/.wskit/mcp-oauth/*.json``) hold decisions and secrets of one user. Each is
a :class:`PrivateJsonFile`:

- read through :func:`wskit.fs.atomic.read_state` (no link below the anchor,
  regular file only, non-blocking, at most ``max_bytes``), then checked on the
  opened file: owned by the current user and mode 0600 (a store anyone else can
  write or read is refused, never "repaired");
- parsed by :func:`wskit.fs.jsonsafe.loads` (depth-bounded: a deep document is
  an error, never ``RecursionError``);
- changed only by :meth:`PrivateJsonFile.update`, a read-modify-write under the
  file's ``flock`` through :func:`wskit.fs.atomic.locked_update` (atomic rename
  in the opened folder, ``fsync``), so concurrent writers lose no change and a
  writer killed at any point leaves the old or the new file.

Every refusal is a :class:`~wskit.fs.atomic.StateFileError` naming the store
and the reason; the stores turn it into their own error and fail closed.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wskit.fs.atomic import StateFileError, locked_update, read_state

__all__ = ["PrivateJsonFile"]


class PrivateJsonFile:
    """One private JSON state file (see the module docstring).

    :param path: the file.
    :param anchor: the folder trusted as given (the user's home); no component
        between it and ``path`` may be a link. Default: ``path``'s folder.
    :param what: how messages name the store ("hook trust store").
    :param max_bytes: the largest file read or written (bytes).
    :param max_depth: the deepest JSON nesting accepted.
    """

    def __init__(self, path: str | os.PathLike[str], anchor: str | os.PathLike[str] | None = None, *,
                 what: str, max_bytes: int = 1 << 20, max_depth: int = 16) -> None:
        self.path = Path(path)
        self.anchor = Path(anchor) if anchor is not None else self.path.parent
        self.what = what
        self.max_bytes = max_bytes
        self.max_depth = max_depth

    def _check_private(self) -> None:
        """Owner and mode of the file as it is now (after a bounded read found it)."""
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            return
        except OSError as err:
            raise StateFileError(f"{self.what} {self.path} unreadable: {err.strerror}", err.errno) from None
        if not stat.S_ISREG(st.st_mode):
            raise StateFileError(f"{self.what} {self.path} is not a regular file; refused", errno.EINVAL)
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            raise StateFileError(f"{self.what} {self.path} is not owned by the current user; refused",
                                 errno.EPERM)
        if stat.S_IMODE(st.st_mode) != 0o600:
            raise StateFileError(f"{self.what} {self.path} has mode {stat.S_IMODE(st.st_mode):04o}; "
                                 "its permissions must be 0600 (chmod 600)", errno.EPERM)

    def _parse(self, raw: bytes) -> Any:
        from wskit.fs import jsonsafe
        from wskit.fs.read import SafeFsError

        try:
            return jsonsafe.loads(raw, path=str(self.path), max_depth=self.max_depth)
        except (SafeFsError, ValueError) as err:
            raise StateFileError(f"{self.what} {self.path} is corrupt: {err}", errno.EINVAL) from None

    def read(self) -> Any | None:
        """The parsed document, or None when the file does not exist.

        :raises StateFileError: reached through a link, not a regular file, not the
            user's, not mode 0600, over ``max_bytes``, not JSON or too deep.
        """
        try:
            raw = read_state(self.path, self.anchor, max_bytes=self.max_bytes)
        except StateFileError as err:
            raise StateFileError(f"{self.what} unusable: {err}", err.errno) from None
        if raw is None:
            return None
        self._check_private()
        return self._parse(raw)

    def update(self, change: Callable[[Any | None], Any | None]) -> Any | None:
        """Read-modify-write under the file's lock: ``change(document_or_None)``
        returns the new document (None: leave the file as it is). A new file and
        its missing folders are made private (0600 / 0700).

        :returns: the document written, or None.
        :raises StateFileError: as :meth:`read`, or the write failed (old file intact);
            whatever ``change`` raises (nothing is written then).
        """
        written: list[Any] = []

        def step(raw: bytes | None) -> bytes | None:
            doc = None
            if raw is not None:
                self._check_private()
                doc = self._parse(raw)
            new = change(doc)
            if new is None:
                return None
            data = (json.dumps(new, indent=2, sort_keys=True) + "\n").encode("utf-8")
            if len(data) > self.max_bytes:
                raise StateFileError(f"{self.what} {self.path} would grow over {self.max_bytes} bytes; "
                                     "not written", errno.EFBIG)
            written.append(new)
            return data

        try:
            locked_update(self.path, step, anchor=self.anchor, mode=0o600, max_bytes=self.max_bytes)
        except StateFileError as err:
            if str(err).startswith(self.what):
                raise
            raise StateFileError(f"{self.what} unusable: {err}", err.errno) from None
        return written[0] if written else None
