"""The session runtime (issue 6): hook runner, URL policy, loop self-check,
model resources, resume, and the service registry MCP/LSP plugins plug into."""

from .hooks import HookRunner, HookRunnerConfig, HookTrust, ScopeHookTrust
from .http import HttpHookSecurityError, UrlPolicy
from .models import CredentialStore, ModelCatalog, ModelResources, models_for, resolve_model_resources
from .monitor import RepetitionMonitor, SelfCheckNotice
from .outcome import HookOutcome, HookResult
from .resume import ProvenanceMismatchError, Restored, restore
from .session import RuntimeOptions, SessionRuntime, UnknownServiceError, attach

__all__ = [
    "CredentialStore", "ModelCatalog", "ModelResources", "ProvenanceMismatchError", "Restored", "models_for",
    "resolve_model_resources", "restore",
    "HookOutcome", "HookResult", "HookRunner", "HookRunnerConfig", "HookTrust", "HttpHookSecurityError",
    "RepetitionMonitor", "RuntimeOptions", "ScopeHookTrust", "SelfCheckNotice", "SessionRuntime",
    "UnknownServiceError", "UrlPolicy", "attach",
]
