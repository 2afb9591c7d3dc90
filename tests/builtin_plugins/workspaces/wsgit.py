"""Helpers: run real git with a fixed identity (works on a clean machine)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

GIT_ENV = {
    "GIT_AUTHOR_NAME": "wskit test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "wskit test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(cwd: Path, *args: str) -> str:
    """Run git with a fixed identity (works on a clean machine) and return stdout."""
    env = {**os.environ, **GIT_ENV}
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
def git_identity(monkeypatch):
    """wskit's own git calls (worktree add, update-ref) need no identity; pin
    one anyway and ignore the system and global git config. Autouse in every
    module that imports it."""
    for k, v in GIT_ENV.items():
        monkeypatch.setenv(k, v)
