"""Binding.discover against a hostile ``.git`` file (an unpacked archive can carry one)."""

from __future__ import annotations

import os

from tests.security.harness import bounded, rchar
from wskit.binding import Binding


def test_huge_sparse_dot_git_file_is_not_read(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    with open(ws / ".git", "wb") as fh:
        fh.write(b"gitdir: ../elsewhere\n")
        fh.truncate(2 * 1024**3)
    before = rchar()
    b = bounded(lambda: Binding.discover(ws), 30)
    assert rchar() - before < 1024 * 1024
    assert b.source_root == ws.resolve()


def test_dot_git_fifo_does_not_hang(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    os.mkfifo(ws / ".git")
    b = bounded(lambda: Binding.discover(ws), 10)
    assert b.cwd == ws.resolve()
