"""Registries: one immutable index of resources per kind (design §4).

A :class:`Registry` is built once (by :meth:`Registry.build`) and never
mutated, so a session snapshot shares it instead of copying it.

Precedence and naming:

- native resources (every scope but ``plugin``) compete for their bare name:
  the one from the highest-ranked source wins; the others are *shadowed* and
  reported as ``shadowed`` diagnostics (never silently dropped);
- a content plugin's resources have the canonical id ``plugin:<plugin>:<name>``
  and never shadow anything;
- :meth:`Registry.get` accepts a qualified id (always), ``<plugin>:<name>``
  (Claude Code's spelling), or a bare name: the native winner if there is one,
  else the single plugin resource of that name; several → :class:`AmbiguousNameError`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from operator import attrgetter
from types import MappingProxyType

from wskit.errors import AmbiguousNameError, UnknownResourceError
from wskit.models import Diagnostic, Resource, Scope
from wskit.values import FrozenValue

__all__ = ["Candidate", "Registry", "with_plugin_resources"]


class Candidate(FrozenValue):
    """A resource offered to :meth:`Registry.build` with the rank of its source (higher wins)
    (immutable; a plain class, so start-up compiles nothing: see :mod:`wskit.values`)."""

    resource: Resource
    rank: int
    order: int

    def __init__(self, resource: Resource, rank: int, order: int = 0) -> None:
        _set = object.__setattr__
        _set(self, "resource", resource)
        _set(self, "rank", rank)
        _set(self, "order", order)


#: a candidate's sort key in :meth:`Registry.build`
_RANK_ORDER = attrgetter("rank", "order")


class Registry:
    """An immutable registry of one resource kind.

    :ivar kind: the resource kind.
    :ivar diagnostics: ``shadowed`` (info) and ``duplicate-id`` (warning) findings from building.
    """


    def __init__(
        self,
        kind: str,
        by_id: Mapping[str, Resource],
        native: Mapping[str, Resource],
        plugin_by_name: Mapping[str, tuple[Resource, ...]],
        shadowed: tuple[Resource, ...],
        diagnostics: tuple[Diagnostic, ...],
    ) -> None:
        self.kind = kind
        self._by_id = MappingProxyType(dict(by_id))
        self._native = MappingProxyType(dict(native))
        self._plugin_by_name = MappingProxyType(dict(plugin_by_name))
        self._shadowed = shadowed
        self.diagnostics = diagnostics

    @classmethod
    def empty(cls, kind: str) -> "Registry":
        """A registry with nothing in it."""
        return cls(kind, {}, {}, {}, (), ())

    @classmethod
    def build(cls, kind: str, candidates: Iterable[Candidate]) -> "Registry":
        """Apply precedence to ``candidates`` and freeze the result.

        Among native candidates of one bare name, the highest ``rank`` wins;
        at equal rank the later ``order`` wins. Plugin candidates are kept
        side by side under their qualified ids. A second candidate with an
        already-taken qualified id is dropped with a ``duplicate-id`` warning.
        """
        # a stable sort: equal (rank, order) keep their offered order
        ordered = sorted(candidates, key=_RANK_ORDER)
        native: dict[str, Candidate] = {}
        shadowed: list[Resource] = []
        diags: list[Diagnostic] = []
        plugin: dict[str, list[Resource]] = {}
        by_id: dict[str, Resource] = {}
        for cand in ordered:
            res = cand.resource
            if res.provenance.scope is Scope.PLUGIN:
                if res.id in by_id:
                    diags.append(_dup(kind, res, by_id[res.id]))
                    continue
                by_id[res.id] = res
                plugin.setdefault(res.name, []).append(res)
                continue
            prev = native.get(res.name)
            if prev is not None:
                shadowed.append(prev.resource)
                diags.append(
                    Diagnostic(
                        level="info",
                        code="shadowed",
                        path=str(prev.resource.provenance.absolute_path),
                        message=(
                            f"{kind} {prev.resource.id!r} is shadowed by {res.id!r} "
                            f"({res.provenance.absolute_path})"
                        ),
                        plugin=prev.resource.provenance.plugin,
                    )
                )
            native[res.name] = cand
        native_res = {n: c.resource for n, c in native.items()}
        for res in native_res.values():
            if res.id in by_id:
                diags.append(_dup(kind, res, by_id[res.id]))
                continue
            by_id[res.id] = res
        for res in shadowed:
            by_id.setdefault(res.id, res)
        return cls(
            kind,
            by_id,
            native_res,
            {n: tuple(v) for n, v in plugin.items()},
            tuple(shadowed),
            tuple(diags),
        )

    # -- queries ---------------------------------------------------------

    def get(self, name: str) -> Resource:
        """Resolve a qualified id, ``<plugin>:<name>``, or a bare name.

        :raises UnknownResourceError: nothing answers; lists the active ids.
        :raises AmbiguousNameError: a bare name matches several plugin
            resources and no native one; lists their ids.
        """
        found = self._by_id.get(name)
        if found is not None:
            return found
        if ":" in name:
            head, _, rest = name.partition(":")
            found = self._by_id.get(f"plugin:{head}:{rest}")
            if found is not None:
                return found
            found = self._native.get(name)  # native names may hold ':' (commands a/b.md -> a:b)
            if found is not None:
                return found
            raise UnknownResourceError(self.kind, name, self.ids())
        found = self._native.get(name)
        if found is not None:
            return found
        cands = self._plugin_by_name.get(name, ())
        if len(cands) == 1:
            return cands[0]
        if len(cands) > 1:
            raise AmbiguousNameError(self.kind, name, [c.id for c in cands])
        raise UnknownResourceError(self.kind, name, self.ids())

    def find(self, name: str) -> Resource | None:
        """Like :meth:`get` but returns None when unknown (still raises when ambiguous)."""
        try:
            return self.get(name)
        except UnknownResourceError:
            return None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    def active(self) -> list[Resource]:
        """Active resources (native winners, then plugin ones), sorted by id."""
        items = list(self._native.values())
        for group in self._plugin_by_name.values():
            items.extend(group)
        return sorted(items, key=lambda r: r.id)

    def __iter__(self) -> Iterator[Resource]:
        return iter(self.active())

    def __len__(self) -> int:
        return len(self._native) + sum(len(v) for v in self._plugin_by_name.values())

    def shadowed(self) -> tuple[Resource, ...]:
        """Resources that lost to a higher-precedence one of the same bare name."""
        return self._shadowed

    def ids(self) -> list[str]:
        """Ids of the active resources, sorted."""
        return [r.id for r in self.active()]

    def without_plugins(self) -> "Registry":
        """A copy with every plugin-scope resource removed (for reconciling bundles)."""
        return Registry(self.kind, {k: v for k, v in self._by_id.items() if v.provenance.scope is not Scope.PLUGIN},
                        self._native, {}, self._shadowed,
                        tuple(d for d in self.diagnostics if d.plugin is None))

    def __repr__(self) -> str:
        return f"<Registry {self.kind} active={len(self)} shadowed={len(self._shadowed)}>"


def _dup(kind: str, res: Resource, prev: Resource) -> Diagnostic:
    return Diagnostic(
        level="warning",
        code="duplicate-id",
        path=str(res.provenance.absolute_path),
        message=f"{kind} id {res.id!r} already defined by {prev.provenance.absolute_path}; ignored",
        plugin=res.provenance.plugin,
    )


def with_plugin_resources(registry: Registry, resources: "Iterable[Resource]") -> Registry:
    """A new registry: ``registry`` without its plugin resources, plus ``resources``
    (plugin-scope ones, kept side by side under their qualified ids). The input
    registry is not changed (used by :func:`wskit.builtin_plugins.bundles.active.reconcile`)."""
    base = registry.without_plugins()
    by_id = dict(base._by_id)
    plugin: dict[str, list[Resource]] = {}
    diags = list(base.diagnostics)
    for res in resources:
        if res.id in by_id:
            diags.append(_dup(registry.kind, res, by_id[res.id]))
            continue
        by_id[res.id] = res
        plugin.setdefault(res.name, []).append(res)
    return Registry(registry.kind, by_id, base._native, {n: tuple(v) for n, v in plugin.items()},
                    base._shadowed, tuple(diags))
