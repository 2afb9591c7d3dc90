"""``wsctl lsp check NAME FILE``: start one language server on FILE, report, shut it down."""

from __future__ import annotations

from pathlib import Path

import click

from wskit.cli.context import WsctlContext, json_option
from wskit.cli.lazy import ensure_group
from wskit.errors import WskitError


@click.command("check")
@click.argument("name")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--wait", type=float, default=2.0, show_default=True, help="Seconds to wait for diagnostics.")
@json_option
@click.pass_obj
def lsp_check_cmd(obj: WsctlContext, name: str, file: str, wait: float) -> None:
    """Open FILE in the language server NAME of its workspace, print its diagnostics, shut it down."""
    from wskit.session import snapshot

    session = snapshot(obj.resolve(file))
    try:
        d = session.lsp.definition(name)
        serving = session.lsp.server_for(file)
        if serving is None or serving.id != d.id:
            raise WskitError(f"{d.id} does not serve {Path(file).suffix or 'files without an extension'} here "
                             f"(served by {serving.id if serving else 'no server'})")
        session.lsp.did_open(Path(file).resolve())
        diags = session.lsp.diagnostics(Path(file).resolve(), wait=wait)
        running = session.lsp.running()[d.id]
    finally:
        errors = session.close()
    data = {"server": d.id, "file": file, "ok": True, "pid": running["pid"], "diagnostics": diags,
            "close_errors": errors}

    def human() -> None:
        click.echo(f"{d.id}: ok on {file}, {len(diags)} diagnostic(s)")
        for x in diags:
            click.echo(f"  {x['line'] + 1}:{x['character'] + 1}  {x['message']}")

    obj.emit(data, human)


def register(cli: click.Group) -> None:
    """Add ``check`` to the ``lsp`` group."""
    ensure_group(cli, "lsp", "Language servers of a workspace.").add_command(lsp_check_cmd)
