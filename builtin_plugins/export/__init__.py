"""Built-in plugin ``export``: ``wsctl export`` and the ``wskit_export`` hook behind
:func:`wskit.plugin.export.export` (docs/export.md).

From one workspace loaded under a source host profile (``--from``, default ``claude``), it
writes each target host's own files (instruction files, path rules, skills, commands,
agents, MCP servers), records them in ``.wskit/export.json``, never overwrites a
hand-written or hand-edited file without ``--force``, checks that the files are current
(``--check``) and loads the written tree under each target's profile to list every loss
(``--verify``). The engine (:mod:`~wskit.builtin_plugins.export.engine`) is imported on first
use, so registering this plugin costs nothing to other commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wskit.plugin import hookimpl

if TYPE_CHECKING:
    from wskit.builtin_plugins.export.engine import ExportReport

__all__ = ["TARGETS", "ExportReport", "wskit_export", "wskit_register_commands"]

#: every target ``wsctl export --to`` takes (the writers' own table is
#: :data:`wskit.builtin_plugins.export.targets.TARGETS`)
TARGETS = ("claude", "codex", "gemini", "opencode", "copilot", "cursor", "agents")


def __getattr__(name: str) -> Any:  # PEP 562: the report class, imported when first named
    if name == "ExportReport":
        from wskit.builtin_plugins.export.engine import ExportReport

        return ExportReport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@hookimpl
def wskit_register_commands(cli):
    """Add ``wsctl export`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "export", "wskit.builtin_plugins.export.cli:export_cmd",
                     "Write each target host's own files from the workspace holding PATH.")


@hookimpl(trylast=True)
def wskit_export(workspace, targets, options):
    """Export ``workspace`` to ``targets`` with :func:`~wskit.builtin_plugins.export.engine.run_export`."""
    from wskit.builtin_plugins.export.engine import run_export

    return run_export(workspace, list(targets), **dict(options or {}))
