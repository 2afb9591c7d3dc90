"""The hook runner: ``session.runtime.hooks.run(event, payload) -> HookOutcome``
(reference/blade.md §11.3–11.5; Claude Code's hook protocol, reference/conventions.md §1.7).

- Hooks come from the session's ``hook`` registry (:class:`~wskit.resources.hooks.HookDefinition`)
  plus in-process function hooks registered with :meth:`HookRunner.register_function`.
- Trust: every non-function hook asks a :class:`HookTrust` just before running;
  anything but ``trusted``/``not_required`` skips it with the warning
  ``hook <id> skipped: project hook trust is <state>``.
- Selection: event, matcher, then the handler's ``if`` (:mod:`wskit.builtin_plugins.hooks.conditions`).
- Ordering: ``PreToolUse`` and ``PermissionRequest`` run serially, merge
  ``updatedInput`` into the input the next hook sees, and stop at the first block
  (the hooks after it are reported ``skipped``); permission decisions combine as
  deny > defer > ask > allow (Claude Code). Every other event runs concurrently,
  at most ``max_concurrent`` at a time. Each (tool call, event) runs at most once: a second call with the
  same ``tool_use_id`` returns the recorded outcome with ``repeated=True``.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from wskit.builtin_plugins.hooks.command import DEFAULT_OUTPUT_CAP, run_command
from wskit.builtin_plugins.hooks.conditions import if_allows, if_unparsable
from wskit.builtin_plugins.hooks.http import HttpHookError, HttpHookSecurityError, UrlPolicy, expand_headers, post_json
from wskit.builtin_plugins.hooks.outcome import HookOutcome, HookResult, apply_output, merge, parse_json_object
from wskit.models import Scope
from wskit.resources.hooks import HookDefinition

__all__ = [
    "BEHAVIORS", "DEFAULT_TIMEOUT", "FunctionHook", "HookRunner", "HookRunnerConfig", "HookTrust",
    "MATCH_FIELDS", "matches", "PLAIN_CONTEXT_EVENTS", "PromptHandler", "RUNNABLE", "ScopeHookTrust", "SERIAL_EVENTS"
]


#: Default command timeout, seconds (Claude Code and Blade).
DEFAULT_TIMEOUT = 60.0
#: Events that run serially and stop at the first block.
SERIAL_EVENTS = frozenset({"PreToolUse", "PermissionRequest"})
#: Events where plain (non-JSON) stdout of a command hook that exits 0 becomes added context (Claude Code).
PLAIN_CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "UserPromptExpansion"})
#: Values of ``timeout_behavior`` / ``failure_behavior``.
BEHAVIORS = frozenset({"ignore", "deny", "ask"})
#: Trust states under which a hook runs.
RUNNABLE = frozenset({"trusted", "not_required"})

PromptHandler = Callable[[HookDefinition, dict[str, Any]], "dict[str, Any] | None"]
FunctionHook = Callable[[dict[str, Any]], "dict[str, Any] | None"]


class HookTrust(Protocol):
    """Where the runner asks whether a hook may run (the built-in one is the digest
    approval of :mod:`wskit.builtin_plugins.hooks.trust`).

    ``state(hook)`` returns ``trusted``, ``not_required``, ``untrusted``,
    ``modified``, ``disabled`` or ``error``; ``digest()`` the digest of the hook
    configuration the state refers to (recorded in the session state), or None.
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


#: Events whose matcher is matched against a payload field rather than a tool name
#: (Claude Code: ``SessionStart`` on ``source`` — ``startup``, ``resume``, ``clear``,
#: ``compact``; ``PreCompact`` on ``trigger``; ``SessionEnd`` on ``reason``;
#: ``Notification`` on ``notification_type``). Without that field every matcher matches.
MATCH_FIELDS: dict[str, str] = {"SessionStart": "source", "PreCompact": "trigger", "SessionEnd": "reason",
                                "Notification": "notification_type"}


def matches(matcher: str, tool: str | None) -> bool:
    """Blade's matcher rule (§11.3): empty or ``*`` → all; ``a|b`` → exact membership;
    a plain name → exact; otherwise a full-match regex (invalid → exact). Without a
    tool name (non-tool events) every matcher matches."""
    m = (matcher or "").strip()
    if not m or m == "*" or tool is None:
        return True
    if "|" in m:
        return tool in {p.strip() for p in m.split("|")}
    if re.fullmatch(r"[A-Za-z0-9_\-:.]+", m):
        return tool == m
    try:
        return re.fullmatch(m, tool) is not None
    except re.error:
        return tool == m


