"""``wsctl inspect [PATH]``: the workspace, its trust, resources and diagnostics
(the body is :func:`wskit.cli.bodies.inspect_workspace`)."""

from __future__ import annotations

import click

from wskit.cli.bodies import inspect_workspace
from wskit.cli.context import WsctlContext, json_option, path_argument


@click.command("inspect")
@path_argument
@json_option
@click.pass_obj
def inspect_cmd(obj: WsctlContext, path: str) -> None:
    """Show the workspace holding PATH: binding, trust, resources, diagnostics."""
    inspect_workspace(obj, path)
