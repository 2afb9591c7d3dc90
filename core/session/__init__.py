"""Session snapshots: what one running session sees, frozen (reference/blade.md §1.6).

:func:`snapshot` copies the *mapping* of kind -> registry of a
:class:`~wskit.workspace.WorkspaceResources`; registries and resources are
immutable and shared, so a snapshot costs O(number of kinds) and later
refreshes, plugin changes, trust revocations or file edits do not change it.
(Skill bodies are read at use time: a snapshot freezes metadata, not bodies.)

:class:`SessionState` is the serialisable part: references and digests,
never bodies, with a JSON round trip.
"""

from __future__ import annotations

import _weakref  # weakref.ref itself, without importing weakref (and _weakrefset) at start-up
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from wskit.binding import Binding
from wskit.models import Resource
from wskit.registry import Registry
from wskit.trust import TrustDecision
from wskit.values import FrozenValue, field

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable

    from wskit.builtin_plugins.hooks.runner import HookRunner
    from wskit.builtin_plugins.permissions import PermissionDecision, SessionPermissions
    from wskit.builtin_plugins.rules.session import Proceed, RulesRequired, SessionRules
    from wskit.builtin_plugins.skills.workflows import SkillWorkflows
    from wskit.host import HostProfile
    from wskit.models import ToolKind
    from wskit.plugin.facade import WskitHooks
    from wskit.resources.command import Expansion
    from wskit.session.gate import AfterTool, Remember, ToolDecision, ToolGate, UserAnswer
    from wskit.session.runtime import SessionRuntime
    from wskit.session.state import ResourceRef, SessionState, WorkspaceRef

__all__ = [  # noqa: F822 -- the state models are imported when first named (__getattr__)
    "ResourceRef", "SessionResources", "SessionState", "snapshot", "STATE_FORMAT", "STATE_MAX_DEPTH",
    "WorkspaceRef"
]


#: Format version written by this wskit; newer ones are refused.
STATE_FORMAT = 1
#: Deepest JSON nesting accepted in a session state (extensions included).
STATE_MAX_DEPTH = 128

#: The serialisable state models, in :mod:`wskit.session.state` (pydantic is imported when
#: one is first named: a process that only runs hooks or checks a permission never needs it).
_STATE_MODELS = frozenset({"ResourceRef", "SessionState", "WorkspaceRef"})


def __getattr__(name: str) -> Any:  # PEP 562
    if name in _STATE_MODELS:
        from wskit.session import state

        value = getattr(state, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _STATE_MODELS)


def _new_session_id() -> str:
    """``uuid.uuid4().hex`` without importing :mod:`uuid` (which imports :mod:`platform`):
    16 random bytes with the version (4) and variant (RFC 4122) bits set as ``uuid4`` sets them."""
    b = bytearray(os.urandom(16))
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    return b.hex()


def _now() -> str:
    import datetime as _dt

    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


