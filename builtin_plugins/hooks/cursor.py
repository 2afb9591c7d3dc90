"""Cursor's hooks (``.cursor/hooks.json``, ``~/.cursor/hooks.json``) mapped onto wskit's hook
events, and Cursor's protocol on stdin and stdout (docs/compatibility.md, "Cursor").

The file: ``{"version": 1, "hooks": {"<cursorEvent>": [{"command": "...", "matcher": "...",
"timeout": <seconds>, "failClosed": <bool>, "type": "command" | "prompt", "prompt": "..."}]}}``
(cursor.com/docs/hooks.md). Each entry is one
:class:`~wskit.resources.hooks.HookDefinition` of ``dialect="cursor"`` under the wskit
event of :data:`EVENTS`, and goes through the same per-entry approval as every hook
(a project's file awaits approval; the user's own runs). Cursor runs a command in the folder
of its ``hooks.json`` (the project's ``.cursor``, ``~/.cursor``): the definition's ``cwd``.

Events Cursor has and wskit has not (``afterAgentResponse``, ``afterAgentThought``, the Tab
events) are reported (``cursor-hook-unmapped``) and not loaded; an unknown name is a
warning (``hook-unknown-event``), as in a settings file.

In: the wskit payload plus Cursor's fields (``hook_event_name`` is Cursor's name,
``conversation_id``, ``workspace_roots``, and per event ``command``/``cwd``, ``file_path``,
``edits``, ``prompt``…: :func:`payload`). Out: Cursor's answer read as Claude Code's fields
(:func:`output`): ``permission`` allow/deny/ask, ``continue: false`` (a prompt blocked),
``followup_message`` (``stop``: the agent goes on with it), ``additional_context``,
``updated_input``, ``user_message`` (shown to the user). Exit code 2 blocks, as in both hosts;
``failClosed: true`` makes a failure or a timeout a block.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from wskit.models import Diagnostic, LoadResult, ResourceSource

#: The file name of a ``.cursor`` folder's hooks (a source naming it as its ``hook`` component).
CURSOR_FILE = "hooks.json"

#: Cursor's event -> (wskit event, the tool matcher it stands for; None: the entry's own matcher)
EVENTS: dict[str, tuple[str, str | None]] = {
    "sessionStart": ("SessionStart", ""),
    "sessionEnd": ("SessionEnd", ""),
    "beforeSubmitPrompt": ("UserPromptSubmit", ""),
    "preToolUse": ("PreToolUse", None),
    "postToolUse": ("PostToolUse", None),
    "postToolUseFailure": ("PostToolUseFailure", None),
    "beforeShellExecution": ("PreToolUse", "Bash"),
    "afterShellExecution": ("PostToolUse", "Bash"),
    "beforeMCPExecution": ("PreToolUse", "mcp__.*"),
    "afterMCPExecution": ("PostToolUse", "mcp__.*"),
    "beforeReadFile": ("PreToolUse", "Read"),
    "afterFileEdit": ("PostToolUse", "Edit|MultiEdit|Write|NotebookEdit"),
    "subagentStart": ("SubagentStart", ""),
    "subagentStop": ("SubagentStop", ""),
    "preCompact": ("PreCompact", ""),
    "stop": ("Stop", ""),
}
#: Cursor's events with no wskit event (reported, not loaded)
UNMAPPED = frozenset({"afterAgentResponse", "afterAgentThought", "beforeTabFileRead", "afterTabFileEdit"})
#: Cursor's tool names in a ``preToolUse`` / ``postToolUse`` matcher -> wskit's (Claude Code's)
_TOOLS = {"Shell": "Bash", "StrReplace": "Edit", "Delete": "Delete", "Read": "Read", "Write": "Write",
          "Edit": "Edit", "Grep": "Grep", "Glob": "Glob", "Task": "Task", "LS": "LS"}


#: wskit's tool names -> Cursor's, for the ``tool_name`` a Cursor hook reads: the inverse of
#: :data:`_TOOLS` where Cursor's name differs and wskit's is not a Cursor name too (``Bash`` ->
#: ``Shell``; ``Edit`` stays, Cursor has an ``Edit`` tool of its own)
_CURSOR_TOOLS = {ours: theirs for theirs, ours in _TOOLS.items() if theirs != ours and ours not in _TOOLS}


def is_cursor_source(source: ResourceSource) -> bool:
    """Whether ``source`` is a ``.cursor`` folder's own hooks file (no plugin's)."""
    return source.plugin is None and source.components.get("hook") == (CURSOR_FILE,)


def _matcher(raw: str) -> str:
    """A ``preToolUse`` matcher with Cursor's tool names written as wskit's (``Shell`` ->
    ``Bash``); a matcher that is not a plain list of names is kept as written."""
    names = [n.strip() for n in raw.split("|")]
    if not all(n.replace("_", "").replace("-", "").isalnum() for n in names):
        return raw
    return "|".join(dict.fromkeys(_TOOLS.get(n, n) for n in names))


def load_cursor_hooks(source: ResourceSource) -> LoadResult:
    """The hooks of a ``.cursor/hooks.json`` (see the module docstring)."""
    from wskit.builtin_plugins.hooks.definitions import handler_problem
    from wskit.formats.definitions import canonical_sha, ident
    from wskit.fs.jsonfile import read_json
    from wskit.models import Provenance
    from wskit.resources.hooks import HookDefinition
    from wskit.util.digest import sha256_hex

    path = os.path.join(source.base, CURSOR_FILE)
    data, diags = read_json(source.base, CURSOR_FILE, follow_links=source.follow_links)
    diags = list(diags)
    if data is None:
        return LoadResult(diagnostics=tuple(diags))

    def bad(msg: str, level: str = "error", code: str = "hooks-invalid") -> None:
        diags.append(Diagnostic(level=level, code=code, path=path, message=msg))

    if not isinstance(data, dict) or not isinstance(data.get("hooks"), dict):
        bad("Cursor's hooks.json must be an object with a 'hooks' object of event -> entries")
        return LoadResult(diagnostics=tuple(diags))
    version = data.get("version", 1)
    if version != 1:
        bad(f"'version' is {version!r}; Cursor's hooks.json is version 1 (read as version 1)", "warning",
            "cursor-hooks-version")
    # project hooks run in the project's .cursor, the user's in ~/.cursor (absolute: not below the project)
    cwd = ".cursor" if source.scope.value in ("project", "local") else source.base
    shown = f"{os.path.basename(source.base)}/{CURSOR_FILE}"  # .cursor/hooks.json, below the project or home
    out = []
    for native, entries in data["hooks"].items():
        if native in UNMAPPED:
            bad(f"Cursor's {native!r} has no wskit event; its hooks are not loaded", "info", "cursor-hook-unmapped")
            continue
        if native not in EVENTS:
            bad(f"unknown Cursor hook event {native!r} (names are case-sensitive); skipped", "warning",
                "hook-unknown-event")
            continue
        if not isinstance(entries, list):
            bad(f"hooks for {native} must be an array of entries")
            continue
        event, fixed = EVENTS[native]
        for i, entry in enumerate(entries):
            where = f"{native}[{i}]"
            problem = handler_problem(entry, ("command", "prompt"), where)
            if problem is not None:
                bad(*problem)
                continue
            htype, timeout = entry.get("type", "command"), entry.get("timeout")
            raw_matcher = entry.get("matcher")
            if raw_matcher is not None and not isinstance(raw_matcher, str):
                bad(f"{where}: 'matcher' must be a string")
                continue
            if fixed is None:
                matcher = _matcher(raw_matcher or "")
            else:
                matcher = fixed
                if raw_matcher:
                    bad(f"{where}: matcher {raw_matcher[:80]!r} is not applied: {native} stands for "
                        f"{event} of {fixed!r}; the hook runs on every such call", "warning",
                        "cursor-hook-matcher-ignored")
            if "failClosed" in entry and not isinstance(entry["failClosed"], bool):
                bad(f"{where}: 'failClosed' must be true or false; skipped")
                continue
            tag = sha256_hex(f"{source.scope.value}|{CURSOR_FILE}|{native}|{i}".encode())[:8]
            name = f"cursor-{native}-{i}-{tag}"
            out.append(HookDefinition(
                id=ident(source, source.scope, name), name=name, description=f"Cursor {native}",
                provenance=Provenance(scope=source.scope, source_root=os.path.dirname(source.base), path=shown,
                                      sha256=canonical_sha({"event": native, "hook": entry})),
                event=event, matcher=matcher, type=htype,
                command=entry["command"] if htype == "command" else None,
                prompt=entry["prompt"] if htype == "prompt" else None,
                timeout=float(timeout) if timeout is not None else None, config=dict(entry),
                dialect="cursor", native_event=native, cwd=cwd))
    return LoadResult(resources=tuple(out), diagnostics=tuple(diags))


def payload(native: str, data: Mapping[str, Any], *, session_id: str, execution_root: str) -> dict[str, Any]:
    """What a Cursor hook reads on stdin: wskit's payload ``data`` with Cursor's
    ``hook_event_name`` and fields (cupcake.eqtylab.io's Cursor reference), and
    ``tool_name`` in Cursor's words (``Shell``, as its ``preToolUse`` matcher names it;
    cursor.com/docs/hooks.md)."""
    out = dict(data)
    tool_input = data.get("tool_input") if isinstance(data.get("tool_input"), Mapping) else {}
    out.update(hook_event_name=native, conversation_id=session_id, generation_id=str(data.get("tool_use_id") or ""),
               workspace_roots=[execution_root])
    if isinstance(data.get("tool_name"), str):
        # the matcher was translated to wskit's names (Shell -> Bash): the input goes back to Cursor's
        out["tool_name"] = _CURSOR_TOOLS.get(data["tool_name"], data["tool_name"])
    if native in ("beforeShellExecution", "afterShellExecution"):
        out["command"] = str(tool_input.get("command") or "")
        out["cwd"] = str(tool_input.get("cwd") or data.get("cwd") or execution_root)
        if native == "afterShellExecution":
            resp = data.get("tool_response")
            out["output"] = resp.get("stdout", "") if isinstance(resp, Mapping) else str(resp or "")
    elif native in ("beforeMCPExecution", "afterMCPExecution"):
        out["tool_input"] = json.dumps(tool_input)
        if native == "afterMCPExecution":
            out["result_json"] = json.dumps(data.get("tool_response"), default=str)
    elif native == "beforeReadFile":
        out["file_path"] = str(tool_input.get("file_path") or "")
    elif native == "afterFileEdit":
        out["file_path"] = str(tool_input.get("file_path") or tool_input.get("notebook_path") or "")
        edits = tool_input.get("edits")
        if not isinstance(edits, list):
            edits = [{"old_string": tool_input.get("old_string", ""),
                      "new_string": tool_input.get("new_string", tool_input.get("content", ""))}]
        out["edits"] = edits
    elif native == "stop":
        out.setdefault("status", "completed")
        out.setdefault("loop_count", 0)
    return out


def output(fields: Mapping[str, Any], event: str, native: str) -> dict[str, Any]:
    """Cursor's answer ``fields`` written as Claude Code's output fields for ``event``
    (what :func:`~wskit.builtin_plugins.hooks.outcome.apply_output` reads)."""
    out: dict[str, Any] = {}
    spec: dict[str, Any] = {}
    user, agent = fields.get("user_message"), fields.get("agent_message")
    if isinstance(user, str) and user:
        out["systemMessage"] = user
    permission = fields.get("permission")
    if event in ("PreToolUse", "PermissionRequest") and permission in ("allow", "deny", "ask"):
        spec["permissionDecision"] = permission
        why = agent if isinstance(agent, str) and agent else user if isinstance(user, str) else None
        if why:
            spec["permissionDecisionReason"] = why
    if fields.get("continue") is False:
        if native == "beforeSubmitPrompt":
            out["decision"], out["reason"] = "block", str(user or "blocked by a Cursor hook")
        else:
            out["continue"] = False
    follow = fields.get("followup_message")
    if event in ("Stop", "SubagentStop") and isinstance(follow, str) and follow:
        out["decision"], out["reason"] = "block", follow  # the agent goes on with it
    ctx = fields.get("additional_context")
    if isinstance(ctx, str) and ctx and event in ("SessionStart", "PostToolUse", "PostToolUseFailure",
                                                  "UserPromptSubmit", "SubagentStart"):
        spec["additionalContext"] = ctx
    upd = fields.get("updated_input")
    if event == "PreToolUse" and isinstance(upd, dict):
        spec["updatedInput"] = upd
    if spec:
        out["hookSpecificOutput"] = {"hookEventName": event, **spec}
    return out
