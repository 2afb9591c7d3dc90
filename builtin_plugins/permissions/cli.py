"""``wsctl permissions list [PATH]`` and ``wsctl permissions check TOOL INPUT [PATH]``
(docs/permissions.md, docs/wsctl.md)."""

from __future__ import annotations

import click

from wskit.builtin_plugins.permissions.bodies import check_permission_call
from wskit.builtin_plugins.permissions.bodies import policy_of as _policy
from wskit.cli.context import WsctlContext, json_option, path_argument, print_diag_dicts, safe_text, table
from wskit.models import display_path


@click.group("permissions")
def permissions_group() -> None:
    """Permission rules (allow, ask, deny) and what they decide for a tool call."""


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
    check_permission_call(obj, tool, tool_input, path, hook)
