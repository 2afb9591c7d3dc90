"""wskit.fs.walk: bounded, non-recursive tree walks."""

from __future__ import annotations

import os

import pytest

from tests.security.harness import bounded
from wskit import fs
from wskit.fs.walk import walk_files


def _codes(diags):
    return sorted(d.code for d in diags)


def test_lists_files_in_name_order_and_reports_links(tmp_path):
    for rel in ["b/2.md", "b/1.md", "a.md", "c/d/e.md"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    os.symlink(tmp_path / "a.md", tmp_path / "link.md")
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / ".env").write_text("SECRET=1")
    files, diags = walk_files(tmp_path)
    assert [f.rel for f in files] == ["a.md", "b/1.md", "b/2.md", "c/d/e.md"]
    assert _codes(diags) == ["special-file", "symlink"]


def test_depth_bound(tmp_path):
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    (tmp_path / "a" / "b" / "c" / "deep.md").write_text("x")
    (tmp_path / "a" / "top.md").write_text("x")
    files, diags = walk_files(tmp_path, max_depth=2)
    assert [f.rel for f in files] == ["a/top.md"]
    assert _codes(diags) == ["too-deep"]


def test_entry_bound(tmp_path):
    for i in range(50):
        (tmp_path / f"{i:02d}.md").write_text("x")
    files, diags = walk_files(tmp_path, max_entries=10)
    assert len(files) == 10
    assert _codes(diags) == ["too-many-entries"]


def test_follow_mode_detects_cycles_and_revisits(tmp_path):
    (tmp_path / "real" / "sub").mkdir(parents=True)
    (tmp_path / "real" / "sub" / "f.md").write_text("x")
    os.symlink(tmp_path / "real", tmp_path / "real" / "sub" / "up")  # cycle
    os.symlink(tmp_path / "real", tmp_path / "again")  # second route to real
    os.symlink("self", tmp_path / "self")  # self loop
    files, diags = bounded(lambda: walk_files(tmp_path, follow_links=True), 20)
    assert [f.rel for f in files] == ["real/sub/f.md"] or [f.rel for f in files] == ["again/sub/f.md"]
    assert "link-cycle" in _codes(diags) and "link-revisit" in _codes(diags) and "symlink" in _codes(diags)


def test_link_diamonds_do_not_blow_up(tmp_path):
    """20 levels of two links each to the next level: 2**20 routes, walked once each."""
    for i in range(21):
        (tmp_path / f"l{i}").mkdir()
    for i in range(20):
        os.symlink(tmp_path / f"l{i + 1}", tmp_path / f"l{i}" / "x")
        os.symlink(tmp_path / f"l{i + 1}", tmp_path / f"l{i}" / "y")
    (tmp_path / "l20" / "end.md").write_text("x")
    files, diags = bounded(lambda: walk_files(tmp_path, "l0", follow_links=True, max_depth=64), 20)
    assert len(files) == 1
    assert _codes(diags).count("link-revisit") == 20  # one per level: y after x


def test_start_folder_refusals_raise(tmp_path):
    with pytest.raises(fs.SafeFsError, match="path-escape"):
        walk_files(tmp_path, "../x")
    with pytest.raises(fs.SafeFsError, match="not-found"):
        walk_files(tmp_path, "missing")
