"""``wsctl trust status|grant|revoke|forget|list [PATH]``: folder trust decisions."""

from __future__ import annotations

import click

from wskit.binding import Binding
from wskit.cli.context import WsctlContext, broad_folder, json_option, path_argument, safe_text, table
from wskit.trust import TrustStore


def _store(obj: WsctlContext) -> TrustStore:
    return TrustStore.for_home(obj.home)


def _project(path: str) -> str:
    """Trust is decided for the source project (a worktree maps to its main checkout)."""
    return str(Binding.discover(path).source_root)


@click.group("trust")
def trust_group() -> None:
    """Folder trust: only trusted projects load project resources."""


@trust_group.command("status")
@path_argument
@json_option
@click.pass_obj
def status_cmd(obj: WsctlContext, path: str) -> None:
    """Show the trust state of the project holding PATH."""
    target = _project(path)
    d = _store(obj).decide(target)
    data = {"path": target, "state": d.state, "decided_by": d.decided_by}
    hint = d.cli_hint()
    obj.emit(data, lambda: click.echo(safe_text(f"{target}: {d.state} ({d.reason()})" + (f" ({hint})" if hint else ""))))


def _set(obj: WsctlContext, path: str, state: str | None, exact: bool) -> None:
    target = str(click.format_filename(path)) if exact else _project(path)
    store = _store(obj)
    recorded = store.set(target, state)  # type: ignore[arg-type]
    if state == "trusted":
        _warn_broad(obj, recorded)
    d = store.decide(recorded)
    data = {"path": recorded, "state": d.state, "decided_by": d.decided_by}
    project = _project(path) if exact else recorded
    if project != recorded:
        # loads decide trust for the source project holding a folder, never for the folder
        # itself: said, so an --exact decision inside a project is not mistaken for one
        # that took effect (``revoke --exact src`` inside a project changes nothing)
        p = store.decide(project)
        data["project"] = {"path": project, "state": p.state, "decided_by": p.decided_by}
        click.echo(f"warning: {recorded} is inside the project {project}; loading decides trust for the "
                   f"project ({p.state}), so this decision does not apply to it", err=True)
    obj.emit(data, lambda: click.echo(f"{recorded}: {d.state}"))


def _warn_broad(obj: WsctlContext, recorded: str) -> None:
    """Warn (stderr) when a grant covers a file-system root or a home folder
    (``--home`` or the real one): the folder itself or any folder holding it
    (``/home``, ``/tmp`` when the home is below it). Every project below is then
    trusted, which is rarely what was meant (``trust grant /``, ``trust grant
    /home``). The grant is kept:
    it is what was asked. Paths are compared resolved (links followed)."""
    what = broad_folder(recorded, obj.home)
    if what is None:
        return
    click.echo(f"warning: {recorded} is {what}: every folder below it is now trusted, so any project there "
               "loads its hooks, servers and plugins; grant single projects instead and 'wsctl trust forget "
               f"{recorded}' to undo", err=True)


_exact = click.option("--exact", is_flag=True,
                      help="Decide for PATH itself rather than the project that holds it.")


@trust_group.command("grant")
@path_argument
@_exact
@json_option
@click.pass_obj
def grant_cmd(obj: WsctlContext, path: str, exact: bool) -> None:
    """Trust the project holding PATH (and every folder below it)."""
    _set(obj, path, "trusted", exact)


@trust_group.command("revoke")
@path_argument
@_exact
@json_option
@click.pass_obj
def revoke_cmd(obj: WsctlContext, path: str, exact: bool) -> None:
    """Record the project holding PATH as untrusted (overrides a trusted ancestor)."""
    _set(obj, path, "untrusted", exact)


@trust_group.command("forget")
@path_argument
@_exact
@json_option
@click.pass_obj
def forget_cmd(obj: WsctlContext, path: str, exact: bool) -> None:
    """Remove the decision recorded for the project holding PATH."""
    _set(obj, path, None, exact)


@trust_group.command("list")
@json_option
@click.pass_obj
def list_cmd(obj: WsctlContext) -> None:
    """List every recorded decision."""
    entries = _store(obj).entries()
    data = {"decisions": [{"path": e["path"], "state": e["state"], "decided_at": e.get("decided_at")} for e in entries]}
    obj.emit(data, lambda: click.echo(
        table([[e["state"], e.get("decided_at", ""), e["path"]] for e in entries], ["STATE", "DECIDED", "PATH"])
        if entries else "no trust decisions recorded"))
