"""Real git repositories in tmp_path for the workspace tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from wsgit import GIT_ENV, commit, git


@pytest.fixture(autouse=True)
def _git_identity(monkeypatch):
    """wskit's own git calls (worktree add, update-ref) need no identity; pin
    one anyway and ignore the system and global git config."""
    for k, v in GIT_ENV.items():
        monkeypatch.setenv(k, v)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository ``tmp_path/src/proj`` on ``main`` with one commit."""
    r = tmp_path / "src" / "proj"
    r.mkdir(parents=True)
    git(r, "init", "-q")
    commit(r, "README.md", "hello\n")
    return r


@pytest.fixture
def manager(wskit_home: Path):
    """Factory: ``manager(agent="default")`` -> WorkspaceManager on ``wskit_home``."""
    from wskit.builtin_plugins.workspaces import WorkspaceManager

    def _make(agent: str = "default", **kw):
        return WorkspaceManager(wskit_home, agent, **kw)

    return _make
