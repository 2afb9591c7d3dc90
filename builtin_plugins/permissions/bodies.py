"""The body of ``wsctl permissions check TOOL INPUT [PATH]`` with plain arguments
(click-free: the per-turn dispatcher :mod:`wskit.cli.fast` and the click command
:mod:`wskit.builtin_plugins.permissions.cli` both call it), and what it shares with
``permissions list``."""

from __future__ import annotations

import json
from typing import Any

from wskit.cli.context import WsctlContext, safe_text
from wskit.cli.plain import ExitStatus, bad_parameter, echo

#: The input field a plain INPUT fills, by tool (Claude Code's tool input names).
_MAIN_FIELD = {"Bash": "command", "PowerShell": "command", "Read": "file_path", "Edit": "file_path",
               "MultiEdit": "file_path", "Write": "file_path", "NotebookEdit": "notebook_path",
               "NotebookRead": "notebook_path", "Grep": "path", "Glob": "path", "LS": "path",
               "WebFetch": "url", "Agent": "subagent_type", "Task": "subagent_type", "Skill": "skill"}


def _policy(obj: WsctlContext, path: str):
    ws = obj.resolve(path)
    policy = ws.catalogs.get("permissions")
    if policy is None:
        from wskit.builtin_plugins.permissions import build_policy

        policy = build_policy(ws.binding, obj.profile(), ws.trust)
    return ws, policy


def input_for(tool: str, raw: str) -> dict[str, Any]:
    """The tool input ``wsctl permissions check`` passes: INPUT itself when it is a JSON
    object, else ``{<the tool's main field>: INPUT}`` (``Bash`` → ``command``, ``Read`` →
    ``file_path``, ``WebFetch`` → ``url``…). For ``Bash`` only INPUT starting with ``{"`` (or
    ``{}``) is read as JSON: ``{ rm x; }`` is a command (a shell group).

    :raises click.BadParameter: INPUT is JSON but not an object, or the tool has no main field.
    """
    text = raw.strip()
    # a Bash group command ('{ rm x; }') starts with '{' too: only '{"' or '{}' is taken for JSON there
    json_like = text.startswith("{") and (tool != "Bash" or text.startswith('{"') or text.replace(" ", "") == "{}")
    if json_like:
        try:
            value = json.loads(text)
        except json.JSONDecodeError as err:
            raise bad_parameter(f"not a JSON object: {err.msg}", param_hint="INPUT") from None
        if not isinstance(value, dict):
            raise bad_parameter("must be a JSON object", param_hint="INPUT")
        return value
    field = _MAIN_FIELD.get(tool)
    if field is None:
        if tool.startswith("mcp__") and not text:
            return {}
        raise bad_parameter(f"{tool} takes its input as a JSON object (e.g. '{{\"key\": \"value\"}}')",
                            param_hint="INPUT")
    return {field: raw}


policy_of = _policy


def check_permission_call(obj: WsctlContext, tool: str, tool_input: str, path: str, hook: str | None) -> None:
    """``wsctl permissions check TOOL INPUT PATH``: what the permission rules decide for
    ``tool`` called with ``tool_input``; ends with exit status 3 for ask, 4 for deny."""
    ws, policy = _policy(obj, path)
    decision = policy.check(tool, input_for(tool, tool_input), cwd=str(ws.binding.cwd), hook=hook)
    data = {"tool": tool, "input": input_for(tool, tool_input), **decision.to_json()}

    def human() -> None:
        line = f"{decision.decision}: {decision.reason}"
        if decision.layer and decision.by != "rule":
            line += f" [{decision.layer} settings]"
        echo(safe_text(line))

    obj.emit(data, human)
    code = {"allow": 0, "ask": 3, "deny": 4}[decision.decision]
    if code:
        raise ExitStatus(code)
