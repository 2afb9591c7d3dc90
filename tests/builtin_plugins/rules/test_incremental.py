"""A reload after edits rebuilds the rule catalog from reused folder
listings and rule files, and must give exactly what a full (cold) rebuild gives."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from wskit.cache import WorkspaceCache
from wskit.testing import write_tree
from wskit.trust import TrustStore

OLD = 1_700_000_000


def _age(*roots: Path) -> None:
    """Date what was written back (out of the racy window); untouched paths keep their
    ctime, so change detection still sees them as unchanged."""
    def old(p: str) -> None:
        if os.lstat(p).st_mtime_ns != OLD * 10**9:
            os.utime(p, (OLD, OLD), follow_symlinks=False)

    for root in roots:
        for dirpath, dirs, files in os.walk(root, topdown=False):
            for name in files + dirs:
                old(os.path.join(dirpath, name))
            old(dirpath)


def _rule(i: int, pattern: str) -> str:
    return f"---\npaths:\n  - \"{pattern}\"\n---\nrule {i}\n"


def _tree() -> dict[str, str]:
    files = {".git/HEAD": "ref: refs/heads/main\n", "AGENTS.md": "root agents\n", ".gitignore": "ignored/\n"}
    for d in ("a", "a/b", "a/b/c", "d", "d/e", "ignored", "ignored/x"):
        files[f"{d}/AGENTS.md"] = f"agents of {d}\n"
        files[f"{d}/src/main.py"] = "print()\n"
    files["a/CLAUDE.md"] = "claude of a\n"
    files["d/.claude/rules/r1.md"] = _rule(1, "src/**")
    files[".claude/rules/r2.md"] = _rule(2, "**/*.py")
    files[".claude/rules/r3.md"] = "no frontmatter, imports @a/CLAUDE.md\n"
    return files


def _edit(root: Path, rng: random.Random, step: int) -> str:
    ops = [
        ("edit rule", lambda: (root / ".claude/rules/r2.md").write_text(_rule(2, f"**/*.{step}py"))),
        ("edit imported file", lambda: (root / "a/CLAUDE.md").write_text(f"claude of a, v{step}\n")),
        ("add agents file", lambda: (root / f"d/e/sub{step}").mkdir() or
         (root / f"d/e/sub{step}/AGENTS.md").write_text(f"new {step}\n")),
        ("remove agents file", lambda: (root / "a/b/AGENTS.md").unlink(missing_ok=True)),
        ("unignore folder", lambda: (root / ".gitignore").write_text(f"# v{step}\n")),
        ("ignore folder", lambda: (root / ".gitignore").write_text("ignored/\nd/e/\n")),
        ("override", lambda: (root / "d/AGENTS.override.md").write_text(f"override {step}\n")),
        ("folder becomes link", lambda: (shutil.rmtree(root / "a/b/c"), os.symlink(root / "d", root / "a/b/c"))
         if (root / "a/b/c").is_dir() and not (root / "a/b/c").is_symlink() else None),
        ("add rule in rules dir", lambda: (root / f"d/.claude/rules/n{step}.md").write_text(_rule(9, "*.md"))),
    ]
    name, op = rng.choice(ops)
    op()
    return name


def _view(ws):
    cat = ws.catalog("rules")
    rules = [(r.id, r.path, r.scope_dir, r.priority, r.patterns, r.sha256) for r in cat.rules()]
    diags = sorted((d.code, d.path or "", d.level) for d in cat.diagnostics)
    return rules, diags


@pytest.mark.parametrize("seed", range(4))
def test_incremental_reload_equals_full_rebuild(tmp_path, wskit_home, wskit_profile, wskit_pm, seed):
    root = write_tree(tmp_path / "ws", _tree())
    TrustStore.for_home(wskit_home).grant(root)
    _age(root, wskit_home)
    cache = WorkspaceCache(wskit_profile, wskit_pm)
    prev = cache.resolve(root)
    prev.catalog("rules").rules()  # read whole, so the reloads below have something to reuse
    rng = random.Random(seed)
    for step in range(6):
        what = _edit(root, rng, step)
        _age(root)  # settled, so the reload may reuse what did not change
        got = cache.resolve(root)
        full = WorkspaceCache(wskit_profile, wskit_pm).resolve(root)
        assert _view(got) == _view(full), f"step {step}: {what}"
        if got is not prev:  # something reloaded: untouched rule files were reused, not re-read
            old = {r.path: r for r in prev.catalog("rules").rules()}
            assert any(old.get(r.path) is r for r in got.catalog("rules").rules()), what
        prev = got


def test_unchanged_tree_reuses_every_import_free_rule(tmp_path, wskit_home, wskit_profile, wskit_pm):
    root = write_tree(tmp_path / "ws", _tree())
    TrustStore.for_home(wskit_home).grant(root)
    _age(root, wskit_home)
    cache = WorkspaceCache(wskit_profile, wskit_pm)
    first = cache.resolve(root)
    first.catalog("rules").rules()  # the lazy catalog reads the whole project
    (root / "d/AGENTS.md").write_text("edited\n")
    _age(root)
    second = cache.resolve(root)
    assert second is not first
    old = {r.path: r for r in first.catalog("rules").rules()}
    new = {r.path: r for r in second.catalog("rules").rules()}
    assert new["d/AGENTS.md"].body == "edited"
    assert new["d/AGENTS.md"] is not old["d/AGENTS.md"]
    assert new["a/AGENTS.md"] is old["a/AGENTS.md"]  # unchanged: reused
    assert new[".claude/rules/r3.md"] is not old[".claude/rules/r3.md"]  # imports: always re-read
