"""Which modules of wskit are its public API: what integrators and plugin authors import,
what keeps its names across releases, and all that first-party plugins under ``plugins/``
may import (``tests/test_layers.py`` enforces it; docs/architecture.md lists them).

A module is public when it is named in :data:`PUBLIC_MODULES`, or lies under a package
named in :data:`PUBLIC_PACKAGES`. A built-in capability is public through its package
(``wskit.builtin_plugins.<capability>``, the names in its ``__all__``), never through its
submodules. Every other module is internal: it may change or move in any release.
"""

from __future__ import annotations

#: Public modules, each by its full name.
PUBLIC_MODULES = frozenset({
    "wskit",                        # the lazily imported, typed top-level API
    "wskit.binding", "wskit.host", "wskit.models", "wskit.errors", "wskit.trust", "wskit.registry",
    "wskit.workspace", "wskit.cache",
    "wskit.session", "wskit.session.gate", "wskit.session.runtime", "wskit.session.components",
    "wskit.session.resume", "wskit.session.monitor", "wskit.session.prompt",
    "wskit.session.providers", "wskit.session.build",
    "wskit.plugin", "wskit.plugin.spec", "wskit.plugin.manager", "wskit.plugin.facade",
    "wskit.kinds", "wskit.kit", "wskit.kit.markdown",
    "wskit.fs", "wskit.fs.atomic", "wskit.fs.store", "wskit.fs.walk", "wskit.fs.jsonfile",
    "wskit.cli.lazy", "wskit.cli.context", "wskit.cli.signals",
    "wskit.testing",
    "wskit.approval", "wskit.approval.store",  # the per-user approval store hosts pass to the runtime
    "wskit.util.lazyre",            # module-level patterns compiled on first use (start-up cost)
    "wskit.util.deferred",          # hooks that import their engine only when a source needs it
    "wskit.util.bytecode",          # the private PYTHONPYCACHEPREFIX of hooks and servers wskit starts
    "wskit.values",                 # Value, FrozenValue, field: the idiom for internal value types
})

#: Packages public with every module under them.
PUBLIC_PACKAGES = ("wskit.resources", "wskit.formats", "wskit.integrations")

_BUILTIN = "wskit.builtin_plugins"


def is_public(module: str) -> bool:
    """Whether ``module`` (a full dotted name) is public API (see the module docstring)."""
    if module in PUBLIC_MODULES:
        return True
    if any(module == p or module.startswith(p + ".") for p in PUBLIC_PACKAGES):
        return True
    parts = module.split(".")
    return module.startswith(_BUILTIN + ".") and len(parts) == 3  # a capability's package
