"""A private bytecode folder for the processes wskit starts (docs/security.md).

Python reads cached bytecode (``__pycache__/*.pyc``) next to the sources it imports and
trusts it when the recorded size and modification time match the source. Approval
coverage (:mod:`wskit.approval.coverage`) digests the sources a hook or server runs and
leaves ``__pycache__`` out, so a repository could otherwise ship a ``.pyc`` that replaces
an approved source without changing one covered byte. With ``PYTHONPYCACHEPREFIX`` set,
Python looks for bytecode only under that prefix and never in a ``__pycache__`` folder of
the project or a plugin. Command hooks, MCP servers and LSP servers started by wskit get
the folder of a :class:`PrivateBytecode`: created on first use with ``mkdtemp`` (mode
0700, a name nobody can guess), removed when its owner is collected or the process ends.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, MutableMapping

__all__ = ["PYCACHE_VARIABLE", "PrivateBytecode"]

#: The variable Python reads for the bytecode folder (Python 3.8+, ``sys.pycache_prefix``).
PYCACHE_VARIABLE = "PYTHONPYCACHEPREFIX"


class PrivateBytecode:
    """One private bytecode folder, shared by the processes one owner starts (a hook
    runner, an MCP service, a pool of language servers).

    Thread-safe; the folder is made lazily, so an owner that starts nothing makes none.
    """

    def __init__(self, prefix: str = "wskit-pycache-") -> None:
        """:param prefix: the start of the folder's name under the temporary folder."""
        self._prefix = prefix
        self._path: str | None = None
        self._lock = threading.Lock()

    @property
    def path(self) -> str:
        """The folder (an absolute path; created on first use, mode 0700).

        :raises OSError: the temporary folder is not writable.
        """
        with self._lock:
            if self._path is None:
                import shutil
                import tempfile
                import weakref

                self._path = tempfile.mkdtemp(prefix=self._prefix)
                # removed with its owner (finalize also runs at interpreter exit)
                weakref.finalize(self, shutil.rmtree, self._path, True)
            return self._path

    def apply(self, env: MutableMapping[str, str], *, keep: Mapping[str, str] | None = None) -> MutableMapping[str, str]:
        """Set :data:`PYCACHE_VARIABLE` in ``env`` (in place) to :attr:`path`, and return ``env``.

        :param env: the whole environment of the process about to start.
        :param keep: variables the host itself set (its ``env`` option): when it names
            :data:`PYCACHE_VARIABLE`, that value is kept. A value in ``env`` that came from
            anywhere else (a server definition a repository wrote) is replaced, since a
            folder the repository chose would hold bytecode nobody approved.
        """
        if keep is not None and keep.get(PYCACHE_VARIABLE):
            env[PYCACHE_VARIABLE] = keep[PYCACHE_VARIABLE]
        else:
            env[PYCACHE_VARIABLE] = self.path
        return env
