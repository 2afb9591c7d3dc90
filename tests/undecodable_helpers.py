"""Shared by the tests of names that are not UTF-8: write files under bytes paths,
and skip when the file system refuses such names (some do: APFS, NTFS)."""

from __future__ import annotations

import os

import pytest

#: the byte used for names that are not UTF-8
BAD = b"\xff"


def write(root, rel: bytes, text: str) -> None:
    """Write ``text`` (UTF-8) at ``root``/``rel``, ``rel`` as bytes, creating folders."""
    path = os.path.join(os.fsencode(root), rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(text.encode())


@pytest.fixture
def bad_names_ok(tmp_path):
    """Skip the test when ``tmp_path``'s file system refuses a name holding :data:`BAD`."""
    try:
        os.mkdir(os.path.join(os.fsencode(tmp_path), b"probe" + BAD))
    except (OSError, UnicodeError):
        pytest.skip("this file system refuses names that are not UTF-8")
    os.rmdir(os.path.join(os.fsencode(tmp_path), b"probe" + BAD))
