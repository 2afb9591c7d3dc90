"""File references -> (workspace, execution root, relative path) (seed 003
"位置解析机制"; reference/holon-sakura.md A2).

Accepted forms: absolute paths; paths relative to ``base_file`` (its folder);
legacy ``workspace://<workspace_id>/<path>?root=<execution_root_id>`` URIs
(without ``?root=`` the canonical anchor is used; the root id is an opaque key).
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from wskit.builtin_plugins.workspaces.paths import canonical_root_id, is_within, normalize_lexical
from wskit.builtin_plugins.workspaces.records import ExecutionRootEntry
from wskit.builtin_plugins.workspaces.store import WorkspaceStore

#: ``status`` values of one resolved reference.
STATUSES = ("resolved", "gone", "unknown", "invalid")


def _entry(ref: str, status: str, root: ExecutionRootEntry | None = None, rel: str | None = None,
           error: str | None = None) -> dict[str, Any]:
    path = str(normalize_lexical(root.filesystem_path / rel)) if root is not None and rel is not None else None
    return {"ref": ref, "status": status, "workspace_id": root.workspace_id if root else None,
            "execution_root_id": root.execution_root_id if root else None,
            "root_kind": root.root_kind if root else None, "relative_path": rel, "absolute_path": path,
            "error": error}


def _rel(path: os.PathLike[str], root: os.PathLike[str]) -> str:
    rel = normalize_lexical(path).relative_to(normalize_lexical(root)).as_posix()
    return "" if rel == "." else rel


def _pick(candidates: list[ExecutionRootEntry]) -> ExecutionRootEntry:
    """Deepest root first; among roots on the same folder (dedup by anchor) the
    canonical root, then the oldest record."""
    deepest = max(len(r.filesystem_path.parts) for r in candidates)
    same = [r for r in candidates if len(r.filesystem_path.parts) == deepest]
    return sorted(same, key=lambda r: (r.root_kind != "canonical_root", r.created_at, r.execution_root_id))[0]


def resolve_references(store: WorkspaceStore, refs: list[str], base_file: str | None = None) -> dict[str, Any]:
    """Resolve each reference against the registered execution roots.

    A path inside a live root resolves there (``resolved``); a path only inside
    tombstoned roots is ``gone`` (Holon's HTTP 410); no root at all, an unknown
    workspace or root id is ``unknown`` (404); a relative path without
    ``base_file``, a URI whose root belongs to another workspace, or a path
    escaping its root is ``invalid``.

    :returns: ``{results: [{ref, status, workspace_id, execution_root_id,
        root_kind, relative_path, absolute_path, error}], resolved: [...refs],
        gone: [...refs], unknown: [...refs], invalid: [...refs]}`` in input order.
    """
    all_roots = store.roots(include_removed=True)
    results = []
    for ref in refs:
        if ref.startswith("workspace://"):
            results.append(_resolve_uri(store, ref))
            continue
        if os.path.isabs(ref):
            p = normalize_lexical(ref)
        elif base_file:
            p = normalize_lexical(ref, base=normalize_lexical(base_file).parent)
        else:
            results.append(_entry(ref, "invalid", error="relative reference needs base_file"))
            continue
        live = [r for r in all_roots if not r.removed and is_within(p, r.filesystem_path)]
        if live:
            root = _pick(live)
            results.append(_entry(ref, "resolved", root, _rel(p, root.filesystem_path)))
            continue
        gone = [r for r in all_roots if r.removed and is_within(p, r.filesystem_path)]
        if gone:
            root = _pick(gone)
            results.append(_entry(ref, "gone", root, _rel(p, root.filesystem_path),
                                  error=f"execution root `{root.execution_root_id}` was removed"))
        else:
            results.append(_entry(ref, "unknown", error="no registered execution root holds this path"))
    report: dict[str, Any] = {"results": results}
    for status in STATUSES:
        report[status] = [r["ref"] for r in results if r["status"] == status]
    return report


def _resolve_uri(store: WorkspaceStore, ref: str) -> dict[str, Any]:
    u = urlsplit(ref)
    ws_id = unquote(u.netloc)
    rel_raw = unquote(u.path).lstrip("/")
    root_id = (parse_qs(u.query).get("root") or [None])[0]
    if store.get_workspace(ws_id) is None:
        return _entry(ref, "unknown", error=f"workspace `{ws_id}` is not registered")
    root = store.get_root(root_id or canonical_root_id(ws_id))
    if root is None:
        return _entry(ref, "unknown", error=f"execution root `{root_id}` was not found")
    if root.workspace_id != ws_id:
        return _entry(ref, "invalid", error=f"execution root `{root_id}` does not belong to workspace `{ws_id}`")
    p = normalize_lexical(rel_raw, base=root.filesystem_path)
    if not is_within(p, root.filesystem_path):
        return _entry(ref, "invalid", error="path escapes execution root")
    rel = _rel(p, root.filesystem_path)
    if root.removed:
        return _entry(ref, "gone", root, rel, error=f"execution root `{root.execution_root_id}` was removed")
    return _entry(ref, "resolved", root, rel)
