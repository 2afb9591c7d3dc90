"""wskit: the workspace-resource machinery of a coding-agent host.

Importing :mod:`wskit` is deliberately cheap (it imports nothing but the standard
library); the public API is loaded lazily on first attribute access, so that
``wsctl --version`` costs no more than importing click.

Ten-line tour::

    from wskit import HostProfile, WorkspaceCache, snapshot

    cache = WorkspaceCache(profile=HostProfile(name="blade", home=my_home))
    with cache.using("/path/to/project") as ws:      # pinned while held
        session = snapshot(ws)                         # immutable, O(kinds)
    skill = session.registry("skill").get("pdf")      # bare, qualified or plugin:<p>:<x>
    state = session.state()                            # JSON-able refs and digests

Plugins implement hooks from :mod:`wskit.plugin.spec` with ``@wskit.hookimpl``
and are published under the entry-point group ``wskit``.
"""

from __future__ import annotations

__version__ = "0.1.0"

_LAZY = {
    "hookimpl": "wskit.plugin",
    "hookspec": "wskit.plugin",
    "make_plugin_manager": "wskit.plugin.manager",
    "WskitHooks": "wskit.plugin.facade",
    "HostProfile": "wskit.host",
    "Binding": "wskit.binding",
    "Provenance": "wskit.models",
    "Resource": "wskit.models",
    "Diagnostic": "wskit.models",
    "LoadResult": "wskit.models",
    "ResourceSource": "wskit.models",
    "Scope": "wskit.models",
    "ToolKind": "wskit.models",
    "sha256_hex": "wskit.models",
    "Registry": "wskit.registry",
    "TrustStore": "wskit.trust",
    "TrustDecision": "wskit.trust",
    "WorkspaceResources": "wskit.workspace",
    "load_workspace": "wskit.workspace",
    "export": "wskit.plugin.export",
    "WorkspaceCache": "wskit.cache",
    "SessionResources": "wskit.session",
    "SessionState": "wskit.session",
    "snapshot": "wskit.session",
    "Skill": "wskit.resources.skill",
    # for plugin authors: kinds, session components, wsctl sub-commands
    "ResourceKind": "wskit.kinds",
    "SessionComponent": "wskit.session.components",
    "add_lazy_command": "wskit.cli.lazy",
    "ensure_group": "wskit.cli.lazy",
    "WsctlContext": "wskit.cli.context",
    "json_option": "wskit.cli.context",
    # for integrators: the live side of a session
    "RuntimeOptions": "wskit.session.runtime",
    "attach": "wskit.session.runtime",
    "restore": "wskit.session.resume",
}

__all__ = ["__version__", *sorted(_LAZY)]


def __getattr__(name: str):  # PEP 562 lazy attributes
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'wskit' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
