"""Built-in plugin ``styles``: output styles (see :mod:`wskit.builtin_plugins.styles.loader`,
:mod:`wskit.builtin_plugins.styles.catalog`) and ``wsctl styles list|show``, a
:class:`~wskit.kit.markdown.MarkdownKind` that lists the style catalog.

wskit itself contributes no built-in style; hosts add theirs by implementing
``wskit_builtin_styles``.
"""

from __future__ import annotations

from typing import Any

from wskit.kinds import ResourceKind
from wskit.kit.markdown import MarkdownKind
from wskit.plugin import hookimpl
from wskit.util.deferred import folders_present, idle_unless

__all__ = ["EXTENSION_KEY", "STYLE_FOLDERS", "StyleCatalog", "restore_style", "select_style", "wskit_load_styles",
           "wskit_register_commands", "wskit_resource_kinds", "wskit_session_components"]

#: The kind's folders: ``output-styles/`` of a source, or what a plugin manifest's
#: ``outputStyles`` names instead (Claude Code's spelling); a source's
#: ``components`` may also say ``styles`` or ``output-styles``. Declared here so that
#: registering the plugin does not import its loader.
STYLE_FOLDERS = ResourceKind(name="style", default_dir="output-styles", manifest_keys=("outputStyles",),
                             component_aliases=("output-styles",), markdown=True)


def __getattr__(name: str):
    # the catalog's names are imported on first use: registering the plugin does not build it
    if name in ("EXTENSION_KEY", "StyleCatalog", "restore_style", "select_style"):
        from wskit.builtin_plugins.styles import catalog

        return getattr(catalog, name)
    raise AttributeError(f"module 'wskit.builtin_plugins.styles' has no attribute {name!r}")


def _source(style: Any) -> str:
    """``builtin``, ``plugin``, ``user`` or ``project``: where a style comes from."""
    return "builtin" if style.builtin else ("plugin" if style.plugin else style.id.split(":", 1)[0])


class StylesKind(MarkdownKind):
    """The ``style`` kind: ``list`` and ``show`` read the style catalog (built-in
    styles included; a broken catalog limit fails both, see
    :func:`wskit.builtin_plugins.styles.cli.style_catalog`)."""

    def items(self, obj, ws) -> list[Any]:
        from wskit.builtin_plugins.styles.cli import style_catalog

        return style_catalog(obj, ws).list()

    def lookup(self, obj, ws, name: str) -> Any:
        from wskit.builtin_plugins.styles.cli import style_catalog

        return style_catalog(obj, ws).resolve(name)

    def diagnostics(self, ws) -> list[Any]:
        """The kind's diagnostics, then why a style is not listed: a user style shadowed
        by a project style of the same name (``shadowed``, as other lists say it), and a
        host that reads no output styles at all (``style-host-none``)."""
        from wskit.builtin_plugins.sources import HOST_FOLDERS, host_reads_kind
        from wskit.models import Diagnostic

        out = list(super().diagnostics(ws))
        styles = {s.id: s for s in ws.registry("style").active()}
        if styles:
            from wskit.builtin_plugins.styles.catalog import StyleCatalog

            for sid, by in sorted(StyleCatalog(styles).shadowed.items()):
                out.append(Diagnostic(
                    level="info", code="shadowed", path=str(styles[sid].provenance.absolute_path),
                    message=f"style {sid!r} is shadowed by {by!r} ({styles[by].provenance.absolute_path}), "
                            "a project style of the same name"))
        if not host_reads_kind(ws.profile, "style"):
            from wskit.host import HostProfile

            readers = [h for h in (*HOST_FOLDERS, "wskit") if host_reads_kind(HostProfile(name=h), "style")]
            out.append(Diagnostic(
                level="info", code="style-host-none", path=None,
                message=f"host {ws.profile.name!r} reads no output styles, so none is listed (hosts that read "
                        f"output-styles folders: {', '.join(readers)})"))
        return out

    def row(self, resource: Any, root: Any) -> dict[str, Any]:
        s = resource
        return {"id": s.id, "name": s.title, "description": s.description, "source": _source(s),
                "content_sha256": s.content_sha256}

    def details(self, resource: Any) -> dict[str, Any]:
        return {"prompt": resource.prompt}

    def heading(self, resource: Any, data: dict[str, Any]) -> list[str]:
        return [f"{resource.id} ({data['source']}) — {resource.description}"]

    def body(self, resource: Any) -> str:
        return resource.prompt


STYLES = StylesKind(
    STYLE_FOLDERS.model_copy(update={"hook": "wskit_load_styles"}),
    load=idle_unless("wskit.builtin_plugins.styles.loader:load_styles", folders_present(STYLE_FOLDERS)),  # nothing imported without its folder
    help="Output styles: user:<key>, project:<key>, plugin:<plugin>:<key> and built-ins.",
    columns=(("ID", lambda s: s.id), ("SOURCE", _source), ("DESCRIPTION", lambda s: s.description)),
    list_help="List the styles of the workspace holding PATH (fails when a catalog limit is broken).",
    show_help="Show one style with its prompt.", show_argument="style_id",
)

wskit_resource_kinds = STYLES.wskit_resource_kinds
wskit_load_styles = STYLES.hook_impl()
wskit_register_commands = STYLES.wskit_register_commands


@hookimpl
def wskit_session_components():
    """The ``styles`` session component: the session's
    :class:`~wskit.builtin_plugins.styles.catalog.StyleCatalog` (``resolve(style_id)``,
    ``list()``), what :func:`wskit.session.prompt.output_style` reads; it records nothing
    in the session state."""
    from wskit.session.components import SessionComponent

    return [SessionComponent(name="styles", create=_session_styles)]


def _session_styles(session):
    from wskit.builtin_plugins.styles.catalog import StyleCatalog

    return StyleCatalog.for_resources(session)
