"""One gate for a tool call: ``session.before_tool(...)`` and ``session.after_tool(...)``.

Every host checks a model's tool call the same way, in the order Claude Code does it
(code.claude.com/docs/en/hooks, /permissions):

1. ``PreToolUse`` hooks (they may block, rewrite the input, or decide);
2. the permission rules, combined with the hooks' decision (deny > ask > allow);
   an ``ask`` goes to the user (:meth:`ToolGate.answer`, or the ``ask`` callback);
3. the active skill workflows' ``allowed-tools``;
4. the rules barrier: a write whose paths have rules the model has not seen is held
   back with those rules; a read carries them with its result.

Then the host runs the tool and calls :meth:`ToolGate.after_tool`: ``PostToolUse``
hooks and the repetition monitor.

:class:`ToolGate` is that sequence, once. It reaches each guard through the session
(``hook_runner``, the ``permissions``, ``skill_workflows`` and ``rules`` components),
never by importing a built-in; a guard that is not there (its built-in blocked) or a
hook that did not run (not approved) is listed in :attr:`ToolDecision.skipped`, never
dropped silently. Host tool names and argument names map to what hooks and permission
rules match on through one table of :class:`ToolSpec`.

The async twins (:meth:`ToolGate.abefore_tool`, :meth:`ToolGate.aafter_tool`) run the
same steps on the event loop: the hook runner's :meth:`arun
<wskit.builtin_plugins.hooks.runner.HookRunner.arun>` starts command hooks as ``asyncio``
subprocesses and posts HTTP hooks through an async client, so nothing blocks the loop;
cancelling the awaiting task kills the hooks' process groups. Both paths share every
decision step after the hooks, so they give the same answers.
"""

from __future__ import annotations

import json
import os
import posixpath
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from wskit.errors import WskitError
from wskit.models import ToolKind
from wskit.resources.hooks import MAX_TOOL_INPUT_BYTES
from wskit.values import FrozenValue

if TYPE_CHECKING:  # pragma: no cover
    from wskit.builtin_plugins.hooks.outcome import HookOutcome
    from wskit.builtin_plugins.hooks.runner import HookRunner
    from wskit.builtin_plugins.permissions import PermissionDecision
    from wskit.builtin_plugins.rules import RuleSelection
    from wskit.session import SessionResources
    from wskit.session.monitor import SelfCheckNotice

__all__ = [
    "AfterTool", "AskCallback", "AsyncAskCallback", "CLAUDE_TOOLS", "Decision", "DecisionSource", "Remember", "SkippedGuard", "ToolDecision", "ToolGate",
    "ToolSpec", "Unapproved", "UserAnswer",
]

#: allow, deny, or ask the user.
Decision = Literal["allow", "deny", "ask"]
#: What decided a call: a ``PreToolUse`` hook, the permission rules (a rule, the mode or
#: managed settings: :attr:`ToolDecision.permission` says which), the user answering an
#: ``ask``, an active skill's ``allowed-tools``, the rules barrier, a hook that could
#: not run under the ``unapproved="block"`` policy, or the gate's bound on the size of a
#: tool input (:data:`wskit.resources.hooks.MAX_TOOL_INPUT_BYTES`).
DecisionSource = Literal["hook", "permission", "user", "skill", "rules", "unapproved-hook", "input-limit"]
#: What to do with a hook that did not run because it is not approved: ``report`` it in
#: :attr:`ToolDecision.skipped` (the call goes on), or ``block`` the call.
Unapproved = Literal["report", "block"]
#: Where a user's answer to an ``ask`` is kept: this call only, the rest of the session,
#: or as a rule in a settings file (``local``: ``<project>/.claude/settings.local.json``,
#: Claude Code's "don't ask again" for the project; ``project``: ``.claude/settings.json``;
#: ``user``: ``<home>/.claude/settings.json``).
Remember = Literal["once", "session", "local", "project", "user"]

#: What the gate calls with an ``ask`` decision: the user's answer (a bool or a :class:`UserAnswer`).
AskCallback = Callable[["ToolDecision"], "bool | UserAnswer"]
#: :data:`AskCallback` for :meth:`ToolGate.abefore_tool`: it may also be a coroutine function.
AsyncAskCallback = Callable[["ToolDecision"], "bool | UserAnswer | Awaitable[bool | UserAnswer]"]

#: Where :meth:`ToolGate.answer` writes a remembered rule, relative to the project (or home).
_SETTINGS_FILES = {"local": ".claude/settings.local.json", "project": ".claude/settings.json",
                   "user": ".claude/settings.json"}
