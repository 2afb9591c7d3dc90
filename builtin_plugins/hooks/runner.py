"""The hook runner: ``session.runtime.hooks.run(event, payload) -> HookOutcome``
(reference/blade.md §11.3–11.5; Claude Code's hook protocol, reference/conventions.md §1.7).

- Hooks come from the session's ``hook`` registry (:class:`~wskit.resources.hooks.HookDefinition`)
  plus in-process function hooks registered with :meth:`HookRunner.register_function`.
- Events: an event name outside :data:`~wskit.resources.hooks.HOOK_EVENTS` raises
  :class:`UnknownHookEventError` (a typo must not answer "not blocked").
- Trust first: every non-function hook of the event asks a :class:`HookTrust`
  before anything of it is evaluated; anything but ``approved``/``trusted``/``not_required``
  skips it (``HookOutcome.skipped``, and the warning ``hook <id> skipped: <why>``)
  without its matcher or ``if`` being looked at. A hook that may run but cannot (a
  ``prompt`` hook without a prompt handler, a ``function`` hook nobody registered) is
  in ``skipped`` too. With ``unapproved="block"`` a ``PreToolUse`` or
  ``PermissionRequest`` with a skipped guard that matches or may match the tool is
  blocked (:class:`HookRunnerConfig`).
- Selection: event, trust, matcher (:func:`~wskit.builtin_plugins.hooks.patterns.matcher_matches`,
  the grammar the loader and ``wsctl hooks list`` use), then the handler's ``if``
  (:mod:`wskit.builtin_plugins.hooks.conditions`), all on the bounded linear-time engine;
  a refused pattern runs the hook restrict-only. Duplicates are dropped among the
  hooks that may run. No definition can raise out of :meth:`HookRunner.run`.
- Ordering: ``PreToolUse`` and ``PermissionRequest`` run serially, merge
  ``updatedInput`` into the input the next hook sees, and stop at the first block
  (the hooks after it are reported ``skipped``); permission decisions combine as
  deny > defer > ask > allow (Claude Code). Every other event runs concurrently,
  at most ``max_concurrent`` at a time. Each (tool call, event) runs at most once: a second call with the
  same ``tool_use_id`` returns the recorded outcome with ``repeated=True``.
- On an event loop, :meth:`HookRunner.arun` does the same with ``asyncio`` subprocesses
  and an async HTTP client (selection, merging and results shared with :meth:`HookRunner.run`);
  cancelling it kills the process groups of the hooks still running.
"""

from __future__ import annotations

import _thread
import json
import math
import os
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol

from wskit.builtin_plugins.hooks import DEFAULT_OUTPUT_CAP, MAX_TIMEOUT
from wskit.builtin_plugins.hooks.http import (
    HttpHookError,
    HttpHookSecurityError,
    HttpResult,
    UrlPolicy,
    allowed_env_vars,
    apost_json,
    expand_headers,
    post_json,
)
from wskit.builtin_plugins.hooks.outcome import (
    HookOutcome,
    HookResult,
    SkippedHook,
    apply_output,
    merge,
    parse_json_object,
)
from wskit.errors import WskitError
from wskit.models import Scope
from wskit.resources.hooks import HOOK_EVENTS, HookDefinition
from wskit.values import Value, field

if TYPE_CHECKING:
    from wskit.builtin_plugins.hooks.command import CommandResult
    from wskit.util.bytecode import PrivateBytecode

#: Default command timeout, seconds (Claude Code and Blade).
DEFAULT_TIMEOUT = 60.0
#: Events that run serially and stop at the first block.
SERIAL_EVENTS = frozenset({"PreToolUse", "PermissionRequest"})
#: Events where plain (non-JSON) stdout of a command hook that exits 0 becomes added context (Claude Code).
PLAIN_CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "UserPromptExpansion"})
#: Values of ``timeout_behavior`` / ``failure_behavior``.
BEHAVIORS = frozenset({"ignore", "deny", "ask"})
#: Trust states under which a hook runs.
RUNNABLE = frozenset({"approved", "trusted", "not_required"})
#: Values of ``unapproved`` (:class:`HookRunnerConfig`, :meth:`HookRunner.run`).
UNAPPROVED_POLICIES = ("report", "block")


class UnknownHookEventError(WskitError, ValueError):
    """An event name that is not a hook event (:data:`~wskit.resources.hooks.HOOK_EVENTS`);
    the message lists the valid ones."""

    def __init__(self, event: object) -> None:
        super().__init__(f"unknown hook event {event!r}; valid events: {', '.join(sorted(HOOK_EVENTS))}")
        self.event = event

PromptHandler = Callable[[HookDefinition, dict[str, Any]], "dict[str, Any] | None"]
FunctionHook = Callable[[dict[str, Any]], "dict[str, Any] | None"]


class HookTrust(Protocol):
    """Where the runner asks whether a hook may run (the built-in one is the digest
    approval of :mod:`wskit.builtin_plugins.hooks.trust`).

    ``state(hook)`` returns ``approved`` or ``trusted`` (runs), ``not_required``
    (runs), or why it does not: ``awaiting``, ``untrusted``, ``modified``, ``denied``,
    ``untrusted-project``, ``disabled`` or ``error``; ``digest()`` the digest of the hook
    configuration the state refers to (recorded in the session state), or None. An
    optional ``reason(hook)`` says why in words (the skip message). An optional
    ``pin(hook)`` returns, for a command hook about to start, an object whose ``before()``
    says why it must not start (its covered files differ from the approved ones) and whose
    ``after()``, once it ended, says what changed while it ran (its answer is then not
    taken), each None when nothing did (:class:`~wskit.builtin_plugins.hooks.trust.RunPin`).
    """

    def state(self, hook: HookDefinition) -> str: ...

    def digest(self) -> str | None: ...