class SessionResources(FrozenValue, eq=False):
    """The immutable resources of one session.

    :ivar session_id: random id. :ivar parent_id: the parent's id for a child.
    :ivar binding: source project, execution root and cwd of this session.
    :ivar host: host name. :ivar trust: the trust decision seen at snapshot time.
    :ivar registries: kind -> :class:`~wskit.registry.Registry` (read-only mapping).
    :ivar generation: the workspace load it came from.
    """

    __slots__ = ("__weakref__",)  # session.hooks keeps a weak reference to its session

    binding: Binding
    host: str
    trust: TrustDecision
    registries: MappingProxyType
    generation: int
    session_id: str = field(default_factory=_new_session_id)
    parent_id: str | None = None
    created_at: str = field(default_factory=_now)
    #: the plugin-hook facade (:class:`~wskit.plugin.facade.WskitHooks`) the session was made
    #: with, or None; hook definitions run through :attr:`hook_runner`, not here
    hooks: Any = None
    #: the workspace's :class:`~wskit.host.HostProfile` (home and settings), for runtime services
    profile: "HostProfile | None" = field(default=None, repr=False)
    catalogs: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    #: per-session capability state objects (e.g. "rules" -> SessionRules); each may
    #: offer to_extension() for state(). Mutable by design: the resources are not.
    components: dict = field(default_factory=dict, repr=False)
    _runtime: Any = field(default=None, repr=False)
    #: weak reference to the parent session of a child (:meth:`child`)
    _parent: Any = field(default=None, repr=False)

    @property
    def runtime(self) -> "SessionRuntime":
        """The live :class:`~wskit.session.runtime.SessionRuntime` (hook runner, services),
        made with default options on first use unless :func:`wskit.session.runtime.attach` gave one."""
        from wskit.session.runtime import runtime_of

        return runtime_of(self)

    @property
    def plugin_hooks(self) -> "WskitHooks":
        """The plugin-hook facade (:class:`~wskit.plugin.facade.WskitHooks`) the session was
        made with: ``session.plugin_hooks.call(...)``, ``.expand_command(...)``."""
        return self.hooks

    @property
    def hook_runner(self) -> "HookRunner":
        """The session's hook runner (:class:`~wskit.builtin_plugins.hooks.runner.HookRunner`,
        ``session.runtime.hooks``): ``session.hook_runner.run(event, payload)``, or
        ``await session.hook_runner.arun(event, payload)`` on an event loop.

        ``session.hooks`` is the plugin-hook facade only (:attr:`plugin_hooks`); hook
        definitions run here.

        :raises UnknownServiceError: the ``hooks`` built-in is blocked."""
        return self.runtime.hooks

    @property
    def mcp(self) -> Any:
        """The MCP service (plugin ``wskit-mcp``): ``session.mcp.connect(server_id)``."""
        return self.runtime.service("mcp")

    @property
    def lsp(self) -> Any:
        """The LSP service (plugin ``wskit-lsp``): ``session.lsp.did_open(path)``."""
        return self.runtime.service("lsp")

    @property
    def parent(self) -> "SessionResources | None":
        """The session this one is a :meth:`child` of, while it exists; None for a
        top-level session (or one restored from a state: only ``parent_id`` is kept).
        Runtime services use it to share what the parent runs (wskit-lsp shares its
        language servers)."""
        ref = self._parent
        return ref() if ref is not None else None

    def close(self) -> list[str]:
        """Close the session's runtime: every MCP/LSP server it started is stopped.
        Idempotent. :returns: errors of services that failed to close (they are still released)."""
        rt = self._runtime
        return rt.close() if rt is not None else []

    def registry(self, kind: str) -> Registry:
        """The registry of ``kind`` (empty for an unknown kind)."""
        return self.registries.get(kind) or Registry.empty(kind)

    def component(self, name: str) -> Any:
        """The per-session component ``name`` a plugin registered through
        ``wskit_session_components`` (``rules``: the rule barrier and delivery state),
        made on first use and kept in :attr:`components`.

        :raises UnknownComponentError: no plugin provides it (its plugin is blocked or
            not installed).
        """
        obj = self.components.get(name)
        if obj is not None:
            return obj
        from wskit.session.components import UnknownComponentError, blocked_hint, component_specs

        spec = component_specs(self.hooks).get(name)
        if spec is None:
            raise UnknownComponentError(f"no plugin provides the session component {name!r}"
                                        + blocked_hint(self.hooks))
        return self.components.setdefault(name, spec.create(self))

    @property
    def rules(self) -> "SessionRules":
        """``component("rules")``: this session's
        :class:`~wskit.builtin_plugins.rules.session.SessionRules` (over the frozen rule
        catalog; its delivered-rule state lives in :attr:`components`). Kept as a short
        spelling of :meth:`component`.

        :raises UnknownComponentError: the ``rules`` built-in is blocked."""
        return self.component("rules")  # type: ignore[no-any-return]

    @property
    def permissions(self) -> "SessionPermissions":
        """``component("permissions")``: this session's permission rules
        (:class:`~wskit.builtin_plugins.permissions.SessionPermissions`: ``policy``,
        ``check``, ``allow_for_session``).

        :raises UnknownComponentError: the ``permissions`` built-in is blocked."""
        return self.component("permissions")  # type: ignore[no-any-return]

    @property
    def skill_workflows(self) -> "SkillWorkflows":
        """``component("skill_workflows")``: the session's active skills
        (``activate(name)``, ``end_skill(slug)``, ``check(tool)``).

        :raises UnknownComponentError: the ``skills`` built-in is blocked."""
        return self.component("skill_workflows")  # type: ignore[no-any-return]

    def expand_command(self, name: str, args: "list[str] | None" = None) -> "Expansion":
        """The command ``name`` (bare, qualified or ``plugin:<p>:<x>``) expanded with ``args``
        in the execution root: ``plugin_hooks.expand_command(get("command", name), …)``.
        Shell embeds (``!`cmd` ``) are never run.

        :raises UnknownResourceError: no such command (as :meth:`get`).
        :raises LookupError: no plugin expands its format."""
        command = self.get("command", name)
        return self.plugin_hooks.expand_command(command, list(args or []),  # type: ignore[no-any-return]
                                                str(self.binding.execution_root))

    def check_invocation(self, tool_name: str, tool_kind: "ToolKind | str",
                         paths: "Iterable[str | os.PathLike[str]]" = ()) -> "Proceed | RulesRequired":
        """``Proceed`` or ``RulesRequired`` for a tool call (see :meth:`SessionRules.check_invocation`).

        :param tool_kind: a :class:`~wskit.models.ToolKind` or its string value.
        :raises ValueError: an unknown ``tool_kind`` (checked here, before any
            component sees it: a replacement rules component cannot be handed a typo).
        :raises UnknownComponentError: the ``rules`` built-in is blocked."""
        from wskit.models import ToolKind

        return self.component("rules").check_invocation(tool_name, ToolKind.coerce(tool_kind), paths)

    def check_permission(self, tool: str, tool_input: Any = None, *, hook: Any = None) -> "PermissionDecision":
        """Claude Code's permission rules for a tool call: a
        :class:`~wskit.builtin_plugins.permissions.PermissionDecision` (``decision`` ``allow``,
        ``ask`` or ``deny``, and the rule, hook or mode that decided), combined with the
        ``PreToolUse`` outcome ``hook`` when given (docs/permissions.md).

        :param tool_input: the tool's arguments as the model sent them (a mapping), None,
            or for ``Bash``/``PowerShell`` the command string.
        :raises TypeError: another shape (the message names the accepted ones).
        :raises UnknownComponentError: the ``permissions`` built-in is blocked."""
        return self.component("permissions").check(tool, tool_input, hook=hook)

    @property
    def gate(self) -> "ToolGate":
        """The tool-call gate (:class:`~wskit.session.gate.ToolGate`) of this session's
        runtime: its tool table and ``unapproved`` policy come from
        :class:`~wskit.session.runtime.RuntimeOptions` (``attach(session, RuntimeOptions(tools=...))``)."""
        return self.runtime.gate

    def before_tool(self, tool: str, tool_input: Mapping[str, Any] | None = None, *,
                    tool_use_id: str | None = None,
                    ask: "Callable[[ToolDecision], bool | UserAnswer] | None" = None) -> "ToolDecision":
        """One decision for a tool call: ``PreToolUse`` hooks, permission rules, skill
        workflows and the rules barrier, in Claude Code's order
        (:meth:`ToolGate.before_tool <wskit.session.gate.ToolGate.before_tool>`)."""
        return self.runtime.gate.before_tool(tool, tool_input, tool_use_id=tool_use_id, ask=ask)

    async def abefore_tool(self, tool: str, tool_input: Mapping[str, Any] | None = None, *,
                           tool_use_id: str | None = None,
                           ask: "Callable[[ToolDecision], bool | UserAnswer] | None" = None) -> "ToolDecision":
        """:meth:`before_tool` without blocking the event loop (hooks run in a worker thread)."""
        return await self.runtime.gate.abefore_tool(tool, tool_input, tool_use_id=tool_use_id, ask=ask)

    def answer(self, decision: "ToolDecision", answer: "bool | UserAnswer", *, remember: "Remember | None" = None,
               rule: str | None = None) -> "ToolDecision":
        """The user's answer to an ``ask`` decision, kept for the call, the session or as a
        settings rule (:meth:`ToolGate.answer <wskit.session.gate.ToolGate.answer>`)."""
        return self.runtime.gate.answer(decision, answer, remember=remember, rule=rule)

    def after_tool(self, tool: str, tool_input: Mapping[str, Any] | None, result: Any, *,
                   tool_use_id: str | None = None, decision: "ToolDecision | None" = None,
                   turn: int | None = None) -> "AfterTool":
        """After the host ran a call: ``PostToolUse`` hooks and the repetition monitor
        (:meth:`ToolGate.after_tool <wskit.session.gate.ToolGate.after_tool>`)."""
        return self.runtime.gate.after_tool(tool, tool_input, result, tool_use_id=tool_use_id, decision=decision,
                                            turn=turn)

    async def aafter_tool(self, tool: str, tool_input: Mapping[str, Any] | None, result: Any, *,
                          tool_use_id: str | None = None, decision: "ToolDecision | None" = None,
                          turn: int | None = None) -> "AfterTool":
        """:meth:`after_tool` without blocking the event loop."""
        return await self.runtime.gate.aafter_tool(tool, tool_input, result, tool_use_id=tool_use_id,
                                                   decision=decision, turn=turn)

    def mark_delivered(self, refs: Any) -> None:
        """Record rules as delivered to the model (see :meth:`SessionRules.mark_delivered`).

        :raises UnknownComponentError: the ``rules`` built-in is blocked."""
        self.component("rules").mark_delivered(refs)

    def get(self, kind: str, name: str) -> Resource:
        """Resolve ``name`` in ``kind``'s registry (see :meth:`Registry.get`)."""
        return self.registry(kind).get(name)

    def resources(self) -> list[Resource]:
        """All active resources, by kind then id."""
        out: list[Resource] = []
        for kind in sorted(self.registries):
            out.extend(self.registries[kind].active())
        return out

    def child(self) -> "SessionResources":
        """A session for a subagent: same resources, new id, ``parent_id`` set."""
        kid = SessionResources(
            binding=self.binding, host=self.host, trust=self.trust,
            registries=MappingProxyType(dict(self.registries)), generation=self.generation,
            parent_id=self.session_id, hooks=self.hooks, catalogs=self.catalogs, profile=self.profile,
            _parent=_weakref.ref(self),
        )
        if self.hooks is not None:
            self.hooks.session_created(kid)
        return kid

    def state(self, extensions: dict[str, Any] | None = None) -> SessionState:
        """The serialisable :class:`SessionState` of this session: the one call a host makes
        to persist it. It holds the record of every session component made so far or pinned
        (``extensions["rules"]``: static provenance digest and delivered rule refs, whenever a
        rule catalog is present; ``skill_workflows``: activated skills) and, once the session
        has a runtime, the runtime's records (``repetition_monitor``, ``hook_trust`` and the
        host's ``runtime.extensions``). ``session.runtime.state()`` is the same state.

        :param extensions: more records, by key (they win over the runtime's).
        :raises SessionStateError: a runtime record is malformed (checked before it is written).
        """
        from wskit.session.components import component_specs
        from wskit.session.state import ResourceRef, SessionState, WorkspaceRef

        rt = self._runtime
        if rt is not None:
            extensions = {**rt.records(), **(extensions or {})}

        for name, spec in component_specs(self.hooks).items():
            if name not in self.components and spec.pinned is not None and spec.pinned(self):
                self.component(name)
        b = self.binding
        return SessionState(
            session_id=self.session_id,
            parent_id=self.parent_id,
            created_at=self.created_at,
            workspace=WorkspaceRef(source_root=str(b.source_root), execution_root=str(b.execution_root),
                                   cwd=str(b.cwd), host=self.host),
            trust=self.trust.state,
            resources=tuple(ResourceRef(**{k: v for k, v in r.ref().items()}) for r in self.resources()),
            extensions=_with_component_extensions(self.components, extensions),
        )


