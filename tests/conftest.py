"""Shared fixtures. The ``wskit.testing`` pytest plugin (installed with wskit)
provides ``wskit_home``, ``wskit_pm``, ``wskit_profile``, ``make_tree`` and ``wsctl``."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = (REPO / ".." / "shared").resolve()


@pytest.fixture
def shared_dir() -> Path:
    """``../shared`` beside the repository; skips the test when absent (a user's clone)."""
    if not (SHARED / "corpus").is_dir():
        pytest.skip("../shared/corpus is not present")
    return SHARED


GIT_ENV = {
    "GIT_AUTHOR_NAME": "wskit tests",
    "GIT_AUTHOR_EMAIL": "tests@example.invalid",
    "GIT_COMMITTER_NAME": "wskit tests",
    "GIT_COMMITTER_EMAIL": "tests@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str) -> str:
    """Run real git in ``cwd`` with a fixed identity; returns stdout."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = {**os.environ, **GIT_ENV, "HOME": str(cwd)}
    return subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", *args],
        cwd=cwd, env=env, check=True, capture_output=True, text=True,
    ).stdout


@pytest.fixture
def git_repo(tmp_path: Path):
    """Factory: ``git_repo(name, files) -> Path`` makes a real repository with one commit."""
    from wskit.testing import write_tree

    def _make(name: str = "repo", files: dict | None = None) -> Path:
        root = tmp_path / name
        write_tree(root, files or {"README.md": "# repo\n"})
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "initial")
        return root

    return _make


def skill_md(name: str, description: str = "Does things. Use when testing.", extra: str = "") -> str:
    """Text of a minimal valid SKILL.md."""
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n# {name}\n\nBody of {name}.\n"
