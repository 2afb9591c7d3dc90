"""File references: absolute, relative to base_file, legacy workspace:// URIs."""

from __future__ import annotations

from pathlib import Path

from tests.builtin_plugins.workspaces.wsgit import git, git_identity  # noqa: F401  (git_identity: autouse)
from wskit.builtin_plugins.workspaces import WorkspaceStore


def test_resolve_paths_uris_gone_and_unknown(manager, repo: Path, tmp_path: Path):
    m = manager()
    ws = m.attach(repo)["workspace"]["workspace_id"]
    c = m.create_worktree(ws, "feat/r", "main", activate=False)
    wt, wrid = Path(c["worktree_path"]), c["execution_root_id"]
    doc = repo / "docs" / "guide.md"
    refs = [
        str(repo / "src" / "a.py"),
        "../README.md",
        f"{wt}/lib/x.py",
        f"workspace://{ws}/src/b.py",
        f"workspace://{ws}/c.py?root={wrid}",
        f"workspace://{ws}/d.py?root=canonical_root:ws_other",
        "workspace://ws_000000000000000/x",
        str(tmp_path / "outside.txt"),
        "relative/without/base",
        f"workspace://{ws}/../../etc/passwd",
    ]
    rep = m.resolve_references(refs, base_file=None)
    by = {r["ref"]: r for r in rep["results"]}
    assert by[refs[0]]["status"] == "resolved"
    assert (by[refs[0]]["execution_root_id"], by[refs[0]]["relative_path"]) == (f"canonical_root:{ws}", "src/a.py")
    assert by[refs[1]]["status"] == "invalid"  # relative needs base_file
    assert (by[refs[2]]["execution_root_id"], by[refs[2]]["relative_path"]) == (wrid, "lib/x.py")
    assert (by[refs[3]]["execution_root_id"], by[refs[3]]["absolute_path"]) == (
        f"canonical_root:{ws}", str(repo / "src" / "b.py"))
    assert (by[refs[4]]["execution_root_id"], by[refs[4]]["absolute_path"]) == (wrid, str(wt / "c.py"))
    assert by[refs[5]]["status"] == "unknown" and by[refs[6]]["status"] == "unknown"
    assert by[refs[7]]["status"] == "unknown"
    assert by[refs[9]]["status"] == "invalid"
    rel = m.resolve_references(["../README.md"], base_file=str(doc))["results"][0]
    assert (rel["status"], rel["workspace_id"], rel["relative_path"]) == ("resolved", ws, "README.md")

    assert m.remove_worktree(wrid)["disposition"] == "removed"
    rep = m.resolve_references([refs[2], refs[4]])
    assert rep["gone"] == [refs[2], refs[4]] and rep["resolved"] == [] and rep["unknown"] == []
    assert all(r["execution_root_id"] == wrid for r in rep["results"])


def test_dedup_by_anchor_prefers_canonical_root(manager, repo: Path, wskit_home: Path):
    m = manager()
    ws = m.attach(repo)["workspace"]["workspace_id"]
    store = WorkspaceStore.for_home(wskit_home)
    # a second record for the very same folder (e.g. registered as a worktree root)
    store.register_root(f"git_worktree_root:{ws}:{repo}", ws, repo, "git_worktree_root")
    r = m.resolve_references([str(repo / "x")])["results"][0]
    assert r["execution_root_id"] == f"canonical_root:{ws}" and r["root_kind"] == "canonical_root"
    # a nested worktree folder inside the anchor resolves to the deeper root
    nested = repo / ".worktrees" / "n"
    git(repo, "worktree", "add", "-q", "-b", "nested", str(nested))
    m.switch(path=str(nested))
    r = m.resolve_references([str(nested / "y")])["results"][0]
    assert r["execution_root_id"] == f"git_worktree_root:{ws}:{nested}" and r["relative_path"] == "y"
