"""Built-in plugin ``runtime``: the ``wsctl hooks run`` and ``wsctl session verify``
commands of the session runtime (:mod:`wskit.runtime`)."""

from __future__ import annotations

from wskit.plugin import hookimpl


@hookimpl
def wskit_register_commands(cli):
    """Add ``hooks run`` and ``session verify``."""
    from wskit.runtime.commands import register

    register(cli)
