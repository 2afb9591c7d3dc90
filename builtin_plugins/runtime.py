"""Built-in plugin ``runtime``: the ``wsctl hooks run`` and ``wsctl session verify``
commands of the session runtime (:mod:`wskit.runtime`)."""

from __future__ import annotations

from wskit.plugin import hookimpl


@hookimpl
def wskit_register_commands(cli):
    """Add ``hooks run`` and ``session verify`` (imported when used; the same as
    :func:`wskit.runtime.commands.register`)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "run", "wskit.runtime.commands:hooks_run_cmd",
                     "Run the hooks of EVENT for the workspace holding PATH and print the outcome.",
                     parent="hooks", parent_help="Hooks: run them (and, with hook trust, list/trust/revoke).")
    add_lazy_command(cli, "verify", "wskit.runtime.commands:session_verify_cmd",
                     "Restore the session state FILE against the workspace holding PATH (default:\n"
                     "    the recorded source project) and report what drifted.",
                     parent="session", parent_help="Session states: verify them against the workspace.")
