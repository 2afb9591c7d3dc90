"""The descriptor-keeping memory walk finds what the scan_dir walk finds."""

from __future__ import annotations

import os
import random

from tests.plugins.wskit_gemini.memory_reference import MAX_HELD, walk_scan
from wskit import changes
from wskit.builtin_plugins.rules.model import RuleSettings
from wskit_gemini import memory

NAMES = ("GEMINI.md", "CONTEXT.md", "docs/MEM.md")


def _both(root, settings=None):
    settings = settings or RuleSettings()
    d1: list = []
    d2: list = []
    fast = list(memory._walk(str(root), NAMES, settings, d1))
    slow = list(walk_scan(str(root), NAMES, settings, d2))
    return fast, slow, d1, d2


def _random_tree(root, rng: random.Random) -> None:
    folders = [root]
    for _ in range(60):
        parent = rng.choice(folders)
        kind = rng.random()
        name = rng.choice(["a", "b", "pkg", "src", "node_modules", ".gemini", ".ssh", "venv", "sub", "z", "docs"])
        path = parent / f"{name}{rng.randint(0, 3)}" if rng.random() < 0.5 else parent / name
        if path.exists() or path.is_symlink():
            continue
        if kind < 0.45:
            path.mkdir()
            folders.append(path)
        elif kind < 0.75:
            path.write_text("x\n")
        elif kind < 0.85:
            os.symlink(rng.choice(folders), path)
        elif kind < 0.92:
            (parent / rng.choice(NAMES[:2])).write_text("memory\n") if not (parent / NAMES[0]).exists() else None
        else:
            path.mkdir()
            (path / rng.choice([".git", "pyvenv.cfg"])).write_text("x")
            (path / "GEMINI.md").write_text("inside a nested repo\n")
    for f in rng.sample(folders, k=min(len(folders), 8)):
        target = f / rng.choice(NAMES[:2])
        if not target.exists() and not target.is_symlink():
            if rng.random() < 0.2:
                os.symlink(root / "missing", target)
            else:
                target.write_text("m\n")
        if rng.random() < 0.3:
            (f / "docs").mkdir(exist_ok=True)
            if not (f / "docs" / "MEM.md").exists():
                (f / "docs" / "MEM.md").write_text("mem\n")


def test_same_files_order_and_diagnostics_on_random_trees(tmp_path) -> None:
    for seed in range(12):
        root = tmp_path / f"t{seed}"
        root.mkdir()
        _random_tree(root, random.Random(seed))
        fast, slow, d1, d2 = _both(root)
        assert fast == slow, seed
        assert d1 == d2, seed
        assert fast or seed  # the trees do hold memory files (checked below for seed 0)
    assert _both(tmp_path / "t0")[0]


def test_max_depth_and_deep_trees_beyond_the_held_descriptors(tmp_path) -> None:
    deep = tmp_path / "deep"
    p = deep
    for i in range(MAX_HELD + 10):
        p = p / f"d{i}"
    p.mkdir(parents=True)
    (p / "GEMINI.md").write_text("deep\n")
    (deep / "d0" / "GEMINI.md").write_text("shallow\n")
    fast, slow, d1, d2 = _both(deep)
    assert fast == slow and len(fast) == 2 and d1 == d2 == []
    limited = RuleSettings(max_depth=1)
    fast, slow, _, _ = _both(deep, limited)
    assert fast == slow == [("d0", "d0/GEMINI.md", "GEMINI.md")]


def test_missing_root_and_change_notes(tmp_path) -> None:
    fast, slow, d1, d2 = _both(tmp_path / "absent")
    assert fast == slow == [] and d1 == d2 == []
    root = tmp_path / "r"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "GEMINI.md").write_text("x\n")
    notes = []
    for walk in (memory._walk, walk_scan):
        with changes.recording() as rec:
            list(walk(str(root), NAMES, RuleSettings(), []))
        notes.append(sorted(rec.paths()))
    assert notes[0] == notes[1]


def test_memory_comes_from_the_rule_walk_of_the_same_load(tmp_path, monkeypatch) -> None:
    """One listing per folder and load, shared with the rule catalog;
    so what that walk skips (gitignored and .claude folders) holds no memory."""
    from wskit.builtin_plugins.rules.walk import ProjectWalker

    root = tmp_path / "r"
    for rel, text in {
        ".gitignore": "ignored/\n", "GEMINI.md": "root\n", "a/GEMINI.md": "a\n", "a/b/AGENTS.md": "agents\n",
        "ignored/GEMINI.md": "not loaded\n", ".claude/GEMINI.md": "not loaded\n", "nested/.git": "gitdir: x\n",
        "nested/GEMINI.md": "not loaded\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    listed: list[str] = []
    real = ProjectWalker._list
    monkeypatch.setattr(ProjectWalker, "_list", lambda self, fd, shown: listed.append(shown) or real(self, fd, shown))
    with changes.recording(), changes.reusing(None):
        from wskit.builtin_plugins.rules.discovery import discover_project
        from wskit_gemini.memory import _DefaultProfile

        found = list(memory._walk(str(root), NAMES, RuleSettings(), []))
        rules = discover_project(str(root), _DefaultProfile, RuleSettings())
    assert [f[1] for f in found] == ["GEMINI.md", "a/GEMINI.md"]
    assert "a/b/AGENTS.md" in {r.path for r in rules.rules}
    assert sorted(listed) == sorted(set(listed))  # every folder listed once for both
    assert str(root / "ignored") not in listed
    # the separate scan_dir walk does find the ignored and .claude files: the documented difference
    assert {"ignored/GEMINI.md", ".claude/GEMINI.md"} <= {f[1] for f in walk_scan(str(root), NAMES, RuleSettings(), [])}
