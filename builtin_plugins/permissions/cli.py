"""``wsctl permissions list [PATH]`` and ``wsctl permissions check TOOL INPUT [PATH]``
(docs/permissions.md, docs/wsctl.md)."""

from __future__ import annotations

import json
from typing import Any

import click

from wskit.cli.context import WsctlContext, json_option, path_argument, print_diag_dicts, safe_text, table
from wskit.models import display_path

__all__ = ["input_for", "permissions_check_cmd", "permissions_group", "permissions_list_cmd"]

#: The input field a plain INPUT fills, by tool (Claude Code's tool input names).
_MAIN_FIELD = {"Bash": "command", "PowerShell": "command", "Read": "file_path", "Edit": "file_path",
               "MultiEdit": "file_path", "Write": "file_path", "NotebookEdit": "notebook_path",
               "NotebookRead": "notebook_path", "Grep": "path", "Glob": "path", "LS": "path",
               "WebFetch": "url", "Agent": "subagent_type", "Task": "subagent_type", "Skill": "skill"}


@click.group("permissions")
def permissions_group() -> None:
    """Permission rules (allow, ask, deny) and what they decide for a tool call."""


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
            raise click.BadParameter(f"not a JSON object: {err.msg}", param_hint="INPUT") from None
        if not isinstance(value, dict):
            raise click.BadParameter("must be a JSON object", param_hint="INPUT")
        return value
    field = _MAIN_FIELD.get(tool)
    if field is None:
        if tool.startswith("mcp__") and not text:
            return {}
        raise click.BadParameter(f"{tool} takes its input as a JSON object (e.g. '{{\"key\": \"value\"}}')",
                                 param_hint="INPUT")
    return {field: raw}


@permissions_group.command("list")
@path_argument
@json_option
@click.pass_obj
def permissions_list_cmd(obj: WsctlContext, path: str) -> None:
    """List the permission rules of the workspace holding PATH, deny first, with the file of each."""
    ws, policy = _policy(obj, path)
    data = policy.to_json()
    root = str(ws.binding.source_root)

    def human() -> None:
        order = {"deny": 0, "ask": 1, "allow": 2}
        rows = [[r.behavior, r.text, r.scope, display_path(r.path, root) if r.path else "-"]
                for r in sorted(policy.rules, key=lambda r: order[r.behavior])]
        click.echo(table([[safe_text(c) for c in row] for row in rows], ["LIST", "RULE", "LAYER", "FILE"])
                   if rows else "no permission rules")
        click.echo(f"\ndefault mode: {policy.default_mode}"
                   + (f" (set by {policy.mode_layer} settings)" if policy.mode_layer else " (nothing sets one)"))
        if policy.additional_directories:
            click.echo("additional directories: " + ", ".join(safe_text(d) for d in policy.additional_directories))
        if policy.managed_error:
            click.echo(safe_text(f"every call is denied: {policy.managed_error}"))
        if policy.ignored:
            click.echo(f"\nignored ({len(policy.ignored)}):")
            for r, why in policy.ignored:
                shown = display_path(r.path, root) if r.path else r.scope
                click.echo(safe_text(f"  {r.behavior} {r.text}  ({shown}: {why})"))
        print_diag_dicts(data["diagnostics"])

    obj.emit(data, human)


@permissions_group.command("check")
@click.argument("tool")
@click.argument("tool_input", metavar="INPUT", required=False, default="")
@click.argument("path", required=False, default=".", type=click.Path(exists=True))
@click.option("--hook", "hook", type=click.Choice(["allow", "ask", "deny"]), default=None,
              help="Combine with this PreToolUse hook permissionDecision.")
@json_option
@click.pass_obj
def permissions_check_cmd(obj: WsctlContext, tool: str, tool_input: str, path: str, hook: str | None) -> None:
    """What the permission rules decide for TOOL called with INPUT (a command, a path, a URL,
    or a JSON object of the tool's input) in the workspace holding PATH.

    Exit status 0 for allow, 3 for ask, 4 for deny."""
    ws, policy = _policy(obj, path)
    decision = policy.check(tool, input_for(tool, tool_input), cwd=str(ws.binding.cwd), hook=hook)
    data = {"tool": tool, "input": input_for(tool, tool_input), **decision.to_json()}

    def human() -> None:
        line = f"{decision.decision}: {decision.reason}"
        if decision.layer and decision.by != "rule":
            line += f" [{decision.layer} settings]"
        click.echo(safe_text(line))

    obj.emit(data, human)
    code = {"allow": 0, "ask": 3, "deny": 4}[decision.decision]
    if code:
        click.get_current_context().exit(code)
