"""``wsctl snapshot [PATH] -o FILE`` writes a session state (references and digests);
``wsctl session verify FILE [PATH]`` restores one against the workspace and reports drift."""

from __future__ import annotations

import os
from pathlib import Path

import click

from wskit.cli.context import WsctlContext, json_option, path_argument, read_user_file, safe_text
from wskit.errors import WskitError
from wskit.models import display_path


@click.command("snapshot")
@path_argument
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the state here (default or '-': stdout; a device, FIFO or terminal is written "
                   "through; a link is followed, never replaced).")
@json_option
@click.pass_obj
def snapshot_cmd(obj: WsctlContext, path: str, output: str | None) -> None:
    """Snapshot the workspace holding PATH into a session state file (JSON)."""
    if output == "":
        raise click.BadParameter("an empty path names no file (use no -o for stdout)", param_hint="-o/--output")
    ws = obj.resolve(path)
    from wskit.session import snapshot  # lazily: not on the path of other commands

    session = snapshot(ws)
    state = session.state()
    text = state.to_json()
    if output is None or output == "-":  # '-': standard output, as for most tools
        click.echo(text)
        return
    from wskit.fs.atomic import StateFileError, write_named

    if output == "":
        raise click.BadParameter("an empty path names no file (use '-' for standard output)",
                                 param_hint="-o/--output")
    folder = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(folder):
        raise click.BadParameter(f"folder {folder} of {output} does not exist", param_hint="-o/--output")
    try:
        written = write_named(output, (text + "\n").encode("utf-8"), mode=0o600)
    except StateFileError as err:
        raise WskitError(f"{err}; the session state was not written") from None
    data = {"file": str(written), "session_id": state.session_id, "resources": len(state.resources)}
    obj.emit(data, lambda: click.echo(safe_text(f"wrote {written}: {len(state.resources)} resources, "
                                                f"session {state.session_id}")))


@click.command("verify")
@click.argument("file", type=click.Path(dir_okay=False, exists=True))
@click.argument("path", required=False, type=click.Path(exists=True, file_okay=False))
@click.option("--strict", is_flag=True, help="Exit 1 when anything drifted.")
@json_option
@click.pass_obj
def session_verify_cmd(obj: WsctlContext, file: str, path: str | None, strict: bool) -> None:
    """Restore the session state FILE against the workspace holding PATH (default:
    the recorded source project) under the host recorded in FILE (unless --host is
    given) and report what drifted."""
    from wskit.session import SessionState
    from wskit.session.resume import restore

    state = SessionState.from_json(read_user_file(file), path=str(Path(file).absolute()))
    recorded_host = state.workspace.host
    source = click.get_current_context().find_root().get_parameter_source("host")
    if source in (None, click.core.ParameterSource.DEFAULT) and recorded_host != obj.host:
        # the host decides which files are resources (CLAUDE.md or AGENTS.md, .claude/…):
        # verify under the host that wrote the state unless --host (or WSKIT_HOST) says otherwise
        obj.use_host(recorded_host)
        try:
            obj.profile()
        except click.UsageError as err:
            raise WskitError(f"{file}: session state field 'workspace.host': "
                             f"{str(err.message).removeprefix('--host: ')}") from None
    # an explicit --host that differs is verified as asked: restore() reports the
    # difference first (drift: host changed (recorded claude, now wskit))
    ws = obj.resolve(path or state.workspace.source_root)
    restored = restore(state, ws, policy="refresh")
    data = {"file": file, **restored.to_json()}

    def human() -> None:
        if restored.ok:
            click.echo(f"{file}: session {state.session_id} verified, no drift")
        for d in restored.drift:
            extra = f" (recorded {d['recorded']}, now {d['current']})" if "recorded" in d else ""
            where = display_path(d["path"], ws.source_root) if d.get("path") else (d.get("id") or "")
            click.echo(safe_text(f"drift: {d['field']} {where} {d['change']}".replace("  ", " ") + extra))

    obj.emit(data, human)
    if strict and not restored.ok:
        raise WskitError(f"session state {file} drifted ({len(restored.drift)} item(s))")
