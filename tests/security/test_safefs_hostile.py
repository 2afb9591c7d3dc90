"""Safe file access against hostile trees that do not fit the per-loader table."""

from __future__ import annotations

import os
import threading
import time

import pytest

from tests.security.cases import _deep_dirs, release_deep
from tests.security.harness import bounded
from wskit import fs

DEPTH = 10_000


@pytest.fixture(scope="module")
def deep_tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("deep")
    _deep_dirs(None, root / "x" / "SKILL.md")  # builds root/deep/d/d/.../SKILL.md
    yield root
    release_deep(root / "deep")


def test_file_10000_folders_deep_is_read_without_path_max_or_recursion(deep_tree):
    rel = "deep/" + "d/" * DEPTH + "SKILL.md"
    res = bounded(lambda: fs.read_bytes(deep_tree, rel, max_bytes=4096), 60)
    assert res.raw == b"---\ndescription: deep\n---\n"
    entries = fs.scan_dir(deep_tree, "deep/" + "d/" * DEPTH)
    assert [e.name for e in entries] == ["SKILL.md"]


def test_walk_of_10000_deep_tree_stops_at_the_depth_bound(deep_tree):
    from wskit.fs.walk import walk_files

    files, diags = bounded(lambda: walk_files(deep_tree, "deep"), 60)
    assert files == []
    assert [d.code for d in diags] == ["too-deep"]
    files, diags = bounded(lambda: walk_files(deep_tree, "deep/" + "d/" * (DEPTH - 3), max_depth=5), 60)
    assert [f.rel for f in files] == ["deep/" + "d/" * DEPTH + "SKILL.md"]


def test_escape_hidden_deep_in_a_long_path_is_refused():
    rel = "a/" * DEPTH + "../" * (DEPTH + 1) + "etc/passwd"
    with pytest.raises(fs.SafeFsError) as ei:
        fs.split_relative(rel)
    assert ei.value.code == "path-escape"


def test_file_name_with_newline_and_non_ascii_is_read_verbatim(tmp_path):
    name = "caf\u00e9 \u65e5\u672c\nline2.md"
    (tmp_path / name).write_bytes(b"ok")
    assert fs.read_bytes(tmp_path, name).raw == b"ok"
    assert [e.name for e in fs.scan_dir(tmp_path)] == [name]


def test_component_swapped_for_link_during_walk_is_refused(tmp_path):
    """A local attacker races a folder swap: at no point does a read through the
    swapped folder succeed with the outside file's bytes."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.md").write_bytes(b"OUTSIDE")
    base = tmp_path / "base"
    (base / "sub").mkdir(parents=True)
    (base / "sub" / "f.md").write_bytes(b"INSIDE")
    stop = time.monotonic() + 1.0
    leaked = []

    def swapper():
        while time.monotonic() < stop:
            os.rename(base / "sub", base / "real")
            os.symlink(outside, base / "sub")
            os.unlink(base / "sub")
            os.rename(base / "real", base / "sub")

    t = threading.Thread(target=swapper)
    t.start()
    reads = 0
    try:
        while time.monotonic() < stop:
            try:
                raw = fs.read_bytes(base, "sub/f.md").raw
            except fs.SafeFsError as err:
                assert err.code in ("symlink", "not-found")
                continue
            reads += 1
            if raw != b"INSIDE":
                leaked.append(raw)
    finally:
        t.join()
    assert not leaked
    assert reads > 0
