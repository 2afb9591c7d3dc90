"""``WorkspaceManager``: one agent's view of the workspace registry.

Attach, detach, switch and state follow reference/holon-sakura.md A4
(``AttachWorkspace``, ``DetachWorkspace``, ``SwitchWorkspace``,
``GetWorkspaceState``); occupancy follows A3; worktrees live in
:mod:`.worktrees` and file references in :mod:`.refs`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wskit.builtin_plugins.workspaces import git as g
from wskit.builtin_plugins.workspaces.agent_home import ensure_agent_home
from wskit.builtin_plugins.workspaces.discovery import discover_workspace_path
from wskit.builtin_plugins.workspaces.errors import WorkspaceError, require_utf8
from wskit.builtin_plugins.workspaces.paths import (
    agent_home_id,
    canonical_root_id,
    check_view,
    is_within,
    normalize_lexical,
    workspace_id_for,
    worktree_root_id,
)
from wskit.builtin_plugins.workspaces.records import (
    ActiveWorkspaceEntry,
    ExecutionProfile,
    ExecutionRootEntry,
    WorkspaceEntry,
    WorktreeArtifactMetadata,
)
from wskit.builtin_plugins.workspaces.snapshot import ExecutionSnapshot, SnapshotRoot
from wskit.builtin_plugins.workspaces.store import WorkspaceStore


def _gated(method):
    """Run a manager operation inside its :func:`~.git.trust_gate`: git runs only in
    trusted source projects; an untrusted one is refused as ``untrusted_workspace``
    (with the ``wsctl trust grant`` hint) before any git process starts."""

    @functools.wraps(method)
    def wrapper(self: "WorkspaceManager", *args: Any, **kwargs: Any) -> Any:
        with g.trust_gate(self._trust):
            try:
                return method(self, *args, **kwargs)
            except g.UntrustedRepository as err:
                raise untrusted_error(err) from None

    return wrapper


def untrusted_error(err: g.UntrustedRepository) -> WorkspaceError:
    """The ``untrusted_workspace`` :class:`WorkspaceError` of a refused git call."""
    import shlex

    return WorkspaceError("untrusted_workspace",
                          f"workspace {err.project} is not trusted ({err.reason}), so wskit runs no git in it "
                          f"(its own .git/config could name commands); run "
                          f"'wsctl trust grant {shlex.quote(err.project)}' if you trust it", path=err.project)


class WorkspaceManager:
    """Workspaces, execution roots and occupancy of agent ``agent_id``.

    :param home: the user home; the store is ``<home>/.wskit/workspaces.db``.
    :param agent_id: the agent (``[A-Za-z0-9][A-Za-z0-9._-]{0,63}``).
    :param host: host name: the agent home's runtime folder is ``.<host>/`` and
        managed worktrees go to ``<anchor-parent>/.<host>-worktrees-<repo>/``.
    :param agent_home: the agent home folder (default ``<home>/.wskit/agent-homes/<agent_id>``, outside the ``agents/`` folder that ``~/.<host>/`` uses for subagent definitions).
    :param profile: the execution profile (managed worktrees on by default).
    :param trust: source project -> :class:`~wskit.trust.TrustDecision`: git runs only
        in trusted projects (default: the home's trust store,
        ``TrustStore.for_home(home).decide``; ``wsctl`` passes its trust plugins' gate).
        Operations that need git in an untrusted project raise ``untrusted_workspace``;
        ``state`` reports such worktree roots ``inspection_failed`` without running git.
    On creation the agent home is ensured, registered, attached first, and made
    active (``shared_read``) when the agent has no active projection yet.
    """

    def __init__(self, home: str | os.PathLike[str], agent_id: str = "default", host: str = "wskit",
                 agent_home: str | os.PathLike[str] | None = None,
                 profile: ExecutionProfile | None = None, store: WorkspaceStore | None = None,
                 trust: Callable[[Path], Any] | None = None) -> None:
        self.agent_id = agent_id
        self.home_id = agent_home_id(agent_id)
        self.host = host
        self.profile = profile or ExecutionProfile()
        require_utf8("home", home)  # before the store is opened: nothing is written
        require_utf8("agent home", agent_home)
        self.store = store or WorkspaceStore.for_home(home)
        if trust is None:
            from wskit.trust import TrustStore

            trust = TrustStore.for_home(home).decide
        self._trust = trust
        self.agent_home = normalize_lexical(agent_home or Path(home) / ".wskit" / "agent-homes" / agent_id)
        self._ensure_agent()

    # -- agent home ---------------------------------------------------------
    def _ensure_agent(self) -> None:
        ensure_agent_home(self.agent_home, self.agent_id, self.host)
        self.store.upsert_workspace(self.agent_home, self.home_id, alias="agent_home", kind="agent_home",
                                    owner=self.agent_id, repo_name="AgentHome")
        self.store.register_root(canonical_root_id(self.home_id), self.home_id, self.agent_home, "canonical_root")
        for ws in self.store.bindings(self.agent_id):  # canonicalise: no other agent's home
            if ws == "agent_home" or (ws.startswith("agent_home:") and ws != self.home_id):
                self.store.remove_binding(self.agent_id, ws)
        self.store.add_binding(self.agent_id, self.home_id, first=True)
        if self.store.get_active(self.agent_id) is None:
            self._activate(self._canonical(self.home_id), self.agent_home)

    def _canonical(self, workspace_id: str) -> ExecutionRootEntry:
        ws = self._workspace(workspace_id)
        return self.store.register_root(canonical_root_id(ws.workspace_id), ws.workspace_id,
                                        ws.workspace_anchor, "canonical_root")

    def _workspace(self, workspace_id: str) -> WorkspaceEntry:
        ws = self.store.get_workspace(workspace_id)
        if ws is None:
            raise WorkspaceError("unknown_workspace", f"workspace `{workspace_id}` is not registered")
        return ws

    def _in_agent_home(self, d) -> bool:
        """A folder of the agent home (not a git checkout of its own) is the agent home."""
        return d.anchor == self.agent_home or (
            is_within(d.anchor, self.agent_home) and not (d.anchor / ".git").exists())

    def _selector_id(self, workspace_id: str) -> str:
        return self.home_id if workspace_id == "agent_home" else workspace_id

    # -- activation (A3: release the old occupancy only after the new state is stored)
    def _activate(self, root: ExecutionRootEntry, cwd: Path) -> ActiveWorkspaceEntry:
        ws = self._workspace(root.workspace_id)
        worktree = root.root_kind == "git_worktree_root"
        if worktree and not self.profile.supports_managed_worktrees:
            raise WorkspaceError("managed_worktrees_disabled",
                                 f"execution root `{root.execution_root_id}` is not available because "
                                 "git_worktree_root is disabled by the current host_local execution profile")
        check_view(ws.workspace_anchor, root.filesystem_path, cwd, root.filesystem_path if worktree else None)
        mode = "exclusive_write" if worktree else "shared_read"
        occ = self.store.acquire_occupancy(root.execution_root_id, ws.workspace_id, self.agent_id, mode)
        old = self.store.get_active(self.agent_id)
        entry = ActiveWorkspaceEntry(
            workspace_id=ws.workspace_id, workspace_anchor=ws.workspace_anchor,
            execution_root_id=root.execution_root_id, execution_root=root.filesystem_path,
            projection_kind=root.root_kind, access_mode=mode, cwd=cwd, occupancy_id=occ.occupancy_id,
            projection_metadata={"worktree_root": str(root.filesystem_path)} if worktree else None)
        try:
            self.store.set_active(self.agent_id, entry)
        except BaseException:
            if old is None or old.occupancy_id != occ.occupancy_id:
                self.store.release_occupancy(occ.occupancy_id)
            raise
        if old is not None and old.occupancy_id and old.occupancy_id != occ.occupancy_id:
            self.store.release_occupancy(old.occupancy_id)
        return entry

    def active(self) -> ActiveWorkspaceEntry:
        """The agent's active projection (there is always exactly one)."""
        entry = self.store.get_active(self.agent_id)
        assert entry is not None
        return entry

    def attached(self) -> list[str]:
        """Attached workspace ids, agent home first, then attachment order."""
        return self.store.bindings(self.agent_id)

    # -- attach / detach ----------------------------------------------------
    @_gated
    def attach(self, path: str | os.PathLike[str]) -> dict[str, Any]:
        """Bind the workspace holding ``path``; never changes the active projection.

        A sub-folder gives the repository root; a linked worktree gives its main
        checkout. Stale bindings (unknown ids, anchors that are no folder) are
        pruned first, never the active one or the agent home.

        :returns: ``{workspace, already_attached, active_unchanged: true,
            discovered_projection_kind, discovered_execution_root, pruned}``.
        :raises WorkspaceError: ``invalid_tool_input`` ("workspace path is not an
            existing directory"), ``unsupported_legacy_workspace_id``.
        """
        require_utf8("path", path)
        p = normalize_lexical(path)
        if not p.is_dir():
            raise WorkspaceError("invalid_tool_input", "workspace path is not an existing directory",
                                 field="path", path=str(path))
        pruned = self._prune_stale()
        d = discover_workspace_path(p)
        if self._in_agent_home(d):
            ws = self._workspace(self.home_id)
        else:

            ws = self.store.upsert_workspace(d.anchor, workspace_id_for(d.anchor), repo_name=d.anchor.name or "/")
            self._canonical(ws.workspace_id)
        already = self.store.add_binding(self.agent_id, ws.workspace_id)
        return {"workspace": ws.model_dump(mode="json"), "already_attached": already, "active_unchanged": True,
                "discovered_projection_kind": d.projection_kind, "discovered_execution_root": str(d.execution_root),
                "pruned": pruned}

    def _prune_stale(self) -> list[dict[str, str]]:
        active = self.active().workspace_id
        pruned = []
        for ws_id in self.attached():
            if ws_id in (active, self.home_id):
                continue
            ws = self.store.get_workspace(ws_id)
            if ws is None or not Path(ws.workspace_anchor).is_dir():
                self.store.remove_binding(self.agent_id, ws_id)
                pruned.append({"workspace_id": ws_id, "reason": "stale_workspace_anchor"})
        return pruned

    @_gated
    def detach(self, workspace_id: str) -> dict[str, Any]:
        """Unbind a workspace; never deletes folders, branches, worktrees or records.

        When it is active, the agent home is activated first (``shared_read``);
        if that fails the binding is unchanged.

        :returns: ``{detached, switched_to_agent_home, retained_execution_roots}``.
        :raises WorkspaceError: ``protected_workspace`` ("AgentHome cannot be
            detached"), ``not_attached`` ("workspace X is not attached to agent Y").
        """
        ws_id = self._selector_id(workspace_id)
        if ws_id == self.home_id:
            raise WorkspaceError("protected_workspace", "AgentHome cannot be detached")
        if ws_id not in self.attached():
            raise WorkspaceError("not_attached", f"workspace {ws_id} is not attached to agent {self.agent_id}")
        switched = False
        if self.active().workspace_id == ws_id:
            self._activate(self._canonical(self.home_id), self.agent_home)
            switched = True
        self.store.remove_binding(self.agent_id, ws_id)
        return {"detached": ws_id, "switched_to_agent_home": switched,
                "retained_execution_roots": self._live_worktrees(ws_id)}

    def _live_worktrees(self, ws_id: str) -> list[dict[str, Any]]:
        ws = self.store.get_workspace(ws_id)
        if ws is None:
            return []
        try:
            live = [w for w in g.worktree_list(ws.workspace_anchor) if not w.main]
        except g.UntrustedRepository:
            # no git in an untrusted project: the roots this registry holds, as recorded
            return [{"execution_root_id": r.execution_root_id, "path": str(r.filesystem_path),
                     "branch": r.worktree.branch if r.worktree else None}
                    for r in self.store.roots([ws_id]) if r.root_kind == "git_worktree_root" and not r.removed]
        except (g.GitError, OSError):
            return []
        out = []
        for w in live:
            root = self.store.live_root_at(ws_id, w.path, "git_worktree_root")
            out.append({"execution_root_id": root.execution_root_id if root else None,
                        "path": str(w.path), "branch": w.branch})
        return out

    # -- switch -------------------------------------------------------------
    @_gated
    def switch(self, workspace_id: str | None = None, execution_root_id: str | None = None,
               path: str | os.PathLike[str] | None = None, cwd: str | None = None) -> dict[str, Any]:
        """Activate an attached workspace's canonical root, a registered root, or
        the root holding ``path`` (exactly one selector; blank counts as absent).

        Canonical targets get ``shared_read``, worktree targets ``exclusive_write``
        and must be in live ``git worktree list``. ``cwd`` (relative to the root,
        or absolute) must stay inside the root.

        :returns: ``{disposition: "switched"|"no_op", active, previous_execution_root_id}``.
        :raises WorkspaceError: ``invalid_tool_input`` (with ``selector_count``),
            ``not_attached``, ``execution_root_not_found``, ``execution_root_removed``,
            ``worktree_missing``, ``cwd_escapes_execution_root``, ``exclusive_write_held``,
            ``cleanup_in_progress``, ``managed_worktrees_disabled``.
        """
        sel = [s for s in (workspace_id, execution_root_id, path) if s is not None and str(s).strip()]
        if len(sel) != 1:
            raise WorkspaceError("invalid_tool_input", "SwitchWorkspace requires exactly one selector",
                                 selector_count=len(sel))
        implied_cwd: Path | None = None
        if workspace_id is not None and workspace_id.strip():
            ws_id = self._selector_id(workspace_id.strip())
            if ws_id not in self.attached():
                raise WorkspaceError("not_attached", f"workspace `{ws_id}` is not attached")
            root = self._canonical(ws_id)
        elif execution_root_id is not None and execution_root_id.strip():
            root = self._root_for_switch(execution_root_id.strip())
        else:
            root, implied_cwd = self._root_for_path(path)  # type: ignore[arg-type]
        if root.root_kind == "git_worktree_root":
            self._require_live(root)
        target_cwd = self._cwd(root, cwd) if cwd is not None and cwd.strip() else implied_cwd
        prev = self.active()
        if prev.execution_root_id == root.execution_root_id and (target_cwd is None or target_cwd == prev.cwd):
            return {"disposition": "no_op", "active": prev.model_dump(mode="json"),
                    "previous_execution_root_id": prev.execution_root_id}
        entry = self._activate(root, target_cwd or root.filesystem_path)
        return {"disposition": "switched", "active": entry.model_dump(mode="json"),
                "previous_execution_root_id": prev.execution_root_id}

    def _root_for_switch(self, root_id: str) -> ExecutionRootEntry:
        root = self.store.get_root(root_id)
        if root is None:
            raise WorkspaceError("execution_root_not_found", f"execution root `{root_id}` was not found")
        if root.removed:
            raise WorkspaceError("execution_root_removed", f"execution root `{root_id}` was removed")
        if root.workspace_id not in self.attached():
            raise WorkspaceError("not_attached", f"workspace `{root.workspace_id}` of execution root "
                                 f"`{root_id}` is not attached; attach it before switching")
        return root

    def _root_for_path(self, path: str | os.PathLike[str]) -> tuple[ExecutionRootEntry, Path]:
        require_utf8("path", path)
        p = normalize_lexical(path)
        if not p.exists():
            raise WorkspaceError("invalid_tool_input", "path does not exist", field="path", path=str(path))
        if not p.is_dir():
            raise WorkspaceError("invalid_tool_input", "path is not a directory", field="path", path=str(path))
        d = discover_workspace_path(p)

        ws_id = self.home_id if self._in_agent_home(d) else workspace_id_for(d.anchor)
        if ws_id not in self.attached():
            raise WorkspaceError("not_attached", f"workspace for `{p}` is not attached; "
                                 f"attach canonical root `{d.anchor}` first")
        if d.projection_kind == "canonical_root":
            return self._canonical(ws_id), d.cwd
        return self.register_worktree(ws_id, d.execution_root, provenance="discovered"), d.cwd

    def _cwd(self, root: ExecutionRootEntry, cwd: str) -> Path:
        c = normalize_lexical(cwd, base=root.filesystem_path)
        if not is_within(c, root.filesystem_path):
            raise WorkspaceError("cwd_escapes_execution_root",
                                 f"cwd `{cwd}` escapes execution root `{root.filesystem_path}`")
        if not c.is_dir():
            raise WorkspaceError("invalid_tool_input", "cwd is not an existing directory", field="cwd")
        return c

    def _require_live(self, root: ExecutionRootEntry) -> g.LiveWorktree:
        ws = self._workspace(root.workspace_id)
        try:
            live = g.worktree_list(ws.workspace_anchor)
        except g.UntrustedRepository:
            raise
        except (g.GitError, OSError):
            live = []
        for w in live:
            if not w.main and w.path == root.filesystem_path and not w.missing:
                return w
        raise WorkspaceError("worktree_missing", "worktree is missing from live git state",
                             execution_root_id=root.execution_root_id)

    @_gated
    def register_worktree(self, ws_id: str, path: Path, provenance: str = "discovered",
                          **meta: Any) -> ExecutionRootEntry:
        """Register (or refresh) the worktree root at ``path`` with its live git facts.

        A tombstoned id at that path gets a new generation id. The calling agent
        is the first of ``authorized_agent_ids`` of a new record and is added to
        that list of an existing one (an agent that entered a worktree may remove it).
        """
        path = normalize_lexical(path)
        head = g.out(path, "rev-parse", "HEAD")
        sym = g.git(path, "symbolic-ref", "-q", "HEAD", check=False).stdout.strip() or None
        common, gdir = g.git_dirs(path)
        info = WorktreeArtifactMetadata(
            provenance=provenance, registered_by_agent_id=self.agent_id, authorized_agent_ids=[self.agent_id],
            branch_ref=sym,
            branch=sym[len("refs/heads/"):] if sym and sym.startswith("refs/heads/") else sym,
            head_commit=head, detached=sym is None, git_common_dir=common, git_dir=gdir, **meta)
        return self.store.register_root(worktree_root_id(ws_id, path), ws_id, path, "git_worktree_root", info,
                                        authorize=self.agent_id)

    # -- state and snapshot -------------------------------------------------
    def visible_roots(self) -> list[ExecutionRootEntry]:
        """Non-removed roots of attached workspaces or registered by this agent,
        sorted by workspace id, then root id."""
        attached = set(self.attached())
        return [r for r in self.store.roots() if r.workspace_id in attached
                or (r.worktree is not None and r.worktree.registered_by_agent_id == self.agent_id)]

    @_gated
    def state(self) -> dict[str, Any]:
        """``GetWorkspaceState``: ``{agent_id, attached, workspaces, active,
        execution_roots, occupancies}``. Worktree roots are refreshed against
        live ``git worktree list``: each carries ``live`` and ``evidence``
        (``clean`` / ``dirty`` + ``changed_files`` / ``inspection_failed``;
        a locked worktree is noted in ``error``)."""
        from wskit.builtin_plugins.workspaces.inspect import inspect_roots

        attached = self.attached()
        roots = self.visible_roots()
        ws_ids = sorted(set(attached) | {r.workspace_id for r in roots})
        workspaces = [w for w in (self.store.get_workspace(i) for i in ws_ids) if w is not None]
        occ = self.store.occupancies([r.execution_root_id for r in roots])
        return {"agent_id": self.agent_id, "attached": attached,
                "workspaces": [w.model_dump(mode="json") for w in workspaces],
                "active": self.active().model_dump(mode="json"),
                "execution_roots": inspect_roots(self.store, roots),
                "occupancies": [o.model_dump(mode="json") for o in occ]}

    def snapshot(self) -> ExecutionSnapshot:
        """The :class:`ExecutionSnapshot` of this agent now."""
        act = self.active()
        attached = self.attached()
        order = ([act.workspace_id] if act.workspace_id in attached or not attached else []) + \
            [w for w in attached if w != act.workspace_id]
        pairs: list[tuple[str, Path]] = []
        for ws_id in order:
            ws = self.store.get_workspace(ws_id)
            if ws is not None:
                pairs.append((ws_id, ws.workspace_anchor))
            elif ws_id == act.workspace_id:
                pairs.append((ws_id, act.workspace_anchor))
        roots = [SnapshotRoot(execution_root_id=r.execution_root_id, workspace_id=r.workspace_id,
                              filesystem_path=r.filesystem_path) for r in self.store.roots(attached)]
        return ExecutionSnapshot(
            profile=self.profile, policy=self.profile.policy_snapshot(), attached_workspaces=pairs,
            workspace_id=act.workspace_id, workspace_anchor=act.workspace_anchor,
            execution_root=act.execution_root, cwd=act.cwd, execution_root_id=act.execution_root_id,
            projection_kind=act.projection_kind, access_mode=act.access_mode,
            worktree_root=act.execution_root if act.projection_kind == "git_worktree_root" else None,
            execution_roots=roots)

    # -- worktrees and references (see .worktrees, .refs) -------------------
    @_gated
    def create_worktree(self, workspace_id: str, branch: str, base_ref: str, label: str | None = None,
                        on_existing: str = "reuse", activate: bool = True) -> dict[str, Any]:
        """See :func:`wskit.builtin_plugins.workspaces.worktrees.create_worktree`."""
        from wskit.builtin_plugins.workspaces.worktrees import create_worktree

        return create_worktree(self, workspace_id, branch, base_ref, label, on_existing, activate)

    @_gated
    def remove_worktree(self, execution_root_id: str, return_to: str | None = None,
                        branch_policy: str = "keep", merged_into: str | None = None) -> dict[str, Any]:
        """See :func:`wskit.builtin_plugins.workspaces.worktrees.remove_worktree`."""
        from wskit.builtin_plugins.workspaces.worktrees import remove_worktree

        return remove_worktree(self, execution_root_id, return_to, branch_policy, merged_into)

    @_gated
    def resolve_references(self, refs: list[str], base_file: str | None = None) -> dict[str, Any]:
        """See :func:`wskit.builtin_plugins.workspaces.refs.resolve_references`."""
        from wskit.builtin_plugins.workspaces.refs import resolve_references

        return resolve_references(self.store, refs, base_file)
