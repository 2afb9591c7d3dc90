"""Issue 8, B8: the GEMINI.md walk's per-folder memos share what repeats (one leaf memo per
kept-name set, one empty types mapping, interned names) and say what a listing says."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from wskit_gemini import memory

from wskit import changes
from wskit.rules.model import RuleSettings
from wskit.testing import write_tree

NAMES = ("GEMINI.md", "docs/MEM.md")


def _memos(root: Path) -> dict[str, tuple]:
    for dirpath, dirs, files in os.walk(root, topdown=False):  # out of the racy window: memos are kept
        for name in [*files, *dirs, "."]:
            os.utime(os.path.join(dirpath, name), (1_700_000_000, 1_700_000_000))
    with changes.recording(), changes.reusing(None) as memo:
        list(memory._walk(str(root), NAMES, RuleSettings(), []))
    return {k[0]: v[1] for k, v in memo._items.items() if len(k) == 3 and k[2] == memory._MEMO_NAMESPACE}


def test_memos_say_what_the_listing_says_and_share_leaves(tmp_path):
    root = write_tree(tmp_path / "ws", {
        ".git/HEAD": "x\n", "GEMINI.md": "root\n", "a/x.py": "", "b/x.py": "", "c/docs/MEM.md": "m\n",
        "d/sub/x.py": "", "env1/pyvenv.cfg": "",
    })
    memos = _memos(root)
    keep = frozenset({"GEMINI.md", "docs", "pyvenv.cfg", ".git"})
    leaf = (memory._MEMO_TAG, keep, {}, (), False)
    for folder in ("a", "b", "d/sub", "c/docs"):
        assert memos[str(root / folder)] == leaf
    assert memos[str(root / "a")] is memos[str(root / "b")] is memos[str(root / "d/sub")]  # one shared tuple
    assert memos[str(root / "d")] == (memory._MEMO_TAG, keep, {}, ("sub",), False)
    assert memos[str(root / "d")][2] is memory._NO_TYPES
    assert memos[str(root / "c")] == (memory._MEMO_TAG, keep, {"docs": "dir"}, ("docs",), False)
    assert memos[str(root / "env1")] == (memory._MEMO_TAG, keep, {"pyvenv.cfg": "file"}, (), True)
    top = memos[str(root)]
    assert top[2] == {"GEMINI.md": "file"} and top[3] == ("a", "b", "c", "d", "env1")
    assert all(name is sys.intern(name) for name in top[3])
