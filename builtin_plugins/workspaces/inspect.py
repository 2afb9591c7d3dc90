"""Refresh registered worktree roots against live git (``GetWorkspaceState``, A4)."""

from __future__ import annotations

from typing import Any

from wskit.builtin_plugins.workspaces import git as g
from wskit.builtin_plugins.workspaces.records import CleanupEvidence, ExecutionRootEntry, utc_now
from wskit.builtin_plugins.workspaces.store import WorkspaceStore


def inspect_worktree(live: g.LiveWorktree | None) -> CleanupEvidence:
    """Cleanup evidence of one live worktree: ``clean``, ``dirty`` (porcelain v1
    lines, untracked included) or ``inspection_failed``; a lock is noted in ``error``."""
    now = utc_now()
    if live is None or live.missing:
        return CleanupEvidence(status="inspection_failed", error="worktree is missing from live git state",
                               inspected_at=now)
    lock = f"worktree is locked: {live.locked}" if live.locked else None
    try:
        changes = g.status_changes(live.path)
    except (g.GitError, OSError) as err:
        return CleanupEvidence(status="inspection_failed", error=str(err), inspected_at=now)
    return CleanupEvidence(status="dirty" if changes else "clean", changed_files=changes, error=lock,
                           inspected_at=now)


def inspect_roots(store: WorkspaceStore, roots: list[ExecutionRootEntry]) -> list[dict[str, Any]]:
    """Each root as JSON plus ``live`` (in ``git worktree list``; canonical roots:
    the folder exists) and, for worktree roots, ``evidence`` (:func:`inspect_worktree`)."""
    cache: dict[str, list[g.LiveWorktree] | g.UntrustedRepository] = {}
    out = []
    for r in roots:
        d = r.model_dump(mode="json")
        if r.root_kind == "canonical_root":
            d["live"] = r.filesystem_path.is_dir()
            out.append(d)
            continue
        ws = store.get_workspace(r.workspace_id)
        key = str(ws.workspace_anchor) if ws else ""
        if key not in cache:
            try:
                cache[key] = g.worktree_list(ws.workspace_anchor) if ws else []
            except g.UntrustedRepository as err:
                cache[key] = err
            except (g.GitError, OSError):
                cache[key] = []
        if isinstance(cache[key], g.UntrustedRepository):
            # no git in an untrusted project: what the folder shows, and why nothing more
            d["live"] = r.filesystem_path.is_dir()
            d["evidence"] = CleanupEvidence(status="inspection_failed", error=str(cache[key]),
                                            inspected_at=utc_now()).model_dump(mode="json")
            out.append(d)
            continue
        live = next((w for w in cache[key] if not w.main and w.path == r.filesystem_path), None)
        d["live"] = live is not None and not live.missing
        d["evidence"] = inspect_worktree(live).model_dump(mode="json")
        out.append(d)
    return out
