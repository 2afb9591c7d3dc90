"""``wsctl agents list|show``: subagent definitions."""

from __future__ import annotations

import click

from wskit.models import display_path
from wskit.cli.context import kind_diagnostics, WsctlContext, json_option, path_argument, table, safe_text
from wskit.cli.inspect import print_diagnostics

__all__ = ["agents_group", "list_cmd", "show_cmd"]


@click.group("agents")
def agents_group() -> None:
    """Subagents: .claude/agents, .<host>/agents and plugin agents."""


def _row(a, root) -> dict:
    return {"id": a.id, "name": a.name, "description": a.description, "scope": a.scope.value,
            "path": display_path(a.provenance.absolute_path, root), "plugin": a.plugin,
            "model": a.model, "tools": list(a.tools) if a.tools is not None else None}


@agents_group.command("list")
@path_argument
@json_option
@click.pass_obj
def list_cmd(obj: WsctlContext, path: str) -> None:
    """List the subagents of the workspace holding PATH."""
    ws = obj.resolve(path)
    root = ws.binding.source_root
    agents = ws.registry("agent").active()
    diags = obj.listing_diagnostics(ws, kind_diagnostics(ws, "agents", ("agent",)))
    data = {"agents": [_row(a, root) for a in agents], "diagnostics": [d.to_json(root) for d in diags]}

    def human() -> None:
        rows = [[a.id, a.model, a.description[:60]] for a in agents]
        click.echo(table(rows, ["ID", "MODEL", "DESCRIPTION"]) if rows else "no subagents")
        print_diagnostics(diags, root)

    obj.emit(data, human)


@agents_group.command("show")
@click.argument("name")
@path_argument
@json_option
@click.pass_obj
def show_cmd(obj: WsctlContext, name: str, path: str) -> None:
    """Show one subagent, with its system prompt."""
    ws = obj.resolve(path)
    a = ws.registry("agent").get(name)
    data = {**_row(a, ws.binding.source_root), "skills": list(a.skills), "prompt": a.prompt}

    def human() -> None:
        click.echo(safe_text(f"{a.id} ({a.scope.value}, model {a.model}) — {a.description}"))
        if a.tools is not None:
            click.echo(safe_text(f"tools: {', '.join(a.tools)}"))
        click.echo("---")
        click.echo(a.prompt)

    obj.emit(data, human)
