"""SessionRuntime: the live side of a session — the hook runner, MCP and LSP
services, the loop self-check and model resources (design §3, "lazy runtimes").

A :class:`~wskit.session.SessionResources` stays immutable; its runtime is
attached with :func:`attach` (or made with defaults on first use of
``session.runtime``). Services come from plugins through the
``wskit_session_services`` hook: each returns ``[(name, factory)]`` and
``factory(runtime)`` is called the first time ``runtime.service(name)`` is asked
for. The ``hooks`` built-in provides ``hooks`` (the hook runner, also
``runtime.hooks``), wskit-mcp and wskit-lsp provide ``mcp`` and ``lsp``.
:meth:`SessionRuntime.close` closes every service that was started (in reverse
order) and is idempotent.
"""

from __future__ import annotations

import _thread
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from wskit.errors import WskitError
from wskit.session.monitor import RepetitionMonitor
from wskit.values import Value, field

if TYPE_CHECKING:  # pragma: no cover
    from wskit.builtin_plugins.hooks.runner import HookRunner, HookRunnerConfig
    from wskit.session import SessionResources
    from wskit.session.gate import ToolGate, ToolSpec, Unapproved
    from wskit.session.providers import CredentialStore, ModelResources

__all__ = ["RuntimeOptions", "SessionRuntime", "UnknownServiceError", "attach", "runtime_of"]


#: services that come with a first-party plugin of their name (wskit-mcp, wskit-lsp)
_PLUGIN_SERVICES = frozenset({"mcp", "lsp"})


class UnknownServiceError(WskitError, LookupError):
    """No plugin provides the session service asked for (e.g. ``mcp`` without wskit-mcp installed)."""


class RuntimeOptions(Value):
    """What the host passes to a session's runtime.

    :ivar hooks: a :class:`~wskit.builtin_plugins.hooks.runner.HookRunnerConfig` (env, URL policy,
        trust, callbacks); None: the hooks built-in's defaults.
    :ivar env: session variables also given to MCP/LSP server processes.
    :ivar credentials: the :class:`~wskit.session.providers.CredentialStore` shared by snapshots.
    :ivar models: resolved :class:`~wskit.session.providers.ModelResources`, if the host resolved them.
    :ivar services: extra ``name -> factory(runtime)`` (override plugin ones).
    :ivar tools: the host's tool table for the tool-call gate (:class:`~wskit.session.gate.ToolSpec`
        each); None: Claude Code's tool names (:data:`~wskit.session.gate.CLAUDE_TOOLS`).
    :ivar unapproved: what the gate does when a hook that applies did not run because it
        is not approved: ``report`` (listed in the decision's ``skipped``) or ``block``
        (passed to the hook runner, which blocks the call naming the guard); None: the
        hook runner's own (:attr:`HookRunnerConfig.unapproved
        <wskit.builtin_plugins.hooks.runner.HookRunnerConfig>`, ``report`` by default).
    """

    hooks: "HookRunnerConfig | None" = None
    env: Mapping[str, str] = field(default_factory=dict)
    credentials: "CredentialStore | None" = None
    models: "ModelResources | None" = None
    services: Mapping[str, Callable[["SessionRuntime"], Any]] = field(default_factory=dict)
    tools: "Iterable[ToolSpec] | None" = None
    unapproved: "Unapproved | None" = None


