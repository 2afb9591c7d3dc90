"""Trust and execution roots: a forged ``.git`` file inherits nothing, and the
workspace cache hands each execution root its own binding.

A folder whose ``.git`` file *says* ``gitdir: <trusted>/.git/worktrees/x`` used to
be taken for a linked worktree of the trusted project (checked lexically), so an
unpacked archive inherited its trust and hook approval. Git's own test now
decides: the admin folder exists and its ``gitdir`` file points back at this
folder. And ``WorkspaceCache`` used to key by source project and keep the first
binding, so the main checkout resolved after a worktree came back with the
worktree as execution root (hooks ran in the wrong checkout).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import git
from wskit.binding import Binding
from wskit.cache import WorkspaceCache
from wskit.host import HostProfile
from wskit.trust import TrustStore

HOOKS = '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "touch pwned"}]}]}}'


@pytest.fixture
def trusted(git_repo, tmp_path: Path, wskit_home: Path) -> Path:
    """A trusted repository with one real linked worktree ``wt-real``."""
    repo = git_repo("trusted", {"README.md": "x\n", ".claude/settings.json": HOOKS, "CLAUDE.md": "trusted rules\n"})
    git(repo, "worktree", "add", "-q", "-b", "real", str(tmp_path / "wt-real"))
    TrustStore.for_home(wskit_home).grant(repo)
    return repo


def _forged(tmp_path: Path, gitdir: str, name: str = "archive") -> Path:
    folder = tmp_path / name
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(HOOKS)
    (folder / ".git").write_text(f"gitdir: {gitdir}\n")
    return folder


def _forgeries(repo: Path, tmp_path: Path):
    admin = repo / ".git" / "worktrees"
    yield "admin folder missing", _forged(tmp_path, str(admin / "ghost"), "a1")
    yield "relative pointer, admin folder missing", _forged(
        tmp_path, os.path.relpath(admin / "ghost", tmp_path / "a2"), "a2")
    # a real worktree's admin folder: exists, holds HEAD, but points back at wt-real
    yield "another worktree's admin folder", _forged(tmp_path, str(admin / "wt-real"), "a3")
    stray = admin / "stray"
    stray.mkdir()  # an admin folder without HEAD or back-pointer
    yield "admin folder without HEAD or gitdir", _forged(tmp_path, str(stray), "a4")
    half = admin / "half"
    half.mkdir()
    (half / "HEAD").write_text("ref: refs/heads/main\n")
    (half / "gitdir").write_text(str(tmp_path / "somewhere-else" / ".git") + "\n")
    yield "back-pointer names another folder", _forged(tmp_path, str(half), "a5")
    fifo = admin / "fifo"
    fifo.mkdir()
    (fifo / "HEAD").write_text("ref: refs/heads/main\n")
    os.mkfifo(fifo / "gitdir")
    yield "back-pointer is a FIFO", _forged(tmp_path, str(fifo), "a6")


def test_forged_worktree_pointer_is_its_own_untrusted_project(trusted, tmp_path, wskit_home, wskit_pm):
    cache = WorkspaceCache(HostProfile(home=wskit_home), wskit_pm)
    seen = 0
    for what, folder in _forgeries(trusted, tmp_path):
        b = Binding.discover(folder)
        assert not b.worktree, what
        assert b.source_root == folder.resolve(), what
        ws = cache.resolve(folder)
        assert not ws.trust.trusted, what
        assert not ws.registry("hook").active(), what  # its hooks are not even loaded
        seen += 1
    assert seen == 6


def test_real_worktree_still_maps_to_its_trusted_checkout(trusted, tmp_path, wskit_home, wskit_pm):
    wt = tmp_path / "wt-real"
    b = Binding.discover(wt)
    assert b.worktree and b.source_root == trusted.resolve() and b.execution_root == wt.resolve()
    assert Binding.discover(wt, lexical=True).source_root == trusted
    cache = WorkspaceCache(HostProfile(home=wskit_home), wskit_pm)
    assert cache.resolve(wt).trust.trusted


def test_moved_worktree_is_no_longer_one(trusted, tmp_path):
    """git's back-pointer names the old place: the moved folder is its own project
    (``git worktree list`` calls the old one prunable)."""
    moved = tmp_path / "moved"
    os.rename(tmp_path / "wt-real", moved)
    b = Binding.discover(moved)
    assert not b.worktree and b.source_root == moved.resolve()


def test_cache_serves_each_execution_root_its_own_binding(trusted, tmp_path, wskit_home, wskit_pm):
    git(trusted, "worktree", "add", "-q", "-b", "second", str(tmp_path / "wt-two"))
    (trusted / "sub").mkdir()
    loads: list[Path] = []
    # change detection off: files written this instant count as changed (racy window)
    cache = WorkspaceCache(HostProfile(home=wskit_home), wskit_pm, detect_changes=False)
    real_loader = cache._loader

    def counting(binding):
        loads.append(binding.execution_root)
        return real_loader(binding)

    cache._loader = counting
    order = [tmp_path / "wt-real", trusted, tmp_path / "wt-two", trusted / "sub", tmp_path / "wt-real", trusted]
    for path in order:
        with cache.using(path) as ws:
            want = Binding.discover(path)
            assert ws.binding == want, path
            assert ws.binding.execution_root == want.execution_root
            assert ws.binding.cwd == path.resolve()
            assert ws.source_root == trusted.resolve()
    assert len(loads) == 1  # the load is shared; only the binding differs
    a, b = cache.resolve(tmp_path / "wt-real"), cache.resolve(tmp_path / "wt-two")
    assert a.registries is b.registries and a.generation == b.generation
    assert cache.resolve(tmp_path / "wt-real") is a  # one view per binding, kept


def test_async_resolve_serves_its_own_binding(trusted, tmp_path, wskit_home, wskit_pm):
    import asyncio

    cache = WorkspaceCache(HostProfile(home=wskit_home), wskit_pm)

    async def both():
        return await asyncio.gather(cache.aresolve(tmp_path / "wt-real"), cache.aresolve(trusted))

    wt, main = asyncio.run(both())
    assert wt.binding.execution_root == (tmp_path / "wt-real").resolve()
    assert main.binding.execution_root == trusted.resolve()