class ScopeHookTrust:
    """The default :class:`HookTrust` without a digest store: hooks from user,
    admin, builtin and cli scopes need no trust (``not_required``); project,
    local and plugin hooks are ``untrusted`` unless ``approved`` holds their id
    (or is True). ``digest()`` is the SHA-256 of the sorted ``(id, sha256)``
    pairs of the hooks that need trust.
    """

    NEEDS_TRUST = frozenset({Scope.PROJECT, Scope.LOCAL, Scope.PLUGIN})

    def __init__(self, hooks: list[HookDefinition], approved: bool | frozenset[str] = False) -> None:
        self._hooks = hooks
        self._approved = approved

    def state(self, hook: HookDefinition) -> str:
        if hook.type == "function" or hook.provenance.scope not in self.NEEDS_TRUST:
            return "not_required"
        if self._approved is True or (isinstance(self._approved, frozenset) and hook.id in self._approved):
            return "trusted"
        return "untrusted"

    def digest(self) -> str | None:
        import hashlib

        items = sorted((h.id, h.provenance.sha256) for h in self._hooks
                       if h.type != "function" and h.provenance.scope in self.NEEDS_TRUST)
        if not items:
            return None
        return "sha256:" + hashlib.sha256(json.dumps(items).encode()).hexdigest()


def above_project(h: HookDefinition, *project_roots: str) -> bool:
    """True when hook ``h`` comes from a source above the project's settings: not ``project``
    or ``local`` scope, and not a plugin whose folder lies in one of ``project_roots`` (a
    plugin the project ships). Such a guard is the user's (or an administrator's): a
    project's ``disableAllHooks`` that switches it off leaves the call not decided."""
    scope = h.provenance.scope.value
    if scope in ("project", "local"):
        return False
    if scope != "plugin":
        return True
    src = os.path.realpath(h.provenance.source_root)
    for root in project_roots:
        r = os.path.realpath(str(root))
        if src == r or src.startswith(r.rstrip(os.sep) + os.sep):
            return False
    return True


def switched_off_reason(h: HookDefinition) -> str:
    """Why the hook of a user's plugin that project or local settings switched off
    (:attr:`~wskit.resources.hooks.HookDefinition.switched_off_by`) did not run, naming the file."""
    plugin = h.provenance.plugin or "?"
    if os.path.isdir(h.switched_off_by or ""):  # the project's plugin folder replaced it (or a dependency)
        return (f"the project's plugin folder {h.switched_off_by} replaces plugin {plugin} or a plugin it depends "
                "on, this guard of the user's with it; not decided (switch the plugin off in your own settings "
                "to decide so)")
    return (f"{h.switched_off_by} switches off plugin {plugin} (enabledPlugins), this guard "
            "of the user's with it; not decided (switch the plugin off in your own settings to decide so)")


def _same_program(h: HookDefinition) -> tuple:
    """What a hook runs, for de-duplication: the command (or URL, prompt, function) and its
    ``if``, as Claude Code compares them, plus what fills the command in when it runs: the
    plugin root (``${CLAUDE_PLUGIN_ROOT}``), the working folder, the dialect and event
    spoken on stdin, and the timeout. The same text in two plugins or two ``hooks.json``
    folders is two programs; both run."""
    return (h.type, h.command, h.url, h.prompt, h.if_condition, h.name if h.type == "function" else None,
            h.plugin_root, h.cwd, h.dialect, h.native_event, h.timeout,
            h.provenance.plugin if h.plugin_root else None)


def _may_match(matcher: str, value: str | None) -> bool:
    """Whether an unapproved hook's ``matcher`` matches ``value`` or may: only an empty, ``*``
    or exact-name matcher is compared (nothing of an unapproved hook is evaluated as a
    pattern); any other matcher, or no value to compare, may match."""
    if matcher in ("", "*") or value is None:
        return True
    from wskit.builtin_plugins.hooks.patterns import exact_names

    names = exact_names(matcher)
    return names is None or value in names


def matches(matcher: str, tool: str | None) -> bool:
    """:func:`wskit.builtin_plugins.hooks.patterns.matcher_matches`, the one matcher rule
    of loader, ``wsctl hooks list`` and runner; a refused pattern matches (the runner
    then runs the hook restrict-only)."""
    from wskit.builtin_plugins.hooks.patterns import PatternRefused, matcher_matches

    try:
        return matcher_matches(matcher, tool)
    except PatternRefused:
        return True


#: Payload field a non-tool event's matcher is compared with (Claude Code's hooks reference);
#: events not named here have nothing to match, and their matcher is ignored.
MATCH_FIELDS = {"SessionStart": "source", "SessionEnd": "reason", "PreCompact": "trigger",
                "PostCompact": "trigger", "Notification": "notification_type", "SubagentStart": "agent_type",
                "SubagentStop": "agent_type", "ConfigChange": "source"}


def match_value(event: str, tool: str | None, data: Mapping[str, Any]) -> str | None:
    """What the matchers of ``event`` are compared with: the tool name on tool events (or
    when the caller names a tool), else the event's :data:`MATCH_FIELDS` value, else None
    (every matcher matches)."""
    if tool is not None:
        return str(tool)
    name = MATCH_FIELDS.get(event)
    value = data.get(name) if name else None
    return value if isinstance(value, str) else None


class _Selection(Value):
    todo: list = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    skipped: list[SkippedHook] = field(default_factory=list)
    restricted: set[str] = field(default_factory=set)


class _Fn(Value):
    event: str
    matcher: str
    name: str
    fn: FunctionHook
    timeout: float = 10.0


class _Run(Value):
    """One run of an event between :meth:`HookRunner._prepare` and :meth:`HookRunner._finish`:
    ``outcome`` is set when nothing is left to do (a repeated call's recorded outcome)."""

    data: dict[str, Any]
    key: tuple[str, str] | None
    started: HookOutcome
    outcome: HookOutcome | None = None
    todo: list = field(default_factory=list)
    restricted: set[str] = field(default_factory=set)
    policy: str = "report"


