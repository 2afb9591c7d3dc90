"""Hook results and the merged outcome of one event (Claude Code's hook output
fields, reference/conventions.md §1.7; Blade's outcome rules, reference/blade.md §11.4)."""

from __future__ import annotations

from typing import Any

from wskit.fs import SafeFsError, jsonsafe
from wskit.values import Value, field

#: Skip states the user can resolve by approving the hook.
AWAITING_STATES = frozenset({"awaiting", "untrusted", "modified"})
#: Status of one hook run.
STATUSES = ("success", "blocked", "error", "timeout", "skipped", "refused")


class HookResult(Value):
    """What one hook did.

    :ivar hook_id: the :class:`~wskit.resources.hooks.HookDefinition` id (or ``function:<name>``).
    :ivar type: ``command``, ``http``, ``prompt`` or ``function``.
    :ivar status: one of :data:`STATUSES`; ``blocked`` stops a ``PreToolUse`` run.
    :ivar message: reason, error text or skip warning.
    :ivar exit_code: command hooks only. :ivar output: the parsed JSON object, if any.
    :ivar stdout_truncated, stderr_truncated: output went past the cap (command hooks).
    :ivar duration: seconds.
    :ivar context: plain (non-JSON) stdout of a command hook that exited 0 on an event
        where Claude Code adds it to the context (``SessionStart``, ``UserPromptSubmit``,
        ``UserPromptExpansion``); merged into ``HookOutcome.additional_context``.
    :ivar restrict_only: the handler ran without its unparsable ``if``: its ``allow``
        decision and ``updatedInput`` are dropped, blocks and ``ask`` still count.
    :ivar changed: what of an approved hook's covered files changed while it ran
        (``.claude/hooks/g.sh changed``): its answer was not taken (:attr:`failure` is
        ``changed while it ran``).
    :ivar skip_state: for a hook that did not start (status ``skipped``), the approval state
        that stopped it (``modified``: its covered files changed since approved), listed as
        such in :attr:`HookOutcome.skipped`.
    """

    hook_id: str
    type: str
    status: str
    message: str = ""
    exit_code: int | None = None
    output: dict[str, Any] | None = None
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    duration: float = 0.0
    context: str = ""
    restrict_only: bool = False
    changed: str = ""
    skip_state: str = ""

    @property
    def failure(self) -> str:
        """Why this hook ran without deciding, in words, or ``""`` when it decided: ``timeout``;
        ``not found`` (exit 127), ``not executable`` (126), ``killed by signal N`` (a negative
        status, or above 128 as a shell reports it), ``could not start`` (no exit status: the
        process, the HTTP request or the callback failed), ``unreadable output`` (exit 0 with
        output the protocol refuses). Claude Code counts each as a non-blocking error, and so
        does the decision here; but such a guard did not check the call, so the outcome lists
        it in :attr:`HookOutcome.undecided`. Any other exit status (1, 3…) is the hook's own
        non-blocking error: it ran and said so (a Python traceback exits 1 too, and reads the same).
        ``changed while it ran``: an approved hook whose covered files changed during the run
        (:attr:`changed`): what ran may not be what was approved, so its answer is not taken."""
        if self.changed:
            return "changed while it ran"
        if self.status == "timeout":
            return "timeout"
        if self.status != "error":
            return ""
        code = self.exit_code
        if code is None:
            return "could not start"
        if code == 127:
            return "not found"
        if code == 126:
            return "not executable"
        if code < 0 or code > 128:
            return f"killed by signal {-code if code < 0 else code - 128}"
        return "unreadable output" if code == 0 else ""

    def to_json(self) -> dict[str, Any]:
        return {
            "hook_id": self.hook_id, "type": self.type, "status": self.status, "message": self.message,
            "exit_code": self.exit_code, "output": self.output, "stdout_truncated": self.stdout_truncated,
            "stderr_truncated": self.stderr_truncated, "duration": round(self.duration, 3),
        }


