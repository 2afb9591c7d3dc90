"""``wsctl``: the command that manages wskit workspaces (design §7).

The CLI is built by :func:`make_cli` (never at import time). The plugin
manager is built lazily, the first time a sub-command is looked up, so
``wsctl --version`` imports nothing but click. Plugins add sub-commands
through ``wskit_register_commands(cli)``.

Global options: ``--home DIR`` (env ``WSKIT_HOME``), ``--host NAME`` (env
``WSKIT_HOST``), ``--json``. Exit status 0 on success, 1 when the operation
failed (``error: …`` on stderr, one line: an OS error names its file, an
argument that is not UTF-8 is named, a run of more than 300 characters is
shortened), 2 on usage errors. No failure prints a traceback (``internal
error: …`` is the last resort; ``WSKIT_TRACEBACK=1`` shows it).

The click application lives in :mod:`wskit.cli.app`; this package's names are
exported from it on first use (PEP 562), so that the click-free modules of the
package (:mod:`wskit.cli.plain`, :mod:`wskit.cli.context`, :mod:`wskit.cli.fast`,
the command bodies) can be imported without importing click: the console script
answers the per-turn forms through :mod:`wskit.cli.fast` and reaches click only for
everything else.
"""

from __future__ import annotations

#: names of :mod:`wskit.cli.app` read through this package (the private ones for the tests and tools
#: that used them here)
_FROM_APP = frozenset({"LazyGroup", "main", "make_cli", "paint_error_line", "shown_message", "STDOUT_CLOSED_STATUS", "StdoutClosed", "WsctlError",
                       "_failure_message", "_stdout_closed", "_escape_message"})


def __getattr__(name: str):
    if name == "_CORE_COMMANDS":
        from wskit.cli.lazy import CORE_COMMANDS

        return CORE_COMMANDS
    if name in _FROM_APP:
        from wskit.cli import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
