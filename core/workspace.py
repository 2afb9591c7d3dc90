"""WorkspaceResources: everything one source project offers, built by running the hooks.

:func:`load_workspace` is the pipeline of design §3::

    trust gate -> sources (+ bundles) -> loaders per kind -> Registry per kind

It never raises for bad content: every problem is a diagnostic. It raises
only when the operation itself fails (e.g. a plugin raising under
``WSKIT_STRICT_PLUGINS=1``).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from wskit.binding import Binding
from wskit.errors import TrustStoreError
from wskit.fs.names import not_utf8, shown_path
from wskit.host import HostProfile
from wskit.models import TRUST_GATED_SCOPES, Diagnostic, ResourceSource
from wskit.registry import Candidate, Registry
from wskit.trust import TrustDecision, TrustStore
from wskit.util import partial_reload
from wskit.util.gcpause import gc_paused  # noqa: F401  (re-exported: the load runs in it)
from wskit.values import Value

if TYPE_CHECKING:  # pragma: no cover
    from wskit.kinds import ResourceKind
    from wskit.plugin.facade import WskitHooks

__all__ = ["decide_trust", "gc_paused", "load_workspace", "unique_diagnostics", "WorkspaceResources"]


_GENERATIONS = itertools.count(1)


class WorkspaceResources(Value):
    """The resources of one canonical source project.

    Treat it as read-only: registries are immutable and are *replaced*, never
    mutated, when something is refreshed, so snapshots taken earlier keep
    what they saw. Compared and hashed by identity; a plain class, so start-up
    compiles nothing (see :mod:`wskit.values`).

    :ivar binding: the binding the workspace was loaded for (its
        ``source_root`` is the cache key).
    :ivar profile: the host profile (with home).
    :ivar trust: the trust decision applied.
    :ivar sources: the sources read, highest rank last.
    :ivar kinds: the resource kinds, by name.
    :ivar registries: one immutable :class:`~wskit.registry.Registry` per kind.
    :ivar diagnostics: every diagnostic of the load (registry ones included).
    :ivar generation: unique load number (monotonic per process; by default the next one).
    :ivar hooks: the :class:`~wskit.plugin.facade.WskitHooks` of the load, or None.
    :ivar closed: set by :meth:`close`.
    :ivar catalogs: indexes built after the registries by ``wskit_workspace_catalogs``
        (``"rules"``: the :class:`~wskit.builtin_plugins.rules.catalog.RuleCatalog`; by default none).
    """

    __slots__ = ("__weakref__",)
    binding: Binding
    profile: HostProfile
    trust: TrustDecision
    sources: tuple[ResourceSource, ...]
    kinds: MappingProxyType
    registries: MappingProxyType
    diagnostics: tuple[Diagnostic, ...]
    generation: int
    hooks: Any
    closed: bool
    catalogs: MappingProxyType

    def __init__(self, binding: Binding, profile: HostProfile, trust: TrustDecision,
                 sources: tuple[ResourceSource, ...], kinds: MappingProxyType, registries: MappingProxyType,
                 diagnostics: tuple[Diagnostic, ...], generation: int | None = None, hooks: Any = None,
                 closed: bool = False, catalogs: MappingProxyType | None = None) -> None:
        self.binding = binding
        self.profile = profile
        self.trust = trust
        self.sources = sources
        self.kinds = kinds
        self.registries = registries
        self.diagnostics = diagnostics
        self.generation = next(_GENERATIONS) if generation is None else generation
        self.hooks = hooks
        self.closed = closed
        self.catalogs = MappingProxyType({}) if catalogs is None else catalogs

    # identity comparison and hash: each load, and each view of one, is a workspace of its own
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    @property
    def source_root(self) -> Path:
        return self.binding.source_root

    def registry(self, kind: str) -> Registry:
        """The registry of ``kind`` (an empty one for an unknown kind)."""
        return self.registries.get(kind) or Registry.empty(kind)

    def resources(self) -> list[Any]:
        """Every active resource, sorted by kind then id."""
        out = []
        for kind in sorted(self.registries):
            out.extend(self.registries[kind].active())
        return out

    def counts(self) -> dict[str, int]:
        """Active resources per kind."""
        return {k: len(r) for k, r in sorted(self.registries.items())}

    def catalog(self, name: str) -> Any:
        """The catalog ``name`` (``"rules"``…) built by ``wskit_workspace_catalogs``, or None."""
        return self.catalogs.get(name)

    def close(self) -> None:
        """Release what the load holds (nothing but a flag today; runtimes hook in here)."""
        self.closed = True


def decide_trust(hooks: "WskitHooks", binding: Binding, profile: HostProfile) -> tuple[TrustDecision, list[Diagnostic]]:
    """Run the trust gate, failing closed when the store is unusable.

    :returns: the decision and diagnostics (``trust-store-error`` when the store is unusable).
    """
    store = TrustStore.for_home(profile.require_home())
    try:
        decision, diags = hooks.trust_decision(binding.source_root, store, profile)
    except TrustStoreError as err:
        return (
            TrustDecision(path=str(binding.source_root), state="unknown", error=str(err)),
            [Diagnostic(level="error", code="trust-store-error", path=str(store.path), message=str(err))],
        )
    diags = list(diags)
    if decision is not None and decision.error:
        diags.append(Diagnostic(level="error", code="trust-store-error", path=str(store.path), message=decision.error))
    if decision is None:
        decision = TrustDecision(path=str(binding.source_root), state="unknown", source="none")
    return decision, diags


def load_workspace(
    hooks: "WskitHooks",
    binding: Binding,
    profile: HostProfile,
    *,
    extra_sources: tuple[ResourceSource, ...] = (),
) -> WorkspaceResources:
    """Build the :class:`WorkspaceResources` of ``binding.source_root``.

    :param hooks: the hook facade of a plugin manager.
    :param binding: where the workspace is.
    :param profile: host profile bound to a home.
    :param extra_sources: explicitly passed sources (scope ``cli``), loaded
        regardless of trust.

    The cyclic garbage collector is paused while it runs (:func:`gc_paused`).
    """
    with gc_paused():
        return _load_workspace(hooks, binding, profile, extra_sources=extra_sources)


def _load_workspace(
    hooks: "WskitHooks",
    binding: Binding,
    profile: HostProfile,
    *,
    extra_sources: tuple[ResourceSource, ...] = (),
) -> WorkspaceResources:
    """:func:`load_workspace` without the collector pause."""
    diags: list[Diagnostic] = []
    partial_reload.begin(hooks, profile)
    trust, d = decide_trust(hooks, binding, profile)
    diags.extend(d)
    if not trust.trusted:
        diags.append(
            Diagnostic(level="warning" if trust.error is None else "error", code="project-untrusted",
                       path=str(binding.source_root), message=trust.reason())
        )
    sources, d = hooks.resource_sources(binding, profile, trust)
    diags.extend(d)
    # the kinds are known before bundles are read: a manifest names their folders
    kinds, kind_diags = partial_reload.stage(("kinds",), (), hooks.resource_kinds)
    bundles, d = hooks.plugin_bundles(binding, profile, trust, kinds)
    diags.extend(d)
    all_sources: list[ResourceSource] = []
    bad_roots = _undecodable_roots(binding, profile, diags)
    for src in [*sources, *bundles, *extra_sources]:
        why = not_utf8(str(src.root))
        if why is not None and bad_roots and _under(src.root, bad_roots):
            continue  # already reported once for the project folder or the home
        if why is not None:  # its resources could not be named in JSON, ids or a session file
            diags.append(
                Diagnostic(level="error", code="name-not-utf8", path=shown_path(str(src.root)), plugin=src.plugin,
                           message=f"source {shown_path(src.label or str(src.root))} ignored: its folder name "
                                   f"{why}")
            )
            continue
        if src.scope in TRUST_GATED_SCOPES and not trust.trusted:
            diags.append(
                Diagnostic(level="warning", code="source-untrusted", path=src.root,
                           message=f"source {src.label or src.root} ignored: project is not trusted", plugin=src.plugin)
            )
            continue
        all_sources.append(src)
    all_sources.sort(key=lambda s: s.rank)
    diags.extend(kind_diags)
    registries: dict[str, Registry] = {}
    pending: dict[str, list[Candidate]] = {}
    kinds_by = {k.name: k for k in kinds}
    # each load and each registry build is a stage a reload takes whole when nothing it
    # read and none of its inputs changed (wskit.util.partial_reload)
    stage = partial_reload.stage
    for kind in kinds:
        cands: list[Candidate] = []
        for order, src in enumerate(all_sources):
            if not src.wants(kind.name):
                continue
            found, d = stage(("load", kind.name, src.scope, src.root, src.label, src.plugin), (kind, src),
                             functools.partial(_load_one, hooks, kind, src))
            diags.extend(d)
            cands.extend(Candidate(r, src.rank, order) for r in found)
        ident = tuple(x for c in cands for x in (c.resource, c.rank, c.order))
        if kind.shadowed_by:
            cands, d = stage(("filter", kind.name), (kind, profile, *ident),
                             functools.partial(_filtered, kind, cands, profile))
            diags.extend(d)
            pending[kind.name] = cands
            continue
        reg, d = stage(("registry", kind.name), (kind, profile, *ident),
                       functools.partial(_registry, kind, cands, profile))
        diags.extend(d)
        registries[kind.name] = reg
    for name, cands in pending.items():
        kind = kinds_by[name]
        hiding = tuple(registries.get(other) for other in kind.shadowed_by)
        reg, d = stage(("shadowed", name), (kind, *hiding, *(x for c in cands for x in (c.resource, c.rank, c.order))),
                       functools.partial(_shadowed_registry, kind, cands, registries))
        diags.extend(d)
        registries[name] = reg
    ws = WorkspaceResources(
        binding=binding,
        profile=profile,
        trust=trust,
        sources=tuple(all_sources),
        kinds=MappingProxyType({k.name: k for k in kinds}),
        registries=MappingProxyType(registries),
        diagnostics=tuple(diags),
        hooks=hooks,
    )
    catalogs, d = hooks.workspace_catalogs(ws)
    ws.catalogs = MappingProxyType(catalogs)
    ws.diagnostics = unique_diagnostics(ws.diagnostics + tuple(d))
    return ws


def unique_diagnostics(diags: Iterable[Diagnostic]) -> tuple[Diagnostic, ...]:
    """``diags`` without repeats (same level, code, path, line, message, plugin and hook),
    first occurrence kept: several capabilities read the same settings layers (plugins,
    hooks, permissions) and each reports a file it may not read, and a rule catalog's
    requests may report a file the root's already did; the user is told once.

    :param diags: :class:`~wskit.models.Diagnostic` objects, in the order reported.
    :returns: the first of each, in that order."""
    seen: set[tuple] = set()
    out = []
    for d in diags:
        key = (d.level, d.code, str(d.path), d.line, d.message, d.plugin, d.hook)
        if key in seen:
            continue
        seen.add(key)
        out.append(d)
    return tuple(out)


def _undecodable_roots(binding: Binding, profile: HostProfile, diags: list[Diagnostic]) -> tuple[str, ...]:
    """The project folder and the home when their paths hold bytes that are not
    UTF-8, each reported once (``name-not-utf8``): no source below them is loaded
    (the rules catalog skips them too, :func:`wskit.builtin_plugins.rules.build.rule_sources`)."""
    out: list[str] = []
    home = profile.home
    for what, path in (("project folder", str(binding.source_root)), ("home", None if home is None else str(home))):
        why = None if path is None else not_utf8(path)
        if why is None:
            continue
        out.append(path)
        diags.append(Diagnostic(level="error", code="name-not-utf8", path=shown_path(path),
                                message=f"{what} {shown_path(path)} {why}: its sources, rules and plugins are not loaded"))
    return tuple(out)


def _under(path: str, roots: tuple[str, ...]) -> bool:
    from wskit.binding import is_within

    return any(is_within(path, r) for r in roots)


def _load_one(hooks: "WskitHooks", kind: "ResourceKind", src: ResourceSource) -> tuple[tuple, tuple]:
    """One kind from one source (a stage): resources and diagnostics, as tuples (kept)."""
    found, d = hooks.load(kind, src)
    return tuple(found), tuple(d)


def _filtered(kind: "ResourceKind", cands: list[Candidate], profile: HostProfile
              ) -> tuple[list[Candidate], tuple[Diagnostic, ...]]:
    """``cands`` after ``kind.filter`` (a stage), with the filter's diagnostics."""
    diags: list[Diagnostic] = []
    if kind.filter is not None:
        cands = _apply_filter(kind, cands, profile, diags)
    return cands, tuple(diags)