class SkippedHook(Value):
    """A hook of the event that did not run: its approval state does not let it, or nothing
    can run it.

    :ivar hook_id, type, scope: the definition's. :ivar state: why: ``awaiting``
        (never approved), ``modified`` (changed since approved), ``untrusted`` (a host's
        trust without approvals), ``untrusted-project`` (the user's hook names a file of a
        project that is not trusted), ``denied``, ``disabled`` (hooks switched off),
        ``error`` (approval unknown), ``no-handler`` (a prompt hook without a prompt handler,
        a function hook nobody registered); in :attr:`HookOutcome.undecided` only, ``failed``
        (it ran and did not decide: :attr:`HookResult.failure`). :ivar message: the warning text, naming the hook
        and why. :ivar matcher: its matcher as written (never evaluated as a pattern).
    :ivar may_match: False only when its matcher is a list of exact names (``Read``,
        ``Edit|Write``) that does not name the call's tool (or event value): it would not have
        run even if approved. Any other matcher may match.
    """

    hook_id: str
    type: str
    scope: str
    state: str
    message: str
    matcher: str = ""
    may_match: bool = True

    @property
    def reason(self) -> str:
        """``awaiting-approval`` (awaiting, untrusted or modified: ``wsctl hooks status`` shows
        the entry) or the state."""
        return "awaiting-approval" if self.state in AWAITING_STATES else self.state

    @property
    def undecided(self) -> bool:
        """True when this guard did not run without the user having decided so (every state
        but ``disabled`` and ``denied``) and its matcher matches the call or may
        (:attr:`may_match`): the call was not checked by it."""
        return self.may_match and self.state not in ("disabled", "denied")

    def to_json(self) -> dict[str, Any]:
        return {"hook_id": self.hook_id, "type": self.type, "scope": self.scope, "state": self.state,
                "reason": self.reason, "message": self.message, "matcher": self.matcher,
                "may_match": self.may_match}


class HookOutcome(Value):
    """The merged outcome of one event.

    :ivar event: the event name. :ivar blocked: a hook blocked (exit 2, ``decision: block``,
        ``permissionDecision: deny``, or an HTTP hook URL the policy refused — a blocking
        error, as Blade's ``HttpHookSecurityError``).
    :ivar reason: the blocking hook's reason; when nothing blocked, the
        ``permissionDecisionReason`` of the hook whose decision won.
    :ivar permission_decision: ``allow``, ``ask``, ``defer``, ``deny`` or None (PreToolUse);
        several hooks combine as deny > defer > ask > allow (Claude Code).
    :ivar updated_input: the tool input after every ``updatedInput`` merge (None: unchanged).
    :ivar additional_context: ``additionalContext`` strings in hook order.
    :ivar system_messages: ``systemMessage`` strings in hook order.
    :ivar continue_: False when a hook said ``continue: false``. :ivar stop_reason: its ``stopReason``.
    :ivar warnings: skipped hooks (trust), malformed output…
    :ivar skipped: the hooks of the event that did not run because of their approval state
        or because nothing can run them, one :class:`SkippedHook` each with its reason (the
        matchers of unapproved hooks are not evaluated, so every such hook of the event is
        listed); :attr:`awaiting_approval` counts those a user can approve, :attr:`undecided`
        those nobody decided to switch off.
    :ivar results: one :class:`HookResult` per hook considered.
    :ivar repeated: True when this outcome was recorded earlier for the same (tool call, event).
    """

    event: str
    blocked: bool = False
    reason: str = ""
    permission_decision: str | None = None
    updated_input: dict[str, Any] | None = None
    additional_context: list[str] = field(default_factory=list)
    system_messages: list[str] = field(default_factory=list)
    continue_: bool = True
    stop_reason: str = ""
    warnings: list[str] = field(default_factory=list)
    results: list[HookResult] = field(default_factory=list)
    repeated: bool = False
    skipped: list[SkippedHook] = field(default_factory=list)

    @property
    def awaiting_approval(self) -> int:
        """How many of :attr:`skipped` await the user's approval (``awaiting``, ``untrusted`` or ``modified``)."""
        return sum(1 for s in self.skipped if s.reason == "awaiting-approval")

    @property
    def failed(self) -> list[HookResult]:
        """The hooks that ran but did not decide: timed out, could not start, were not found,
        were killed, or answered what the protocol refuses (:attr:`HookResult.failure`)."""
        return [r for r in self.results if r.failure]

    @property
    def undecided(self) -> list[SkippedHook]:
        """The guards of the event that did not check the call although nobody decided they
        should not: those that did not run (:attr:`SkippedHook.undecided`), then those that
        failed (:attr:`failed`, each as a :class:`SkippedHook` of state ``failed`` whose
        message says how). When this is not empty and nothing blocked, the outcome is *not
        decided*, never "allowed" — the host decides (or runs with ``unapproved="block"``)."""
        out = [s for s in self.skipped if s.undecided]
        out += [SkippedHook(r.hook_id, r.type, "", "failed", f"guard {r.hook_id} failed ({r.failure}): {r.message}")
                for r in self.failed]
        return out

    @property
    def context(self) -> str:
        """``additional_context`` joined by blank lines (Blade's PostToolUse rule)."""
        return "\n\n".join(self.additional_context)

    def to_json(self) -> dict[str, Any]:
        """JSON form (``wsctl hooks run --json``): the keys documented in docs/wsctl.md."""
        return {
            "event": self.event, "blocked": self.blocked, "reason": self.reason,
            "permission_decision": self.permission_decision, "updated_input": self.updated_input,
            "additional_context": list(self.additional_context), "system_messages": list(self.system_messages),
            "continue": self.continue_, "stop_reason": self.stop_reason, "warnings": list(self.warnings),
            "repeated": self.repeated, "results": [r.to_json() for r in self.results],
            "skipped": [s.to_json() for s in self.skipped], "awaiting_approval": self.awaiting_approval,
            "undecided": len(self.undecided),
            "failed": [{"hook_id": r.hook_id, "failure": r.failure} for r in self.failed],
        }


