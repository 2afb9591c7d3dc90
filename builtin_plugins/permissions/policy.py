"""The permission policy of a workspace: the ``permissions`` objects of its settings
layers, and :meth:`PermissionPolicy.check`, which decides one tool call.

Layers and their order follow Claude Code (code.claude.com/docs/en/permissions,
/settings): managed settings (the path the host names), the user's
``~/.claude/settings.json`` and ``~/.<host>/settings.json``, the project's
``.claude/settings.json`` (and ``.<host>/``), the local ``settings.local.json`` files,
and the host's invocation settings (``HostProfile.settings["permissions"]``). Rules of
every layer are pooled and evaluated **deny, then ask, then allow**; the first match
decides and specificity does not matter. ``defaultMode`` and
``additionalDirectories`` come from the layers too: the mode from the
highest-precedence layer that sets one (managed, invocation, local, project, user),
the directories from all of them.

Project and local layers count only when the project is trusted: an untrusted
project's settings files are not read at all (:func:`~wskit.formats.settings.settings_layers`
names each in a ``settings-untrusted`` warning), so a repository can neither grant
itself anything nor switch a user's restriction off; a layer a caller builds with
``trusted=False`` is listed as ignored (``permissions-untrusted``), never applied. Managed settings may set
``allowManagedPermissionRulesOnly: true`` (only managed rules count; the others are
listed as ignored) and ``disableBypassPermissionsMode: "disable"`` (the
``bypassPermissions`` mode falls back to ``default``). Managed settings that the host
named but that cannot be read make every call ``deny``: an administrator's policy that
cannot be evaluated is not taken as no policy.

When no rule matches, the mode decides (Claude Code's permission modes): ``default``
allows reading tools inside the working directories and asks for everything else;
``acceptEdits`` also allows editing tools inside them; ``plan`` allows reading tools
only and denies the rest; ``dontAsk`` denies whatever no rule allows;
``bypassPermissions`` allows. The working directories are the project root, the
session's cwd and ``additionalDirectories``.

A ``PreToolUse`` hook's ``permissionDecision`` combines as Claude Code documents it:
a hook ``deny`` denies; a hook ``ask`` asks unless a rule denies; a hook ``allow``
skips the prompt the mode would show, but never a matching deny or ask rule.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from wskit.builtin_plugins.permissions import EDIT_TOOLS, READ_TOOLS, SHELL_TOOLS
from wskit.models import Diagnostic
from wskit.values import FrozenValue

if TYPE_CHECKING:
    from wskit.builtin_plugins.permissions.rules import MatchContext, PermissionRule

_rules_module: Any = None


def tool_input_mapping(tool: str, tool_input: Any) -> dict[str, Any]:
    """The tool input of a permission check as the mapping rules match against.

    Accepted shapes (docs/permissions.md, docs/integrating.md step 3): a mapping of the
    tool's arguments as the model sent them; None (no arguments); for a shell tool
    (``Bash``, ``PowerShell``) the command string, taken as ``{"command": …}``.

    :raises TypeError: any other shape, naming the accepted ones (a string for a tool
        that is not a shell is refused: which argument it is cannot be known).
    """
    if tool_input is None:
        return {}
    if isinstance(tool_input, Mapping):
        return dict(tool_input)
    if isinstance(tool_input, str) and tool in SHELL_TOOLS:
        return {"command": tool_input}
    shown = type(tool_input).__name__
    raise TypeError(f"tool_input for {tool!r} must be a mapping of the tool's arguments as the model sent them "
                    f"(e.g. {{'command': 'ls'}} or {{'file_path': 'src/a.py'}}), None, or for Bash/PowerShell "
                    f"the command string; got {shown}")


def _rules() -> Any:
    """:mod:`wskit.builtin_plugins.permissions.rules`, imported when a rule is read or a
    call checked: every workspace builds its policy, most from no rule at all (an empty
    ``inspect`` then skips the module, its dataclasses and patterns)."""
    global _rules_module
    if _rules_module is None:
        from wskit.builtin_plugins.permissions import rules

        _rules_module = rules
    return _rules_module


#: The rule lists, in evaluation order.
BEHAVIORS = ("deny", "ask", "allow")

#: Claude Code's permission modes.
MODES = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")
#: Mode precedence: the first of these scopes that sets ``defaultMode`` decides it.
_VERB = {"allow": "allows", "ask": "asks", "deny": "denies"}
_MODE_ORDER = ("managed", "session", "invocation", "local", "project", "user")


class PermissionDecision(FrozenValue):
    """The answer for one tool call (immutable; a plain class, so start-up compiles nothing:
    see :mod:`wskit.values`).

    :ivar decision: ``allow``, ``ask`` or ``deny``.
    :ivar rule: the rule that decided, or None (the mode, a hook, or unreadable managed settings).
    :ivar by: what decided: ``rule``, ``hook``, ``mode`` or ``managed``.
    :ivar reason: one sentence naming the rule and its file, the hook or the mode.
    :ivar layer: the settings layer of the deciding rule or mode (``managed``, ``user``…), or None.
    :ivar hook_decision: the hooks' ``permissionDecision`` taken into account, or None.
    """

    __slots__ = ("__weakref__",)
    decision: str
    rule: PermissionRule | None
    by: str
    reason: str
    layer: str | None
    hook_decision: str | None

    def __init__(self, decision: str, rule: PermissionRule | None, by: str, reason: str, layer: str | None = None,
                 hook_decision: str | None = None) -> None:
        _set = object.__setattr__
        _set(self, "decision", decision)
        _set(self, "rule", rule)
        _set(self, "by", by)
        _set(self, "reason", reason)
        _set(self, "layer", layer)
        _set(self, "hook_decision", hook_decision)

    @property
    def allowed(self) -> bool:
        """True for ``allow``."""
        return self.decision == "allow"

    def to_json(self) -> dict[str, Any]:
        """``{"decision", "by", "reason", "layer", "rule": {...}|null, "hook_decision"}``."""
        return {"decision": self.decision, "by": self.by, "reason": self.reason, "layer": self.layer,
                "rule": self.rule.to_json() if self.rule else None, "hook_decision": self.hook_decision}


class PermissionPolicy(FrozenValue):
    """The permission rules of one workspace (immutable; a session snapshot keeps its own;
    a plain class, so start-up compiles nothing: see :mod:`wskit.values`).

    :ivar rules: the rules that count, in layer order.
    :ivar ignored: ``(rule, why)`` for rules read but not applied (untrusted project,
        managed-only policy).
    :ivar default_mode: one of :data:`MODES`. :ivar mode_layer: the layer that set it (None: the default).
    :ivar additional_directories: absolute folders added to the working directories.
    :ivar project: the project root. :ivar home: the user home.
    :ivar managed_error: why the named managed settings could not be read (then every call is denied).
    :ivar diagnostics: invalid rules and values, each naming its file.
    """

    __slots__ = ("__weakref__",)
    rules: tuple[PermissionRule, ...]
    ignored: tuple[tuple[PermissionRule, str], ...]
    default_mode: str
    mode_layer: str | None
    additional_directories: tuple[str, ...]
    project: str
    home: str
    managed_error: str | None
    diagnostics: tuple[Diagnostic, ...]

    def __init__(self, rules: tuple[PermissionRule, ...] = (), ignored: tuple[tuple[PermissionRule, str], ...] = (),
                 default_mode: str = "default", mode_layer: str | None = None,
                 additional_directories: tuple[str, ...] = (), project: str = "/", home: str = "/",
                 managed_error: str | None = None, diagnostics: tuple[Diagnostic, ...] = ()) -> None:
        _set = object.__setattr__
        _set(self, "rules", rules)
        _set(self, "ignored", ignored)
        _set(self, "default_mode", default_mode)
        _set(self, "mode_layer", mode_layer)
        _set(self, "additional_directories", additional_directories)
        _set(self, "project", project)
        _set(self, "home", home)
        _set(self, "managed_error", managed_error)
        _set(self, "diagnostics", diagnostics)

    def with_rules(self, allow: Iterable[str] = (), ask: Iterable[str] = (), deny: Iterable[str] = ()
                   ) -> PermissionPolicy:
        """A copy with rules the host adds for this session (scope ``session``; e.g. the
        user answered "always allow").

        :raises RuleSyntaxError: a rule cannot be read.
        """
        extra = [_rules().parse_rule(t, b, "session", None, self.project)
                 for b, texts in (("allow", allow), ("ask", ask), ("deny", deny)) for t in texts]
        return self.copy_with(rules=self.rules + tuple(extra))

    def working_directories(self, cwd: str | None = None) -> list[str]:
        """The project root, ``cwd`` and the additional directories (absolute, no repeats)."""
        out: list[str] = []
        for d in (self.project, cwd, *self.additional_directories):
            if d and posixpath.normpath(d) not in out:
                out.append(posixpath.normpath(d))
        return out

    def check(self, tool: str, tool_input: Mapping[str, Any] | str | None = None, *, cwd: str | None = None,
              hook: Any = None) -> PermissionDecision:
        """Decide a call of ``tool`` with ``tool_input`` (the tool's arguments, as the model sent them).

        :param tool_input: a mapping (``{"command": "ls"}``, ``{"file_path": "src/a.py"}``…),
            None (no arguments), or for a shell tool (``Bash``, ``PowerShell``) the command
            string itself (:func:`tool_input_mapping`).
        :param cwd: the session's working directory (default: the project root); relative
            paths in rules and input are anchored there.
        :param hook: the ``PreToolUse`` outcome (a :class:`HookOutcome`, anything with a
            ``permission_decision`` attribute, or the decision string) to combine with.
        :returns: a :class:`PermissionDecision` naming what decided.
        :raises TypeError: ``tool_input`` is none of those shapes (the message names them).
        """
        tool_input = tool_input_mapping(tool, tool_input)
        hook_decision = _hook_decision(hook)
        if self.managed_error is not None:
            return PermissionDecision("deny", None, "managed", f"managed settings unreadable: {self.managed_error}",
                                      "managed", hook_decision)
        cwd = posixpath.normpath(cwd or self.project)
        ctx = None
        matched: dict[str, PermissionRule | None] = dict.fromkeys(BEHAVIORS)
        if self.rules:  # without a rule nothing matches, and the rule engine is not imported
            ctx = _rules().MatchContext(cwd=cwd, project=self.project, home=self.home)
            matched = {b: next((r for r in self.rules if r.behavior == b and r.matches(tool, tool_input, ctx)), None)
                       for b in BEHAVIORS}
        if matched["deny"] is not None:
            return self._by_rule("deny", matched["deny"], hook_decision)
        if hook_decision == "deny":
            return PermissionDecision("deny", None, "hook", "a PreToolUse hook denied the call", None, hook_decision)
        hidden = self._hidden_from(tool, tool_input, hook_decision)
        if hidden is not None:
            return hidden
        if matched["ask"] is not None:
            return self._by_rule("ask", matched["ask"], hook_decision)
        if hook_decision == "ask":
            return PermissionDecision("ask", None, "hook", "a PreToolUse hook asks for confirmation", None,
                                      hook_decision)
        if matched["allow"] is None and tool in SHELL_TOOLS and ctx is not None:
            matched["allow"] = self._allow_every_part(tool, tool_input, ctx)
        if matched["allow"] is not None:
            return self._by_rule("allow", matched["allow"], hook_decision)
        if hook_decision == "allow":
            return PermissionDecision("allow", None, "hook", "a PreToolUse hook allowed the call", None,
                                      hook_decision)
        return self._by_mode(tool, tool_input, cwd, hook_decision)

    def _hidden_from(self, tool: str, tool_input: dict, hook_decision: str | None) -> PermissionDecision | None:
        """``ask`` when a program of the shell command cannot be known before it runs
        (``$x -rf /``, ``eval "$v"``) and a deny or ask rule for the tool could match what
        runs there: such a rule fails closed, whatever allow rule or mode follows."""
        if not self.rules or tool not in _rules().SHELL_TOOLS:  # an empty policy imports no rule engine
            return None
        rule = next((r for r in self.rules if r.behavior in ("deny", "ask") and r.specifier is not None
                     and r.covers_tool(tool)), None)
        if rule is None:
            return None
        why = _rules().hidden_program(str(tool_input.get("command") or ""))
        if why is None:
            return None
        where = f" in {rule.path}" if rule.path else ""
        return PermissionDecision("ask", rule, "rule", f"{why}: {rule.behavior} rule {rule.text!r} ({rule.scope}{where}) "
                                  "could match what runs there", rule.scope, hook_decision)

    def _allow_every_part(self, tool: str, tool_input: dict, ctx: MatchContext) -> PermissionRule | None:
        """A compound command is allowed when each of its parts is allowed by some rule
        (Claude Code checks every subcommand against the rules on its own); the rule of
        the last part is returned, or None when any part has none."""
        command = str(tool_input.get("command") or "")
        parts = _rules().split_command(command)
        if len(parts) < 2:
            return None
        allow = [r for r in self.rules if r.behavior == "allow"]
        last = None
        for part in parts:
            last = next((r for r in allow if r.matches(tool, {**tool_input, "command": part}, ctx)), None)
            if last is None:
                return None
        return last

    def _by_rule(self, decision: str, rule: PermissionRule, hook_decision: str | None) -> PermissionDecision:
        where = f" in {rule.path}" if rule.path else ""
        return PermissionDecision(decision, rule, "rule", f"{rule.behavior} rule {rule.text!r} ({rule.scope}{where})",
                                  rule.scope, hook_decision)

    def _by_mode(self, tool: str, tool_input: dict, cwd: str, hook_decision: str | None) -> PermissionDecision:
        """The mode's answer (no rule matched); ``cwd`` normalised."""
        mode = self.default_mode
        inside = _inside(tool, tool_input, cwd, self.working_directories(cwd))
        if mode == "bypassPermissions":
            decision = "allow"
        elif mode == "dontAsk":
            decision = "deny"
        elif mode == "plan":
            decision = "allow" if tool in READ_TOOLS and inside else "deny"
        elif tool in READ_TOOLS and inside:
            decision = "allow"
        elif mode == "acceptEdits" and tool in EDIT_TOOLS and inside:
            decision = "allow"
        else:
            decision = "ask"
        where = "" if tool not in READ_TOOLS | EDIT_TOOLS else (" inside" if inside else " outside") + \
            " the working directories"
        why = f"no rule matches {tool}{where}"
        command = str(tool_input.get("command") or "") if tool == "Bash" and isinstance(tool_input, dict) else ""
        if ">" in command:  # every redirection has one (writes_file answers None without it)
            from wskit.formats.shell import writes_file

            target = writes_file(command)
            if target is not None:  # an allow rule never covers a file the command writes (Claude Code's words)
                why = f"output redirection to {target!r} needs approval (no allow rule covers a file a command writes)"
        return PermissionDecision(decision, None, "mode", f"{why}; mode {mode!r} {_VERB[decision]}",
                                  self.mode_layer, hook_decision)

    def to_json(self) -> dict[str, Any]:
        """``wsctl permissions list --json``."""
        return {"default_mode": self.default_mode, "mode_layer": self.mode_layer,
                "additional_directories": list(self.additional_directories),
                "rules": [r.to_json() for r in self.rules],
                "ignored": [{**r.to_json(), "why": why} for r, why in self.ignored],
                "managed_error": self.managed_error,
                "diagnostics": [d.to_json() for d in self.diagnostics]}


def _hook_decision(hook: Any) -> str | None:
    value = hook if isinstance(hook, str) or hook is None else getattr(hook, "permission_decision", None)
    if value is None and getattr(hook, "blocked", False):
        return "deny"  # exit 2 or decision: block
    return value if value in ("allow", "ask", "deny") else None  # "defer": no opinion here


def _inside(tool: str, tool_input: Mapping[str, Any], cwd: str, dirs: list[str]) -> bool:
    raw = next((tool_input[k] for k in ("file_path", "notebook_path", "path")
                if isinstance(tool_input.get(k), str) and tool_input[k]), None)
    if raw is None:
        return tool in ("Grep", "Glob", "LS")  # the working directory itself
    path = posixpath.normpath(raw if os.path.isabs(raw) else os.path.join(cwd, raw))
    real = posixpath.normpath(os.path.realpath(path))
    return all(any(p == d or p.startswith(d.rstrip("/") + "/") for d in dirs) for p in {path, real})


def policy_from_layers(layers: Iterable[Any], *, project: str, home: str, managed_error: str | None = None
                       ) -> PermissionPolicy:
    """Build the policy from settings layers (:class:`~wskit.formats.settings.SettingsLayer`,
    lowest precedence first, as :func:`~wskit.formats.settings.settings_layers` returns them).

    :param managed_error: the named managed settings could not be read (every call is denied).
    """
    layers = list(layers)
    diags: list[Diagnostic] = []
    rules: list[PermissionRule] = []
    ignored: list[tuple[PermissionRule, str]] = []
    modes: dict[str, tuple[str, str | None]] = {}
    dirs: list[str] = []
    managed = next((la for la in layers if la.scope == "managed"), None)
    managed_only = bool(managed and (managed.data.get("permissions") or {}).get("allowManagedPermissionRulesOnly")
                        is True) or bool(managed and managed.data.get("allowManagedPermissionRulesOnly") is True)
    no_bypass = bool(managed and ((managed.data.get("permissions") or {}).get("disableBypassPermissionsMode")
                                  == "disable"))
    for layer in layers:
        perms = layer.data.get("permissions")
        if perms is None:
            continue
        if not isinstance(perms, dict):
            diags.append(Diagnostic(level="error", code="settings-invalid", path=layer.path,
                                    message="'permissions' must be an object"))
            continue
        base = project
        why = None
        if not layer.trusted:
            why = "the project is not trusted"
        elif managed_only and layer.scope != "managed":
            why = "managed settings allow managed permission rules only"
        for behavior in BEHAVIORS:
            items = perms.get(behavior, [])
            if not isinstance(items, list):
                diags.append(Diagnostic(level="error", code="settings-invalid", path=layer.path,
                                        message=f"'permissions.{behavior}' must be an array of rules"))
                continue
            for text in items:
                try:
                    rule = _rules().parse_rule(text, behavior, layer.scope, layer.path, base)
                except _rules().RuleSyntaxError as err:
                    diags.append(Diagnostic(level="error", code="permission-rule-invalid", path=layer.path,
                                            message=f"permissions.{behavior}: {err}; the rule is not applied"))
                    continue
                (ignored.append((rule, why)) if why else rules.append(rule))
        if why:
            if layer.scope != "managed" and not layer.trusted:
                diags.append(Diagnostic(level="warning", code="permissions-untrusted", path=layer.path,
                                        message=f"permission settings of {layer.scope} scope ignored: {why}"))
            continue
        mode = perms.get("defaultMode")
        if mode is not None:
            if mode not in MODES:
                diags.append(Diagnostic(level="error", code="settings-invalid", path=layer.path,
                                        message=f"permissions.defaultMode {mode!r} is not one of {', '.join(MODES)}"))
            else:
                modes[layer.scope] = (mode, layer.path)
        extra = perms.get("additionalDirectories", [])
        if not isinstance(extra, list) or not all(isinstance(d, str) for d in extra):
            diags.append(Diagnostic(level="error", code="settings-invalid", path=layer.path,
                                    message="'permissions.additionalDirectories' must be an array of paths"))
            continue
        for d in extra:
            d = home + d[1:] if d == "~" or d.startswith("~/") else d
            d = d if os.path.isabs(d) else os.path.join(project, d)
            if posixpath.normpath(d) not in dirs:
                dirs.append(posixpath.normpath(d))
    mode, mode_layer = "default", None
    for scope in _MODE_ORDER:
        if scope in modes:
            mode, mode_layer = modes[scope][0], scope
            break
    if mode == "bypassPermissions" and no_bypass:
        diags.append(Diagnostic(level="warning", code="permissions-bypass-disabled", path=managed.path if managed else None,
                                message="managed settings disable bypassPermissions mode; 'default' is used"))
        mode, mode_layer = "default", "managed"
    return PermissionPolicy(rules=tuple(rules), ignored=tuple(ignored), default_mode=mode, mode_layer=mode_layer,
                            additional_directories=tuple(dirs), project=posixpath.normpath(project),
                            home=posixpath.normpath(home), managed_error=managed_error, diagnostics=tuple(diags))
