"""wskit.changes: what a load read is recorded by stat and re-checked by stat."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wskit import changes, fs
from wskit.testing import write_tree

OLD = 1_700_000_000


def _age(root: Path) -> None:
    for dirpath, _dirs, files in os.walk(root, topdown=False):
        for f in files:
            os.utime(os.path.join(dirpath, f), (OLD, OLD))
        os.utime(dirpath, (OLD, OLD))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "ws", {"d/a.md": "alpha\n", "d/b.md": "beta\n", "e/": None})
    _age(root)
    return root


def test_records_read_files_listed_folders_and_missing_paths(tree: Path) -> None:
    with changes.recording() as deps:
        fs.scan_dir(tree, "d")
        fs.read_bytes(tree, "d/a.md")
        with pytest.raises(fs.SafeFsError):
            fs.read_bytes(tree, "d/missing.md")
    assert deps.paths() == [str(tree / "d"), str(tree / "d/a.md"), str(tree / "d/missing.md")]
    assert not deps.racy
    assert deps.changed() is None


def test_nothing_recorded_outside_a_recording(tree: Path) -> None:
    with changes.recording() as deps:
        pass
    fs.read_bytes(tree, "d/a.md")
    assert len(deps) == 0 and not changes.recording_active()


@pytest.mark.parametrize("change", ["edit", "add", "create-missing", "replace"])
def test_changes_are_seen_by_stat(tree: Path, change: str) -> None:
    with changes.recording() as deps:
        fs.scan_dir(tree, "d")
        fs.read_bytes(tree, "d/a.md")
        with pytest.raises(fs.SafeFsError):
            fs.read_bytes(tree, "e/new.md")
    if change == "edit":  # same size, mtime forced back to the old value: ctime still moves
        (tree / "d/a.md").write_text("ALPHA\n")
        os.utime(tree / "d/a.md", (OLD, OLD))
        expect = str(tree / "d/a.md")
    elif change == "add":
        (tree / "d/c.md").write_text("gamma\n")
        expect = str(tree / "d")
    elif change == "create-missing":
        (tree / "e/new.md").write_text("new\n")
        expect = str(tree / "e/new.md")
    else:  # atomic replace: new inode
        tmp = tree / "a.tmp"
        tmp.write_text("alpha\n")
        os.utime(tmp, (OLD, OLD))
        os.replace(tmp, tree / "d/a.md")
        expect = str(tree / "d")  # the rename touched the folder too; the file's inode changed
    assert deps.changed() == expect or deps.changed() == str(tree / "d/a.md")
    assert deps.changed() is not None


def test_fresh_files_make_a_racy_recording(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {"a.md": "x\n"})
    with changes.recording() as deps:
        fs.read_bytes(root, "a.md")
    assert deps.racy
    assert deps.changed() == "<racy>"


def test_nested_recordings_both_see_notes(tree: Path) -> None:
    with changes.recording() as outer:
        fs.read_bytes(tree, "d/a.md")
        with changes.recording() as inner:
            fs.read_bytes(tree, "d/b.md")
    assert outer.paths() == [str(tree / "d/a.md"), str(tree / "d/b.md")]
    assert inner.paths() == [str(tree / "d/b.md")]


def test_explicit_note_for_reads_outside_safefs(tree: Path) -> None:
    with changes.recording() as deps:
        changes.note(str(tree / "settings.json"))
    assert deps.changed() is None
    (tree / "settings.json").write_text("{}")
    assert deps.changed() == str(tree / "settings.json")


def _load_with_memo(root: Path, previous):
    with changes.recording(), changes.reusing(previous) as memo:
        got = changes.reuse(str(root / "d/a.md"))
        if got is None:
            got = ("built", fs.read_bytes(root, "d/a.md").raw)
            changes.remember(str(root / "d/a.md"), False, got)
    return got, memo


def test_reuse_returns_the_previous_value_only_for_an_unchanged_file(tree: Path) -> None:
    first, memo1 = _load_with_memo(tree, None)
    assert len(memo1) == 1
    second, memo2 = _load_with_memo(tree, memo1)
    assert second is first and len(memo2) == 1
    (tree / "d/a.md").write_text("changed\n")
    os.utime(tree / "d/a.md", (OLD, OLD))
    third, _ = _load_with_memo(tree, memo2)
    assert third is not first and third[1] == b"changed\n"


def test_racy_files_and_reads_outside_a_recording_are_not_remembered(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {"d/a.md": "fresh\n"})
    _, memo = _load_with_memo(root, None)
    assert len(memo) == 0  # written just now: racy
    with changes.reusing(None) as memo2:
        changes.remember(str(root / "d/a.md"), False, "x")
    assert len(memo2) == 0