def parse_json_object(text: str) -> dict[str, Any] | None:
    """``text`` as one JSON object, or None when it is not exactly one."""
    s = text.strip()
    if not s.startswith("{"):
        return None
    try:
        value = jsonsafe.loads(s)
    except (ValueError, SafeFsError):  # hook stdout is untrusted: never a RecursionError
        return None
    return value if isinstance(value, dict) else None


def apply_output(result: HookResult, fields: dict[str, Any], event: str) -> None:
    """Interpret Claude Code's output fields into ``result`` (status, message).

    ``decision: "block"`` and ``hookSpecificOutput.permissionDecision: "deny"``
    block; a ``hookSpecificOutput.hookEventName`` naming another event is an
    error (Blade validates it).
    """
    result.output = fields
    spec = fields.get("hookSpecificOutput")
    if spec is not None and not isinstance(spec, dict):
        result.status, result.message = "error", "hookSpecificOutput must be an object"
        return
    if isinstance(spec, dict) and spec.get("hookEventName") not in (None, event):
        result.status = "error"
        result.message = f"hookSpecificOutput.hookEventName {spec.get('hookEventName')!r} does not match {event!r}"
        return
    if fields.get("decision") == "block":
        result.status = "blocked"
        result.message = str(fields.get("reason") or fields.get("systemMessage") or "Hook blocked execution")
    elif isinstance(spec, dict) and spec.get("permissionDecision") == "deny":
        result.status = "blocked"
        result.message = str(spec.get("permissionDecisionReason") or fields.get("reason") or "Hook denied the tool call")
    elif isinstance(spec, dict) and spec.get("permissionDecision") in ("allow", "ask", "defer"):
        why = spec.get("permissionDecisionReason")
        result.message = spec["permissionDecision"] + (f": {why}" if why else "")


#: Precedence of permission decisions from several hooks (Claude Code: deny > defer > ask > allow).
DECISION_RANK = {"allow": 1, "ask": 2, "defer": 3, "deny": 4}


def merge(outcome: HookOutcome, result: HookResult, tool_input: dict[str, Any] | None) -> dict[str, Any] | None:
    """Fold ``result`` into ``outcome``; return the tool input after ``updatedInput``."""
    outcome.results.append(result)
    if result.status in ("blocked", "refused") and not outcome.blocked:
        outcome.blocked, outcome.reason = True, result.message
        outcome.permission_decision = "deny" if outcome.event in ("PreToolUse", "PermissionRequest") else None
    fields = result.output or {}
    if result.status not in ("success", "blocked"):
        return tool_input
    spec = fields.get("hookSpecificOutput") if isinstance(fields.get("hookSpecificOutput"), dict) else {}
    if isinstance(fields.get("systemMessage"), str):
        outcome.system_messages.append(fields["systemMessage"])
    ctx = spec.get("additionalContext")
    if isinstance(ctx, str) and ctx:
        outcome.additional_context.append(ctx)
    if result.context and result.status == "success":
        outcome.additional_context.append(result.context)
    if fields.get("continue") is False:
        outcome.continue_ = False
        outcome.stop_reason = outcome.stop_reason or str(fields.get("stopReason") or "")
    decision = spec.get("permissionDecision") or {"approve": "allow"}.get(fields.get("decision"))
    if result.restrict_only and decision == "allow":
        decision = None  # ran without its broken `if`: may restrict, never grant
    if decision in ("allow", "ask", "defer") and not outcome.blocked \
            and DECISION_RANK[decision] > DECISION_RANK.get(outcome.permission_decision or "", 0):
        outcome.permission_decision = decision
        why = spec.get("permissionDecisionReason") if spec.get("permissionDecision") else fields.get("reason")
        outcome.reason = str(why or "")
    upd = spec.get("updatedInput")
    if isinstance(upd, dict) and result.status == "success" and not result.restrict_only:
        tool_input = {**(tool_input or {}), **upd}
        outcome.updated_input = tool_input
    return tool_input
