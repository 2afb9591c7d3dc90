"""create_worktree / remove_worktree against real git repositories (A4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builtin_plugins.workspaces.wsgit import commit, git, git_identity  # noqa: F401  (git_identity: autouse)
from wskit.builtin_plugins.workspaces import WorkspaceError, workspace_id_for


@pytest.fixture
def attached(manager, repo: Path):
    m = manager()
    ws = m.attach(repo)["workspace"]["workspace_id"]
    return m, ws


def test_create_then_reuse_after_base_moved_never_moves_branch(attached, repo: Path):
    m, ws = attached
    base1 = git(repo, "rev-parse", "main")
    c = m.create_worktree(ws, "feat/a", "main", label="Feature A!")
    assert c["disposition"] == "created" and c["base_ref_applied"] is True
    path = Path(c["worktree_path"])
    assert path.parent == repo.parent / ".wskit-worktrees-proj" and path.name.startswith("Feature-A-wt_")
    assert c["resolved_base_commit"] == c["branch_tip"] == base1
    assert c["execution_root_id"] == f"git_worktree_root:{ws}:{path}"
    assert c["activated"] and m.active().execution_root_id == c["execution_root_id"]
    assert m.active().access_mode == "exclusive_write"
    assert git(path, "rev-parse", "--abbrev-ref", "HEAD") == "feat/a"
    root = m.store.get_root(c["execution_root_id"])
    assert root.worktree.provenance == "runtime_created" and root.worktree.registered_by_agent_id == "default"
    wt_tip = commit(path, "wt.txt", "in worktree\n")
    base2 = commit(repo, "more.txt", "base moved\n")
    r = m.create_worktree(ws, "feat/a", "main")
    assert r["disposition"] == "reused" and r["base_ref_applied"] is False
    assert r["resolved_base_commit"] == base2 and r["branch_tip"] == wt_tip != base2
    assert r["execution_root_id"] == c["execution_root_id"]
    assert git(repo, "rev-parse", "feat/a") == wt_tip  # never moved
    e = m.create_worktree(ws, "feat/a", "main", on_existing="error")
    assert e["disposition"] == "already_exists" and e["execution_root_id"] == c["execution_root_id"]


def test_conflicts_change_nothing(attached, repo: Path, tmp_path: Path):
    m, ws = attached
    before = git(repo, "worktree", "list", "--porcelain")
    assert m.create_worktree(ws, "main", "main")["conflict_reason"] == "branch_checked_out_in_canonical_checkout"
    git(repo, "branch", "lonely")
    r = m.create_worktree(ws, "lonely", "main")
    assert (r["disposition"], r["conflict_reason"]) == ("conflict", "branch_without_live_worktree")
    assert git(repo, "worktree", "list", "--porcelain") == before
    assert m.active().workspace_id == "agent_home:default"
    git(repo, "worktree", "add", "-q", "-b", "twice", str(tmp_path / "t1"))
    git(repo, "worktree", "add", "-q", "-f", str(tmp_path / "t2"), "twice")
    assert m.create_worktree(ws, "twice", "main")["conflict_reason"] == "multiple_live_worktrees"
    git(repo, "worktree", "add", "-q", "-b", "vanished", str(tmp_path / "v"))
    import shutil
    shutil.rmtree(tmp_path / "v")
    r = m.create_worktree(ws, "vanished", "main")
    assert (r["disposition"], r["conflict_reason"]) == ("conflict", "worktree_path_missing")
    with pytest.raises(WorkspaceError) as e:
        m.create_worktree(ws, "new", "no-such-ref")
    assert e.value.kind == "base_ref_unresolved"
    with pytest.raises(WorkspaceError) as e:
        m.create_worktree(ws, "bad..name", "main")
    assert e.value.kind == "invalid_tool_input"
    with pytest.raises(WorkspaceError) as e:
        m.create_worktree("agent_home", "x", "main")
    assert e.value.kind == "not_a_git_workspace"


def test_dirty_removal_is_retained_then_clean_removal(attached, repo: Path):
    m, ws = attached
    c = m.create_worktree(ws, "feat/d", "main")
    rid, path = c["execution_root_id"], Path(c["worktree_path"])
    with pytest.raises(WorkspaceError) as e:
        m.remove_worktree(rid)
    assert (e.value.kind, str(e.value)) == ("return_to_required", "active worktree requires `return_to`")
    (path / "scratch.txt").write_text("wip")
    (path / "README.md").write_text("changed")
    r = m.remove_worktree(rid, return_to="canonical")
    assert r["disposition"] == "retained_dirty"
    assert sorted(r["changed_files"]) == [" M README.md", "?? scratch.txt"]
    assert m.active().execution_root_id == rid  # nothing switched
    assert path.is_dir()
    assert m.store.get_root(rid).worktree.last_cleanup.status == "dirty"
    git(path, "checkout", "--", "README.md")
    (path / "scratch.txt").unlink()
    r = m.remove_worktree(rid, return_to="canonical")
    assert r["disposition"] == "removed" and r["switched_to"] == f"canonical_root:{ws}"
    assert not path.exists()
    assert m.store.get_root(rid).removed
    assert git(repo, "rev-parse", "--verify", "feat/d")  # branch kept by default
    assert m.active().execution_root_id == f"canonical_root:{ws}"
    assert m.remove_worktree(rid)["disposition"] == "already_removed"
    with pytest.raises(WorkspaceError) as e:
        m.switch(execution_root_id=rid)
    assert e.value.kind == "execution_root_removed"


def test_delete_if_merged_needs_proof(attached, repo: Path):
    m, ws = attached
    c = m.create_worktree(ws, "feat/m", "main", activate=False)
    rid, path = c["execution_root_id"], Path(c["worktree_path"])
    tip = commit(path, "f.txt", "feature\n")
    with pytest.raises(WorkspaceError) as e:
        m.remove_worktree(rid, branch_policy="delete_if_merged")
    assert e.value.kind == "merged_into_required"
    with pytest.raises(WorkspaceError) as e:
        m.remove_worktree(rid, branch_policy="delete_if_merged", merged_into="main")
    assert e.value.kind == "not_merged" and "artifact retained" in str(e.value)
    assert path.is_dir() and git(repo, "rev-parse", "feat/m") == tip
    git(repo, "merge", "-q", "--ff-only", "feat/m")
    r = m.remove_worktree(rid, branch_policy="delete_if_merged", merged_into="main")
    assert r["disposition"] == "removed" and r["branch_deleted"] is True
    assert not path.exists()
    assert "feat/m" not in git(repo, "branch", "--list", "feat/m")


def test_branch_moved_after_removal_check_is_retained(attached, repo: Path):
    """A refused branch deletion after a clean removal is reported, not hidden."""
    m, ws = attached
    c = m.create_worktree(ws, "feat/r", "main", activate=False)
    rid = c["execution_root_id"]
    # git refuses the ref deletion (as when the branch moved since the proof): the
    # branch's ref is locked by another writer (wskit runs no repository hook, so a
    # reference-transaction hook cannot stand in for that writer)
    lock = repo / ".git" / "refs" / "heads" / "feat" / "r.lock"
    lock.write_text("")
    r = m.remove_worktree(rid, branch_policy="delete_if_merged", merged_into="main")
    lock.unlink()
    assert r["disposition"] == "removed_branch_retained"
    assert m.store.get_root(rid).removed
    assert git(repo, "rev-parse", "--verify", "feat/r")


def test_removed_path_reused_gets_new_generation(attached, repo: Path):
    m, ws = attached
    c = m.create_worktree(ws, "feat/g", "main", activate=False)
    rid, path = c["execution_root_id"], c["worktree_path"]
    assert m.remove_worktree(rid)["disposition"] == "removed"
    git(repo, "worktree", "add", "-q", "-b", "feat/g2", path)
    r = m.switch(path=path)
    new_id = r["active"]["execution_root_id"]
    assert new_id.startswith(rid + ":gen_") and new_id != rid
    assert m.store.get_root(rid).removed and not m.store.get_root(new_id).removed
    assert m.store.get_root(new_id).worktree.provenance == "discovered"


def test_remove_guards(manager, repo: Path):
    a, b = manager("a"), manager("b")
    ws = a.attach(repo)["workspace"]["workspace_id"]
    b.attach(repo)
    with pytest.raises(WorkspaceError) as e:
        a.remove_worktree(f"canonical_root:{ws}")
    assert (e.value.kind, str(e.value)) == ("canonical_root_not_removable", "canonical workspace roots cannot be removed")
    with pytest.raises(WorkspaceError) as e:
        a.remove_worktree("git_worktree_root:nope:/x")
    assert e.value.kind == "execution_root_not_found"
    c = a.create_worktree(ws, "feat/o", "main", activate=False)
    rid = c["execution_root_id"]
    with pytest.raises(WorkspaceError) as e:
        b.remove_worktree(rid)
    assert e.value.kind == "not_authorized"
    b.switch(execution_root_id=rid)  # b now holds exclusive_write (and becomes authorized)
    with pytest.raises(WorkspaceError) as e:
        a.remove_worktree(rid)
    assert (e.value.kind, str(e.value)) == (
        "active_occupancy", "worktree has active occupancy outside the current projection")
    b.switch(workspace_id=ws)
    git(Path(c["worktree_path"]), "worktree", "lock", "--reason", "busy", c["worktree_path"])
    with pytest.raises(WorkspaceError) as e:
        a.remove_worktree(rid)
    assert e.value.kind == "worktree_locked"
    git(repo, "worktree", "unlock", c["worktree_path"])
    git(Path(c["worktree_path"]), "checkout", "-q", "--detach")
    with pytest.raises(WorkspaceError) as e:
        a.remove_worktree(rid)
    assert e.value.kind == "git_identity_mismatch"
    assert Path(c["worktree_path"]).is_dir()
    assert workspace_id_for(repo) == ws


def test_git_refusing_removal_gives_failed(attached, repo: Path, tmp_path: Path):
    m, ws = attached
    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init", "-q")
    commit(lib, "lib.txt", "lib\n")
    c = m.create_worktree(ws, "feat/s", "main", activate=False)
    path = Path(c["worktree_path"])
    git(path, "submodule", "add", "-q", str(lib), "vendor/lib")
    git(path, "commit", "-qm", "submodule")
    r = m.remove_worktree(c["execution_root_id"])
    assert r["disposition"] == "failed" and "submodule" in r["error"]
    assert path.is_dir() and not m.store.get_root(c["execution_root_id"]).removed
    # the cleanup lease was released: occupancy can be taken again
    assert m.switch(execution_root_id=c["execution_root_id"])["disposition"] == "switched"


def test_folder_deleted_outside_wskit_is_tombstoned_after_switching_away(attached, repo: Path):
    import shutil

    m, ws = attached
    c = m.create_worktree(ws, "feat/x", "main")
    shutil.rmtree(c["worktree_path"])
    r = m.remove_worktree(c["execution_root_id"], return_to="agent_home")
    assert r["disposition"] == "already_removed" and r["switched_to"] == "canonical_root:agent_home:default"
    assert m.store.get_root(c["execution_root_id"]).removed
    assert m.active().workspace_id == "agent_home:default"
    assert git(repo, "rev-parse", "--verify", "feat/x")  # branch untouched