#: Largest settings file :meth:`ToolGate.answer` rewrites (bytes).
_MAX_SETTINGS_BYTES = 1 << 20
#: Characters a path or command rule would read as a wildcard: such a call is not
#: remembered by a rule derived from it (the rule would cover more than the call).
_WILDCARDS = frozenset("*?[]!\\")


class ToolSpec(FrozenValue):
    """How the gate sees one host tool.

    :ivar name: the host's tool name (what the model calls).
    :ivar matches_as: the name hooks' matchers, permission rules and skills'
        ``allowed-tools`` see (Claude Code's: ``Bash``, ``Read``, ``Write``, ``Edit``…);
        default: :attr:`name`.
    :ivar kind: what the call does for the rules barrier (:class:`~wskit.models.ToolKind`);
        default ``execute`` (held back like a write when rules apply: a tool the gate
        knows nothing about is not taken for a read).
    :ivar path_args: the input keys holding paths (relative paths are taken from the
        session's cwd); the first is also given to hooks and permission rules as
        ``file_path`` (Claude Code's key) when the input has no ``file_path``.
    :ivar command_arg: the input key holding a shell command; given to hooks and
        permission rules as ``command``.
    """

    name: str
    matches_as: str | None = None
    kind: ToolKind = ToolKind.EXECUTE
    path_args: tuple[str, ...] = ()
    command_arg: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", ToolKind.coerce(self.kind))
        if isinstance(self.path_args, str):  # ("path") is a string, not a tuple: a common slip
            object.__setattr__(self, "path_args", (self.path_args,))

    @property
    def rule_name(self) -> str:
        """The name hooks and permission rules see."""
        return self.matches_as or self.name

    def renames(self) -> dict[str, str]:
        """Host input key -> the key Claude Code's hooks and rules read."""
        out: dict[str, str] = {}
        if self.path_args and self.path_args[0] != "file_path":
            out[self.path_args[0]] = "file_path"
        if self.command_arg and self.command_arg != "command":
            out[self.command_arg] = "command"
        return out

    def claude_input(self, tool_input: Mapping[str, Any]) -> dict[str, Any]:
        """``tool_input`` with the keys Claude Code's hooks and rules read added (the host's kept)."""
        out = dict(tool_input)
        for host_key, key in self.renames().items():
            if host_key in out and key not in out:
                out[key] = out[host_key]
        return out

    def host_input(self, updated: Mapping[str, Any], original: Mapping[str, Any]) -> dict[str, Any]:
        """A hook's ``updatedInput`` (Claude Code's keys) back in the host's keys."""
        out = dict(updated)
        for host_key, key in self.renames().items():
            if key in out and key not in original:
                out[host_key] = out.pop(key)
        return out

    def command(self, tool_input: Mapping[str, Any]) -> str | None:
        """The shell command of a call, or None."""
        key = self.command_arg or ("command" if self.kind is ToolKind.SHELL else None)
        value = tool_input.get(key) if key else None
        return value if isinstance(value, str) else None

    def input_problems(self, tool_input: Mapping[str, Any]) -> list[str]:
        """Why the gate cannot read what this spec says a call holds: a :attr:`command_arg`
        the input does not have as a string (the call is then judged as one without a
        command, which a host would not notice: a misspelt key, a tool table that does not
        fit the tool). One sentence per problem, for :attr:`ToolDecision.warnings`."""
        if not self.command_arg:
            return []
        value = tool_input.get(self.command_arg)
        if isinstance(value, str):
            return []
        keys = ", ".join(repr(k)[:40] for k in list(tool_input)[:8]) + (", …" if len(tool_input) > 8 else "")
        what = f"holds {type(value).__name__} at" if self.command_arg in tool_input else "has no"
        return [f"tool {self.name!r}: the input {what} {self.command_arg!r} (ToolSpec.command_arg), so the call "
                f"is judged as one without a command; its keys: {keys or 'none'}"]

    def paths(self, tool_input: Mapping[str, Any]) -> list[str]:
        """The paths of a call (strings, as given)."""
        out: list[str] = []
        for key in self.path_args:
            value = tool_input.get(key)
            if isinstance(value, str) and value:
                out.append(value)
            elif isinstance(value, (list, tuple)):
                out.extend(v for v in value if isinstance(v, str) and v)
        return out


