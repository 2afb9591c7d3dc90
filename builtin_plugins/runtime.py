"""Built-in plugin ``runtime``: the ``wsctl hooks run`` and ``wsctl session verify``
commands of the session runtime (:mod:`wskit.session.runtime`)."""

from __future__ import annotations

from wskit.plugin import hookimpl

__all__ = ["wskit_register_commands"]


@hookimpl
def wskit_register_commands(cli):
    """Add ``hooks run`` (:mod:`wskit.builtin_plugins.hooks.cli`) and ``session verify``
    (:mod:`wskit.cli.session`), imported when used."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "run", "wskit.builtin_plugins.hooks.cli:hooks_run_cmd",
                     "Run the hooks of EVENT for the workspace holding PATH and print the outcome.",
                     parent="hooks", parent_help="Hooks: run them (and, with hook trust, list/trust/revoke).")
    add_lazy_command(cli, "verify", "wskit.cli.session:session_verify_cmd",
                     "Restore the session state FILE against the workspace holding PATH (default:\n"
                     "    the recorded source project) and report what drifted.",
                     parent="session", parent_help="Session states: verify them against the workspace.")
