"""Real git repositories in tmp_path for the workspace tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

GIT_ENV = {
    "GIT_AUTHOR_NAME": "wskit test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "wskit test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str) -> str:
    """Run git with a fixed identity (works on a clean machine) and return stdout."""
    env = {**os.environ, **GIT_ENV, "HOME": str(cwd)}
    proc = subprocess.run(["git", "-c", "user.name=wskit test", "-c", "user.email=test@example.invalid",
                           "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always",
                           "-C", str(cwd), *args], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, f"git {args}: {proc.stderr}"
    return proc.stdout.strip()


def commit(repo: Path, name: str, text: str, message: str | None = None) -> str:
    """Write ``name`` and commit it; returns the new HEAD."""
    (repo / name).parent.mkdir(parents=True, exist_ok=True)
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", message or f"add {name}")
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture(autouse=True)
def _git_identity(monkeypatch):
    """wskit's own git calls (worktree add, update-ref) need no identity, but
    pin one anyway so nothing reads the developer's config."""
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
    from wskit.workspaces import WorkspaceManager

    def _make(agent: str = "default", **kw):
        return WorkspaceManager(wskit_home, agent, **kw)

    return _make
