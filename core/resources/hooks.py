"""Hook definitions (Claude Code and Blade, reference/conventions.md §1.7,
reference/blade.md §11). Definitions only: the runner is the session runtime.

One :class:`HookDefinition` resource per hook command/URL/prompt, with the
event and matcher it sits under, so the registry can list and namespace them.
"""

from __future__ import annotations

from typing import Any, Literal

from wskit.models import Resource

__all__ = ["HOOK_EVENTS", "HookDefinition", "MAX_HOOK_INPUT_BYTES", "MAX_TOOL_INPUT_BYTES"]

#: Largest tool input a tool-call gate accepts, bytes of its compact JSON (UTF-8). The
#: tool input is the model's: a call over this bound is denied by the gate
#: (:class:`wskit.session.gate.ToolGate`) before any hook, so a padded input can never
#: make a guard not run (Claude Code writes the whole input to a hook's stdin).
MAX_TOOL_INPUT_BYTES = 8 * 1024 * 1024
#: Largest JSON input a command hook is started with, bytes: room for a tool input at
#: :data:`MAX_TOOL_INPUT_BYTES` given twice (the host's key and Claude Code's, see
#: :meth:`ToolSpec.claude_input <wskit.session.gate.ToolSpec.claude_input>`) and the
#: payload's other fields. It is written to the hook by its own writer (streamed through
#: the pipe), never held back by a hook that reads slowly.
MAX_HOOK_INPUT_BYTES = 2 * MAX_TOOL_INPUT_BYTES + 1024 * 1024


#: Union of Claude Code's and Blade's event names.
HOOK_EVENTS: frozenset[str] = frozenset({
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "Elicitation",
    "ElicitationResult", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop", "SubagentStop",
    "SubagentStart", "Notification", "Compaction", "PreCompact", "PostCompact",
    # the rest of Claude Code's events (reference/conventions.md §1.7)
    "Setup", "UserPromptExpansion", "PermissionDenied", "PostToolBatch", "MessageDisplay", "TaskCreated",
    "TaskCompleted", "StopFailure", "TeammateIdle", "InstructionsLoaded", "ConfigChange", "CwdChanged",
    "DirectoryAdded", "FileChanged", "WorktreeCreate", "WorktreeRemove",
})


class HookDefinition(Resource):
    """One configured hook.

    :ivar event: the event name (see :data:`HOOK_EVENTS`).
    :ivar matcher: tool-name pattern: empty or ``*`` = all, ``a|b`` = list, else a regex.
    :ivar type: ``command``, ``http``, ``prompt`` (kept for the host) or ``function``.
    :ivar command: for ``command`` hooks. :ivar url, headers: for ``http`` hooks.
    :ivar if_condition: the handler's ``if`` (one permission rule such as ``Bash(git *)``;
        tool events only; :mod:`wskit.builtin_plugins.hooks.conditions`), None when absent. Shown as ``if``.
    :ivar prompt: for ``prompt`` hooks. :ivar timeout: seconds (None: the runner default, 60 s).
    :ivar plugin_root: absolute root of the plugin that brought it (for ``CLAUDE_PLUGIN_ROOT``).
    :ivar config: the entry as read.
    :ivar dialect: the protocol the hook speaks on stdin and stdout: ``claude`` (Claude Code's,
        every settings file and plugin) or ``cursor`` (a ``.cursor/hooks.json`` entry: Cursor's
        event name and fields in, its ``permission`` / ``continue`` / ``followup_message`` out;
        :mod:`wskit.builtin_plugins.hooks.cursor`).
    :ivar native_event: the event name as the hook's file writes it when it is not :attr:`event`
        (Cursor's ``beforeShellExecution``); the hook receives it as ``hook_event_name``.
    :ivar cwd: the folder a command runs in, relative to the execution root (or absolute for
        the user's own file); None: the execution root.
    :ivar switched_off_by: the project or local settings file whose ``enabledPlugins``
        switched off the user's plugin that brought this hook (as Claude Code does): the
        hook never runs, and the runner reports it ``switched-off`` — not decided, naming
        this file — instead of dropping it (docs/hooks.md). None: not switched off.
    """

    kind: Literal["hook"] = "hook"
    event: str
    matcher: str = ""
    if_condition: str | None = None
    type: Literal["command", "http", "prompt", "function"] = "command"
    command: str | None = None
    url: str | None = None
    headers: dict[str, str] = {}
    prompt: str | None = None
    timeout: float | None = None
    plugin_root: str | None = None
    config: dict[str, Any] = {}
    dialect: Literal["claude", "cursor"] = "claude"
    native_event: str | None = None
    cwd: str | None = None
    switched_off_by: str | None = None
