"""When nothing the project walk depended on changed (only rule files did),
a reload takes the previous walk whole — no folder is listed again — and still gives
what a cold load gives; one folder changing falls back to the per-folder reuse."""

from __future__ import annotations

import pytest

from tests.builtin_plugins.rules.test_incremental import _age, _rule, _tree, _view
from wskit.builtin_plugins.rules.walk import ProjectWalker
from wskit.cache import WorkspaceCache
from wskit.testing import write_tree
from wskit.trust import TrustStore


@pytest.fixture
def listed(monkeypatch):
    seen: list[str] = []
    real = ProjectWalker._list
    monkeypatch.setattr(ProjectWalker, "_list", lambda self, fd, shown: seen.append(shown) or real(self, fd, shown))
    return seen


@pytest.fixture
def loaded(tmp_path, wskit_home, wskit_profile, wskit_pm):
    root = write_tree(tmp_path / "ws", _tree())
    TrustStore.for_home(wskit_home).grant(root)
    _age(root, wskit_home)
    cache = WorkspaceCache(wskit_profile, wskit_pm)
    first = cache.resolve(root)
    first.catalog("rules").rules()  # the lazy catalog reads the whole project (as wsctl inspect does)
    return root, cache, first, lambda: WorkspaceCache(wskit_profile, wskit_pm).resolve(root)


@pytest.mark.parametrize("edit", [
    ".claude/rules/r2.md",  # read after the walk
    "d/AGENTS.md",          # read ahead by the walk through its folder descriptor
])
def test_rule_file_edit_lists_no_folder(loaded, listed, edit):
    root, cache, first, cold = loaded
    (root / edit).write_text(_rule(7, "**/*.md") if edit.endswith("r2.md") else "edited agents\n")
    _age(root)
    listed.clear()
    again = cache.resolve(root)
    again.catalog("rules").rules()
    assert again is not first and listed == []  # reloaded, and not one folder listed
    assert _view(again) == _view(cold())
    new = {r.path: r for r in again.catalog("rules").rules()}
    old = {r.path: r for r in first.catalog("rules").rules()}
    assert new[edit] is not old[edit] and new["a/AGENTS.md"] is old["a/AGENTS.md"]
    # and the reload still depends on every folder: a new AGENTS.md below is seen next time
    (root / "a/b/c/CLAUDE.md").write_text("new claude\n")
    _age(root)
    listed.clear()
    third = cache.resolve(root)
    assert "a/b/c/CLAUDE.md" in {r.path for r in third.catalog("rules").rules()}
    assert str(root / "a/b/c") in listed and str(root / "a") not in listed
    assert _view(third) == _view(cold())


def test_gitignore_edit_is_not_taken_whole(loaded, listed):
    root, cache, first, cold = loaded
    (root / ".gitignore").write_text("# nothing ignored\n")
    _age(root)
    listed.clear()
    again = cache.resolve(root)
    assert "ignored/AGENTS.md" in {r.path for r in again.catalog("rules").rules()}
    assert str(root / "ignored") in listed
    assert _view(again) == _view(cold())


def test_a_rewritten_git_file_reaches_the_cache(tmp_path, wskit_home, wskit_profile, wskit_pm):
    """A folder whose .git file starts (or stops) pointing into the project's worktrees is
    skipped (or walked) after the edit, although the folder's own signature is unchanged."""
    import subprocess

    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "wt").mkdir()
    (root / "wt" / "AGENTS.md").write_text("agents of wt\n")
    (root / "wt" / ".git").write_text("not a pointer\n")
    TrustStore.for_home(wskit_home).grant(root)
    _age(root, wskit_home)
    cache = WorkspaceCache(wskit_profile, wskit_pm)
    assert "wt/AGENTS.md" in {r.path for r in cache.resolve(root).catalog("rules").rules()}
    admin = root / ".git" / "worktrees" / "wt"  # an admin folder git agrees with (HEAD, back-pointer)
    admin.mkdir(parents=True)
    (admin / "HEAD").write_text("ref: refs/heads/wt\n")
    (admin / "gitdir").write_text(f"{root / 'wt' / '.git'}\n")
    (root / "wt" / ".git").write_text(f"gitdir: {root / '.git' / 'worktrees' / 'wt'}\n")  # same folder entries
    _age(root)
    again = cache.resolve(root)
    fresh = WorkspaceCache(wskit_profile, wskit_pm).resolve(root)
    assert "wt/AGENTS.md" not in {r.path for r in again.catalog("rules").rules()}
    assert _view(again) == _view(fresh)
