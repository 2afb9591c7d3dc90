"""No git configuration of an untrusted repository ever runs.

``worktree create``, ``worktree remove``, ``workspace attach|state`` and
``ref resolve`` run git in repositories nobody trusted; git runs what a
repository's configuration names (``core.fsmonitor``, hooks in ``.git/hooks``
or ``core.hooksPath``, clean/smudge/process filters, a submodule's own
configuration). Every git call goes through ``wskit.builtin_plugins.workspaces.git.git``,
which switches all of it off. The repository here carries each of them, each
touching its own marker file; a control run of plain git proves the traps are
armed, then every wsctl command runs and no marker may appear.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.builtin_plugins.workspaces.wsgit import GIT_ENV
from tests.builtin_plugins.workspaces.wsgit import git as tgit

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

TRAPS = ("fsmonitor", "hookspath-post-checkout", "hookspath-reference-transaction", "hook-post-checkout",
         "hook-reference-transaction", "hook-post-index-change", "filter-clean", "filter-smudge",
         "filter-process", "sub-fsmonitor")


def _arm(repo: Path, marks: Path) -> None:
    """Put every trap into ``repo`` (its config, hooks and attributes)."""
    def touch(name: str) -> str:
        return f"touch '{marks / name}'"

    hooks = repo / "evil-hooks"
    hooks.mkdir()
    for kind, folder in (("hookspath", hooks), ("hook", repo / ".git" / "hooks")):
        for event in ("post-checkout", "reference-transaction", "post-index-change"):
            script = folder / event
            script.write_text(f"#!/bin/sh\n{touch(f'{kind}-{event}')}\nexit 0\n")
            script.chmod(0o755)
    cfg = [("core.fsmonitor", f"{touch('fsmonitor')}; false"),
           ("filter.evil.clean", f"{touch('filter-clean')}; cat"),
           ("filter.evil.smudge", f"{touch('filter-smudge')}; cat"),
           ("filter.evil2.process", f"{touch('filter-process')}; false"),
           ("filter.evil2.required", "true")]
    for key, value in cfg:
        tgit(repo, "config", key, value)
    (repo / ".gitattributes").write_text("*.txt filter=evil\n*.dat filter=evil2\n")
    (repo / "a.txt").write_text("text\n")
    tgit(repo, "add", ".gitattributes", "a.txt")
    tgit(repo, "-c", f"core.hooksPath={os.devnull}", "-c", "filter.evil.clean=cat", "commit", "-qm", "armed")
    # the hooks folder named last: committing above must not fire the traps
    tgit(repo, "config", "core.hooksPath", str(hooks))
    (repo / "a.txt").write_text("text\n")  # stat-dirty: status must re-read it (clean filter)


def _submodule(tmp_path: Path, repo: Path, marks: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    tgit(lib, "init", "-q")
    (lib / "l.txt").write_text("l\n")
    tgit(lib, "add", ".")
    tgit(lib, "commit", "-qm", "lib")
    tgit(repo, "submodule", "add", "-q", str(lib), "vendor/lib")
    tgit(repo, "commit", "-qm", "submodule")
    tgit(repo / "vendor" / "lib", "config", "core.fsmonitor", f"touch '{marks / 'sub-fsmonitor'}'; false")


@pytest.fixture
def armed(tmp_path: Path) -> tuple[Path, Path]:
    repo = tmp_path / "untrusted"
    repo.mkdir()
    marks = tmp_path / "marks"
    marks.mkdir()
    tgit(repo, "init", "-q")
    (repo / "README.md").write_text("x\n")
    tgit(repo, "add", "README.md")
    tgit(repo, "commit", "-qm", "init")
    _submodule(tmp_path, repo, marks)
    _arm(repo, marks)
    for fired in marks.iterdir():  # arming used git itself
        fired.unlink()
    return repo, marks


def test_plain_git_fires_the_traps(armed, tmp_path):
    """Control: the repository really is armed (so the next test can fail)."""
    repo, marks = armed
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], env=env, capture_output=True)
    subprocess.run(["git", "-C", str(repo), "worktree", "add", "-q", "-b", "ctl", str(tmp_path / "ctl")],
                   env=env, capture_output=True)
    fired = {p.name for p in marks.iterdir()}
    assert {"fsmonitor", "filter-clean", "filter-smudge", "hookspath-post-checkout",
            "hookspath-reference-transaction", "sub-fsmonitor"} <= fired, fired


def _runner(wsctl):
    def run(*args, code=0):
        res = wsctl(*args, json=True)
        assert res.exit_code == code, (args, res.stdout, res.stderr)
        return json.loads(res.stdout)

    return run


def test_no_repository_command_runs_through_wsctl(armed, wsctl, tmp_path, wskit_home):
    """Even in a repository the user trusted, its configuration runs nothing (an
    untrusted one gets no git at all: test_git_repo_config.py)."""
    from wskit.trust import TrustStore

    repo, marks = armed
    TrustStore.for_home(wskit_home).grant(repo)
    run = _runner(wsctl)

    ws = run("workspace", "attach", str(repo))["workspace"]["workspace_id"]
    run("workspace", "state")
    c = run("worktree", "create", ws, "feat/x", "HEAD")
    assert c["disposition"] == "created", c
    wt = Path(c["worktree_path"])
    assert (wt / "a.txt").read_text() == "text\n"  # checked out, without the smudge filter
    (wt / "a.txt").write_text("text\n")
    run("ref", "resolve", str(wt / "a.txt"))
    run("workspace", "state")
    rem = run("worktree", "remove", c["execution_root_id"], "--return-to", "canonical",
              "--branch-policy", "delete_if_merged", "--merged-into", "HEAD")
    assert rem["disposition"].startswith("removed"), rem
    assert sorted(p.name for p in marks.iterdir()) == []


def test_git_dir_of_the_caller_does_not_redirect_wskit(wsctl, tmp_path, monkeypatch, wskit_home):
    """wsctl run from inside a git hook inherits GIT_DIR/GIT_WORK_TREE: its git calls
    must still act on the repository named, never on the caller's."""
    from wskit.trust import TrustStore

    repo, decoy = tmp_path / "repo", tmp_path / "decoy"
    TrustStore.for_home(wskit_home).grant(repo)
    for r in (repo, decoy):
        r.mkdir()
        tgit(r, "init", "-q")
        (r / "f").write_text(r.name)
        tgit(r, "add", "f")
        tgit(r, "commit", "-qm", r.name)
    monkeypatch.setenv("GIT_DIR", str(decoy / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(decoy))
    run = _runner(wsctl)
    ws = run("workspace", "attach", str(repo))["workspace"]["workspace_id"]
    c = run("worktree", "create", ws, "feat/y", "HEAD")
    assert (Path(c["worktree_path"]) / "f").read_text() == "repo"
    assert not (decoy / ".git" / "worktrees").exists()


def test_every_git_call_of_wskit_goes_through_one_helper():
    """Source check: only builtin_plugins/workspaces/git.py starts git."""
    repo = Path(__file__).resolve().parents[2]
    offenders = []
    for folder in ("core", "builtin_plugins", "plugins"):
        for py in (repo / folder).rglob("*.py"):
            text = py.read_text(encoding="utf-8")
            if py.name == "git.py" and py.parent.name == "workspaces":
                continue
            for needle in ('"git"', "'git'", "shutil.which(\"git\")"):
                if needle in text and ("subprocess" in text or "Popen" in text or "os.exec" in text):
                    offenders.append(f"{py.relative_to(repo)}: {needle}")
    assert offenders == []
