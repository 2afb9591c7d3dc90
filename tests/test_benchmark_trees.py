"""The benchmark tree generator (tests/benchmarks/trees.py) is deterministic and
builds the shapes docs/performance.md names; checked at a small scale so it stays fast."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from tests.benchmarks import trees


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(root)):
        dirnames[:] = sorted(d for d in dirnames if d != ".git")
        for f in sorted(filenames):
            p = Path(dirpath, f)
            h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> dict[str, Path]:
    dest = tmp_path_factory.mktemp("trees")
    return {s: trees.generate(s, dest, scale=0.02, seed=7) for s in trees.SHAPES}


def test_monorepo_shape(small) -> None:
    root = small["monorepo"]
    m = trees.manifest(root)
    assert (m["files"], m["dirs"]) == (1000, 100) and m["max_depth"] <= trees.MAX_DEPTH
    assert len(list((root / "node_modules").rglob("*.js"))) == 200
    assert (root / ".gitignore").read_text().startswith("node_modules/")
    rules = list(root.rglob(".claude/rules/*.md"))
    assert len(rules) == 5 and all(r.read_text().startswith("---\npaths:\n") for r in rules)
    assert len(list(root.rglob("AGENTS.md"))) == 4 and (root / "AGENTS.md").exists()
    tracked = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout
    assert "node_modules" not in tracked and len(tracked.splitlines()) == 800


def test_skills_shape(small) -> None:
    skills = sorted((small["skills"] / ".claude" / "skills").iterdir())
    assert len(skills) == 20
    text = (skills[0] / "SKILL.md").read_bytes()
    assert len(text) == trees.SKILL_BYTES
    fm_end = text.index(b"\n---\n", 3) + 5
    body = len(text) - fm_end
    assert fm_end == trees.SKILL_FM_BYTES == 279 and 10 * fm_end <= body < 10 * fm_end + 11  # body 10× frontmatter
    assert (skills[0] / "references" / "REFERENCE.md").is_file() and (skills[0] / "scripts" / "run.py").is_file()


def test_plugins_shape(small) -> None:
    bundles = sorted((small["plugins"] / ".claude" / "plugins").iterdir())
    assert len(bundles) == 2
    b = bundles[0]
    assert (b / ".claude-plugin" / "plugin.json").is_file() and (b / ".mcp.json").is_file()
    assert (len(list((b / "commands").glob("*.md"))), len(list((b / "skills").glob("*/SKILL.md"))),
            len(list((b / "agents").glob("*.md")))) == (5, 3, 2)
    assert (b / "hooks" / "hooks.json").is_file()


def test_same_seed_same_bytes_other_seed_differs(small, tmp_path) -> None:
    again = trees.generate("skills", tmp_path / "a", scale=0.02, seed=7)
    other = trees.generate("skills", tmp_path / "b", scale=0.02, seed=8)
    assert _digest(again) == _digest(small["skills"])
    assert _digest(other) != _digest(small["skills"])
