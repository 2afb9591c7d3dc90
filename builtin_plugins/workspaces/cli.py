"""``wsctl workspace|worktree|ref``: workspaces, execution roots, git worktrees
and file references (docs/workspaces.md).

Every command takes ``--agent ID`` (env ``WSKIT_AGENT``, default ``default``):
the agent whose bindings, active projection and occupancy are used. The store
is ``<home>/.wskit/workspaces.db``.

With ``--json`` a refused operation prints ``{"error": {"kind", "message",
"details"}}`` on stdout, ``error: …`` on stderr, and exits 1. A disposition in
:data:`NOT_DONE` also exits 1 (after printing its JSON document).
"""

from __future__ import annotations

import functools

import click

from wskit.cli.context import WsctlContext, broad_folder, json_option, json_text, table, with_global_args

#: Dispositions meaning "the requested change was not (fully) made": exit status 1.
NOT_DONE = frozenset({"conflict", "already_exists", "retained_dirty", "failed", "removed_branch_retained"})

agent_option = click.option("--agent", "agent", default="default", envvar="WSKIT_AGENT", show_default=True,
                            help="Agent id whose bindings and occupancy are used. Env: WSKIT_AGENT.")


def _manager(obj: WsctlContext, agent: str):
    from wskit.builtin_plugins.workspaces import WorkspaceManager

    return WorkspaceManager(obj.home, agent, host=obj.host, trust=_trust_gate(obj))


def _trust_gate(obj: WsctlContext):
    """The trust gate git calls pass: the trust plugins' decision (the store's by
    default), asked only when a command is about to run git."""
    def decide(project):
        from wskit.trust import TrustStore

        decision, _diags = obj.hooks().trust_decision(project, TrustStore.for_home(obj.home), obj.profile())
        return decision

    return decide


def _command(f):
    """Map :class:`WorkspaceError` to the JSON error document plus exit 1."""

    @functools.wraps(f)
    def wrapper(obj: WsctlContext, *args, **kwargs):
        from wskit.builtin_plugins.workspaces import WorkspaceError
        from wskit.cli import WsctlError

        try:
            return f(obj, *args, **kwargs)
        except WorkspaceError as err:
            if obj.json:
                click.echo(json_text({"error": err.to_json()}))
            hint = _FLAG_HINTS.get(err.kind)
            raise WsctlError(f"{err} [{err.kind}]" + (f"; {hint}" if hint else "")) from err

    return wrapper


#: what a library error asking for a parameter means on the command line (the library's
#: "requires `return_to`" does not name the --return-to flag)
_FLAG_HINTS = {"return_to_required": "pass --return-to canonical|agent_home|ROOT_ID"}


def _finish(obj: WsctlContext, data: dict, human) -> None:
    from wskit.cli import WsctlError

    obj.emit(data, human)
    disp = data.get("disposition")
    if disp in NOT_DONE:
        detail = data.get("error") or data.get("conflict_reason") or ", ".join(data.get("changed_files") or [])
        raise WsctlError(f"{disp}" + (f": {detail}" if detail else ""))


# -- workspace ---------------------------------------------------------------
@click.group("workspace")
def workspace_group() -> None:
    """Workspaces bound to an agent: list, attach, detach, switch, state."""


@workspace_group.command("list")
@agent_option
@json_option
@click.pass_obj
@_command
def ws_list(obj: WsctlContext, agent: str) -> None:
    """List the agent's attached workspaces (agent home first)."""
    if not (obj.home / ".wskit" / "workspaces.db").exists():
        # a read command creates no state: before any workspace command wrote the store,
        # the agent has its home only, listed as it will be made (created_at null)
        return _list_unrecorded(obj, agent)
    m = _manager(obj, agent)
    active = m.active().workspace_id
    rows = []
    for ws_id in m.attached():
        ws = m.store.get_workspace(ws_id)
        if ws is not None:
            rows.append({**ws.model_dump(mode="json"), "active": ws_id == active})
    data = {"agent_id": agent, "active_workspace_id": active, "workspaces": rows}
    obj.emit(data, lambda: click.echo(table(
        [["*" if r["active"] else "", r["workspace_id"], r["workspace_kind"] or "", r["workspace_anchor"]]
         for r in rows], ["", "ID", "KIND", "ANCHOR"])))


