"""``wsctl styles list|show``: output styles (built-in and custom)."""

from __future__ import annotations

import click

from wskit.cli.context import WsctlContext, json_option, path_argument, print_diag_dicts, safe_text, table

__all__ = ["list_cmd", "show_cmd", "styles_group"]


@click.group("styles")
def styles_group() -> None:
    """Output styles: user:<key>, project:<key>, plugin:<plugin>:<key> and built-ins."""


def _catalog(obj: WsctlContext, path: str):
    from wskit.builtin_plugins.styles.catalog import StyleCatalog, StyleCatalogError

    ws = obj.resolve(path)
    try:
        return ws, StyleCatalog.for_resources(ws, hooks=obj.hooks())
    except StyleCatalogError as err:
        # say why none is usable here, and where the details are: inspect lists the
        # diagnostics (style-catalog-invalid with the folder, skipped files); it need not
        # list any style (so no "shows the style files that did load" when none did).
        # Like every failed operation: nothing on stdout, even
        # with --json (docs/wsctl.md, exit status).
        raise StyleCatalogError(f"{err} — the style catalog fails as a whole on this (Blade's rule, "
                                "docs/styles.md), so no style can be listed or selected until it is fixed; "
                                "run `wsctl inspect` for the diagnostics") from None


def _row(s) -> dict:
    source = "builtin" if s.builtin else ("plugin" if s.plugin else s.id.split(":", 1)[0])
    return {"id": s.id, "name": s.title, "description": s.description, "source": source,
            "content_sha256": s.content_sha256}


@styles_group.command("list")
@path_argument
@json_option
@click.pass_obj
def list_cmd(obj: WsctlContext, path: str) -> None:
    """List the styles of the workspace holding PATH (fails when a catalog limit is broken)."""
    ws, cat = _catalog(obj, path)
    rows = [_row(s) for s in cat.list()]
    # diagnostics about styles (a skipped file, a plugin style's name…), as `skills list` does
    diags = [d.to_json(ws.source_root) for d in obj.listing_diagnostics(ws, (
        d for d in ws.diagnostics if d.code.startswith("style") or (d.path and "/output-styles/" in d.path)))]
    data = {"styles": rows, "diagnostics": diags}
    obj.emit(data, lambda: (click.echo(
        table([[r["id"], r["source"], r["description"][:60]] for r in rows], ["ID", "SOURCE", "DESCRIPTION"])
        if rows else "no styles"), print_diag_dicts(diags)))


@styles_group.command("show")
@click.argument("style_id")
@path_argument
@json_option
@click.pass_obj
def show_cmd(obj: WsctlContext, style_id: str, path: str) -> None:
    """Show one style with its prompt."""
    _, cat = _catalog(obj, path)
    s = cat.resolve(style_id)
    data = {**_row(s), "prompt": s.prompt}

    def human() -> None:
        click.echo(safe_text(f"{s.id} ({data['source']}) — {s.description}"))
        click.echo("---")
        click.echo(s.prompt)

    obj.emit(data, human)