def _registry(kind: "ResourceKind", cands: list[Candidate], profile: HostProfile
              ) -> tuple[Registry, tuple[Diagnostic, ...]]:
    """The registry of ``kind`` from ``cands`` (a stage): filtered, built; with the
    filter's and the registry's diagnostics, in that order."""
    cands, diags = _filtered(kind, cands, profile)
    reg = Registry.build(kind.name, cands)
    return reg, diags + tuple(reg.diagnostics)


def _shadowed_registry(kind: "ResourceKind", cands: list[Candidate], registries: dict[str, Registry]
                       ) -> tuple[Registry, tuple[Diagnostic, ...]]:
    """The registry of a kind other kinds shadow (a stage), from its filtered ``cands``."""
    diags: list[Diagnostic] = []
    reg = Registry.build(kind.name, _unshadowed(kind, cands, registries, diags))
    return reg, tuple(diags) + tuple(reg.diagnostics)


def _unshadowed(kind: "ResourceKind", cands: list[Candidate], registries: dict[str, Registry],
                diags: list[Diagnostic]) -> list[Candidate]:
    """``cands`` without those an active resource of a ``kind.shadowed_by`` kind hides: the
    same bare name and plugin, in any scope (reported ``shadowed``, info): Claude Code 2.1.337
    offers one ``/review``, the skill, for a home skill and a project command of that name
    (recorded case ``skill-command-scopes``)."""
    if not cands:  # nothing to hide: the hiding kinds' resources (10,000 skills) are not indexed
        return cands
    hiding = {}
    for other in kind.shadowed_by:
        reg = registries.get(other)
        if reg is not None:
            for r in reg.active():
                hiding.setdefault((r.name, r.plugin), r)
    if not hiding:
        return cands
    kept = []
    for c in cands:
        r = c.resource
        by = hiding.get((r.name, r.plugin))
        if by is None:
            kept.append(c)
            continue
        diags.append(Diagnostic(level="info", code="shadowed", path=str(r.provenance.absolute_path), plugin=r.plugin,
                                message=f"{kind.name} {r.id!r} is shadowed by the {by.kind} {by.id!r} of the same "
                                        f"name ({by.provenance.absolute_path}): one /{r.name} is offered"))
    return kept


def _apply_filter(kind: "ResourceKind", cands: list[Candidate], profile: HostProfile,
                  diags: list[Diagnostic]) -> list[Candidate]:
    """Apply ``kind.filter``; a filter that raises keeps nothing (fail closed) and is reported."""
    try:
        kept, found = kind.filter([c.resource for c in cands], profile)
    except Exception as err:  # isolated like a hook
        diags.append(Diagnostic(level="error", code="hook-failed",
                                message=f"filter of kind {kind.name!r} failed: {type(err).__name__}: {err}"))
        return []
    diags.extend(found)
    keep = {id(r) for r in kept}
    return [c for c in cands if id(c.resource) in keep]
