"""``wsctl hooks run`` and ``wsctl session verify`` (registered by the built-in
``runtime`` plugin), and :func:`ensure_group`, which plugins use to add a
sub-command to a group another plugin may already have made (``wsctl mcp``…)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from wskit import jsonsafe
from wskit.cli.context import WsctlContext, json_option
from wskit.errors import WskitError
from wskit.safefs import SafeFsError, decode_text, read_bytes


def ensure_group(cli: click.Group, name: str, help: str) -> click.Group:
    """The sub-group ``name`` of ``cli``, created (with ``help``) when absent.

    :raises WskitError: ``name`` exists and is a command, not a group.
    """
    existing = cli.commands.get(name)
    if existing is None:
        grp = click.Group(name=name, help=help)
        cli.add_command(grp)
        return grp
    if not isinstance(existing, click.Group):
        raise WskitError(f"wsctl command {name!r} exists and is not a group")
    return existing


def read_user_file(path: str) -> str:
    """Read a file named on the command line through safe file access (text).

    :raises WskitError: refused or unreadable (with the safe-fs code)."""
    p = Path(path).absolute()
    try:
        return decode_text(read_bytes(p.parent, p.name).raw, str(p))
    except SafeFsError as err:
        raise WskitError(str(err)) from None


@click.command("run")
@click.argument("event")
@click.argument("path", required=False, default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--payload", "payload_file", type=click.Path(dir_okay=False), help="JSON object given to the hooks.")
@click.option("--tool", help="Tool name to match (default: the payload's tool_name).")
@click.option("--allow-http", is_flag=True, help="HTTP hooks may use plain http.")
@click.option("--allow-loopback", is_flag=True, help="HTTP hooks may post to loopback addresses.")
@click.option("--allow-private", is_flag=True, help="HTTP hooks may post to private ranges.")
@json_option
@click.pass_obj
def hooks_run_cmd(obj: WsctlContext, event: str, path: str, payload_file: str | None, tool: str | None,
                  allow_http: bool, allow_loopback: bool, allow_private: bool) -> None:
    """Run the hooks of EVENT for the workspace holding PATH and print the outcome."""
    from wskit.resources.hooks import HOOK_EVENTS
    from wskit.session import snapshot
    from wskit.runtime.hooks import HookRunnerConfig
    from wskit.runtime.http import UrlPolicy
    from wskit.runtime.session import RuntimeOptions, attach

    if event not in HOOK_EVENTS:
        raise click.BadParameter(f"unknown event {event!r}; one of: {', '.join(sorted(HOOK_EVENTS))}",
                                 param_hint="EVENT")
    payload = {}
    if payload_file:
        try:
            payload = jsonsafe.loads(read_user_file(payload_file), path=payload_file)
        except (ValueError, SafeFsError) as err:
            raise WskitError(f"{payload_file}: not JSON: {err}") from None
        if not isinstance(payload, dict):
            raise WskitError(f"{payload_file}: the payload must be a JSON object")
    session = snapshot(obj.resolve(path))
    policy = UrlPolicy(allow_http=allow_http, allow_loopback=allow_loopback, allow_private=allow_private)
    rt = attach(session, RuntimeOptions(hooks=HookRunnerConfig(http_policy=policy)))
    try:
        outcome = rt.hooks.run(event, payload, tool=tool)
    finally:
        session.close()

    def human() -> None:
        decision = outcome.permission_decision
        if outcome.blocked:
            verdict = f"blocked: {outcome.reason}"
        elif decision in ("ask", "defer"):
            verdict = decision + (f": {outcome.reason}" if outcome.reason else "")
        else:
            verdict = "allowed" + (f": {outcome.reason}" if decision == "allow" and outcome.reason else "")
        click.echo(f"{event}: {verdict} ({len(outcome.results)} hook(s))")
        for r in outcome.results:
            click.echo(f"  {r.status:8} {r.hook_id}" + (f"  {r.message}" if r.message else ""))
        for ctx in outcome.additional_context:
            click.echo("added context: " + ctx.replace("\n", "\n  "))
        for w in outcome.warnings:
            click.echo(f"warning: {w}", err=True)
        if outcome.updated_input is not None:
            click.echo(f"updated input: {json.dumps(outcome.updated_input)}")

    obj.emit(outcome.to_json(), human)


@click.command("verify")
@click.argument("file", type=click.Path(dir_okay=False, exists=True))
@click.argument("path", required=False, type=click.Path(exists=True, file_okay=False))
@click.option("--strict", is_flag=True, help="Exit 1 when anything drifted.")
@json_option
@click.pass_obj
def session_verify_cmd(obj: WsctlContext, file: str, path: str | None, strict: bool) -> None:
    """Restore the session state FILE against the workspace holding PATH (default:
    the recorded source project) and report what drifted."""
    from wskit.session import SessionState
    from wskit.runtime.resume import restore

    state = SessionState.from_json(read_user_file(file), path=str(Path(file).absolute()))
    ws = obj.resolve(path or state.workspace.source_root)
    restored = restore(state, ws, policy="refresh")
    data = {"file": file, **restored.to_json()}

    def human() -> None:
        if restored.ok:
            click.echo(f"{file}: session {state.session_id} verified, no drift")
        for d in restored.drift:
            extra = f" (recorded {d['recorded']}, now {d['current']})" if "recorded" in d else ""
            click.echo(f"drift: {d['field']} {d.get('id') or ''} {d['change']}".replace("  ", " ") + extra)

    obj.emit(data, human)
    if strict and not restored.ok:
        raise WskitError(f"session state {file} drifted ({len(restored.drift)} item(s))")


def register(cli: click.Group) -> None:
    """Add ``hooks run`` and ``session verify`` to ``cli``."""
    ensure_group(cli, "hooks", "Hooks: run them (and, with hook trust, list/trust/revoke).").add_command(hooks_run_cmd)
    ensure_group(cli, "session", "Session states: verify them against the workspace.").add_command(session_verify_cmd)
