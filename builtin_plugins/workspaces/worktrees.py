"""Managed git worktrees through real git (reference/holon-sakura.md A4).

``create_worktree`` dispositions: ``created``, ``reused``, ``already_exists``,
``conflict``. ``remove_worktree`` dispositions: ``removed``, ``retained_dirty``,
``already_removed``, ``failed``, ``removed_branch_retained``. Nothing is ever
forced: a dirty worktree is never removed, a branch is deleted only against
its exact tip and with an is-ancestor proof.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from wskit.builtin_plugins.workspaces import git as g
from wskit.builtin_plugins.workspaces.errors import WorkspaceError, require_utf8
from wskit.builtin_plugins.workspaces.inspect import inspect_worktree
from wskit.builtin_plugins.workspaces.paths import sanitize_label
from wskit.builtin_plugins.workspaces.records import ExecutionRootEntry

if TYPE_CHECKING:  # pragma: no cover
    from wskit.builtin_plugins.workspaces.manager import WorkspaceManager


ON_EXISTING = ("reuse", "error")
BRANCH_POLICIES = ("keep", "delete_if_merged")


def _git_workspace(m: "WorkspaceManager", workspace_id: str):
    ws_id = m._selector_id(workspace_id)
    if ws_id not in m.attached():
        raise WorkspaceError("not_attached", f"workspace `{ws_id}` is not attached")
    ws = m._workspace(ws_id)
    if g.git(ws.workspace_anchor, "rev-parse", "--git-dir", check=False).returncode != 0:
        raise WorkspaceError("not_a_git_workspace", f"workspace `{ws_id}` is not a git checkout")
    return ws


def create_worktree(m: "WorkspaceManager", workspace_id: str, branch: str, base_ref: str,
                    label: str | None = None, on_existing: str = "reuse", activate: bool = True) -> dict[str, Any]:
    """Create or safely reuse a linked worktree for ``branch`` based on ``base_ref``.

    ``base_ref`` is resolved to a commit before anything changes. Then:

    - ``conflict`` (nothing changed; ``conflict_reason`` one of
      ``branch_checked_out_in_canonical_checkout``, ``multiple_live_worktrees``,
      ``worktree_path_missing``, ``branch_without_live_worktree``);
    - ``already_exists`` when ``on_existing="error"`` and one live worktree matches;
    - ``reused`` for one live linked worktree: the branch is never moved,
      ``base_ref_applied=false``, ``branch_tip`` = that worktree's HEAD;
    - ``created`` (``git worktree add -b``), ``base_ref_applied=true``, under
      ``<anchor-parent>/.<host>-worktrees-<repo>/<label-or-branch>-wt_<8 hex>``.

    Created and reused roots are activated when ``activate`` (an activation
    failure leaves the artifact: ``activated=false``, ``activation_error``).

    :returns: ``{disposition, workspace_id, branch, requested_base_ref,
        resolved_base_commit, base_ref_applied, branch_tip, execution_root_id,
        worktree_path, conflict_reason, live_worktrees, activated, activation_error}``.
    :raises WorkspaceError: ``not_attached``, ``not_a_git_workspace``,
        ``managed_worktrees_disabled``, ``invalid_tool_input`` (branch name,
        ``on_existing``), ``base_ref_unresolved``, ``git_failed``.
    """
    if on_existing not in ON_EXISTING:
        raise WorkspaceError("invalid_tool_input", f"on_existing must be one of {', '.join(ON_EXISTING)}",
                             field="on_existing")
    if not m.profile.supports_managed_worktrees:
        raise WorkspaceError("managed_worktrees_disabled", "managed worktrees are disabled by the execution profile")
    for name, value in (("branch", branch), ("base_ref", base_ref), ("label", label)):
        require_utf8(name, value)
    ws = _git_workspace(m, workspace_id)
    anchor = ws.workspace_anchor
    if not g.valid_branch_name(anchor, branch):
        raise WorkspaceError("invalid_tool_input", f"invalid branch name `{branch}`", field="branch")
    base = g.rev_commit(anchor, base_ref)
    if base is None:
        raise WorkspaceError("base_ref_unresolved", f"base_ref `{base_ref}` does not resolve to a commit",
                             base_ref=base_ref)
    res: dict[str, Any] = {"disposition": None, "workspace_id": ws.workspace_id, "branch": branch,
                           "requested_base_ref": base_ref, "resolved_base_commit": base, "base_ref_applied": False,
                           "branch_tip": None, "execution_root_id": None, "worktree_path": None,
                           "conflict_reason": None, "live_worktrees": [], "activated": False,
                           "activation_error": None}
    live = g.worktree_list(anchor)
    ref = f"refs/heads/{branch}"
    matches = [w for w in live if w.branch_ref == ref]
    res["live_worktrees"] = [{"path": str(w.path), "head": w.head, "main": w.main, "missing": w.missing}
                             for w in matches]

    def conflict(reason: str) -> dict[str, Any]:
        return {**res, "disposition": "conflict", "conflict_reason": reason}

    if any(w.main for w in matches):
        return conflict("branch_checked_out_in_canonical_checkout")
    if len(matches) > 1:
        return conflict("multiple_live_worktrees")
    if len(matches) == 1:
        wt = matches[0]
        if wt.missing:
            return conflict("worktree_path_missing")
        res.update(branch_tip=wt.head, worktree_path=str(wt.path))
        if on_existing == "error":
            existing = m.store.live_root_at(ws.workspace_id, wt.path, "git_worktree_root")
            res["execution_root_id"] = existing.execution_root_id if existing else None
            return {**res, "disposition": "already_exists"}
        root = m.register_worktree(ws.workspace_id, wt.path, provenance="discovered")
        res.update(disposition="reused", execution_root_id=root.execution_root_id)
    else:
        if g.branch_exists(anchor, branch):
            return conflict("branch_without_live_worktree")
        parent = anchor.parent / f".{m.host}-worktrees-{anchor.name}"
        path = parent / f"{sanitize_label(label or branch)}-wt_{uuid.uuid4().hex[:8]}"
        parent.mkdir(parents=True, exist_ok=True)
        try:
            g.out(anchor, "worktree", "add", "-b", branch, "--", str(path), base)
        except g.GitError as err:
            raise WorkspaceError("git_failed", f"git worktree add failed: {err.stderr}") from err
        root = m.register_worktree(ws.workspace_id, path, provenance="runtime_created",
                                   requested_base_ref=base_ref, resolved_base_commit=base)
        res.update(disposition="created", base_ref_applied=True, branch_tip=root.worktree.head_commit,
                   execution_root_id=root.execution_root_id, worktree_path=str(path))
    if activate:
        try:
            m._activate(root, root.filesystem_path)
            res["activated"] = True
        except WorkspaceError as err:
            res["activation_error"] = err.to_json()
    return res


def _return_target(m: "WorkspaceManager", root: ExecutionRootEntry, return_to: str) -> ExecutionRootEntry:
    if return_to in ("agent_home", m.home_id):
        return m._canonical(m.home_id)
    if return_to == "canonical":
        return m._canonical(root.workspace_id)
    if return_to == root.execution_root_id:
        raise WorkspaceError("invalid_tool_input", "`return_to` must differ from the removed root",
                             field="return_to")
    target = m._root_for_switch(return_to)
    if target.root_kind == "git_worktree_root":
        m._require_live(target)
    return target


def remove_worktree(m: "WorkspaceManager", execution_root_id: str, return_to: str | None = None,
                    branch_policy: str = "keep", merged_into: str | None = None) -> dict[str, Any]:
    """Remove a worktree execution root cleanly, in Holon's check order (A4):

    1. canonical root -> ``canonical_root_not_removable``; 2. tombstone ->
    ``already_removed``; 3. authorization -> ``not_authorized``; 4. the active
    root needs ``return_to`` (``canonical``, ``agent_home`` or another root id)
    -> ``return_to_required``; 5. other occupancy -> ``active_occupancy``;
    6. a folder already deleted outside wskit is tombstoned (``already_removed``);
    live git identity (common dir, git dir, branch ref, detached) ->
    ``git_identity_mismatch`` / ``worktree_locked`` / ``worktree_missing``;
    7. dirty -> ``retained_dirty`` with ``changed_files``, nothing switched;
    8. detached HEAD or ``delete_if_merged`` need ``merged_into`` and an
    is-ancestor proof -> ``merged_into_required`` / ``not_merged``;
    9. switch away, take the cleanup lease, ``git worktree remove`` (never
    ``--force``) -> ``failed`` when git refuses; 10. tombstone; with
    ``delete_if_merged`` delete the branch at its exact tip ->
    ``removed_branch_retained`` on failure, else ``removed``.

    :returns: ``{disposition, execution_root_id, worktree_path, branch,
        changed_files, switched_to, branch_deleted, error}``.
    """
    if branch_policy not in BRANCH_POLICIES:
        raise WorkspaceError("invalid_tool_input", f"branch_policy must be one of {', '.join(BRANCH_POLICIES)}",
                             field="branch_policy")
    root = m.store.get_root(execution_root_id)
    if root is None:
        raise WorkspaceError("execution_root_not_found", f"execution root `{execution_root_id}` was not found")
    res: dict[str, Any] = {"disposition": None, "execution_root_id": execution_root_id,
                           "worktree_path": str(root.filesystem_path),
                           "branch": root.worktree.branch if root.worktree else None, "changed_files": [],
                           "switched_to": None, "branch_deleted": False, "error": None}
    if root.root_kind == "canonical_root":                                   # 1
        raise WorkspaceError("canonical_root_not_removable", "canonical workspace roots cannot be removed")
    if root.removed:                                                           # 2
        return {**res, "disposition": "already_removed"}
    meta = root.worktree
    assert meta is not None
    allowed = meta.authorized_agent_ids or [meta.registered_by_agent_id]      # 3
    if m.agent_id not in allowed:
        raise WorkspaceError("not_authorized",
                             f"agent `{m.agent_id}` is not authorized to remove execution root `{execution_root_id}`")
    active = m.active()
    is_active = active.execution_root_id == execution_root_id
    target = None
    if is_active:                                                              # 4
        if not return_to or not return_to.strip():
            raise WorkspaceError("return_to_required", "active worktree requires `return_to`")
        target = _return_target(m, root, return_to.strip())
    own = active.occupancy_id if is_active else None
    others = [o for o in m.store.occupancies([execution_root_id]) if o.occupancy_id != own]
    if others:                                                                 # 5
        raise WorkspaceError("active_occupancy", "worktree has active occupancy outside the current projection",
                             holders=sorted({o.holder_agent_id for o in others}))
    if not root.filesystem_path.exists():                                      # 6
        # the folder is already gone (deleted outside wskit): nothing to remove,
        # git's own metadata is left to `git worktree prune`
        if target is not None:
            m._activate(target, target.filesystem_path)
            res["switched_to"] = target.execution_root_id
        m.store.tombstone_root(execution_root_id)
        return {**res, "disposition": "already_removed", "error": "worktree folder was already gone"}
    live = m._require_live(root)
    if live.locked:
        raise WorkspaceError("worktree_locked", f"worktree is locked: {live.locked}")
    common, gdir = g.git_dirs(root.filesystem_path)
    sym = g.git(root.filesystem_path, "symbolic-ref", "-q", "HEAD", check=False).stdout.strip() or None
    if (common, gdir, sym, sym is None) != (meta.git_common_dir, meta.git_dir, meta.branch_ref, meta.detached):
        raise WorkspaceError("git_identity_mismatch", "live git identity of the worktree does not match the record",
                             recorded={"git_common_dir": meta.git_common_dir, "git_dir": meta.git_dir,
                                       "branch_ref": meta.branch_ref, "detached": meta.detached},
                             live={"git_common_dir": common, "git_dir": gdir, "branch_ref": sym,
                                   "detached": sym is None})
    evidence = inspect_worktree(live)                                          # 7
    m.store.update_root_meta(execution_root_id, meta.model_copy(update={"last_cleanup": evidence}))
    if evidence.status != "clean":
        if evidence.status == "dirty":
            return {**res, "disposition": "retained_dirty", "changed_files": evidence.changed_files}
        return {**res, "disposition": "failed", "error": evidence.error}
    tip = g.out(root.filesystem_path, "rev-parse", "HEAD")                     # 8
    if meta.detached or branch_policy == "delete_if_merged":
        what = "detached HEAD" if meta.detached else f"branch `{meta.branch}`"
        if not merged_into or not merged_into.strip():
            raise WorkspaceError("merged_into_required", f"{what} requires `merged_into` to prove it is merged")
        if g.rev_commit(root.filesystem_path, merged_into) is None or \
                not g.is_ancestor(root.filesystem_path, tip, merged_into):
            raise WorkspaceError("not_merged", f"{what} is not merged into `{merged_into}`; artifact retained",
                                 tip=tip, merged_into=merged_into)
    if target is not None:                                                     # 9
        m._activate(target, target.filesystem_path)
        res["switched_to"] = target.execution_root_id
    m.store.take_cleanup_lease(execution_root_id, m.agent_id)
    try:
        anchor = m._workspace(root.workspace_id).workspace_anchor
        proc = g.git(anchor, "worktree", "remove", "--", str(root.filesystem_path), check=False)
        if proc.returncode != 0:
            return {**res, "disposition": "failed", "error": proc.stderr.strip()}
        m.store.tombstone_root(execution_root_id)                              # 10
    finally:
        m.store.release_cleanup_lease(execution_root_id)
    if branch_policy == "delete_if_merged" and meta.branch_ref:
        proc = g.git(anchor, "update-ref", "-d", meta.branch_ref, tip, check=False)
        if proc.returncode != 0:
            return {**res, "disposition": "removed_branch_retained", "error": proc.stderr.strip()}
        res["branch_deleted"] = True
    return {**res, "disposition": "removed"}