class HookRunnerConfig(Value):
    """What the host decides about hooks.

    :ivar env: the session's variables (hook processes see these plus PATH, HOME,
        USER, SHELL, LANG and the ``<HOST>_*`` variables — nothing else leaks).
    :ivar http_policy: :class:`~wskit.builtin_plugins.hooks.http.UrlPolicy` for HTTP hooks.
    :ivar trust: a :class:`HookTrust` (default :class:`ScopeHookTrust`).
    :ivar prompt_handler: called for ``prompt`` hooks with ``(hook, payload)``;
        returns Claude Code output fields. Without it prompt hooks are skipped with a warning.
    :ivar functions: name → callable for ``function`` hook definitions.
    :ivar default_timeout: seconds (60). :ivar max_concurrent: bound for concurrent events (5).
    :ivar output_cap: bytes kept of each of stdout/stderr (1 MiB).
    :ivar disable_all: run nothing (``disableAllHooks``).
    :ivar disabled_by: the project or local settings file that set ``disableAllHooks`` while
        no higher layer did: the guards of higher sources it switched off (the user's, an
        administrator's, built-in, invocation hooks, plugins outside the execution root)
        are skipped as ``switched-off`` — not decided, naming this file — rather than
        ``disabled``; the project's own hooks are ``disabled``.
    :ivar timeout_behavior, failure_behavior: what a timed-out or failing hook (error
        status) means — ``ignore`` (default: a non-blocking error), ``deny`` (blocks) or
        ``ask`` (permission decision ``ask``); Blade's ``timeoutBehavior``/``failureBehavior``.
    :ivar unapproved: what a guard that did not run means for ``PreToolUse`` and
        ``PermissionRequest``: ``report`` (default: it is in ``HookOutcome.skipped`` and
        ``HookOutcome.undecided``, the host decides) or ``block`` (the call is blocked
        with a reason naming it, when its matcher matches the tool or may match it: only
        an empty, ``*`` or exact-name matcher is compared, since nothing of an unapproved
        hook is evaluated). Hooks switched off or denied by the user never block. A guard
        that ran but did not decide (timed out, not found, killed: ``HookResult.failure``)
        is undecided too, and ``block`` blocks the call for it after the others ran.
    """

    env: Mapping[str, str] = field(default_factory=dict)
    http_policy: UrlPolicy = field(default_factory=UrlPolicy)
    trust: HookTrust | None = None
    prompt_handler: PromptHandler | None = None
    functions: Mapping[str, FunctionHook] = field(default_factory=dict)
    default_timeout: float = DEFAULT_TIMEOUT
    max_concurrent: int = 5
    output_cap: int = DEFAULT_OUTPUT_CAP
    disable_all: bool = False
    disabled_by: str | None = None
    timeout_behavior: str = "ignore"
    failure_behavior: str = "ignore"
    unapproved: Literal["report", "block"] = "report"

    def __post_init__(self) -> None:
        for name in ("timeout_behavior", "failure_behavior"):
            if getattr(self, name) not in BEHAVIORS:
                raise ValueError(f"{name} must be one of {sorted(BEHAVIORS)}, not {getattr(self, name)!r}")
        if self.unapproved not in UNAPPROVED_POLICIES:
            raise ValueError(f"unapproved must be one of {list(UNAPPROVED_POLICIES)}, not {self.unapproved!r}")


