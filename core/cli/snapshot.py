"""``wsctl snapshot [PATH] -o FILE``: write a session state (references and digests)."""

from __future__ import annotations

import os

import click

from wskit.atomic import atomic_write
from wskit.cli.context import WsctlContext, json_option, path_argument


@click.command("snapshot")
@path_argument
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the state here (default: stdout).")
@json_option
@click.pass_obj
def snapshot_cmd(obj: WsctlContext, path: str, output: str | None) -> None:
    """Snapshot the workspace holding PATH into a session state file (JSON)."""
    ws = obj.resolve(path)
    from wskit.session import snapshot  # lazily: not on the path of other commands

    session = snapshot(ws)
    state = session.state()
    text = state.to_json()
    if output is not None and not os.path.isdir(os.path.dirname(os.path.abspath(output))):
        raise click.BadParameter(f"folder of {output} does not exist", param_hint="-o/--output")
    if output is None:
        click.echo(text)
        return
    atomic_write(output, (text + "\n").encode("utf-8"), mode=0o600)
    data = {"file": output, "session_id": state.session_id, "resources": len(state.resources)}
    obj.emit(data, lambda: click.echo(f"wrote {output}: {len(state.resources)} resources, session {state.session_id}"))