@dataclass
class _Fn:
    event: str
    matcher: str
    name: str
    fn: FunctionHook
    timeout: float = 10.0


@dataclass
class HookRunnerConfig:
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
    :ivar timeout_behavior, failure_behavior: what a timed-out or failing hook (error
        status) means — ``ignore`` (default: a non-blocking error), ``deny`` (blocks) or
        ``ask`` (permission decision ``ask``); Blade's ``timeoutBehavior``/``failureBehavior``.
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
    timeout_behavior: str = "ignore"
    failure_behavior: str = "ignore"

    def __post_init__(self) -> None:
        for name in ("timeout_behavior", "failure_behavior"):
            if getattr(self, name) not in BEHAVIORS:
                raise ValueError(f"{name} must be one of {sorted(BEHAVIORS)}, not {getattr(self, name)!r}")


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
        self._functions: list[_Fn] = []
        self._done: dict[tuple[str, str], HookOutcome] = {}
        self._lock = threading.Lock()
        self._warned: set[tuple[str, str]] = set()

    def register_function(self, event: str, fn: FunctionHook, *, matcher: str = "", name: str | None = None,
                          timeout: float = 10.0) -> None:
        """Add an in-process function hook (never needs trust). ``fn(payload)`` returns
        Claude Code output fields (a dict) or None; raising is a non-blocking error."""
        self._functions.append(_Fn(event, matcher, name or getattr(fn, "__name__", "fn"), fn, timeout))

    def matching(self, event: str, tool: str | None = None,
                 payload: Mapping[str, Any] | None = None) -> list[HookDefinition | _Fn]:
        """Definitions and function hooks that match ``event`` and ``tool`` (and whose
        ``if`` matches the call in ``payload``, see :func:`wskit.builtin_plugins.hooks.conditions.if_allows`), in order; identical
        command/URL hooks with the same ``if`` kept once (Claude Code de-duplicates them)."""
        return self._select(event, tool, payload or {})[0]

    def _select(self, event: str, tool: str | None,
                data: Mapping[str, Any]) -> tuple[list[HookDefinition | _Fn], list[str]]:
        out: list[HookDefinition | _Fn] = []
        notes: list[str] = []
        seen: set[tuple] = set()
        for h in self.definitions:
            if h.event != event or not matches(h.matcher, tool):
                continue
            if h.if_condition is not None and not if_allows(h.id, h.if_condition, event, tool, data, notes, self.execution_root,
                                                           self.config.env.get("HOME") or os.environ.get("HOME")):
                continue
            key = (h.type, h.command, h.url, h.prompt, h.if_condition, h.name if h.type == "function" else None)
            if key in seen:
                continue
            seen.add(key)
            out.append(h)
        out.extend(f for f in self._functions if f.event == event and matches(f.matcher, tool))
        return out, notes

    # -- running ---------------------------------------------------------

    def close(self) -> None:
        """Release nothing: every hook process ends before :meth:`run` returns. Present
        because the runner is the session service ``hooks``, which the runtime closes."""

    def run(self, event: str, payload: Mapping[str, Any] | None = None, *, tool: str | None = None) -> HookOutcome:
        """Run the hooks of ``event`` with ``payload`` (the JSON hooks get on stdin).

        :param payload: Claude Code's input fields (``tool_name``, ``tool_input``,
            ``tool_use_id``, ``tool_response``, ``prompt``…); ``session_id``,
            ``cwd`` and ``hook_event_name`` are added when missing.
        :param tool: tool name for matching (default ``payload["tool_name"]``).
        :returns: the merged :class:`HookOutcome`; never raises for a failing hook.
        """
        data = dict(payload or {})
        data.setdefault("session_id", self.session_id)
        data.setdefault("cwd", self.execution_root)
        data.setdefault("hook_event_name", event)
        field = MATCH_FIELDS.get(event)
        if field is not None:  # a lifecycle event: the matcher is matched against its payload field
            tool = tool or data.get(field)
        else:
            tool = tool or data.get("tool_name")
            if tool is not None:
                data.setdefault("tool_name", tool)
        use_id = data.get("tool_use_id")
        key = (str(use_id), event) if use_id is not None else None
        if key is not None:
            with self._lock:
                prev = self._done.get(key)
            if prev is not None:
                prev.repeated = True
                return prev
        outcome = HookOutcome(event=event)
        if not self.config.disable_all:
            todo, notes = self._select(event, tool, data)
            outcome.warnings.extend(notes)
            if event in SERIAL_EVENTS:
                self._serial(todo, data, outcome)
            else:
                self._concurrent(todo, data, outcome)
        if key is not None:
            with self._lock:
                self._done[key] = outcome
        return outcome

    def _serial(self, todo, data: dict[str, Any], outcome: HookOutcome) -> None:
        tool_input = data.get("tool_input") if isinstance(data.get("tool_input"), dict) else None
        for i, h in enumerate(todo):
            cur = {**data, "tool_input": tool_input} if tool_input is not None else data
            result = self._one(h, cur, outcome)
            tool_input = merge(outcome, result, tool_input)
            if outcome.blocked:
                # the call is denied whatever the rest say (deny wins): they are not run, and say so
                for rest in todo[i + 1:]:
                    rid = f"function:{rest.name}" if isinstance(rest, _Fn) else rest.id
                    rtype = "function" if isinstance(rest, _Fn) else rest.type
                    merge(outcome, HookResult(rid, rtype, "skipped", f"not run: {result.hook_id} already blocked "
                                              "the call"), tool_input)
                break

    def _concurrent(self, todo, data: dict[str, Any], outcome: HookOutcome) -> None:
        if not todo:
            return
        with ThreadPoolExecutor(max_workers=max(1, self.config.max_concurrent)) as pool:
            futures = [pool.submit(self._one, h, data, outcome) for h in todo]
            results = [f.result() for f in futures]
        tool_input = data.get("tool_input") if isinstance(data.get("tool_input"), dict) else None
        for r in results:
            tool_input = merge(outcome, r, tool_input)

    def _one(self, h, data: dict[str, Any], outcome: HookOutcome) -> HookResult:
        start = time.monotonic()
        if isinstance(h, _Fn):
            r = self._call(f"function:{h.name}", "function", lambda: h.fn(dict(data)), data["hook_event_name"])
        else:
            state = self.trust.state(h) if h.type != "function" else "not_required"
            if state not in RUNNABLE:
                msg = f"hook {h.id} skipped: project hook trust is {state}"
                with self._lock:
                    outcome.warnings.append(msg)
                return HookResult(h.id, h.type, "skipped", msg)
            r = self._run_definition(h, data)
            # ran without its unparsable `if`: it may still restrict, never grant (hook_if.if_allows)
            r.restrict_only = h.if_condition is not None and if_unparsable(h.if_condition)
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
        r = HookResult(hook_id, typ, "success")
        if fields is not None:
            if not isinstance(fields, dict):
                return HookResult(hook_id, typ, "error", f"hook returned {type(fields).__name__}, not an object")
            apply_output(r, fields, event)
        return r

    def _run_definition(self, h: HookDefinition, data: dict[str, Any]) -> HookResult:
        event = data["hook_event_name"]
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

    def environment(self, h: HookDefinition, event: str, data: Mapping[str, Any]) -> dict[str, str]:
        """The whole environment of a command hook (see :class:`HookRunnerConfig`)."""
        env = {k: os.environ[k] for k in ("PATH", "HOME", "USER", "SHELL", "LANG") if k in os.environ}
        env.update(self.config.env)
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

    def _command(self, h: HookDefinition, data: dict[str, Any]) -> HookResult:
        event = data["hook_event_name"]
        timeout = h.timeout if h.timeout is not None else self.config.default_timeout
        try:
            res = run_command(h.command or "", json.dumps(data).encode(), cwd=self.execution_root,
                              env=self.environment(h, event, data), timeout=timeout, output_cap=self.config.output_cap)
        except (OSError, ValueError) as err:
            return HookResult(h.id, "command", "error", str(err))
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
            if fields is not None:
                apply_output(r, fields, event)
            else:
                r.message = res.stdout.strip()
                if event in PLAIN_CONTEXT_EVENTS and r.message:
                    r.context = r.message
        return r

    def _http(self, h: HookDefinition, data: dict[str, Any]) -> HookResult:
        event = data["hook_event_name"]
        env = {**os.environ, **self.config.env}
        timeout = h.timeout if h.timeout is not None else 10.0
        start = time.monotonic()
        try:
            res = post_json(h.url or "", json.dumps(data).encode(), headers=expand_headers(h.headers, env),
                            timeout=timeout, policy=self.config.http_policy)
        except HttpHookSecurityError as err:
            return HookResult(h.id, "http", "refused", str(err), duration=time.monotonic() - start)
        except HttpHookError as err:
            return HookResult(h.id, "http", "error", str(err), duration=time.monotonic() - start)
        r = HookResult(h.id, "http", "success", duration=time.monotonic() - start)
        fields = parse_json_object(res.body)
        if fields is not None:
            apply_output(r, fields, event)
        return r