class SessionRuntime:
    """The live runtime of one session.

    :ivar session: the :class:`~wskit.session.SessionResources`.
    :ivar options: :class:`RuntimeOptions`.
    :ivar hooks: the :class:`~wskit.builtin_plugins.hooks.runner.HookRunner` (the ``hooks``
        service, started on first use).
    :ivar monitor: the session's :class:`~wskit.session.monitor.RepetitionMonitor`.
    """

    def __init__(self, session: "SessionResources", options: RuntimeOptions | None = None) -> None:
        self.session = session
        self.options = options or RuntimeOptions()
        self.monitor = RepetitionMonitor()
        self._services: dict[str, Any] = {}
        self._gate: ToolGate | None = None
        self._order: list[str] = []
        self._lock = _thread.RLock()  # threading.RLock, without importing threading at start-up
        self.closed = False
        #: Extension values the host records (``rules``, ``output_style``, ``workflows``,
        #: or its own keys); see :mod:`wskit.session.resume`.
        self.extensions: dict[str, Any] = {}
        self._models = self.options.models.snapshot() if self.options.models is not None else None
        self.trust = self._hook_trust()
        #: The hook trust digest seen at start (recorded in the state).
        self.hook_trust_digest: str | None = self.trust.digest() if hasattr(self.trust, "digest") else None

    def _hook_trust(self):
        """The host's trust (``RuntimeOptions.hooks.trust``), else the first ``wskit_hook_trust``
        answer (the ``hooks`` built-in answers last), else None (no plugin decides hook trust)."""
        given = getattr(self.options.hooks, "trust", None)
        if given is not None:
            return given
        facade = self.session.hooks
        if facade is not None and hasattr(facade.pm.hook, "wskit_hook_trust"):
            res = facade.call("wskit_hook_trust", firstresult=True, session=self.session)
            for _plugin, value in res.values:
                if value is not None:
                    return value
        return None

    def records(self) -> dict[str, Any]:
        """The runtime's records for a session state: the host's :attr:`extensions`,
        ``repetition_monitor`` and ``hook_trust``.

        :raises SessionStateError: a host record is malformed (checked before it is written).
        """
        from wskit.session.components import component_specs
        from wskit.session.extensions import verify_extensions

        ext = {**self.extensions, "repetition_monitor": self.monitor.state(),
               "hook_trust": {"digest": self.hook_trust_digest}}
        verify_extensions(ext, component_specs(self.session.hooks))
        return ext

    def state(self):
        """``session.state()``: the :class:`~wskit.session.SessionState` with the runtime's
        records (:meth:`records`).

        :raises SessionStateError: a host record is malformed (checked before it is written).
        """
        return self.session.state(extensions=self.records())

    @property
    def execution_root(self) -> str:
        """The folder tools, hooks and servers work in (never the source project of a worktree)."""
        return str(self.session.binding.execution_root)

    @property
    def hooks(self) -> "HookRunner":
        """The hook runner over the session's ``hook`` registry: ``service("hooks")``.

        :raises UnknownServiceError: the ``hooks`` built-in is blocked."""
        return self.service("hooks")

    @property
    def gate(self) -> "ToolGate":
        """The session's tool-call gate (:class:`~wskit.session.gate.ToolGate`), made on first
        use from :attr:`RuntimeOptions.tools` and :attr:`RuntimeOptions.unapproved`."""
        with self._lock:
            if self._gate is None:
                from wskit.session.gate import CLAUDE_TOOLS, ToolGate

                tools = self.options.tools if self.options.tools is not None else CLAUDE_TOOLS
                self._gate = ToolGate(self.session, tools, unapproved=self.options.unapproved)
            return self._gate

    @property
    def models(self) -> "ModelResources | None":
        """This session's private copy (:meth:`ModelResources.snapshot`: own config and
        catalog, shared credential store) of the model resources the host passed, or None;
        their ``disableAllHooks`` switches the hook runner off."""
        return self._models

    def _factories(self) -> dict[str, Callable[["SessionRuntime"], Any]]:
        found: dict[str, Callable] = {}
        facade = self.session.hooks
        if facade is not None and hasattr(facade.pm.hook, "wskit_session_services"):
            res = facade.call("wskit_session_services")
            for _plugin, value in res.values:
                for name, factory in value or ():
                    found.setdefault(name, factory)
        found.update(self.options.services)
        return found

    def service(self, name: str) -> Any:
        """The session service ``name`` (``mcp``, ``lsp``…), started on first use.

        :raises UnknownServiceError: no plugin provides it.
        :raises WskitError: the runtime is closed.
        """
        with self._lock:
            if self.closed:
                raise WskitError(f"session {self.session.session_id} is closed")
            if name not in self._services:
                factory = self._factories().get(name)
                if factory is None:
                    from wskit.session.components import blocked_hint

                    hint = blocked_hint(self.session.hooks) or (
                        f" (install wskit-{name}?)" if name in _PLUGIN_SERVICES else "")
                    raise UnknownServiceError(f"no plugin provides the session service {name!r}{hint}")
                self._services[name] = factory(self)
                self._order.append(name)
            return self._services[name]

    def started(self) -> list[str]:
        """Names of the services started so far."""
        return list(self._order)

    def close(self) -> list[str]:
        """Close every started service, last started first; idempotent.

        :returns: ``"<service>: <error>"`` for services whose ``close()`` raised
            (the others are still closed).
        """
        errors: list[str] = []
        with self._lock:
            if self.closed:
                return errors
            self.closed = True
            for name in reversed(self._order):
                try:
                    self._services[name].close()
                except Exception as err:  # keep closing the others
                    errors.append(f"{name}: {type(err).__name__}: {err}")
        return errors


_ATTACH_LOCK = _thread.allocate_lock()  # threading.Lock


def attach(session: "SessionResources", options: RuntimeOptions | None = None) -> SessionRuntime:
    """Give ``session`` a runtime built with ``options`` and return it.

    :raises WskitError: the session already has a runtime (attach before first use).
    """
    with _ATTACH_LOCK:
        if getattr(session, "_runtime", None) is not None:
            raise WskitError(f"session {session.session_id} already has a runtime")
        rt = SessionRuntime(session, options)
        object.__setattr__(session, "_runtime", rt)
        return rt


def runtime_of(session: "SessionResources") -> SessionRuntime:
    """The runtime of ``session``, made with default options on first use."""
    with _ATTACH_LOCK:
        rt = getattr(session, "_runtime", None)
        if rt is None:
            rt = SessionRuntime(session)
            object.__setattr__(session, "_runtime", rt)
        return rt
