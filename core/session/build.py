"""Build a session from explicit resources (no loaders, no trust store): for
hosts that bring their own definitions, and for tests of the runtime."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from types import MappingProxyType
from typing import Any

from wskit.binding import Binding
from wskit.models import Provenance, Resource, Scope
from wskit.plugin import hookimpl
from wskit.registry import Candidate, Registry
from wskit.session import SessionResources
from wskit.trust import TrustDecision

__all__ = ["DefinitionsPlugin", "provenance", "register_definitions", "session_from_resources"]

_RANK = {Scope.BUILTIN: 0, Scope.ADMIN: 1, Scope.USER: 2, Scope.PROJECT: 3, Scope.LOCAL: 4, Scope.PLUGIN: 5, Scope.CLI: 6}


def provenance(scope: str | Scope, root: str | Path, path: str, content: Any, plugin: str | None = None) -> Provenance:
    """A :class:`~wskit.models.Provenance` whose sha256 is that of ``content``'s canonical JSON."""
    data = json.dumps(content, sort_keys=True, default=str).encode()
    return Provenance(scope=Scope(scope), source_root=str(root), path=path, plugin=plugin,
                      sha256=hashlib.sha256(data).hexdigest())


def session_from_resources(binding: Binding, resources: Iterable[Resource], *, host: str = "wskit",
                           trusted: bool = True, hooks: Any = None) -> SessionResources:
    """A :class:`~wskit.session.SessionResources` holding ``resources`` (one registry
    per kind, precedence by scope rank).

    :param binding: source project, execution root and cwd.
    :param trusted: the trust decision recorded (``trusted`` or ``untrusted``).
    :param hooks: a :class:`~wskit.plugin.facade.WskitHooks` facade (services, session
        components and hook trust come from its plugins); default: wskit's built-in plugins
        alone (no entry points), so the hook runner and the rule barrier work as in a loaded
        workspace.
    """
    if hooks is None:
        from wskit.plugin.facade import WskitHooks
        from wskit.plugin.manager import make_plugin_manager

        hooks = WskitHooks(make_plugin_manager(load_entrypoints=False))
    by_kind: dict[str, list[Candidate]] = {}
    for i, r in enumerate(resources):
        by_kind.setdefault(r.kind, []).append(Candidate(r, _RANK[r.provenance.scope], i))
    regs = {k: Registry.build(k, c) for k, c in by_kind.items()}
    trust = TrustDecision(path=str(binding.source_root), state="trusted" if trusted else "untrusted")
    return SessionResources(binding=binding, host=host, trust=trust, registries=MappingProxyType(regs),
                            generation=0, hooks=hooks)


class DefinitionsPlugin:
    """A plugin that contributes fixed hook, MCP and LSP definitions to the
    user-scope source ``<home>/.<host>`` of every workspace — for hosts that
    configure servers in code, and for tests before (or beside) the loaders.

    It implements ``wskit_hook_definitions``, ``wskit_mcp_servers`` and
    ``wskit_lsp_servers``; with ``add_kinds=True`` it also contributes the
    ``hook``, ``mcp_server`` and ``lsp_server`` kinds that call them (use it
    only when no other plugin does, or a ``duplicate-kind`` diagnostic follows).
    """

    def __init__(self, resources: Iterable[Resource], *, add_kinds: bool = False, host_dir: str = ".wskit") -> None:
        self.resources = list(resources)
        self.add_kinds = add_kinds
        self.host_dir = host_dir

    def _for(self, source, kind: str):
        from wskit.models import LoadResult

        if source.scope is not Scope.USER or Path(source.root).name != self.host_dir:
            return None
        return LoadResult(resources=tuple(r for r in self.resources if r.kind == kind))

    def _impl(name):  # noqa: N805 — builds the hook implementations below
        def f(self, source):
            return self._for(source, name)
        return hookimpl(f)

    wskit_hook_definitions = _impl("hook")
    wskit_mcp_servers = _impl("mcp_server")
    wskit_lsp_servers = _impl("lsp_server")
    del _impl

    def kinds(self):
        from wskit.kinds import ResourceKind

        return [ResourceKind(name="hook", hook="wskit_hook_definitions"),
                ResourceKind(name="mcp_server", hook="wskit_mcp_servers"),
                ResourceKind(name="lsp_server", hook="wskit_lsp_servers")]


class _KindsPlugin:
    def __init__(self, kinds) -> None:
        self._kinds = kinds

    @hookimpl
    def wskit_resource_kinds(self):
        return self._kinds


def register_definitions(pm, resources: Iterable[Resource], *, host_dir: str = ".wskit") -> DefinitionsPlugin:
    """Register a :class:`DefinitionsPlugin` on ``pm``, adding the three kinds only
    when no registered plugin contributes them yet. Returns the plugin."""
    from wskit.plugin.facade import WskitHooks

    plugin = DefinitionsPlugin(resources, host_dir=host_dir)
    pm.register(plugin, name=f"definitions-{id(plugin)}")
    have, _ = WskitHooks(pm).resource_kinds()
    names = {k.name for k in have}
    missing = [k for k in plugin.kinds() if k.name not in names]
    if missing:
        kp = _KindsPlugin(missing)
        pm.register(kp, name=f"definition-kinds-{id(plugin)}")
    return plugin
