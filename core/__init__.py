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

#: ``typing.TYPE_CHECKING`` without importing :mod:`typing` (type checkers read it as True)
TYPE_CHECKING = False

__version__ = "0.1.0"

if TYPE_CHECKING:  # what type checkers see: the same names, imported (never at run time)
    from typing import Any

    from wskit.binding import Binding
    from wskit.cache import WorkspaceCache
    from wskit.cli.context import WsctlContext, json_option
    from wskit.cli.lazy import add_lazy_command, ensure_group
    from wskit.host import HostProfile
    from wskit.kinds import ResourceKind
    from wskit.models import Diagnostic, LoadResult, Provenance, Resource, ResourceSource, Scope, ToolKind, sha256_hex
    from wskit.plugin import hookimpl, hookspec
    from wskit.plugin.export import export
    from wskit.plugin.facade import WskitHooks
    from wskit.plugin.manager import make_plugin_manager
    from wskit.registry import Registry
    from wskit.resources.skill import Skill
    from wskit.session import SessionResources, SessionState, snapshot
    from wskit.session.components import SessionComponent
    from wskit.session.gate import CLAUDE_TOOLS, AfterTool, SkippedGuard, ToolDecision, ToolGate, ToolSpec, UserAnswer
    from wskit.session.prompt import (
        Budget,
        PromptPart,
        contextual_rules,
        output_style,
        skills_catalog,
        static_rules,
        system_prompt,
    )
    from wskit.session.resume import restore
    from wskit.session.runtime import RuntimeOptions, attach
    from wskit.trust import TrustDecision, TrustStore
    from wskit.workspace import WorkspaceResources, load_workspace

#: public name -> the module it is imported from on first use
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
    # the tool-call gate
    "ToolGate": "wskit.session.gate",
    "ToolSpec": "wskit.session.gate",
    "ToolDecision": "wskit.session.gate",
    "AfterTool": "wskit.session.gate",
    "SkippedGuard": "wskit.session.gate",
    "UserAnswer": "wskit.session.gate",
    "CLAUDE_TOOLS": "wskit.session.gate",
    # prompt assembly
    "Budget": "wskit.session.prompt",
    "PromptPart": "wskit.session.prompt",
    "system_prompt": "wskit.session.prompt",
    "skills_catalog": "wskit.session.prompt",
    "static_rules": "wskit.session.prompt",
    "output_style": "wskit.session.prompt",
    "contextual_rules": "wskit.session.prompt",
}

__all__ = [
    "__version__",
    "AfterTool",
    "Binding",
    "Budget",
    "CLAUDE_TOOLS",
    "Diagnostic",
    "HostProfile",
    "LoadResult",
    "PromptPart",
    "Provenance",
    "Registry",
    "Resource",
    "ResourceKind",
    "ResourceSource",
    "RuntimeOptions",
    "Scope",
    "SessionComponent",
    "SessionResources",
    "SessionState",
    "Skill",
    "SkippedGuard",
    "ToolDecision",
    "ToolGate",
    "ToolKind",
    "ToolSpec",
    "TrustDecision",
    "TrustStore",
    "UserAnswer",
    "WorkspaceCache",
    "WorkspaceResources",
    "WsctlContext",
    "WskitHooks",
    "add_lazy_command",
    "attach",
    "contextual_rules",
    "ensure_group",
    "export",
    "hookimpl",
    "hookspec",
    "json_option",
    "load_workspace",
    "make_plugin_manager",
    "output_style",
    "restore",
    "sha256_hex",
    "skills_catalog",
    "snapshot",
    "static_rules",
    "system_prompt",
]


def __getattr__(name: str) -> Any:  # PEP 562 lazy attributes
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'wskit' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