def snapshot(workspace, binding: Binding | None = None) -> SessionResources:
    """Freeze ``workspace`` (a :class:`~wskit.workspace.WorkspaceResources`, or an
    existing :class:`SessionResources` to re-snapshot) into a new session.

    :param binding: the session's own binding (e.g. a worktree execution root);
        must have the same ``source_root``. Default: the workspace's.
    :raises ValueError: when ``binding`` belongs to another source project.
    :returns: a :class:`SessionResources`; ``wskit_session_created`` fires.
    """
    if isinstance(workspace, SessionResources):
        base_binding, host, trust, gen = workspace.binding, workspace.host, workspace.trust, workspace.generation
    else:
        base_binding, host, trust, gen = (
            workspace.binding, workspace.profile.name, workspace.trust, workspace.generation,
        )
    if binding is not None and Path(binding.source_root) != Path(base_binding.source_root):
        raise ValueError(
            f"binding source project {binding.source_root} differs from the workspace's {base_binding.source_root}"
        )
    session = SessionResources(
        binding=binding or base_binding,
        host=host,
        trust=trust,
        registries=MappingProxyType(dict(workspace.registries)),
        generation=gen,
        hooks=workspace.hooks,
        profile=getattr(workspace, "profile", None),
        catalogs=MappingProxyType(dict(getattr(workspace, "catalogs", None) or {})),
    )
    if workspace.hooks is not None:
        workspace.hooks.session_created(session)
    return session


def _with_component_extensions(components: dict, extensions: dict[str, Any] | None) -> dict[str, Any]:
    """``extensions`` plus ``to_extension()`` of each per-session component (caller's keys win)."""
    out = dict(extensions or {})
    for name, obj in components.items():
        if name not in out and hasattr(obj, "to_extension"):
            out[name] = obj.to_extension()
    return out
