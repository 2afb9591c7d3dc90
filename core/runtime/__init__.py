"""The session runtime (issue 6): hook runner, URL policy, loop self-check,
model resources, resume, and the service registry MCP/LSP plugins plug into.

Names are loaded lazily (PEP 562), so importing a sub-module such as
:mod:`wskit.runtime.commands` (done for every ``wsctl`` run) does not pull in
the runner, asyncio or the session machinery.
"""

from __future__ import annotations

_LAZY = {
    "HookRunner": "hooks", "HookRunnerConfig": "hooks", "HookTrust": "hooks", "ScopeHookTrust": "hooks",
    "HttpHookSecurityError": "http", "UrlPolicy": "http",
    "CredentialStore": "models", "ModelCatalog": "models", "ModelResources": "models", "models_for": "models",
    "resolve_model_resources": "models",
    "RepetitionMonitor": "monitor", "SelfCheckNotice": "monitor",
    "HookOutcome": "outcome", "HookResult": "outcome",
    "ProvenanceMismatchError": "resume", "Restored": "resume", "restore": "resume",
    "RuntimeOptions": "session", "SessionRuntime": "session", "UnknownServiceError": "session", "attach": "session",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'wskit.runtime' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
