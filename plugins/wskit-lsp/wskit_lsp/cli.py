"""``wsctl lsp check NAME FILE`` and ``wsctl lsp query OPERATION FILE[:LINE:COL]``: start
one language server on FILE, report or ask, shut it down."""

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

    from .service import DiagnosticsNotReady

    session = snapshot(obj.resolve(file))
    try:
        d = session.lsp.definition(name)
        serving = session.lsp.server_for(file)
        if serving is None or serving.id != d.id:
            raise WskitError(f"{d.id} does not serve {Path(file).suffix or 'files without an extension'} here "
                             f"(served by {serving.id if serving else 'no server'})")
        session.lsp.did_open(Path(file).resolve())
        try:
            diags, current = session.lsp.diagnostics(Path(file).resolve(), wait=wait), True
        except DiagnosticsNotReady:
            diags, current = [], False
        running = session.lsp.running()[d.id]
    finally:
        errors = session.close()
    data = {"server": d.id, "file": file, "ok": True, "pid": running["pid"], "diagnostics": diags,
            "diagnostics_current": current, "dropped_capabilities": running["dropped_capabilities"], "close_errors": errors}

    def human() -> None:
        click.echo(f"{d.id}: ok on {file}, " + (f"{len(diags)} diagnostic(s)" if current else
                   f"no diagnostics published within {wait:g} s"))
        for x in running["dropped_capabilities"]:
            click.echo(f"  warning: capability not understood and left out: {x}")
        for x in diags:
            click.echo(f"  {x['line'] + 1}:{x['character'] + 1}  {x['message']}")

    obj.emit(data, human)


_POSITIONAL = ("definition", "references", "hover")


def _file_and_position(spec: str) -> tuple[str, int | None, int | None]:
    """``FILE[:LINE:COL]`` -> (file, line, col), 1-based; a name that exists as given wins."""
    import re

    m = re.fullmatch(r"(.+):(\d+):(\d+)", spec)
    if m and not Path(spec).exists():
        return m.group(1), int(m.group(2)), int(m.group(3))
    return spec, None, None


@click.command("query")
@click.argument("operation", type=click.Choice(["definition", "references", "hover", "symbols"]))
@click.argument("spec", metavar="FILE[:LINE:COL]")
@click.option("--query", "query", default=None,
              help="symbols: search the whole workspace for this name instead of listing FILE's symbols.")
@json_option
@click.pass_obj
def lsp_query_cmd(obj: WsctlContext, operation: str, spec: str, query: str | None) -> None:
    """Start the language server for FILE's language, ask it one question, print the answer
    (paths relative to the project, LINE:COL 1-based), and shut it down."""
    from wskit.session import snapshot

    file, line, col = _file_and_position(spec)
    if not Path(file).is_file():
        raise click.BadParameter(f"{file}: no such file", param_hint="FILE")
    if operation in _POSITIONAL and line is None:
        raise click.BadParameter(f"{operation} needs a position: FILE:LINE:COL (1-based)", param_hint="FILE")
    if line is not None and (line < 1 or col < 1):
        raise click.BadParameter("LINE and COL are 1-based", param_hint="FILE")
    path = Path(file).resolve()
    session = snapshot(obj.resolve(file))
    try:
        d = session.lsp.server_for(path)
        if d is None:
            raise WskitError(f"no enabled language server serves {path.suffix or 'files without an extension'} here")
        session.lsp.did_open(path)
        rel = path.relative_to(Path(session.binding.execution_root).resolve()).as_posix()
        if operation == "definition":
            result = session.lsp.goto_definition(path, line - 1, col - 1)
        elif operation == "references":
            result = session.lsp.references(path, line - 1, col - 1)
        elif operation == "hover":
            result = session.lsp.hover(path, line - 1, col - 1)
        elif query is not None:
            result = session.lsp.workspace_symbols(query, path)
        else:
            result = session.lsp.document_symbols(path)
    finally:
        errors = session.close()
    data = {"server": d.id, "file": rel, "operation": operation,
            "position": {"line": line, "character": col} if line is not None else None,
            "result": result if isinstance(result, (str, type(None))) else result.to_dict(),
            "close_errors": errors}

    def human() -> None:
        if isinstance(result, (str, type(None))):
            click.echo(result if result else "No hover information")
        else:
            click.echo(result.render())

    obj.emit(data, human)


def register(cli: click.Group) -> None:
    """Add ``check`` and ``query`` to the ``lsp`` group."""
    group = ensure_group(cli, "lsp", "Language servers of a workspace.")
    group.add_command(lsp_check_cmd)
    group.add_command(lsp_query_cmd)
