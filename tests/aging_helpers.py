"""Test helpers for change detection: age a tree's modification times past the racy
window, so a stat check or a kept stage treats what was written as settled."""

from __future__ import annotations

import os
from pathlib import Path

#: a modification time long before any test runs (2023-11-14)
OLD = 1_700_000_000


def skill_text(name: str, desc: str) -> str:
    """A minimal ``SKILL.md`` with ``name`` and ``desc``."""
    return f"---\nname: {name}\ndescription: {desc}\n---\nBody of {name}.\n"


def age(*roots: Path) -> None:
    """Set every file (links not followed) and folder under ``roots`` to :data:`OLD`."""
    for root in roots:
        for dirpath, _dirs, files in os.walk(root, topdown=False):
            for f in files:
                os.utime(os.path.join(dirpath, f), (OLD, OLD), follow_symlinks=False)
            os.utime(dirpath, (OLD, OLD))