#: Claude Code's own tools, for hosts that use its names (the default table).
CLAUDE_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("Read", kind=ToolKind.READ, path_args=("file_path",)),
    ToolSpec("NotebookRead", kind=ToolKind.READ, path_args=("notebook_path",)),
    ToolSpec("Grep", kind=ToolKind.READ, path_args=("path",)),
    ToolSpec("Glob", kind=ToolKind.READ, path_args=("path",)),
    ToolSpec("LS", kind=ToolKind.READ, path_args=("path",)),
    ToolSpec("Write", kind=ToolKind.WRITE, path_args=("file_path",)),
    ToolSpec("Edit", kind=ToolKind.EDIT, path_args=("file_path",)),
    ToolSpec("MultiEdit", kind=ToolKind.EDIT, path_args=("file_path",)),
    ToolSpec("NotebookEdit", kind=ToolKind.EDIT, path_args=("notebook_path",)),
    ToolSpec("Bash", kind=ToolKind.SHELL, command_arg="command"),
    ToolSpec("WebFetch", kind=ToolKind.READ),
    ToolSpec("WebSearch", kind=ToolKind.READ),
)


class SkippedGuard(FrozenValue):
    """A guard that did not look at the call.

    :ivar guard: ``hook`` (a hook that did not run: not approved, disabled, its trust
        failed; or one that ran and did not decide, reason ``failed``: timed out, not
        found, killed — ``HookResult.failure``), or the session component or service that is missing
        (``hooks``, ``permissions``, ``skill_workflows``, ``rules``).
    :ivar id: the hook's id, or the guard's name.
    :ivar reason: ``awaiting-approval``, the hook's trust state, or ``unavailable``.
    :ivar message: one sentence for the host's user.
    """

    guard: str
    id: str
    reason: str
    message: str

    def to_json(self) -> dict[str, str]:
        """``{"guard", "id", "reason", "message"}``."""
        return {"guard": self.guard, "id": self.id, "reason": self.reason, "message": self.message}


class UserAnswer(FrozenValue):
    """The user's answer to an ``ask`` (what an ``ask`` callback may return instead of a bool).

    :ivar approved: yes or no. :ivar remember: see :data:`Remember`.
    :ivar rule: the rule to remember (default: one derived from the call, exactly it).
    """

    approved: bool
    remember: Remember = "once"
    rule: str | None = None


class ToolDecision(FrozenValue):
    """The gate's one answer for a tool call.

    :ivar decision: ``allow``, ``deny`` or ``ask``.
    :ivar reason: one sentence naming what decided (the hook's reason, the rule and its
        file, the mode, the skill, the rules barrier).
    :ivar source: what decided (:data:`DecisionSource`).
    :ivar tool: the host's tool name. :ivar tool_use_id: the call's id, if given.
    :ivar input: the input to run the tool with (a ``PreToolUse`` hook may have rewritten
        it), in the host's keys.
    :ivar rules_text: contextual rules for the model (``<contextual-project-instructions>``),
        ``""`` when none: with a denial by the rules barrier it is the whole answer to
        send back (the model retries after reading it); with an allowed call, send it
        with the tool's result (:meth:`AfterTool.for_model` does).
    :ivar rules: the rules' selection (its ``ids``, ``files``…), or None.
    :ivar skipped: guards that did not look at the call (:class:`SkippedGuard`).
    :ivar warnings: hook warnings and inputs the tool's spec cannot read
        (:meth:`ToolSpec.input_problems`), for the host's user (not the model).
    :ivar context: ``additionalContext`` of the ``PreToolUse`` hooks, for the model.
    :ivar permission: the permission rules' answer (``rule``, ``layer``, ``by``), or None.
    :ivar hook: the ``PreToolUse`` outcome, or None.
    """

    decision: Decision
    reason: str
    source: DecisionSource
    tool: str
    input: dict[str, Any]
    tool_use_id: str | None = None
    rules_text: str = ""
    rules: RuleSelection | None = None
    skipped: tuple[SkippedGuard, ...] = ()
    warnings: tuple[str, ...] = ()
    context: str = ""
    permission: PermissionDecision | None = None
    hook: HookOutcome | None = None

    @property
    def allowed(self) -> bool:
        """True for ``allow``."""
        return self.decision == "allow"

    def message(self) -> str:
        """What the model gets instead of a result when the call does not run: the
        reason, and the contextual rules when the rules barrier held the call back."""
        if self.source == "rules":
            return f"{self.reason}\n\n{self.rules_text}" if self.rules_text else self.reason
        return f"{self.decision}: {self.reason}"

    def to_json(self) -> dict[str, Any]:
        """JSON form (for logs and audit): the fields above, the permission answer's JSON."""
        return {"decision": self.decision, "reason": self.reason, "source": self.source, "tool": self.tool,
                "tool_use_id": self.tool_use_id, "input": self.input, "rules_text": self.rules_text,
                "rule_ids": list(getattr(self.rules, "ids", ()) or ()),
                "skipped": [s.to_json() for s in self.skipped], "warnings": list(self.warnings),
                "context": self.context,
                "permission": self.permission.to_json() if self.permission is not None else None}


