"""The typed facade in front of ``pm.hook``: the only way host code calls hooks.

Each method calls the implementations one by one in pluggy's order, so that an
implementation that raises is *isolated*: the error becomes a ``hook-failed``
:class:`~wskit.models.Diagnostic` naming the plugin and the hook, the plugin is
recorded as failing (``wsctl plugins`` shows it), and the other plugins'
results stand. With ``WSKIT_STRICT_PLUGINS=1`` the error is re-raised.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wskit.models import Diagnostic, LoadResult, Resource, ResourceSource

if TYPE_CHECKING:  # pragma: no cover
    import click

    from wskit.binding import Binding
    from wskit.host import HostProfile
    from wskit.kinds import ResourceKind
    from wskit.plugin.manager import WskitPluginManager
    from wskit.session import SessionResources
    from wskit.trust import TrustDecision, TrustStore

__all__ = ["HookResults", "WskitHooks", "builtin_kinds", "flatten_contributions"]


class HookResults:
    """Return values of one isolated hook call: ``(plugin_name, value)`` pairs
    plus the diagnostics of implementations that raised."""

    __slots__ = ("values", "diagnostics")

    def __init__(self) -> None:
        self.values: list[tuple[str, Any]] = []
        self.diagnostics: list[Diagnostic] = []


class WskitHooks:
    """Typed, failure-isolating calls of every hookspec.

    :param pm: a manager from :func:`wskit.plugin.manager.make_plugin_manager`.
    """

    def __init__(self, pm: "WskitPluginManager") -> None:
        self.pm = pm

    # -- the isolation machinery ----------------------------------------

    def call(self, hook: str, firstresult: bool = False, **kwargs: Any) -> HookResults:
        """Call every implementation of ``hook`` with ``kwargs``, isolating failures.

        :param hook: hook name (``wskit_…``).
        :param firstresult: stop at the first non-None value.
        :returns: :class:`HookResults`.
        :raises AttributeError: for a hook with no spec.
        """
        caller = getattr(self.pm.hook, hook)
        out = HookResults()
        for impl in reversed(caller.get_hookimpls()):
            if getattr(impl, "hookwrapper", False) or getattr(impl, "wrapper", False):
                continue
            one = self._call_one(impl, hook, kwargs)
            out.diagnostics.extend(one.diagnostics)
            out.values.extend(one.values)
            if firstresult and one.values:
                break
        return out

    def _call_one(self, impl: Any, hook: str, kwargs: dict[str, Any]) -> HookResults:
        """One implementation's answer (a value that is not None) or its ``hook-failed`` diagnostic."""
        out = HookResults()
        try:
            value = impl.function(*[kwargs[a] for a in impl.argnames])
        except Exception as err:
            if getattr(self.pm, "strict", False):
                raise
            name = impl.plugin_name
            msg = f"{type(err).__name__}: {err}"
            self.pm.hook_failures.setdefault(name, []).append(f"{hook}: {msg}")
            out.diagnostics.append(
                Diagnostic(
                    level="error",
                    code="hook-failed",
                    message=f"plugin {name!r} failed in {hook}: {msg}",
                    plugin=name,
                    hook=hook,
                )
            )
            return out
        if value is not None:
            out.values.append((impl.plugin_name, value))
        return out

    def _flat(self, hook: str, expect: type, **kwargs: Any) -> tuple[list[Any], list[Diagnostic]]:
        res = self.call(hook, **kwargs)
        items: list[Any] = []
        for plugin, value in res.values:
            values = value if isinstance(value, (list, tuple)) else [value]
            for v in values:
                if not isinstance(v, expect):
                    res.diagnostics.append(
                        Diagnostic(
                            level="error",
                            code="bad-contribution",
                            message=f"plugin {plugin!r} returned {type(v).__name__} from {hook}, "
                            f"expected {expect.__name__}",
                            plugin=plugin,
                            hook=hook,
                        )
                    )
                    continue
                items.append(v)
        return items, res.diagnostics

    # -- one method per hookspec -----------------------------------------

    def host_profiles(self) -> tuple[list["HostProfile"], list[Diagnostic]]:
        """All host profiles plugins know."""
        from wskit.host import HostProfile

        return self._flat("wskit_host_profiles", HostProfile)

    def trust_decision(
        self, source_root: Path, store: "TrustStore", profile: "HostProfile | None" = None
    ) -> tuple["TrustDecision | None", list[Diagnostic]]:
        """The first trust decision (firstresult)."""
        res = self.call("wskit_trust_decision", firstresult=True, source_root=source_root, store=store,
                        profile=profile)
        value = res.values[0][1] if res.values else None
        return value, res.diagnostics

    def expand_command(self, command: Any, args: list[str], root: str | None) -> Any:
        """The :class:`wskit.resources.command.Expansion` of ``command``: the first plugin
        that owns its format (``wskit_expand_command``); the built-in ``commands`` plugin
        answers last (``trylast``) with wskit's markdown expansion. Shell embeds are never
        run. A plugin that raises, or answers with something that is not an ``Expansion``,
        is reported in the expansion's diagnostics and the next answer is used.

        :raises LookupError: no plugin expanded it (the ``commands`` plugin is blocked and
            no other plugin owns the command's format).
        """
        from wskit.resources.command import Expansion

        diagnostics: list[Diagnostic] = []
        for impl in reversed(self.pm.hook.wskit_expand_command.get_hookimpls()):
            if getattr(impl, "hookwrapper", False) or getattr(impl, "wrapper", False):
                continue
            res = self._call_one(impl, "wskit_expand_command",
                                 {"command": command, "args": list(args), "root": root})
            diagnostics.extend(res.diagnostics)
            value = res.values[0][1] if res.values else None
            if value is None:
                continue
            if isinstance(value, Expansion):
                if diagnostics:
                    value = Expansion(value.text, [*diagnostics, *value.diagnostics])
                return value
            diagnostics.append(Diagnostic(
                level="error", code="bad-contribution", plugin=impl.plugin_name, hook="wskit_expand_command",
                message=f"plugin {impl.plugin_name!r} returned {type(value).__name__} from wskit_expand_command, "
                        "expected Expansion"))
        raise LookupError(f"no plugin expands the command {getattr(command, 'id', command)!r}")

    def export(self, workspace: Any, targets: list[str], options: dict[str, Any]) -> Any:
        """The first plugin's answer to ``wskit_export`` (the built-in ``export`` answers
        last). Unlike listing hooks, an implementation that raises is not isolated: an export
        is one operation the caller asked for, and its error (an untrusted project, an
        unknown target, a refused write) is the answer.

        :raises LookupError: no plugin exports (the ``export`` built-in is blocked).
        """
        for impl in reversed(self.pm.hook.wskit_export.get_hookimpls()):
            if getattr(impl, "hookwrapper", False) or getattr(impl, "wrapper", False):
                continue
            value = impl.function(workspace=workspace, targets=list(targets), options=dict(options))
            if value is not None:
                return value
        raise LookupError("no plugin exports workspaces (the 'export' built-in is blocked)")

    def resource_sources(
        self, binding: "Binding", profile: "HostProfile", trust: "TrustDecision"
    ) -> tuple[list[ResourceSource], list[Diagnostic]]:
        """Every plugin's resource sources."""
        return self._flat(
            "wskit_resource_sources", ResourceSource, binding=binding, profile=profile, trust=trust
        )

    def plugin_bundles(
        self, binding: "Binding", profile: "HostProfile", trust: "TrustDecision",
        kinds: "Iterable[ResourceKind] | None" = None,
    ) -> tuple[list[ResourceSource], list[Diagnostic]]:
        """Every plugin's content-plugin sources (implementations may also
        return :class:`~wskit.models.Diagnostic` items: plugins that failed to load).

        :param kinds: the registered resource kinds passed to the hook (default:
            :meth:`resource_kinds`, whose diagnostics are then not returned here).
        """
        kinds = tuple(self.resource_kinds()[0] if kinds is None else kinds)
        res = self.call("wskit_plugin_bundles", binding=binding, profile=profile, trust=trust, kinds=kinds)
        sources: list[ResourceSource] = []
        for plugin, value in res.values:
            for v in value if isinstance(value, (list, tuple)) else [value]:
                if isinstance(v, ResourceSource):
                    sources.append(v)
                elif isinstance(v, Diagnostic):
                    res.diagnostics.append(v)
                else:
                    res.diagnostics.append(Diagnostic(
                        level="error", code="bad-contribution", plugin=plugin, hook="wskit_plugin_bundles",
                        message=f"plugin {plugin!r} returned {type(v).__name__} from wskit_plugin_bundles, "
                        "expected ResourceSource"))
        return sources, res.diagnostics

    def discover_rules(self, source: ResourceSource, catalog_root: Path, profile: "HostProfile | None" = None,
                       folders: Any = None, *, lazy: bool | None = None) -> HookResults:
        """Rule files of ``source`` (raw per-plugin values; the rules layer interprets them).

        :param folders: passed to implementations that take it (see the hookspec).
        :param lazy: None: every implementation; True: only those that take ``folders``;
            False: only those that do not."""
        kwargs = {"source": source, "catalog_root": catalog_root, "profile": profile, "folders": folders}
        if lazy is None:
            return self.call("wskit_discover_rules", **kwargs)
        out = HookResults()
        for impl in reversed(self.pm.hook.wskit_discover_rules.get_hookimpls()):
            if getattr(impl, "hookwrapper", False) or getattr(impl, "wrapper", False):
                continue
            if ("folders" in impl.argnames) is lazy:
                one = self._call_one(impl, "wskit_discover_rules", kwargs)
                out.diagnostics.extend(one.diagnostics)
                out.values.extend(one.values)
        return out

    def resource_kinds(self) -> tuple[list["ResourceKind"], list[Diagnostic]]:
        """Every resource kind, first registration of a name wins."""
        from wskit.kinds import ResourceKind

        kinds, diags = self._flat("wskit_resource_kinds", ResourceKind)
        seen: dict[str, ResourceKind] = {}
        for k in kinds:
            if k.name in seen:
                diags.append(
                    Diagnostic(level="warning", code="duplicate-kind",
                               message=f"resource kind {k.name!r} is registered twice; the first one is used")
                )
                continue
            seen[k.name] = k
        return list(seen.values()), diags

    def load(self, kind: "ResourceKind", source: ResourceSource) -> tuple[list[Resource], list[Diagnostic]]:
        """Load one kind from one source through its hook or loader.

        :returns: resources (checked to be :class:`~wskit.models.Resource` of
            that kind) and diagnostics.
        """
        diags: list[Diagnostic] = []
        values: list[tuple[str, Any]] = []
        if kind.hook:
            res = self.call(kind.hook, source=source)
            values.extend(res.values)
            diags.extend(res.diagnostics)
        if kind.loader is not None:
            try:
                values.append(("<loader>", kind.loader(source)))
            except Exception as err:
                if getattr(self.pm, "strict", False):
                    raise
                diags.append(Diagnostic(level="error", code="hook-failed",
                                        message=f"loader of kind {kind.name!r} failed: {type(err).__name__}: {err}"))
        resources: list[Resource] = []
        for plugin, value in values:
            for item in flatten_contributions(value):
                if isinstance(item, Diagnostic):
                    diags.append(item)
                elif isinstance(item, Resource) and item.kind == kind.name:
                    resources.append(item)
                else:
                    diags.append(
                        Diagnostic(level="error", code="bad-contribution", plugin=plugin,
                                   hook=kind.hook,
                                   message=f"plugin {plugin!r} returned {type(item).__name__} "
                                   f"for kind {kind.name!r}")
                    )
        return resources, diags

    def builtin_styles(self) -> tuple[list[Any], list[Diagnostic]]:
        """Every plugin's built-in output styles (first contribution of an id wins)."""
        from wskit.resources.style import Style

        styles, diags = self._flat("wskit_builtin_styles", Style)
        seen: dict[str, Any] = {}
        for st in styles:
            if st.id in seen:
                diags.append(Diagnostic(level="warning", code="duplicate-id",
                                        message=f"built-in style {st.id!r} contributed twice; the first is used"))
                continue
            seen[st.id] = st
        return list(seen.values()), diags

    def session_created(self, session: "SessionResources") -> list[Diagnostic]:
        """Notify plugins of a new session; returns diagnostics of failing listeners."""
        return self.call("wskit_session_created", session=session).diagnostics

    def register_commands(self, cli: "click.Group") -> list[Diagnostic]:
        """Let plugins add ``wsctl`` sub-commands."""
        return self.call("wskit_register_commands", cli=cli).diagnostics

    def workspace_catalogs(self, workspace: Any) -> tuple[dict[str, Any], list[Diagnostic]]:
        """Every plugin's catalogs for ``workspace``: ``({name: catalog}, diagnostics)``;
        the first plugin to name a catalog keeps it (``duplicate-catalog`` warning otherwise)."""
        res = self.call("wskit_workspace_catalogs", workspace=workspace)
        out: dict[str, Any] = {}
        diags = list(res.diagnostics)
        for plugin, value in res.values:
            if not isinstance(value, dict):
                diags.append(Diagnostic(level="error", code="bad-contribution", plugin=plugin,
                                        hook="wskit_workspace_catalogs",
                                        message=f"plugin {plugin!r} returned {type(value).__name__}, expected a dict"))
                continue
            for name, catalog in value.items():
                if name in out:
                    diags.append(Diagnostic(level="warning", code="duplicate-catalog", plugin=plugin,
                                            message=f"catalog {name!r} is built twice; the first one is used"))
                    continue
                out[name] = catalog
                diags.extend(getattr(catalog, "diagnostics", ()) or ())
        return out, diags


def flatten_contributions(value: Any) -> Iterable[Any]:
    """The items of one plugin's hook result, flattened: a
    :class:`~wskit.models.LoadResult` gives its resources then its diagnostics, a
    list or tuple each of its items (recursively), anything else itself (the caller
    reports what is neither a resource nor a diagnostic as ``bad-contribution``)."""
    if isinstance(value, LoadResult):
        yield from value.resources
        yield from value.diagnostics
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from flatten_contributions(v)
    elif isinstance(value, (Resource, Diagnostic)):
        yield value
    else:
        yield value  # reported as bad-contribution by the caller


@functools.cache
def builtin_kinds() -> tuple[ResourceKind, ...]:
    """The kinds wskit's built-in plugins register (no entry points, no
    environment switches), for callers that parse a manifest without a
    workspace at hand.

    Built once per process from a plugin manager of the built-ins alone
    (:func:`wskit.plugin.manager.make_plugin_manager`); kinds of third-party
    plugins are not among them, so code that has a workspace or a plugin
    manager passes its own kinds instead.
    """
    from wskit.plugin.manager import make_plugin_manager

    kinds, _ = WskitHooks(make_plugin_manager(load_entrypoints=False, env={})).resource_kinds()
    return tuple(kinds)
