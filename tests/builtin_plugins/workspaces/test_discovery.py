"""Path discovery (A1) shared with wskit.binding.Binding."""

from __future__ import annotations

from pathlib import Path

from tests.builtin_plugins.workspaces.wsgit import commit, git, git_identity  # noqa: F401  (git_identity: autouse)
from wskit.binding import Binding
from wskit.builtin_plugins.workspaces import discover_workspace_path


def test_repo_subdir_keeps_cwd_anchor_is_repo(repo: Path):
    (repo / "pkg" / "sub").mkdir(parents=True)
    d = discover_workspace_path(repo / "pkg" / "sub")
    assert (d.anchor, d.execution_root, d.cwd, d.projection_kind) == (
        repo, repo, repo / "pkg" / "sub", "canonical_root")


def test_linked_worktree_anchor_is_main_checkout(repo: Path, tmp_path: Path):
    wt = tmp_path / "wt1"
    git(repo, "worktree", "add", "-q", "-b", "feat", str(wt))
    (wt / "deep").mkdir()
    d = discover_workspace_path(wt / "deep")
    assert (d.anchor, d.execution_root, d.cwd, d.projection_kind) == (repo, wt, wt / "deep", "git_worktree_root")
    b = Binding.discover(wt / "deep")
    assert (b.source_root, b.execution_root, b.worktree) == (repo.resolve(), wt.resolve(), True)


def test_submodule_is_not_a_worktree(repo: Path, tmp_path: Path):
    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init", "-q")
    commit(lib, "lib.txt", "lib\n")
    git(repo, "submodule", "add", "-q", str(lib), "vendor/lib")
    git(repo, "commit", "-qm", "add submodule")
    sub = repo / "vendor" / "lib"
    assert (sub / ".git").is_file() and "modules" in (sub / ".git").read_text()
    d = discover_workspace_path(sub)
    assert (d.anchor, d.execution_root, d.projection_kind) == (repo, repo, "canonical_root")
    assert d.cwd == sub


def test_plain_folder_is_its_own_anchor(tmp_path: Path):
    p = tmp_path / "plain"
    p.mkdir()
    d = discover_workspace_path(p)
    assert d.anchor == d.execution_root == d.cwd == p


def test_lexical_mode_does_not_resolve_symlinks(repo: Path, tmp_path: Path):
    link = tmp_path / "link"
    link.symlink_to(repo)
    assert discover_workspace_path(link).anchor == link
    assert Binding.discover(link).source_root == repo.resolve()