class AfterTool(FrozenValue):
    """What :meth:`ToolGate.after_tool` found.

    :ivar context: ``additionalContext`` of the ``PostToolUse`` hooks, for the model.
    :ivar blocked: a ``PostToolUse`` hook said ``decision: block``; :ivar reason: its reason
        (Claude Code gives it to the model).
    :ivar rules_text: the contextual rules the gate attached to this call.
    :ivar notice: the repetition monitor's self-check notice, or None.
    :ivar skipped: hooks that did not run. :ivar warnings: for the host's user.
    :ivar hook: the ``PostToolUse`` outcome, or None.
    """

    context: str = ""
    blocked: bool = False
    reason: str = ""
    rules_text: str = ""
    notice: SelfCheckNotice | None = None
    skipped: tuple[SkippedGuard, ...] = ()
    warnings: tuple[str, ...] = ()
    hook: HookOutcome | None = None

    def for_model(self, result: str) -> str:
        """``result`` followed by the contextual rules, the hooks' context, a blocking hook's
        reason and the self-check notice (each a paragraph, those present only)."""
        parts = [result, self.rules_text, self.context, self.reason if self.blocked else "",
                 self.notice.message if self.notice is not None else ""]
        return "\n\n".join(p for p in parts if p)


class ToolGate:
    """The tool-call gate of one session (``session.gate``; see the module docstring).

    :param session: the :class:`~wskit.session.SessionResources`.
    :param tools: the host's tools; a tool not named here is taken as itself with kind
        ``execute`` (default: :data:`CLAUDE_TOOLS`).
    :param unapproved: see :data:`Unapproved`; passed to the hook runner with every
        ``PreToolUse`` run. None (default): the runner's own policy
        (:attr:`HookRunnerConfig.unapproved <wskit.builtin_plugins.hooks.runner.HookRunnerConfig>`,
        ``report`` unless the host set it), so a runner configured to block is never
        weakened by a gate that was not told anything.
    """

    def __init__(self, session: SessionResources, tools: Iterable[ToolSpec] = CLAUDE_TOOLS, *,
                 unapproved: Unapproved | None = None) -> None:
        if unapproved not in (None, "report", "block"):
            raise ValueError(f"unapproved must be 'report' or 'block', not {unapproved!r}")
        self.session = session
        self.unapproved: Unapproved | None = unapproved
        self.tools: dict[str, ToolSpec] = {}
        for spec in tools:
            if spec.name in self.tools:
                raise ValueError(f"tool {spec.name!r} is named twice in the tool table")
            self.tools[spec.name] = spec
        self._calls = 0
        self._lock = threading.Lock()

    def spec(self, tool: str) -> ToolSpec:
        """The :class:`ToolSpec` of ``tool`` (its own, or the default: itself, kind ``execute``)."""
        return self.tools.get(tool) or ToolSpec(tool)

    # -- before ----------------------------------------------------------------------------

    def before_tool(self, tool: str, tool_input: Mapping[str, Any] | None = None, *,
                    tool_use_id: str | None = None, ask: AskCallback | None = None) -> ToolDecision:
        """Decide one tool call: hooks, permission rules, skill workflows, rules barrier.

        :param tool: the host's tool name. :param tool_input: the arguments the model sent.
        :param tool_use_id: the call's id (hooks run once per id and event).
        :param ask: called with the ``ask`` decision; its answer (a bool or a
            :class:`UserAnswer`) goes to :meth:`answer`. Without it an ``ask`` is returned.
        :returns: a :class:`ToolDecision`; a deny (source ``input-limit``) with no hook run
            when the input's JSON is over :data:`~wskit.resources.hooks.MAX_TOOL_INPUT_BYTES`.
        """
        spec, original, skipped, warnings, runner = self._begin(tool, tool_input)
        refused = self._too_large(spec, tool, original, tool_use_id, warnings)
        if refused is not None:
            return refused
        pre = None
        if runner is not None:
            pre = runner.run("PreToolUse", self._payload(spec, original, tool_use_id), unapproved=self.unapproved)
            self._note(pre, skipped, warnings)
        decided = self._decide(spec, tool, original, tool_use_id, pre, skipped, warnings)
        if decided.decision != "ask" or ask is None:
            return decided
        reply = ask(decided)
        return self.answer(decided, reply if isinstance(reply, UserAnswer) else UserAnswer(bool(reply)))

    async def abefore_tool(self, tool: str, tool_input: Mapping[str, Any] | None = None, *,
                           tool_use_id: str | None = None, ask: AsyncAskCallback | None = None) -> ToolDecision:
        """:meth:`before_tool` on the event loop: the ``PreToolUse`` hooks run through
        :meth:`HookRunner.arun <wskit.builtin_plugins.hooks.runner.HookRunner.arun>` (asyncio
        subprocesses, an async HTTP client); every later step is :meth:`before_tool`'s own.

        :param ask: as :meth:`before_tool`'s, or a coroutine function (awaited); a plain
            function is called in a worker thread (it may wait for a person).
        :raises asyncio.CancelledError: the awaiting task was cancelled: the hooks still
            running are killed (their process groups) and nothing is decided.
        """
        import asyncio  # the async twins only: the sync gate never imports it
        import inspect

        spec, original, skipped, warnings, runner = self._begin(tool, tool_input)
        refused = self._too_large(spec, tool, original, tool_use_id, warnings)
        if refused is not None:
            return refused
        pre = None
        if runner is not None:
            pre = await runner.arun("PreToolUse", self._payload(spec, original, tool_use_id),
                                    unapproved=self.unapproved)
            self._note(pre, skipped, warnings)
        decided = self._decide(spec, tool, original, tool_use_id, pre, skipped, warnings)
        if decided.decision != "ask" or ask is None:
            return decided
        if inspect.iscoroutinefunction(ask):
            reply = await ask(decided)
        else:
            reply = await asyncio.to_thread(ask, decided)
            if inspect.isawaitable(reply):
                reply = await reply
        answer = reply if isinstance(reply, UserAnswer) else UserAnswer(bool(reply))
        if answer.remember in ("local", "project", "user"):  # a settings file written under its lock
            return await asyncio.to_thread(self.answer, decided, answer)
        return self.answer(decided, answer)

    def _decide(self, spec: ToolSpec, tool: str, original: dict[str, Any], tool_use_id: str | None,
                pre: HookOutcome | None, skipped: list[SkippedGuard], warnings: list[str]) -> ToolDecision:
        """Every step after the ``PreToolUse`` hooks (shared by :meth:`before_tool` and
        :meth:`abefore_tool`): the hooks' block, the permission rules with the hooks'
        decision, then :meth:`_after_permission`. An ``ask`` is returned, not asked."""
        args = spec.host_input(pre.updated_input, original) if pre is not None and pre.updated_input else original
        base = ToolDecision("allow", "", "permission", tool, args, tool_use_id, skipped=tuple(skipped),
                            warnings=tuple(warnings), context=pre.context if pre is not None else "", hook=pre)
        if pre is not None and pre.blocked:
            # the runner's unapproved="block" policy blocks with a result named after the skipped guard
            blocker = next((r.hook_id for r in pre.results if r.status in ("blocked", "refused")), None)
            by_policy = (blocker is not None and any(s.hook_id == blocker for s in pre.skipped)) \
                or (blocker is None and bool(pre.failed))  # a failed guard under unapproved="block"
            return base.copy_with(decision="deny", reason=pre.reason or "a PreToolUse hook blocked the call",
                                  source="unapproved-hook" if by_policy else "hook")
        try:
            perm = self.session.component("permissions").check(spec.rule_name, spec.claude_input(args), hook=pre)
        except LookupError:  # the permissions built-in is blocked: said, not silent
            perm = None
            base = base.copy_with(skipped=base.skipped + (_unavailable("permissions"),),
                           reason="no permission rules in this session (see skipped)")
        if perm is not None:
            base = base.copy_with(permission=perm)
            source: DecisionSource = "hook" if perm.by == "hook" else "permission"
            if perm.decision in ("deny", "ask"):
                reason = pre.reason if source == "hook" and pre is not None and pre.reason else perm.reason
                return base.copy_with(decision=perm.decision, reason=reason, source=source)
            base = base.copy_with(reason=perm.reason, source=source)
        return self._after_permission(spec, base)

    def _after_permission(self, spec: ToolSpec, base: ToolDecision) -> ToolDecision:
        """Steps 3 and 4 for a call the hooks and permission rules let through."""
        try:
            workflows = self.session.component("skill_workflows")
        except LookupError:
            workflows = None
            base = base.copy_with(skipped=base.skipped + (_unavailable("skill_workflows"),))
        if workflows is not None:
            allowed = workflows.check(spec.rule_name, spec.command(base.input))
            if not allowed.allowed:
                return base.copy_with(decision="deny", reason=allowed.reason, source="skill")
        try:
            rules = self.session.component("rules")
        except LookupError:
            return base.copy_with(skipped=base.skipped + (_unavailable("rules"),))
        root = str(self.session.binding.cwd)
        paths = [p if os.path.isabs(p) else posixpath.join(root, p) for p in spec.paths(base.input)]
        gate = rules.check_invocation(spec.name, spec.kind, paths)
        selection = gate.rules
        text = selection.render_text() if selection is not None and selection.files else ""
        if text:
            # the decision carries them to the model (with the denial, or with the result)
            rules.mark_delivered(selection)
        base = base.copy_with(rules=selection, rules_text=text)
        if not gate.proceed:
            return base.copy_with(decision="deny", source="rules", reason=gate.message)
        return base

    def answer(self, decision: ToolDecision, answer: bool | UserAnswer, *, remember: Remember | None = None,
               rule: str | None = None) -> ToolDecision:
        """The user's answer to an ``ask`` decision: the call's final decision.

        A yes goes on to the skill workflows and the rules barrier (which may still hold
        it back); a no denies (source ``user``). With ``remember`` other than ``once`` the
        answer is kept as a permission rule (``rule``, default the call exactly:
        ``Bash(<command>)``, ``Edit(//<path>)``, ``Read(//<path>)`` or the bare tool
        name): for the rest of the session, and for ``local``, ``project`` or ``user``
        also written to that settings file, as Claude Code writes ``settings.local.json``
        (locked, atomic, no link followed, every other key kept). As in Claude Code, a
        remembered allow does not silence an ``ask`` or ``deny`` rule (deny > ask > allow).

        :raises ValueError: ``decision`` is not an ``ask``; no exact rule can be derived
            from the call (a path or command holding a wildcard): pass ``rule``.
        :raises RuleSyntaxError: ``rule`` cannot be read.
        :raises WskitError: the settings file cannot be written (it is left as it was).
        """
        if decision.decision != "ask":
            raise ValueError(f"only an 'ask' decision takes the user's answer, not {decision.decision!r}")
        if isinstance(answer, UserAnswer):
            approved, remember, rule = answer.approved, remember or answer.remember, rule or answer.rule
        else:
            approved = bool(answer)
        remember = remember or "once"
        spec = self.spec(decision.tool)
        if remember != "once":
            self.remember(rule or self.rule_for(spec, decision.input), "allow" if approved else "deny",
                          remember)
        if not approved:
            return decision.copy_with(decision="deny", source="user", reason=f"the user declined: {decision.reason}")
        return self._after_permission(spec, decision.copy_with(decision="allow", source="user",
                                                    reason=f"the user approved: {decision.reason}"))

    def rule_for(self, spec: ToolSpec, tool_input: Mapping[str, Any]) -> str:
        """The permission rule that covers exactly this call (what :meth:`answer` remembers).

        :raises ValueError: the path or command holds a character a rule reads as a wildcard.
        """
        name = spec.rule_name
        command = spec.command(tool_input)
        if command is None and spec.kind is ToolKind.SHELL:  # the bare tool would allow every command
            raise ValueError(f"no exact rule for a {name} call without a command: pass the rule to remember")
        if command is not None:
            if set(command) & _WILDCARDS or ")" in command:
                raise ValueError(f"no exact rule for the command {command!r}: pass the rule to remember")
            return f"{name}({command})"
        paths = spec.paths(tool_input)
        if paths and spec.kind is not ToolKind.EXECUTE:
            root = str(self.session.binding.cwd)
            path = posixpath.normpath(paths[0] if os.path.isabs(paths[0]) else posixpath.join(root, paths[0]))
            if set(path) & _WILDCARDS or ")" in path:
                raise ValueError(f"no exact rule for the path {path!r}: pass the rule to remember")
            return f"{'Read' if spec.kind is ToolKind.READ else 'Edit'}(/{path})"
        return name

    def remember(self, rule: str, behavior: Literal["allow", "deny"], where: Remember) -> None:
        """Keep ``rule`` for the rest of the session and, for ``local``, ``project`` and
        ``user``, in that settings file's ``permissions.<behavior>`` list.

        :raises RuleSyntaxError: ``rule`` cannot be read (nothing is kept).
        :raises WskitError: the settings file cannot be written (left as it was).
        """
        permissions = self.session.component("permissions")
        permissions.allow_for_session(rule, behavior=behavior)  # parses it first: a bad rule is written nowhere
        if where in ("once", "session"):
            return
        if where not in _SETTINGS_FILES:
            raise ValueError(f"remember must be one of once, session, local, project, user; not {where!r}")
        _add_rule_to_settings(self.session, rule, behavior, where)

    # -- after -----------------------------------------------------------------------------

    def after_tool(self, tool: str, tool_input: Mapping[str, Any] | None, result: Any, *,
                   tool_use_id: str | None = None, decision: ToolDecision | None = None,
                   turn: int | None = None) -> AfterTool:
        """After the host ran a call: ``PostToolUse`` hooks (with ``tool_response``) and the
        repetition monitor.

        :param result: what the tool returned (JSON-able: a string, a dict…).
        :param decision: the call's :class:`ToolDecision`: its contextual rules are attached.
        :param turn: the model turn (for the monitor's notice).
        """
        spec, args, skipped, warnings, runner = self._begin(tool, tool_input)
        post = None
        if runner is not None:
            post = runner.run("PostToolUse", self._payload(spec, args, tool_use_id, response=result))
            self._note(post, skipped, warnings)
        return self._after(tool, args, result, decision, turn, post, skipped, warnings)

    async def aafter_tool(self, tool: str, tool_input: Mapping[str, Any] | None, result: Any, *,
                          tool_use_id: str | None = None, decision: ToolDecision | None = None,
                          turn: int | None = None) -> AfterTool:
        """:meth:`after_tool` on the event loop (the ``PostToolUse`` hooks through
        :meth:`HookRunner.arun <wskit.builtin_plugins.hooks.runner.HookRunner.arun>`).

        :raises asyncio.CancelledError: the awaiting task was cancelled (its hooks are killed)."""
        spec, args, skipped, warnings, runner = self._begin(tool, tool_input)
        post = None
        if runner is not None:
            post = await runner.arun("PostToolUse", self._payload(spec, args, tool_use_id, response=result))
            self._note(post, skipped, warnings)
        return self._after(tool, args, result, decision, turn, post, skipped, warnings)

    def _after(self, tool: str, args: dict[str, Any], result: Any, decision: ToolDecision | None,
               turn: int | None, post: HookOutcome | None, skipped: list[SkippedGuard],
               warnings: list[str]) -> AfterTool:
        """The monitor and the :class:`AfterTool` (shared by :meth:`after_tool` and :meth:`aafter_tool`)."""
        with self._lock:
            self._calls += 1
            turn = turn if turn is not None else self._calls
        notice = self.session.runtime.monitor.record_tool_call(tool, args, _jsonable(result), turn=turn)
        return AfterTool(context=post.context if post is not None else "",
                         blocked=bool(post is not None and post.blocked),
                         reason=post.reason if post is not None else "",
                         rules_text=decision.rules_text if decision is not None else "",
                         notice=notice, skipped=tuple(skipped), warnings=tuple(warnings), hook=post)

    # -- hooks -----------------------------------------------------------------------------

    def _begin(self, tool: str, tool_input: Mapping[str, Any] | None
               ) -> tuple[ToolSpec, dict[str, Any], list[SkippedGuard], list[str], HookRunner | None]:
        """A call's spec, its input (a copy), the skipped guards and warnings to fill, the hook runner."""
        skipped: list[SkippedGuard] = []
        spec, args = self.spec(tool), dict(tool_input or {})
        # an input the spec cannot read is said, never judged silently as empty
        return spec, args, skipped, spec.input_problems(args), self._runner(skipped)

    @staticmethod
    def _too_large(spec: ToolSpec, tool: str, original: dict[str, Any], tool_use_id: str | None,
                   warnings: list[str]) -> ToolDecision | None:
        """A denial for a call whose input is over :data:`MAX_TOOL_INPUT_BYTES` (its compact
        JSON, UTF-8), else None. The input is the model's: every guard must see any input
        the gate lets through, so the bound is the gate's, said to the model, never a hook
        that silently could not start."""
        try:
            size = len(json.dumps(spec.claude_input(original), separators=(",", ":"), ensure_ascii=False,
                                  default=str).encode("utf-8", "surrogatepass"))
        except (TypeError, ValueError, RecursionError) as err:  # not JSON: no hook could be given it
            return ToolDecision("deny", f"the {tool} input cannot be given to the hooks as JSON ({type(err).__name__})",
                                "input-limit", tool, original, tool_use_id, warnings=tuple(warnings))
        if size <= MAX_TOOL_INPUT_BYTES:
            return None
        return ToolDecision("deny", f"the {tool} input is {size} bytes, over the {MAX_TOOL_INPUT_BYTES}-byte bound "
                            "on a tool input; send a smaller input", "input-limit", tool, original, tool_use_id,
                            warnings=tuple(warnings))

    def _runner(self, skipped: list[SkippedGuard]) -> HookRunner | None:
        """The session's hook runner, or None (listed in ``skipped``) when the hooks built-in is blocked."""
        try:
            return self.session.hook_runner
        except LookupError:
            skipped.append(_unavailable("hooks"))
            return None

    @staticmethod
    def _payload(spec: ToolSpec, tool_input: Mapping[str, Any], tool_use_id: str | None,
                 **response: Any) -> dict[str, Any]:
        """Claude Code's hook input for a call (``PostToolUse`` passes ``response=``: its
        ``tool_response``, present even when None)."""
        payload: dict[str, Any] = {"tool_name": spec.rule_name, "tool_input": spec.claude_input(tool_input)}
        if tool_use_id is not None:
            payload["tool_use_id"] = tool_use_id
        if "response" in response:
            payload["tool_response"] = response["response"]
        return payload

    @staticmethod
    def _note(outcome: HookOutcome, skipped: list[SkippedGuard], warnings: list[str]) -> None:
        # a skipped hook whose exact-name matcher does not name this tool would not have looked at it
        skipped.extend(SkippedGuard("hook", s.hook_id, s.reason, s.message) for s in outcome.skipped
                       if getattr(s, "may_match", True))
        # a guard that ran without deciding (timed out, not found, killed) did not check the call either
        skipped.extend(SkippedGuard("hook", s.hook_id, "failed", s.message) for s in outcome.undecided
                       if s.state == "failed")
        warnings.extend(outcome.warnings)


