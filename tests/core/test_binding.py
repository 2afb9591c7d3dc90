from pathlib import Path

from tests.conftest import git
from wskit.binding import Binding


def test_plain_folder_is_its_own_root(tmp_path: Path):
    d = tmp_path / "plain"
    d.mkdir()
    b = Binding.discover(d)
    assert b.source_root == b.execution_root == b.cwd == d.resolve()


def test_git_repo_root_from_subfolder(git_repo):
    repo = git_repo("r", {"a/b/c.txt": "x"})
    b = Binding.discover(repo / "a" / "b")
    assert b.source_root == repo.resolve() and b.cwd == (repo / "a" / "b").resolve()
    assert not b.worktree


def test_stray_git_folder_without_head_does_not_count(tmp_path: Path):
    outer = tmp_path / "outer"
    (outer / ".git").mkdir(parents=True)
    (outer / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    inner = outer / "inner"
    (inner / ".git").mkdir(parents=True)  # empty stray .git (the Codex bug)
    assert Binding.discover(inner).source_root == outer.resolve()


def test_git_file_without_gitdir_does_not_count(tmp_path: Path):
    outer = tmp_path / "outer"
    (outer / ".git").mkdir(parents=True)
    (outer / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    inner = outer / "inner"
    inner.mkdir()
    (inner / ".git").write_text("not a pointer\n")
    assert Binding.discover(inner).source_root == outer.resolve()


def test_linked_worktree_maps_to_main_checkout(git_repo, tmp_path: Path):
    repo = git_repo("main-repo", {"src/x.py": "print()\n"})
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(wt))
    b = Binding.discover(wt / "src")
    assert b.worktree
    assert b.source_root == repo.resolve()
    assert b.execution_root == wt.resolve()
    assert b.cwd == (wt / "src").resolve()
    assert b.to_source("x.py") == repo.resolve() / "src" / "x.py"
    assert b.to_source("/elsewhere/f") == Path("/elsewhere/f")


def test_submodule_is_not_a_worktree(git_repo, tmp_path: Path):
    lib = git_repo("lib", {"lib.txt": "x"})
    sup = git_repo("super", {"README.md": "x"})
    git(sup, "submodule", "add", "-q", str(lib), "vendor/lib")
    b = Binding.discover(sup / "vendor" / "lib")
    assert not b.worktree
    assert b.source_root == sup.resolve()


def test_custom_marker(tmp_path: Path):
    root = tmp_path / "proj"
    (root / "deep" / "er").mkdir(parents=True)
    (root / "package.json").write_text("{}")
    assert Binding.discover(root / "deep" / "er", markers=("package.json",)).source_root == root.resolve()
