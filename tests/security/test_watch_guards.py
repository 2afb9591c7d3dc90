"""A watching WorkspaceCache (``watch=True``, :mod:`wskit.fs.watch`) never keeps serving
what a guard of a fresh load would refuse: a file that became a hard link (safe file access
refuses it: it may be a secret's other name), a folder replaced by a link to outside the
project, trust revoked. Each change is resolved at once, with no settling."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from wskit.cache import WorkspaceCache
from wskit.testing import write_tree
from wskit.trust import TrustStore

pytest.importorskip("inotify_simple")
if not os.path.exists("/proc/sys/fs/inotify"):
    pytest.skip("no inotify on this system", allow_module_level=True)

OLD = 1_700_000_000
SKILL = "---\nname: {n}\ndescription: {d}\n---\nBody.\n"


@pytest.fixture
def setup(tmp_path: Path, wskit_home: Path, wskit_profile, wskit_pm):
    root = write_tree(tmp_path / "ws", {
        ".git/HEAD": "ref: refs/heads/main\n",
        ".claude/skills/alpha/SKILL.md": SKILL.format(n="alpha", d="alpha"),
        ".claude/commands/run.md": "---\ndescription: run it\n---\nRun.\n",
    })
    secret = write_tree(tmp_path / "secret", {"SKILL.md": SKILL.format(n="stolen", d="secret text")})
    TrustStore.for_home(wskit_home).grant(root)
    for dirpath, _dirs, files in os.walk(tmp_path, topdown=False):
        for f in files:
            os.utime(os.path.join(dirpath, f), (OLD, OLD))
        os.utime(dirpath, (OLD, OLD))
    cache = WorkspaceCache(wskit_profile, wskit_pm, watch=True)
    assert cache.watch_status == "watching"
    first = cache.resolve(root)
    assert cache.resolve(root) is first  # proven by the watches: the change below is what counts
    yield root, secret, cache
    cache.close()


def _ids(ws, kind: str) -> set[str]:
    return {r.id for r in ws.registry(kind).active()}


def test_a_file_hard_linked_elsewhere_is_refused_at_once(setup, tmp_path) -> None:
    root, _secret, cache = setup
    assert "project:run" in _ids(cache.resolve(root), "command")
    os.link(root / ".claude/commands/run.md", tmp_path / "other-name.md")  # outside every watched folder
    ws = cache.resolve(root)
    assert "project:run" not in _ids(ws, "command")
    assert any(d.code == "hardlink" for d in ws.diagnostics), ws.diagnostics


def test_a_skill_folder_swapped_for_a_link_out_is_not_followed(setup) -> None:
    root, secret, cache = setup
    assert "project:alpha" in _ids(cache.resolve(root), "skill")
    shutil.rmtree(root / ".claude/skills/alpha")
    os.symlink(secret, root / ".claude/skills/alpha")
    ws = cache.resolve(root)
    assert not any("secret text" in r.description for r in ws.registry("skill").active())
    assert "project:alpha" not in _ids(ws, "skill")


def test_revoked_trust_drops_project_content_at_once(setup, wskit_home) -> None:
    root, _secret, cache = setup
    assert "project:alpha" in _ids(cache.resolve(root), "skill")
    TrustStore.for_home(wskit_home).revoke(root)
    assert "project:alpha" not in _ids(cache.resolve(root), "skill")