def _unavailable(name: str) -> SkippedGuard:
    return SkippedGuard(name, name, "unavailable",
                        f"no {name} guard in this session (its built-in plugin is blocked): calls are not checked "
                        "by it")


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return repr(value)


def _add_rule_to_settings(session: SessionResources, rule: str, behavior: str, where: str) -> None:
    """Append ``rule`` to ``permissions.<behavior>`` of the settings file ``where`` names
    (read-modify-write under its lock, atomic, below the project or home, no link followed)."""
    from wskit.fs import jsonsafe
    from wskit.fs.atomic import StateFileError, locked_update

    if where == "user":
        profile = session.profile
        anchor = str(profile.require_home()) if profile is not None else None
        if anchor is None:
            raise WskitError("this session has no home: a user rule cannot be written")
    else:
        anchor = str(session.binding.source_root)
    target = posixpath.join(anchor, _SETTINGS_FILES[where])

    def update(raw: bytes | None) -> bytes | None:
        data: dict[str, Any] = {}
        if raw is not None:
            try:
                data = jsonsafe.loads(raw, path=target)
            except (ValueError, WskitError) as err:
                raise WskitError(f"{target} is not valid JSON ({err}); not changed") from None
            if not isinstance(data, dict):
                raise WskitError(f"{target} does not hold a JSON object; not changed")
        perms = data.get("permissions")
        if perms is None:
            perms = {}
        if not isinstance(perms, dict) or not isinstance(perms.get(behavior, []), list):
            raise WskitError(f"{target}: 'permissions.{behavior}' is not a list; not changed")
        rules = list(perms.get(behavior, []))
        if rule in rules:
            return None
        data["permissions"] = {**perms, behavior: [*rules, rule]}  # every other key kept
        return (json.dumps(data, indent=2) + "\n").encode("utf-8")

    try:
        locked_update(target, update, anchor=anchor, max_bytes=_MAX_SETTINGS_BYTES, dir_mode=0o755,
                      mode=lambda old: (0o644 if where == "project" else 0o600) if old is None else old)
    except StateFileError as err:
        raise WskitError(f"{err}; not changed") from None
