"""The active set of content plugins, their resource sources, and
:func:`reconcile` (design §4; Blade reference/blade.md §8.7).

:func:`find_bundles` = discovery + enablement layers + dependencies.
:func:`bundle_source` turns an active bundle into the plugin-scope
:class:`~wskit.models.ResourceSource` the kind loaders read (``plugin`` = name,
``root`` = ``base`` = plugin root, ``components`` from the manifest, ``inline``
for inline definitions, ``host`` for ``${<HOST>_PLUGIN_ROOT}``).
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from wskit.binding import Binding
from wskit.builtin_plugins.bundles.discovery import Bundle, discover
from wskit.builtin_plugins.bundles.enablement import apply_enablement, resolve_dependencies
from wskit.formats.settings import SettingsLayer, settings_layers
from wskit.host import HostProfile
from wskit.models import Diagnostic, ResourceSource, Scope
from wskit.registry import Registry, with_plugin_resources
from wskit.trust import TrustDecision

if TYPE_CHECKING:
    from wskit.kinds import ResourceKind


def find_bundles(binding: Binding | None, profile: HostProfile, trust: TrustDecision | None,
                 explicit: Iterable[str] = (), kinds: Iterable[ResourceKind] | None = None,
                 settings: tuple[list[SettingsLayer], list[Diagnostic]] | None = None,
                 replaced: list[Bundle] | None = None) -> tuple[list[Bundle], list[Diagnostic]]:
    """Every plugin of a workspace with its state (``active``, ``inactive``, ``error``).

    :param explicit: extra plugin folders (default: ``profile.settings["plugin_dirs"]``).
    :param kinds: the registered resource kinds, whose manifest keys locate each
        kind in a plugin (default :func:`wskit.plugin.facade.builtin_kinds`).
    :param settings: what :func:`~wskit.formats.settings.settings_layers` answered for this
        workspace, when the caller has read it already (default: read here).
    :param replaced: when given, receives each plugin of the user or an administrator that
        the project replaced with a plugin folder of the same name and that the settings
        leave on, ``switched_off_by`` that folder (see :func:`discover`).
    :returns: ``(bundles, diagnostics)``, bundles lowest rank first. A user's or an
        administrator's plugin in state ``error`` because a plugin it depends on was
        switched off or replaced by the project has ``switched_off_by`` set to what did it.
    """
    layers, d = settings if settings is not None else settings_layers(binding, profile, trust)
    d = list(d)
    gone: list[Bundle] = []
    bundles, diags = discover(binding, profile, trust, tuple(explicit), kinds, layers=layers, replaced=gone)
    diags += d
    bad = [x for x in d if x.code == "managed-settings-invalid"]
    if bad:  # an administrator's enabledPlugins that cannot be read may switch any plugin off: all are
        layers = [*layers, SettingsLayer(scope="managed", path=bad[0].path,
                                         data={"enabledPlugins": {b.name: False for b in bundles}})]
    bundles, d = apply_enablement(bundles, layers)
    diags += d
    bundles = resolve_dependencies(bundles)
    if gone:
        kept, _ = apply_enablement([g.model_copy(update={"switched_off_by": None}) for g in gone], layers)
        # the user's own "off" stays a decision: only a plugin the settings leave on is reported
        gone = [g.model_copy(update={"state": "inactive", "switched_off_by": g.switched_off_by})
                for g, k in zip(gone, kept, strict=True) if k.state == "active" or k.switched_off_by]
        if replaced is not None:
            replaced.extend(gone)
    bundles = switched_off_through_dependencies(bundles, {g.name: str(g.switched_off_by) for g in gone})
    for b in bundles:
        if b.state != "error":
            # a plugin the host would refuse to load is worth saying where the workspace is inspected
            diags += [i for i in b.issues if i.code == "claude-manifest-rejected"]
        if b.state == "error":
            why = "; ".join(i.message for i in b.issues if i.level == "error") or "failed to load"
            diags.append(Diagnostic(level="error", code="plugin-failed", path=b.root, plugin=b.name,
                                    message=f"plugin {b.name!r} at {b.root} not loaded: {why}"))
    return bundles, diags


def switched_off_through_dependencies(bundles: list[Bundle], replaced: dict[str, str]) -> list[Bundle]:
    """``bundles`` with ``switched_off_by`` set on each plugin of the user or an administrator
    in state ``error`` because a plugin it depends on is off by the project's doing: that
    plugin was switched off by a project or local settings file (its ``switched_off_by``),
    replaced by the project's plugin folder (``replaced``: name -> that folder), or is itself
    such a plugin (to a fixed point). The user's guards in it are then reported
    ``switched-off``, never dropped silently."""
    by_name = {b.name: b for b in bundles}
    changed = True
    while changed:
        changed = False
        for name, b in list(by_name.items()):
            if b.state != "error" or b.switched_off_by or b.origin not in ("user", "managed") or b.manifest is None:
                continue
            for dep, _ in b.manifest.dependencies:
                other = by_name.get(dep)
                by = replaced.get(dep) or (other.switched_off_by if other is not None else None)
                if by:
                    by_name[name] = b.model_copy(update={"switched_off_by": by})
                    changed = True
                    break
    return [by_name[b.name] for b in bundles]


def bundle_source(bundle: Bundle, host: str | None = None) -> ResourceSource:
    """The plugin-scope source of ``bundle`` (see module doc)."""
    m = bundle.manifest
    return ResourceSource(
        scope=Scope.PLUGIN, root=bundle.root, base=bundle.root, rank=bundle.rank, label=f"plugin:{bundle.name}",
        plugin=bundle.name, components=dict(m.components) if m else {}, inline=dict(m.inline) if m else {},
        host=host,
    )


def reconcile(workspace: Any) -> Any:
    """Re-derive every plugin resource of ``workspace`` from the current active set.

    Plugin-scope resources are removed from each registry and the active
    bundles (found again through ``wskit_plugin_bundles``) are loaded anew. The
    registries are *replaced* (new objects in a new mapping), never mutated,
    so a session snapshotted earlier keeps what it saw.

    :param workspace: a :class:`~wskit.workspace.WorkspaceResources` loaded by the pipeline
        (it needs its ``hooks``).
    :returns: the same workspace object, with new ``registries``, ``sources`` and ``diagnostics``.
    """
    hooks = workspace.hooks
    if hooks is None:
        raise ValueError("reconcile() needs a workspace loaded through the hook pipeline")
    sources, diags = hooks.plugin_bundles(workspace.binding, workspace.profile, workspace.trust,
                                          tuple(workspace.kinds.values()))
    sources = sorted(sources, key=lambda s: s.rank)
    registries: dict[str, Registry] = {}
    for name, kind in workspace.kinds.items():
        found = []
        for src in sources:
            if src.wants(name):
                res, d = hooks.load(kind, src)
                diags.extend(d)
                found.extend(r for r in res if r.provenance.scope is Scope.PLUGIN)
        old = workspace.registries.get(name) or Registry.empty(name)
        registries[name] = with_plugin_resources(old, found)
    kept = tuple(s for s in workspace.sources if s.scope is not Scope.PLUGIN)
    old_names = {s.plugin for s in workspace.sources if s.scope is Scope.PLUGIN}
    workspace.registries = MappingProxyType(registries)
    workspace.sources = tuple(sorted(kept + tuple(sources), key=lambda s: s.rank))
    workspace.diagnostics = tuple(d for d in workspace.diagnostics if d.plugin not in old_names) + tuple(diags)
    return workspace


def plugin_counts(workspace: Any, plugin: str) -> dict[str, int]:
    """Active resources per kind that ``plugin`` brings into ``workspace``."""
    out: dict[str, int] = {}
    for kind, reg in workspace.registries.items():
        n = sum(1 for r in reg.active() if r.provenance.scope is Scope.PLUGIN and r.provenance.plugin == plugin)
        if n:
            out[kind] = n
    return out


