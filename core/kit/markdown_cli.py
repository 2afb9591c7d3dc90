"""``wsctl <plural> list|show`` of a :class:`wskit.kit.markdown.MarkdownKind`.

Imported when such a group is first needed (``wsctl agents …``), never at
start-up. The commands ask the kind for everything that differs between kinds
(what is listed, its JSON object, the table's columns, what ``show`` prints),
so ``wsctl agents list``, ``wsctl commands list``, ``wsctl styles list`` and a
plugin's ``wsctl prompts list`` are one command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from wskit.cli.bodies import print_diagnostics
from wskit.cli.context import (
    WsctlContext,
    complete_names,
    file_text,
    json_option,
    path_argument,
    shorten,
    table,
)

if TYPE_CHECKING:
    from wskit.kit.markdown import MarkdownKind


def kind_group(kind: MarkdownKind) -> click.Group:
    """The group ``wsctl <kind.plural>`` (help ``kind.help``) with :func:`list_command`,
    :func:`show_command` when ``kind.show``, and ``kind.extra_commands()``."""
    group = click.Group(name=kind.plural, help=kind.help)
    group.add_command(list_command(kind))
    if kind.show:
        group.add_command(show_command(kind))
    for cmd in kind.extra_commands():
        group.add_command(cmd)
    return group


def list_command(kind: MarkdownKind) -> click.Command:
    """``list [PATH] [--json]``: ``kind.items`` of the workspace holding PATH.

    JSON: ``{<plural>: [kind.row(...)], "diagnostics": [...]}`` (``kind.diagnostics``
    and the ``--plugin-dir`` failures, paths relative to the workspace). Human: a
    table of ``kind.columns`` (``kind.empty`` when there is nothing; a ``DESCRIPTION``
    column cut by :func:`~wskit.cli.context.shorten`, with a final "…") and the
    diagnostics under it.
    """

    @click.command("list", help=kind.list_help)
    @path_argument
    @json_option
    @click.pass_obj
    def list_cmd(obj: WsctlContext, path: str) -> None:
        ws = obj.resolve(path)
        root = ws.binding.source_root
        items = kind.items(obj, ws)
        diags = obj.listing_diagnostics(ws, kind.diagnostics(ws))
        data = {kind.plural: [kind.row(r, root) for r in items], "diagnostics": [d.to_json(root) for d in diags]}

        def human() -> None:
            # a DESCRIPTION column is cut by the rule every listing shares (one line, a final "…")
            rows = [[shorten(cell(r)) if header == "DESCRIPTION" else cell(r) for header, cell in kind.columns]
                    for r in items]
            click.echo(table(rows, [header for header, _ in kind.columns]) if rows else kind.empty)
            print_diagnostics(diags, root)

        obj.emit(data, human)

    return list_cmd


def show_command(kind: MarkdownKind) -> click.Command:
    """``show NAME [PATH] [--json]``: one resource (``kind.lookup``).

    JSON: ``kind.row`` plus ``kind.details``. Human: ``kind.heading`` lines,
    ``---``, then ``kind.body``.
    """

    @click.command("show", help=kind.show_help)
    @click.argument(kind.show_argument, shell_complete=complete_names(kind.name))
    @path_argument
    @json_option
    @click.pass_obj
    def show_cmd(obj: WsctlContext, path: str, **named: str) -> None:
        ws = obj.resolve(path)
        r = kind.lookup(obj, ws, named[kind.show_argument])
        data = {**kind.row(r, ws.binding.source_root), **kind.details(r)}

        def human() -> None:
            for line in kind.heading(r, data):
                click.echo(file_text(line))  # the file's own words: no hint rewriting
            click.echo("---")
            click.echo(kind.body(r))

        obj.emit(data, human)

    return show_cmd