def _list_unrecorded(obj: WsctlContext, agent: str) -> None:
    """``workspace list`` of a home without a workspace store: the agent home that the
    first command that writes will create, nothing written now."""
    from pathlib import Path

    from wskit.builtin_plugins.workspaces.errors import require_utf8
    from wskit.builtin_plugins.workspaces.paths import agent_home_id, normalize_lexical

    require_utf8("home", obj.home)  # refused as the manager refuses them
    home_id = agent_home_id(agent)
    anchor = normalize_lexical(Path(obj.home) / ".wskit" / "agent-homes" / agent)
    row = {"workspace_id": home_id, "workspace_alias": "agent_home", "workspace_kind": "agent_home",
           "owner_agent_id": agent, "workspace_anchor": str(anchor), "repo_name": "AgentHome",
           "created_at": None, "updated_at": None, "active": True}
    data = {"agent_id": agent, "active_workspace_id": home_id, "workspaces": [row]}
    obj.emit(data, lambda: click.echo(table([["*", home_id, "agent_home", f"{anchor} (not created yet)"]],
                                            ["", "ID", "KIND", "ANCHOR"])))


@workspace_group.command("attach")
@click.argument("path", type=click.Path())
@agent_option
@json_option
@click.pass_obj
@_command
def ws_attach(obj: WsctlContext, path: str, agent: str) -> None:
    """Attach the workspace holding PATH (never changes the active projection)."""
    data = _manager(obj, agent).attach(path)
    obj.emit(data, lambda: click.echo(
        f"{'already attached' if data['already_attached'] else 'attached'} {data['workspace']['workspace_id']} "
        f"{data['workspace']['workspace_anchor']}"))
    _warn_broad(obj, str(data["workspace"]["workspace_anchor"]), data["workspace"]["workspace_id"])


def _warn_broad(obj: WsctlContext, anchor: str, workspace_id: str) -> None:
    """Warn (stderr) when the attached workspace is a file-system root, a home folder
    (``--home`` or the real one) or a folder holding one, as ``trust grant`` warns: the
    whole tree below is then one workspace, which is rarely what was meant. The attach
    is kept: it is what was asked."""
    what = broad_folder(anchor, obj.home)
    if what is None:
        return
    click.echo(with_global_args(f"warning: {anchor} is {what}: every folder below it is now one workspace of this "
                                f"agent; attach single projects instead and 'wsctl workspace detach {workspace_id}' "
                                "to undo"), err=True)


@workspace_group.command("detach")
@click.argument("workspace_id")
@agent_option
@json_option
@click.pass_obj
@_command
def ws_detach(obj: WsctlContext, workspace_id: str, agent: str) -> None:
    """Detach WORKSPACE_ID (deletes nothing; the agent home cannot be detached)."""
    data = _manager(obj, agent).detach(workspace_id)
    obj.emit(data, lambda: click.echo(
        f"detached {data['detached']}" + (" (switched to agent home)" if data["switched_to_agent_home"] else "")))


@workspace_group.command("switch")
@click.option("--id", "workspace_id", help="Workspace id (its canonical root); `agent_home` for the agent home.")
@click.option("--root", "root_id", help="Execution root id.")
@click.option("--path", "path", help="A folder; its workspace must be attached.")
@click.option("--cwd", "cwd", help="Working folder, relative to the root or absolute; must stay inside it.")
@agent_option
@json_option
@click.pass_obj
@_command
def ws_switch(obj: WsctlContext, workspace_id, root_id, path, cwd, agent: str) -> None:
    """Activate a workspace, an execution root or the root holding a path (exactly one of --id/--root/--path)."""
    data = _manager(obj, agent).switch(workspace_id=workspace_id, execution_root_id=root_id, path=path, cwd=cwd)
    a = data["active"]
    obj.emit(data, lambda: click.echo(f"{data['disposition']}: {a['execution_root_id']} "
                                      f"({a['access_mode']}) cwd {a['cwd']}"))


