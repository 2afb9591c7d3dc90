"""wskit.fs.fdwalk: descriptor-keeping listings keep safefs's refusals."""

from __future__ import annotations

import os

import pytest

from wskit import changes
from wskit.fs import SafeFsError
from wskit.fs import fdwalk as safewalk
from wskit.testing import write_tree


def test_listing_hides_secrets_and_types_entries(tmp_path):
    root = write_tree(tmp_path / "r", {"a/x.md": "x", ".env": "S=1", "f.txt": "t", ".ssh/id": "k"})
    os.symlink(root / "a", root / "link")
    fd = safewalk.open_root(str(root))
    try:
        with changes.recording() as deps:
            listing = safewalk.list_fd(fd, str(root))
    finally:
        os.close(fd)
    assert sorted(listing.dirs) == ["a"]  # the link and the secret folder are not sub-folders
    assert listing.get("link").type == "link"
    assert listing.get("f.txt").type == "file"
    assert listing.get("a").type == "dir"
    assert ".env" not in listing and listing.get(".env") is None
    assert deps.signature_of(str(root)) is not None  # noted for change detection


def test_keep_limits_the_names_kept(tmp_path):
    root = write_tree(tmp_path / "r", {"a/x": "1", "b.md": "2", "c.md": "3"})
    fd = safewalk.open_root(str(root))
    try:
        listing = safewalk.list_fd(fd, str(root), keep=frozenset({"b.md"}))
    finally:
        os.close(fd)
    assert listing.dirs == ["a"] and "b.md" in listing and "c.md" not in listing


def test_open_child_refuses_a_link(tmp_path):
    root = write_tree(tmp_path / "r", {"real/x": "1"})
    os.symlink(root / "real", root / "alias")
    fd = safewalk.open_root(str(root))
    try:
        with pytest.raises(SafeFsError) as err:
            safewalk.open_child(fd, "alias", str(root / "alias"))
        assert err.value.code == "symlink"
        with pytest.raises(SafeFsError) as err:
            safewalk.open_child(fd, "missing", str(root / "missing"))
        assert err.value.code == "not-found"
        os.close(safewalk.open_child(fd, "real", str(root / "real")))
    finally:
        os.close(fd)