class HookRunner:
    """Runs a session's hooks. Built by :class:`~wskit.session.runtime.SessionRuntime`.

    :param hooks: the hook definitions (the session's ``hook`` registry, active entries).
    :param host: host name (env prefix ``<HOST>_``). :param session_id: the session's id.
    :param execution_root: cwd of command hooks and ``<HOST>_PROJECT_DIR``.
    :param config: :class:`HookRunnerConfig`.
    """

    def __init__(self, hooks: list[HookDefinition], *, host: str, session_id: str, execution_root: str,
                 config: HookRunnerConfig | None = None) -> None:
        self.definitions = list(hooks)
        self.host, self.session_id, self.execution_root = host, session_id, str(execution_root)
        self.config = config or HookRunnerConfig()
        self.trust: HookTrust = self.config.trust or ScopeHookTrust(self.definitions)
        bind = getattr(self.trust, "for_env", None)
        if self.config.env and callable(bind):
            # coverage reads the commands with the PATH and loader variables hooks really get
            self.trust = bind(self.config.env, self.execution_root, host)
        self._bytecode: PrivateBytecode | None = None  # made for the first command hook (_private_bytecode)
        self._functions: list[_Fn] = []
        self._done: dict[tuple[str, str], HookOutcome] = {}
        self._lock = _thread.allocate_lock()
        self._warned: set[tuple[str, str]] = set()

    def register_function(self, event: str, fn: FunctionHook, *, matcher: str = "", name: str | None = None,
                          timeout: float = 10.0) -> None:
        """Add an in-process function hook (never needs trust). ``fn(payload)`` returns
        Claude Code output fields (a dict) or None; raising is a non-blocking error."""
        self._functions.append(_Fn(event, matcher, name or getattr(fn, "__name__", "fn"), fn, timeout))

    def matching(self, event: str, tool: str | None = None,
                 payload: Mapping[str, Any] | None = None) -> list[HookDefinition | _Fn]:
        """Definitions and function hooks that would run for ``event`` and ``tool``: trusted
        (see :class:`HookTrust`), matcher and ``if`` matching the call in ``payload``
        (:func:`wskit.builtin_plugins.hooks.conditions.if_allows`), in order; identical
        command/URL hooks with the same ``if`` kept once (Claude Code de-duplicates them)."""
        return self._select(event, tool, payload or {}).todo

    def _trust_state(self, h: HookDefinition) -> str:
        if h.type == "function":
            return "not_required"
        if h.switched_off_by:  # the user's plugin, switched off by the project: never run, never silent
            return "switched-off"
        try:
            return str(self.trust.state(h))
        except Exception:  # a host's trust that fails decides nothing: the hook does not run
            return "error"

    def _why(self, h: HookDefinition, state: str) -> str:
        """The trust's reason for not running ``h`` (its ``reason(hook)``), else the state."""
        if h.switched_off_by:
            return switched_off_reason(h)
        fn = getattr(self.trust, "reason", None)
        if fn is not None:
            try:
                return str(fn(h))
            except Exception:  # a host's trust that fails to explain still skipped the hook
                pass
        return f"project hook trust is {state}"

    def _select(self, event: str, tool: str | None, data: Mapping[str, Any]) -> "_Selection":
        """Trust first (nothing of an unapproved hook is evaluated), then matcher and ``if``
        (bounded, :mod:`wskit.builtin_plugins.hooks.patterns`), then de-duplication among
        the hooks that may run, so an unapproved copy never displaces an approved one."""
        sel = _Selection()
        if not self.definitions and not self._functions:
            return sel  # nothing to select (the matcher engine is not imported)
        from wskit.builtin_plugins.hooks.patterns import PatternRefused, matcher_matches

        seen: dict[tuple, int] = {}
        value = match_value(event, tool, data)
        home = self.config.env.get("HOME") or os.environ.get("HOME")
        for h in self.definitions:
            if h.event != event:
                continue
            state = self._trust_state(h)
            if state not in RUNNABLE:
                sel.skipped.append(SkippedHook(h.id, h.type, h.provenance.scope.value, state,
                                               f"hook {h.id} skipped: {self._why(h, state)}",
                                               matcher=h.matcher, may_match=_may_match(h.matcher, value)))
                continue
            try:
                if not matcher_matches(h.matcher, value):
                    continue
            except PatternRefused as err:
                sel.notes.append(f"hook {h.id}: matcher {err}; ran it on every {event} call (it may block or "
                                 "ask, not allow)")
                sel.restricted.add(h.id)
            if h.if_condition is not None:
                from wskit.builtin_plugins.hooks.conditions import IF_UNCERTAIN, if_allows, if_unparsable

                try:
                    runs = if_allows(h.id, h.if_condition, event, tool, data, sel.notes, self.execution_root, home)
                    if not runs:
                        continue
                    if runs == IF_UNCERTAIN:
                        sel.restricted.add(h.id)
                except PatternRefused as err:
                    sel.notes.append(f"hook {h.id}: 'if' {err}; ran it without the condition (it may block or "
                                     "ask, not allow)")
                    sel.restricted.add(h.id)
                if if_unparsable(h.if_condition):
                    sel.restricted.add(h.id)
            key = _same_program(h)
            kept = seen.get(key)
            if kept is None:
                seen[key] = len(sel.todo)
                sel.todo.append(h)
                continue
            first = sel.todo[kept]
            assert isinstance(first, HookDefinition)
            if state == "not_required" and self._trust_state(first) != "not_required":
                # a guard that needs no approval is never displaced by an approved copy of it
                sel.todo[kept], first, h = h, h, first
            sel.notes.append(f"hook {h.id} not run: hook {first.id} runs the same program in the same folder "
                             "for this call (duplicates run once)")
        for f in self._functions:
            if f.event != event:
                continue
            try:
                hit = matcher_matches(f.matcher, value)
            except PatternRefused as err:
                sel.notes.append(f"function hook {f.name}: matcher {err}; ran it on every {event} call")
                hit = True
                sel.restricted.add(f"function:{f.name}")
            if hit:
                sel.todo.append(f)
        return sel

    # -- running ---------------------------------------------------------

    def close(self) -> None:
        """Release nothing: every hook process ends before :meth:`run` returns. Present
        because the runner is the session service ``hooks``, which the runtime closes."""

    def run(self, event: str, payload: Mapping[str, Any] | None = None, *, tool: str | None = None,
            unapproved: Literal["report", "block"] | None = None) -> HookOutcome:
        """Run the hooks of ``event`` with ``payload`` (the JSON hooks get on stdin).

        :param payload: Claude Code's input fields (``tool_name``, ``tool_input``,
            ``tool_use_id``, ``tool_response``, ``prompt``…); ``session_id``,
            ``cwd`` and ``hook_event_name`` are added when missing.
        :param tool: tool name for matching (default ``payload["tool_name"]``).
        :param unapproved: ``report`` or ``block`` for this call (default: the config's,
            see :class:`HookRunnerConfig`).
        :returns: the merged :class:`HookOutcome`; never raises for a failing hook.
            Every hook of the event that did not run is in ``outcome.skipped`` with its reason.
        :raises UnknownHookEventError: ``event`` is not a hook event.
        :raises ValueError: ``unapproved`` is not ``report`` or ``block``.
        """
        run = self._prepare(event, payload, tool, unapproved)
        if run.outcome is not None:
            return run.outcome
        outcome = run.started
        if run.todo:
            if event in SERIAL_EVENTS:
                self._serial(run.todo, run.data, outcome, run.restricted)
            else:
                self._concurrent(run.todo, run.data, outcome, run.restricted)
        return self._finish(run)

    async def arun(self, event: str, payload: Mapping[str, Any] | None = None, *, tool: str | None = None,
                   unapproved: Literal["report", "block"] | None = None) -> HookOutcome:
        """:meth:`run` on the event loop: command hooks as ``asyncio`` subprocesses
        (:func:`~wskit.builtin_plugins.hooks.command.arun_command`), HTTP hooks through an
        async client (:func:`~wskit.builtin_plugins.hooks.http.apost_json`), prompt handlers
        and function hooks in a worker thread (or awaited, when they return an awaitable).
        Same selection, order, merging, timeouts and outcome as :meth:`run`.

        Cancelling the awaiting task kills the process group of every command hook still
        running and closes every HTTP request; the outcome is not recorded, so the same
        ``tool_use_id`` runs its hooks again.

        :raises UnknownHookEventError: ``event`` is not a hook event.
        :raises ValueError: ``unapproved`` is not ``report`` or ``block``.
        :raises asyncio.CancelledError: the awaiting task was cancelled.
        """
        run = self._prepare(event, payload, tool, unapproved)
        if run.outcome is not None:
            return run.outcome
        outcome = run.started
        if run.todo:
            if event in SERIAL_EVENTS:
                await self._aserial(run.todo, run.data, outcome, run.restricted)
            else:
                await self._aconcurrent(run.todo, run.data, outcome, run.restricted)
        return self._finish(run)

    def _prepare(self, event: str, payload: Mapping[str, Any] | None, tool: str | None,
                 unapproved: str | None) -> _Run:
        """Everything of a run before a hook is started: the payload, a recorded outcome for
        a repeated ``tool_use_id``, the selection (trust first), the skipped guards and the
        ``unapproved="block"`` policy. ``todo`` is what is left to run."""
        if event not in HOOK_EVENTS:
            raise UnknownHookEventError(event)
        policy = self.config.unapproved if unapproved is None else unapproved
        if policy not in UNAPPROVED_POLICIES:
            raise ValueError(f"unapproved must be one of {list(UNAPPROVED_POLICIES)}, not {policy!r}")
        data = dict(payload or {})
        data.setdefault("session_id", self.session_id)
        data.setdefault("cwd", self.execution_root)
        data.setdefault("hook_event_name", event)
        # a lifecycle event's matcher is matched against its payload field (match_value)
        tool = tool or (data.get("tool_name") if event not in MATCH_FIELDS else None)
        if tool is not None and event not in MATCH_FIELDS:
            data.setdefault("tool_name", tool)
        use_id = data.get("tool_use_id")
        key = (str(use_id), event) if use_id is not None else None
        if key is not None:
            with self._lock:
                prev = self._done.get(key)
            if prev is not None:
                prev.repeated = True
                return _Run(data, key, HookOutcome(event=event), outcome=prev)
        run = _Run(data, key, HookOutcome(event=event), policy=policy)
        outcome = run.started
        if self.config.disable_all:
            by = self.config.disabled_by
            value = match_value(event, tool, data) if by else None
            for h in self.definitions:
                if h.event == event and h.type != "function":
                    scope = h.provenance.scope.value
                    if by and above_project(h, self.execution_root):
                        outcome.skipped.append(SkippedHook(
                            h.id, h.type, scope, "switched-off",
                            f"hook {h.id} skipped: {by} switches hooks off, this {scope} guard with them; "
                            "not decided (switch it off in your own settings to decide so)",
                            matcher=h.matcher, may_match=_may_match(h.matcher, value)))
                        continue
                    outcome.skipped.append(SkippedHook(h.id, h.type, scope, "disabled",
                                                       f"hook {h.id} skipped: hooks are switched off",
                                                       matcher=h.matcher))
            return run
        try:
            sel = self._select(event, tool, data)
        except Exception as err:  # a definition the selection cannot read runs nothing, visibly
            sel = _Selection(notes=[f"hook selection failed: {type(err).__name__}: {err}"])
        outcome.warnings.extend(sel.notes)
        for sk in sel.skipped:
            outcome.skipped.append(sk)
            outcome.warnings.append(sk.message)
            merge(outcome, HookResult(sk.hook_id, sk.type, "skipped", sk.message), None)
        if event in SERIAL_EVENTS and policy == "block":
            self._block_unapproved(outcome, tool)
        if outcome.blocked:
            for h in sel.todo:  # a skipped guard decided the call: the others are not run
                rid = f"function:{h.name}" if isinstance(h, _Fn) else h.id
                merge(outcome, HookResult(rid, "function" if isinstance(h, _Fn) else h.type, "skipped",
                                          "not run: a guard awaiting approval blocked the call"), None)
        else:
            run.todo, run.restricted = sel.todo, sel.restricted
        return run

    def _finish(self, run: _Run) -> HookOutcome:
        """The hooks that ran nothing listed as skipped; the outcome recorded for its ``tool_use_id``."""
        outcome = run.started
        late: list[SkippedHook] = []
        for r in outcome.results:  # ran nothing: changed since approved, or no handler for it (prompt, function)
            if r.status == "skipped" and r.message.startswith(f"hook {r.hook_id} skipped:") \
                    and not any(s.hook_id == r.hook_id for s in outcome.skipped):
                d = next((d for d in self.definitions if d.id == r.hook_id), None)
                sk = SkippedHook(r.hook_id, r.type, d.provenance.scope.value if d is not None else "",
                                 r.skip_state or "no-handler", r.message, matcher=d.matcher if d is not None else "")
                outcome.skipped.append(sk)
                if r.skip_state:
                    outcome.warnings.append(r.message)
                    late.append(sk)
        if run.policy == "block" and outcome.event in SERIAL_EVENTS and not outcome.blocked \
                and any(sk.undecided for sk in late):
            sk = next(sk for sk in late if sk.undecided)  # a guard found changed as it was to start
            outcome.blocked, outcome.permission_decision = True, "deny"
            outcome.reason = (f"guard {sk.hook_id} did not run ({sk.message.split(': ', 1)[-1]}); the call is "
                              "blocked until it can (unapproved='block')")
        if run.policy == "block" and outcome.event in SERIAL_EVENTS and not outcome.blocked and outcome.failed:
            r = outcome.failed[0]  # a guard that ran without deciding: the host asked to fail closed
            outcome.blocked, outcome.permission_decision = True, "deny"
            outcome.reason = (f"guard {r.hook_id} failed ({r.failure}); the call is blocked until it can decide "
                              "(unapproved='block')")
        if run.key is not None:
            with self._lock:
                self._done[run.key] = outcome
        return outcome

    def _block_unapproved(self, outcome: HookOutcome, tool: str | None) -> None:
        """``unapproved="block"``: the first skipped guard whose matcher matches ``tool`` or may
        match it blocks the call (its matcher is compared only when it is empty, ``*`` or a
        list of exact names: nothing of an unapproved hook is evaluated as a pattern)."""
        del tool  # the skipped guards' may_match was decided at selection, against the call's value
        for sk in outcome.undecided:
            # the guard's one result says it blocked, in its place (it was listed as skipped): one hook, one row
            at = next((i for i, r in enumerate(outcome.results) if r.hook_id == sk.hook_id and r.status == "skipped"),
                      len(outcome.results))
            outcome.results = [r for i, r in enumerate(outcome.results) if i != at]
            merge(outcome, HookResult(sk.hook_id, sk.type, "blocked",
                                      f"guard {sk.hook_id} did not run ({sk.message.split(': ', 1)[-1]}); the call "
                                      "is blocked until it can (unapproved='block')"), None)
            outcome.results.insert(at, outcome.results.pop())
            return

    def _serial(self, todo, data: dict[str, Any], outcome: HookOutcome, restricted: set[str]) -> None:
        tool_input = data.get("tool_input") if isinstance(data.get("tool_input"), dict) else None
        for i, h in enumerate(todo):
            cur = {**data, "tool_input": tool_input} if tool_input is not None else data
            result = self._one(h, cur, restricted)
            tool_input = merge(outcome, result, tool_input)
            if outcome.blocked:
                self._skip_rest(todo[i + 1:], result.hook_id, outcome, tool_input)
                break

    @staticmethod
    def _skip_rest(rest: list, blocker: str, outcome: HookOutcome, tool_input: dict[str, Any] | None) -> None:
        """The call is denied whatever the hooks after ``blocker`` say (deny wins): they are
        not run, and each is listed as not run."""
        for h in rest:
            rid = f"function:{h.name}" if isinstance(h, _Fn) else h.id
            rtype = "function" if isinstance(h, _Fn) else h.type
            merge(outcome, HookResult(rid, rtype, "skipped", f"not run: {blocker} already blocked the call"),
                  tool_input)

    def _concurrent(self, todo, data: dict[str, Any], outcome: HookOutcome, restricted: set[str]) -> None:
        if not todo:
            return
        from concurrent.futures import ThreadPoolExecutor  # when hooks run concurrently

        with ThreadPoolExecutor(max_workers=max(1, self.config.max_concurrent)) as pool:
            futures = [pool.submit(self._one, h, data, restricted) for h in todo]
            results = [f.result() for f in futures]
        tool_input = data.get("tool_input") if isinstance(data.get("tool_input"), dict) else None
        for r in results:
            tool_input = merge(outcome, r, tool_input)

    def _one(self, h, data: dict[str, Any], restricted: set[str]) -> HookResult:
        """One hook's result; whatever the definition holds, never raises (a failure is an
        ``error`` result, so the other hooks of the event still run)."""
        rid = f"function:{h.name}" if isinstance(h, _Fn) else h.id
        try:
            return self._one_unguarded(h, data, rid in restricted)
        except Exception as err:
            return HookResult(rid, "function" if isinstance(h, _Fn) else str(h.type), "error",
                              f"hook {rid} failed: {type(err).__name__}: {err}")

    def _one_unguarded(self, h, data: dict[str, Any], restrict: bool) -> HookResult:
        start = time.monotonic()
        if isinstance(h, _Fn):
            r = self._call(f"function:{h.name}", "function", lambda: h.fn(dict(data)), data["hook_event_name"])
        else:
            r = self._run_definition(h, data)
        return self._settle(r, restrict, start)

    def _settle(self, r: HookResult, restrict: bool, start: float) -> HookResult:
        """A hook's result after the runner's own rules: restrict-only, its duration, and what
        a timeout or failure means (``timeout_behavior``, ``failure_behavior``)."""
        # ran without its unparsable or refused matcher or `if`: it may still restrict, never grant
        r.restrict_only = restrict
        r.duration = r.duration or (time.monotonic() - start)
        behavior = {"timeout": self.config.timeout_behavior, "error": self.config.failure_behavior}.get(r.status)
        if behavior == "deny":
            which = "timeoutBehavior" if r.status == "timeout" else "failureBehavior"
            r.status, r.message = "blocked", f"{r.message} (treated as a block: {which} deny)"
        elif behavior == "ask":
            r.status, r.output = "success", {"hookSpecificOutput": {"permissionDecision": "ask"}}
            r.message += " (treated as ask)"
        return r

    def _call(self, hook_id: str, typ: str, fn, event: str) -> HookResult:
        try:
            fields = fn()
        except Exception as err:  # a host callback failing is a non-blocking error
            return HookResult(hook_id, typ, "error", f"{type(err).__name__}: {err}")
        return self._fields_result(hook_id, typ, fields, event)

    def _fields_result(self, hook_id: str, typ: str, fields: Any, event: str) -> HookResult:
        """The result of a callback (prompt handler, function hook) that returned ``fields``."""
        r = HookResult(hook_id, typ, "success")
        if fields is not None:
            if not isinstance(fields, dict):
                return HookResult(hook_id, typ, "error", f"hook returned {type(fields).__name__}, not an object")
            apply_output(r, fields, event)
        return r

    @staticmethod
    def _bad_timeout(h: HookDefinition) -> HookResult | None:
        t = h.timeout
        if t is not None and not (isinstance(t, (int, float)) and math.isfinite(t) and 0 < t <= MAX_TIMEOUT):
            # the loader refuses such a definition; one made in code gets the same answer here
            return HookResult(h.id, h.type, "error", f"hook {h.id}: timeout {t!r} is not between 0 and "
                                                     f"{MAX_TIMEOUT:g} s; not run")
        return None

    def _run_definition(self, h: HookDefinition, data: dict[str, Any]) -> HookResult:
        event = data["hook_event_name"]
        bad = self._bad_timeout(h)
        if bad is not None:
            return bad
        if h.type == "command":
            return self._command(h, data)
        if h.type == "http":
            return self._http(h, data)
        if h.type == "prompt":
            handler = self.config.prompt_handler
            if handler is None:
                return HookResult(h.id, "prompt", "skipped", f"hook {h.id} skipped: the host registered no prompt handler")
            return self._call(h.id, "prompt", lambda: handler(h, dict(data)), event)
        fn = self.config.functions.get(h.name) or self.config.functions.get(h.id)
        if fn is None:
            return HookResult(h.id, "function", "skipped", f"hook {h.id} skipped: no function registered as {h.name!r}")
        return self._call(h.id, "function", lambda: fn(dict(data)), event)

    def pycache_prefix(self) -> str:
        """The private folder command hooks get as ``PYTHONPYCACHEPREFIX``
        (:class:`wskit.util.bytecode.PrivateBytecode`: mode 0700, removed with the
        runner). With it set, Python looks for cached bytecode only there, never in the
        ``__pycache__`` folders of the project or a plugin, which approval coverage leaves
        out (docs/hooks.md). A host that sets ``PYTHONPYCACHEPREFIX`` in ``env`` keeps its own."""
        return self._private_bytecode().path

    def _private_bytecode(self) -> PrivateBytecode:
        """The runner's :class:`~wskit.util.bytecode.PrivateBytecode` (its folder is made on
        first use), made when first asked for: a runner without command hooks imports nothing
        for it."""
        bc = self._bytecode
        if bc is None:
            from wskit.util.bytecode import PrivateBytecode

            with self._lock:
                if self._bytecode is None:
                    self._bytecode = PrivateBytecode("wskit-hook-pycache-")
                bc = self._bytecode
        return bc

    def environment(self, h: HookDefinition, event: str, data: Mapping[str, Any]) -> dict[str, str]:
        """The whole environment of a command hook (see :class:`HookRunnerConfig`)."""
        env = {k: os.environ[k] for k in ("PATH", "HOME", "USER", "SHELL", "LANG") if k in os.environ}
        env.update(self.config.env)
        # a Python hook neither reads nor writes the project's __pycache__ (its .pyc files
        # are not in an approval's coverage): bytecode goes to a private folder instead
        self._private_bytecode().apply(env, keep=self.config.env)
        p = self.host.upper().replace("-", "_") + "_"
        env.update({f"{p}PROJECT_DIR": self.execution_root, f"{p}HOOK_EVENT": event,
                    f"{p}SESSION_ID": self.session_id, "CLAUDE_PROJECT_DIR": self.execution_root})
        if data.get("tool_name"):
            env[f"{p}TOOL_NAME"] = str(data["tool_name"])
        if data.get("tool_use_id"):
            env[f"{p}TOOL_USE_ID"] = str(data["tool_use_id"])
        if h.plugin_root:
            env.update({"CLAUDE_PLUGIN_ROOT": h.plugin_root, f"{p}PLUGIN_ROOT": h.plugin_root})
            if h.provenance.plugin:
                env[f"{p}PLUGIN_NAME"] = h.provenance.plugin
        return env

    def _command_call(self, h: HookDefinition, data: dict[str, Any]) -> tuple[dict[str, Any], float, bool]:
        """The arguments of :func:`run_command` / :func:`arun_command` for a command hook, its
        timeout, and whether it speaks Cursor's dialect."""
        event = data["hook_event_name"]
        timeout = h.timeout if h.timeout is not None else self.config.default_timeout
        cursor = h.dialect == "cursor"
        stdin = data
        if cursor:  # Cursor's event name and fields in (wskit.builtin_plugins.hooks.cursor)
            from wskit.builtin_plugins.hooks.cursor import payload

            stdin = payload(h.native_event or event, data, session_id=self.session_id,
                            execution_root=self.execution_root)
        cwd = os.path.join(self.execution_root, h.cwd) if h.cwd else self.execution_root
        return ({"command": h.command or "", "stdin": json.dumps(stdin).encode(), "cwd": cwd,
                 "env": self.environment(h, event, data), "timeout": timeout, "output_cap": self.config.output_cap},
                timeout, cursor)

    def _pinned(self, h: HookDefinition) -> tuple[Any, HookResult | None]:
        """Before a command hook starts: ``(pin, None)`` to run it — ``pin`` the trust's
        check of what it runs (``trust.pin(hook)``, :class:`~wskit.builtin_plugins.hooks.trust.RunPin`),
        None when the trust offers none — or ``(None, result)`` when its covered files no
        longer are as approved (it does not start: skipped, state ``modified``)."""
        fn = getattr(self.trust, "pin", None)
        if fn is None:
            return None, None
        try:
            pin = fn(h)
            why = pin.before() if pin is not None else None
        except Exception as err:  # a check that cannot be made verifies nothing: fail closed
            pin, why = None, f"changed since approved (cannot verify what it runs: {type(err).__name__}: {err})"
        if why:
            return None, HookResult(h.id, "command", "skipped", f"hook {h.id} skipped: {why}",
                                    skip_state=getattr(pin, "state", "modified"))
        return pin, None

    @staticmethod
    def _unpinned(h: HookDefinition, pin: Any, r: HookResult) -> HookResult:
        """After a command hook ended: when its covered files changed while it ran (``pin.after()``),
        its answer is not taken — an ``error`` whose :attr:`~HookResult.failure` is ``changed
        while it ran`` (undecided: ``hooks run`` exits 3, ``unapproved="block"`` blocks)."""
        if pin is None:
            return r
        try:
            why = pin.after()
        except Exception as err:  # a check that cannot be made verifies nothing: fail closed
            why = f"cannot verify what it ran: {type(err).__name__}: {err}"
        if not why:
            return r
        return HookResult(h.id, "command", "error", f"hook {h.id} changed while it ran ({why}); its answer "
                          f"(exit {r.exit_code}) is not taken", exit_code=r.exit_code, duration=r.duration,
                          stdout_truncated=r.stdout_truncated, stderr_truncated=r.stderr_truncated, changed=why)

    def _command(self, h: HookDefinition, data: dict[str, Any]) -> HookResult:
        pin, skipped = self._pinned(h)
        if skipped is not None:
            return skipped
        try:
            call, timeout, cursor = self._command_call(h, data)
            from wskit.builtin_plugins.hooks.command import run_command

            res = run_command(**call)
        except (OSError, ValueError) as err:
            return self._fail_closed(h, self._unpinned(h, pin, HookResult(h.id, "command", "error", str(err))))
        return self._command_done(h, data["hook_event_name"], res, timeout, cursor, pin)

    def _command_done(self, h: HookDefinition, event: str, res: CommandResult, timeout: float,
                      cursor: bool, pin: Any = None) -> HookResult:
        r = self._unpinned(h, pin, self._command_result(h, event, res, timeout, cursor))
        return self._fail_closed(h, r) if cursor else r

    @staticmethod
    def _fail_closed(h: HookDefinition, r: HookResult) -> HookResult:
        """A Cursor hook with ``failClosed: true`` that failed or timed out blocks (Cursor's rule)."""
        if h.dialect == "cursor" and h.config.get("failClosed") is True and r.status in ("error", "timeout"):
            r.status, r.message = "blocked", f"{r.message} (treated as a block: failClosed)"
        return r

    def _command_result(self, h: HookDefinition, event: str, res: CommandResult, timeout: float,
                        cursor: bool) -> HookResult:
        """What a command hook's exit status and output mean (Claude Code's protocol, or Cursor's)."""
        r = HookResult(h.id, "command", "success", exit_code=res.exit_code, stdout_truncated=res.stdout_truncated,
                       stderr_truncated=res.stderr_truncated, duration=res.duration)
        if res.timed_out:
            r.status, r.message = "timeout", f"hook {h.id} killed after its {timeout:g} s timeout"
        elif res.exit_code == 2:
            r.status = "blocked"
            r.message = res.stderr.strip() or res.stdout.strip() or "Hook returned exit code 2"
        elif res.exit_code != 0:
            r.status = "error"
            r.message = res.stderr.strip() or f"hook exited with code {res.exit_code}"
        else:
            fields = None if res.stdout_truncated else parse_json_object(res.stdout)
            if fields is not None and cursor:
                from wskit.builtin_plugins.hooks.cursor import output

                fields = output(fields, event, h.native_event or event)
            if fields is not None:
                apply_output(r, fields, event)
            else:
                r.message = res.stdout.strip()
                if event in PLAIN_CONTEXT_EVENTS and r.message and not cursor:  # Claude Code's rule only
                    r.context = r.message
        return r

    def _http_request(self, h: HookDefinition, data: dict[str, Any]) -> dict[str, Any]:
        """The arguments of :func:`post_json` / :func:`apost_json` for an HTTP hook."""
        # ${VAR} in headers: the hook's allowedEnvVars from the host environment, the
        # session's own variables, nothing else (Claude Code's allowedEnvVars)
        allowed = allowed_env_vars(h.config)
        source = {**{k: os.environ[k] for k in allowed if k in os.environ}, **self.config.env}
        return {"url": h.url or "", "body": json.dumps(data).encode(),
                "headers": expand_headers(h.headers, source, allowed, self.config.env),
                "timeout": h.timeout if h.timeout is not None else 10.0, "policy": self.config.http_policy}

    def _http(self, h: HookDefinition, data: dict[str, Any]) -> HookResult:
        start = time.monotonic()
        try:
            res: HttpResult | Exception = post_json(**self._http_request(h, data))
        except (HttpHookSecurityError, HttpHookError) as err:
            res = err
        return self._http_result(h, res, data["hook_event_name"], start)

    @staticmethod
    def _http_result(h: HookDefinition, res: HttpResult | Exception, event: str, start: float) -> HookResult:
        """What an HTTP hook's answer (or its refusal or failure) means."""
        if isinstance(res, HttpHookSecurityError):
            return HookResult(h.id, "http", "refused", str(res), duration=time.monotonic() - start)
        if isinstance(res, Exception):
            return HookResult(h.id, "http", "error", str(res), duration=time.monotonic() - start)
        r = HookResult(h.id, "http", "success", duration=time.monotonic() - start)
        fields = parse_json_object(res.body)
        if fields is not None:
            apply_output(r, fields, event)
        return r

    # -- running on the event loop (arun) ----------------------------------

    async def _aserial(self, todo, data: dict[str, Any], outcome: HookOutcome, restricted: set[str]) -> None:
        """:meth:`_serial` awaiting each hook."""
        tool_input = data.get("tool_input") if isinstance(data.get("tool_input"), dict) else None
        for i, h in enumerate(todo):
            cur = {**data, "tool_input": tool_input} if tool_input is not None else data
            result = await self._aone(h, cur, restricted)
            tool_input = merge(outcome, result, tool_input)
            if outcome.blocked:
                self._skip_rest(todo[i + 1:], result.hook_id, outcome, tool_input)
                break

    async def _aconcurrent(self, todo, data: dict[str, Any], outcome: HookOutcome, restricted: set[str]) -> None:
        """:meth:`_concurrent` as tasks, at most ``max_concurrent`` at a time; results merged in hook order."""
        import asyncio  # the async paths only: a sync run never imports it

        gate = asyncio.Semaphore(max(1, self.config.max_concurrent))

        async def bounded(h) -> HookResult:
            async with gate:
                return await self._aone(h, data, restricted)

        results = await asyncio.gather(*(bounded(h) for h in todo))
        tool_input = data.get("tool_input") if isinstance(data.get("tool_input"), dict) else None
        for r in results:
            tool_input = merge(outcome, r, tool_input)

    async def _aone(self, h, data: dict[str, Any], restricted: set[str]) -> HookResult:
        """:meth:`_one` on the event loop: never raises but for cancellation."""
        rid = f"function:{h.name}" if isinstance(h, _Fn) else h.id
        try:
            start = time.monotonic()
            if isinstance(h, _Fn):
                r = await self._acall(rid, "function", h.fn, data)
            else:
                r = await self._arun_definition(h, data)
            return self._settle(r, rid in restricted, start)
        except Exception as err:
            return HookResult(rid, "function" if isinstance(h, _Fn) else str(h.type), "error",
                              f"hook {rid} failed: {type(err).__name__}: {err}")

    async def _acall(self, hook_id: str, typ: str, fn: Callable[..., Any], data: dict[str, Any]) -> HookResult:
        """A prompt handler or function hook: awaited when it is a coroutine function, else run
        in a worker thread (its answer awaited when it is awaitable)."""
        import asyncio
        import inspect

        try:
            if inspect.iscoroutinefunction(fn):
                fields = await fn(dict(data))
            else:
                fields = await asyncio.to_thread(fn, dict(data))
                if inspect.isawaitable(fields):
                    fields = await fields
        except Exception as err:  # a host callback failing is a non-blocking error
            return HookResult(hook_id, typ, "error", f"{type(err).__name__}: {err}")
        return self._fields_result(hook_id, typ, fields, data["hook_event_name"])

    async def _arun_definition(self, h: HookDefinition, data: dict[str, Any]) -> HookResult:
        event = data["hook_event_name"]
        bad = self._bad_timeout(h)
        if bad is not None:
            return bad
        if h.type == "command":
            import asyncio

            # the check reads the covered files: off the event loop
            pin, skipped = await asyncio.to_thread(self._pinned, h)
            if skipped is not None:
                return skipped
            try:
                call, timeout, cursor = self._command_call(h, data)
                from wskit.builtin_plugins.hooks.command import arun_command

                res = await arun_command(**call)
            except (OSError, ValueError) as err:
                r = await asyncio.to_thread(self._unpinned, h, pin, HookResult(h.id, "command", "error", str(err)))
                return self._fail_closed(h, r)
            r = await asyncio.to_thread(self._unpinned, h, pin, self._command_result(h, event, res, timeout, cursor))
            return self._fail_closed(h, r) if cursor else r
        if h.type == "http":
            start = time.monotonic()
            try:
                answer: HttpResult | Exception = await apost_json(**self._http_request(h, data))
            except (HttpHookSecurityError, HttpHookError) as err:
                answer = err
            return self._http_result(h, answer, event, start)
        if h.type == "prompt":
            handler = self.config.prompt_handler
            if handler is None:
                return HookResult(h.id, "prompt", "skipped", f"hook {h.id} skipped: the host registered no prompt handler")
            return await self._acall(h.id, "prompt", lambda d: handler(h, d), data)
        fn = self.config.functions.get(h.name) or self.config.functions.get(h.id)
        if fn is None:
            return HookResult(h.id, "function", "skipped", f"hook {h.id} skipped: no function registered as {h.name!r}")
        return await self._acall(h.id, "function", fn, data)
