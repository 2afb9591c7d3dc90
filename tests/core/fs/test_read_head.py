"""fs.read_head reads little past the frontmatter; scan_dir types entries without stat
(the secret-name property moved to test_paths.py with the code)."""

from __future__ import annotations

from pathlib import Path

from wskit import fs
from wskit.formats.frontmatter import read_frontmatter
from wskit.testing import write_tree


def _skill(fm_len: int, body_len: int) -> bytes:
    head = "---\nname: s\ndescription: "
    fm = head + "d" * (fm_len - len(head) - 5) + "\n---\n"
    assert len(fm) == fm_len
    return (fm + "b" * body_len).encode()


def test_frontmatter_read_stops_soon_after_the_closing_line(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"s/SKILL.md": _skill(279, 2793)})
    fm, res = read_frontmatter(root, "s/SKILL.md")
    assert fm.ok and fm.data["name"] == "s"
    assert res.size == 3072 and not res.complete
    assert len(res.raw) == 279  # cut at the closing line
    # what was read from the file: at most 12.5 % + 32 bytes past the closing line
    head = fs.read_head(root, "s/SKILL.md", done=lambda b: b"\n---\n" in b, max_bytes=65536)
    assert 279 <= len(head.raw) <= 279 + 279 // 8 + 32
    assert len(head.raw) <= 0.10 * 3072


def test_large_frontmatter_reads_in_few_steps(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"big.md": _skill(40_000, 10_000)})
    calls = []

    def done(b: bytes) -> bool:
        calls.append(len(b))
        return b"\n---\n" in b

    res = fs.read_head(root, "big.md", done=done, max_bytes=65536)
    assert b"\n---\n" in res.raw and len(res.raw) <= 40_000 * 1.125 + 32
    assert len(calls) < 60


def test_small_file_is_complete(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"a.md": "no frontmatter here\n"})
    res = fs.read_head(root, "a.md", done=lambda b: False, max_bytes=65536)
    assert res.complete and res.raw == b"no frontmatter here\n"


def test_scan_dir_types_without_stat(tmp_path: Path) -> None:
    import os

    root = write_tree(tmp_path / "r", {"d/": None, "f.txt": "x", ".env": "SECRET=1"})
    os.mkfifo(root / "pipe")
    os.symlink(root / "f.txt", root / "link")
    got = {e.name: e.type for e in fs.scan_dir(root)}
    assert got == {"d": "dir", "f.txt": "file", "pipe": "special", "link": "link"}
    followed = {e.name: e.type for e in fs.scan_dir(root, follow_links=True)}
    assert followed["link"] == "file"
