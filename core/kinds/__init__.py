"""Resource kinds: what a kind is called, how it is loaded from a source, and
where its files are (the folders of a source, the keys of a plugin manifest).

A kind describes itself: the plugin manifest parser
(:mod:`wskit.builtin_plugins.bundles.manifest`) and the markdown walker
(:mod:`wskit.formats.mdwalk`) read the kinds registered through
``wskit_resource_kinds`` (:func:`manifest_table`,
:attr:`ResourceKind.component_keys`) instead of tables of kind names, so a
plugin that registers a kind with ``manifest_keys`` gets its folders read from
content plugins with no other change.
"""

# No ``from __future__ import annotations`` here: pydantic would compile and evaluate
# every field's annotation string when the model classes are made.

from collections.abc import Callable, Iterable
from typing import Any

from wskit.models import Frozen

__all__ = ["ResourceKind", "manifest_table"]


class ResourceKind(Frozen):
    """A resource kind contributed through ``wskit_resource_kinds``.

    :ivar name: singular kind name (``"skill"``, ``"command"``…), used as
        :attr:`wskit.models.Resource.kind` and in ``wsctl inspect`` counts.
    :ivar hook: name of the loader hook called once per source
        (``"wskit_load_skills"``); the hook takes ``source`` and returns a
        :class:`~wskit.models.LoadResult`.
    :ivar loader: alternatively a callable ``loader(source) -> LoadResult``
        (for a plugin that adds a kind without adding a hookspec).
    :ivar default_dir: the folder (or file) under a source root that holds this
        kind; also its default location in a content plugin.
    :ivar plural: plural used in listings (default ``name + "s"``).
    :ivar filter: optional ``filter(resources, profile) -> (kept, diagnostics)``
        applied to everything loaded for this kind before precedence (skills:
        the ``skills_enabled`` switch; subagents: the host's reserved names).
    :ivar manifest_keys: the keys of a content plugin's ``plugin.json`` (or of a
        marketplace entry) that name this kind's paths, relative to the plugin
        root (``("commands",)``, ``("outputStyles",)``); a key's value is a path
        or an array of paths. Empty: manifests cannot point the kind elsewhere
        and a plugin's ``default_dir`` is read.
    :ivar manifest_adds: paths a manifest names are read *besides*
        ``default_dir`` (skills, hooks, servers); otherwise they replace it
        (commands, agents, styles: Claude Code's rule).
    :ivar manifest_inline: a manifest key may also hold the definitions as an
        object (``hooks``, ``mcpServers``, ``lspServers``); the object is kept as
        :attr:`wskit.models.ResourceSource.inline` ``[name]``.
    :ivar component_aliases: other keys a :attr:`wskit.models.ResourceSource.components`
        entry may use for this kind, besides the name, the plural and the
        manifest keys (styles: ``output-styles``).
    :ivar shadowed_by: other kinds whose active resource of the same bare name and plugin,
        in any scope, hides one of this kind (a skill hides a command of its name, as Claude
        Code offers one ``/name``); the hidden one is reported ``shadowed``.
    :ivar markdown: one ``.md`` file is one resource (commands, subagents,
        styles, and kinds made with :class:`wskit.kit.markdown.MarkdownKind`);
        the kind's folders are read with :func:`wskit.formats.mdwalk.walk_markdown`.
    :ivar guards: the kind's resources are guards (hooks): a plugin of the user's that a
        project or local settings file switched off still has them loaded, from a source
        carrying :attr:`~wskit.models.ResourceSource.switched_off_by`, so a guard that does
        not run is reported rather than gone (docs/hooks.md).
    """

    name: str
    hook: str | None = None
    loader: Callable[[Any], Any] | None = None
    default_dir: str = ""
    plural: str = ""
    filter: Callable[[list[Any], Any], tuple[list[Any], list[Any]]] | None = None
    manifest_keys: tuple[str, ...] = ()
    manifest_adds: bool = False
    manifest_inline: bool = False
    component_aliases: tuple[str, ...] = ()
    markdown: bool = False
    shadowed_by: tuple[str, ...] = ()
    guards: bool = False

    @property
    def plural_name(self) -> str:
        """:attr:`plural`, or ``name + "s"`` when it is not set."""
        return self.plural or f"{self.name}s"

    @property
    def component_keys(self) -> tuple[str, ...]:
        """Keys other than :attr:`name` under which a source's ``components``
        may name this kind's folders, in the order they are looked for: the
        plural, the manifest keys, then :attr:`component_aliases` (no repeats)."""
        return tuple(dict.fromkeys((self.plural_name, *self.manifest_keys, *self.component_aliases)))


def manifest_table(kinds: Iterable[ResourceKind]) -> dict[str, tuple[ResourceKind, ...]]:
    """The manifest keys of ``kinds``: key -> the kinds it names paths for.

    Keys are sorted, so a manifest's components and diagnostics come in the same
    order whichever order plugins registered their kinds in; a key two kinds
    declare serves both, in the order given.

    :param kinds: registered kinds (a workspace's ``kinds.values()``, the first
        value of :meth:`wskit.plugin.facade.WskitHooks.resource_kinds`).
    """
    table: dict[str, list[ResourceKind]] = {}
    for kind in kinds:
        for key in kind.manifest_keys:
            owners = table.setdefault(key, [])
            if all(k.name != kind.name for k in owners):
                owners.append(kind)
    return {key: tuple(table[key]) for key in sorted(table)}
