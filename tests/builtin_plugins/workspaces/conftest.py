"""Real git repositories in tmp_path for the workspace tests.

The autouse fixture that pins a git identity (``git_identity``) lives in
:mod:`wsgit` and is imported by the modules that use it, not defined here: the
wsctl tests (test_cli.py) and the plugin test (test_plugin.py) share this folder
and run without it, as they always have."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builtin_plugins.workspaces.wsgit import commit, git


@pytest.fixture(autouse=True)
def trusted_tmp(tmp_path: Path, wskit_home: Path) -> None:
    """The test's folder is trusted in its home: these tests are about worktree
    mechanics, and wskit runs git only in trusted projects (tests/security/test_git_repo_config.py
    covers the untrusted case)."""
    from wskit.trust import TrustStore

    TrustStore.for_home(wskit_home).grant(tmp_path)


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