@workspace_group.command("state")
@agent_option
@json_option
@click.pass_obj
@_command
def ws_state(obj: WsctlContext, agent: str) -> None:
    """Show attached workspaces, the active projection, execution roots and occupancy."""
    m = _manager(obj, agent)
    data = m.state()
    data["snapshot"] = m.snapshot().model_dump(mode="json")

    def human() -> None:
        a = data["active"]
        click.echo(f"agent {agent}: active {a['execution_root_id']} ({a['access_mode']}) cwd {a['cwd']}")
        click.echo(table([[r["execution_root_id"], "live" if r.get("live") else "missing",
                           (r.get("evidence") or {}).get("status", "")] for r in data["execution_roots"]],
                         ["ROOT", "LIVE", "EVIDENCE"]))

    obj.emit(data, human)


# -- worktree ----------------------------------------------------------------
@click.group("worktree")
def worktree_group() -> None:
    """Managed git worktrees: create (or safely reuse) and remove (never forced)."""


@worktree_group.command("create")
@click.argument("workspace_id")
@click.argument("branch")
@click.argument("base_ref")
@click.option("--label", help="Folder label (default: the branch), sanitised.")
@click.option("--on-existing", type=click.Choice(["reuse", "error"]), default="reuse", show_default=True)
@click.option("--activate/--no-activate", default=True, show_default=True, help="Switch to the worktree.")
@agent_option
@json_option
@click.pass_obj
@_command
def wt_create(obj: WsctlContext, workspace_id, branch, base_ref, label, on_existing, activate, agent) -> None:
    """Create a worktree of WORKSPACE_ID for BRANCH from BASE_REF, or reuse the live one."""
    data = _manager(obj, agent).create_worktree(workspace_id, branch, base_ref, label=label,
                                                on_existing=on_existing, activate=activate)
    _finish(obj, data, lambda: click.echo(
        f"{data['disposition']}: {data['execution_root_id'] or data['conflict_reason']} "
        f"{data['worktree_path'] or ''}".rstrip()))


@worktree_group.command("remove")
@click.argument("root_id")
@click.option("--return-to", help="Where to go when ROOT_ID is active: canonical, agent_home or a root id.")
@click.option("--branch-policy", type=click.Choice(["keep", "delete_if_merged"]), default="keep",
              show_default=True)
@click.option("--merged-into", help="Ref the branch must be merged into (is-ancestor proof).")
@agent_option
@json_option
@click.pass_obj
@_command
def wt_remove(obj: WsctlContext, root_id, return_to, branch_policy, merged_into, agent) -> None:
    """Remove the worktree execution root ROOT_ID cleanly (a dirty one is retained)."""
    data = _manager(obj, agent).remove_worktree(root_id, return_to=return_to, branch_policy=branch_policy,
                                                merged_into=merged_into)
    _finish(obj, data, lambda: click.echo(f"{data['disposition']}: {data['worktree_path']}" + "".join(
        f"\n  {f}" for f in data["changed_files"])))


# -- ref ---------------------------------------------------------------------
@click.group("ref")
def ref_group() -> None:
    """File references: absolute paths, paths relative to a file, workspace:// URIs."""


@ref_group.command("resolve")
@click.argument("refs", nargs=-1, required=True)
@click.option("--base-file", help="File that relative references are relative to.")
@agent_option
@json_option
@click.pass_obj
@_command
def ref_resolve(obj: WsctlContext, refs, base_file, agent) -> None:
    """Resolve REFs to (workspace, execution root, relative path); a reference that did
    not resolve says why (REASON)."""
    data = _manager(obj, agent).resolve_references(list(refs), base_file)
    obj.emit(data, lambda: click.echo(table(
        [[r["status"], r["execution_root_id"] or "", r["relative_path"] or "", r["ref"], (r["error"] or "").replace("needs base_file", "needs --base-file")]
         for r in data["results"]], ["STATUS", "ROOT", "PATH", "REF", "REASON"])))
