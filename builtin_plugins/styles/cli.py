"""The style catalog as ``wsctl styles list|show`` read it (the commands are the
markdown-kind ones, :mod:`wskit.kit.markdown_cli`, asking
:class:`wskit.builtin_plugins.styles.StylesKind`)."""

from __future__ import annotations

from wskit.cli.context import WsctlContext


def style_catalog(obj: WsctlContext, ws):
    """The :class:`~wskit.builtin_plugins.styles.catalog.StyleCatalog` of ``ws``.

    :raises StyleCatalogError: a catalog limit is broken; the message says that
        no style can be listed or selected until it is fixed and that
        ``wsctl inspect`` lists the diagnostics.
    """
    from wskit.builtin_plugins.styles.catalog import StyleCatalog, StyleCatalogError

    try:
        return StyleCatalog.for_resources(ws, hooks=obj.hooks())
    except StyleCatalogError as err:
        # say why none is usable here, and where the details are: inspect lists the
        # diagnostics (style-catalog-invalid with the folder, skipped files), while
        # no style need have loaded. Like every failed operation: nothing on stdout,
        # even with --json (docs/wsctl.md, exit status).
        raise StyleCatalogError(f"{err} — the style catalog fails as a whole on this (Blade's rule, "
                                "docs/styles.md), so no style can be listed or selected until it is fixed; "
                                "run `wsctl inspect` for the diagnostics") from None
