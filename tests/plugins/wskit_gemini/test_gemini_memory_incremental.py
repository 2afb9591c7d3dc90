"""On a reload the GEMINI.md walk — the rule catalog's shared project walk
(:func:`wskit.builtin_plugins.rules.projectwalk.project_walk`) — reuses unchanged folders' listings
(:func:`wskit.changes.reuse`) and gives exactly what a full walk gives."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from tests.plugins.wskit_gemini.memory_reference import walk_scan
from wskit import changes
from wskit.builtin_plugins.rules.model import RuleSettings
from wskit.builtin_plugins.rules.walk import ProjectWalker
from wskit.cache import WorkspaceCache
from wskit.host import HostProfile
from wskit.testing import write_tree
from wskit.trust import TrustStore
from wskit_gemini import memory

NAMES = ("GEMINI.md", "CONTEXT.md", "docs/MEM.md")
OLD = 1_700_000_000


def _age(*roots: Path) -> None:
    """Date everything back (out of the racy window) so a reload may reuse it; untouched
    paths keep their ctime, so change detection still sees them as unchanged."""
    def old(p: str) -> None:
        if os.lstat(p).st_mtime_ns != OLD * 10**9:
            os.utime(p, (OLD, OLD), follow_symlinks=False)

    for root in roots:
        for dirpath, dirs, files in os.walk(root, topdown=False):
            for name in files + dirs:
                old(os.path.join(dirpath, name))
            old(dirpath)


def _tree() -> dict[str, str]:
    files = {".git/HEAD": "ref: refs/heads/main\n", "GEMINI.md": "root\n"}
    for d in ("a", "a/b", "a/b/c", "d", "d/e", "f", "f/g"):
        files[f"{d}/src/main.py"] = "print()\n"
    files["a/GEMINI.md"] = "a\n"
    files["a/b/CONTEXT.md"] = "b\n"
    files["d/docs/MEM.md"] = "mem of d\n"
    files["node_modules/x/GEMINI.md"] = "skipped\n"
    files["nested/.git"] = "gitdir: elsewhere\n"
    files["nested/GEMINI.md"] = "inside a nested repo\n"
    return files


def _edit(root: Path, rng: random.Random, step: int) -> str:
    def add_memory():
        d = root / rng.choice(["a/b/c", "d/e", "f", "f/g", "a/b/c/src"])
        d.mkdir(parents=True, exist_ok=True)
        (d / rng.choice(NAMES[:2])).write_text(f"new {step}\n")

    def new_folder():
        (root / f"d/e/sub{step}").mkdir()
        (root / f"d/e/sub{step}/GEMINI.md").write_text(f"sub {step}\n")

    def link_memory():
        target = root / "f/g/GEMINI.md"
        if not target.exists() and not target.is_symlink():
            os.symlink(root / "GEMINI.md", target)

    def folder_to_link():
        c = root / "a/b/c"
        if c.is_dir() and not c.is_symlink():
            shutil.rmtree(c)
            os.symlink(root / "d", c)

    ops = [
        ("add memory file", add_memory),
        ("remove memory file", lambda: (root / "a/GEMINI.md").unlink(missing_ok=True)),
        ("new folder", new_folder),
        ("memory file is a link", link_memory),
        ("folder becomes a link", folder_to_link),
        ("docs/MEM.md appears below an unchanged folder",
         lambda: (root / "f/docs").mkdir(exist_ok=True) or (root / "f/docs/MEM.md").write_text(f"m {step}\n")),
        ("docs/MEM.md removed", lambda: (root / "d/docs/MEM.md").unlink(missing_ok=True)),
        ("folder becomes a nested repo", lambda: (root / "f/g/.git").write_text("gitdir: x\n")),
        ("nested repo stops being one", lambda: (root / "nested/.git").unlink(missing_ok=True)),
        ("venv appears", lambda: (root / "d/pyvenv.cfg").write_text("home = /usr\n")),
        ("folder removed", lambda: shutil.rmtree(root / "d/e", ignore_errors=True)),
        ("edit a memory file in place", lambda: (root / "GEMINI.md").write_text(f"root v{step}\n")),
    ]
    name, op = rng.choice(ops)
    op()
    return name


def _walk(root: Path, previous, names=NAMES):
    diags: list = []
    with changes.recording(), changes.reusing(previous) as memo:
        found = list(memory._walk(str(root), names, RuleSettings(), diags))
    return found, diags, memo


@pytest.mark.parametrize("seed", range(6))
def test_incremental_walk_equals_full_walk(tmp_path, monkeypatch, seed) -> None:
    root = write_tree(tmp_path / "ws", _tree())
    _age(root)
    listed: list[str] = []
    real = ProjectWalker._list

    def counting(self, fd, shown):
        listed.append(shown)
        return real(self, fd, shown)

    monkeypatch.setattr(ProjectWalker, "_list", counting)
    _, _, memo = _walk(root, None)
    folders = len(listed)
    rng = random.Random(seed)
    for step in range(8):
        what = _edit(root, rng, step)
        _age(root)
        listed.clear()
        got, got_diags, memo = _walk(root, memo)
        relisted = len(listed)
        full, full_diags, _ = _walk(root, None)
        assert (got, got_diags) == (full, full_diags), f"step {step}: {what}"
        assert (got, got_diags) == (list(walk_scan(str(root), NAMES, RuleSettings(), d := [])), d)
        # only the folders whose entries changed are listed again
        assert relisted < folders, f"step {step}: {what}"


def test_unchanged_tree_lists_nothing_and_names_change_relists(tmp_path, monkeypatch) -> None:
    root = write_tree(tmp_path / "ws", _tree())
    _age(root)
    listed: list[str] = []
    real = ProjectWalker._list
    monkeypatch.setattr(ProjectWalker, "_list", lambda self, fd, shown: listed.append(shown) or real(self, fd, shown))
    first, _, memo = _walk(root, None)
    assert listed
    listed.clear()
    again, _, memo2 = _walk(root, memo)
    assert again == first and listed == []
    (root / "a/b/c/GEMINI.md").write_text("new\n")
    _age(root)
    listed.clear()
    third, _, memo3 = _walk(root, memo2)
    assert listed == [str(root / "a/b/c")]
    assert ("a/b/c", "a/b/c/GEMINI.md", "GEMINI.md") in third
    # another context.fileName: the shared walk keeps every name, so nothing is listed again
    listed.clear()
    other, _, _ = _walk(root, memo3, ("CONTEXT.md",))
    assert listed == [] and other == [("a/b", "a/b/CONTEXT.md", "CONTEXT.md")]


def test_namespace_keeps_values_apart(tmp_path) -> None:
    f = tmp_path / "x"
    f.mkdir()
    _age(tmp_path)
    with changes.recording() as rec, changes.reusing(None) as memo:
        rec.note(str(f), False)
        changes.remember(str(f), False, "shared")
        changes.remember(str(f), False, "mine", namespace="plugin")
    with changes.recording(), changes.reusing(memo):
        assert changes.reuse(str(f)) == "shared"
        assert changes.reuse(str(f), namespace="plugin") == "mine"
        assert changes.reuse(str(f), namespace="other") is None


def _view(ws):
    cat = ws.catalog("rules")
    rules = [(r.id, r.path, r.scope_dir, r.priority, r.sha256) for r in cat.rules()]
    diags = sorted((d.code, d.path or "", d.level) for d in cat.diagnostics)
    return rules, diags


@pytest.mark.parametrize("seed", range(3))
def test_incremental_resolve_equals_full_resolve(tmp_path, gemini_pm, seed) -> None:
    root = write_tree(tmp_path / "ws", _tree())
    home = write_tree(tmp_path / "home", {})
    TrustStore.for_home(home).grant(root)
    _age(root, home)
    profile = HostProfile(home=home)
    cache = WorkspaceCache(profile, gemini_pm)
    prev = cache.resolve(root)
    assert "a/GEMINI.md" in [r.path for r in prev.catalog("rules").rules()]
    rng = random.Random(seed)
    for step in range(6):
        what = _edit(root, rng, step)
        _age(root)
        got = cache.resolve(root)
        full = WorkspaceCache(profile, gemini_pm).resolve(root)
        assert _view(got) == _view(full), f"step {step}: {what}"
        prev = got
