"""Guarantees that lean on Linux hold elsewhere, or fail closed.

- Where a followed link really leads is read from the open descriptor: Linux's
  ``/proc/self/fd``, macOS's ``fcntl(F_GETPATH)``, else the inode test (the file
  at the path resolved before opening *is* the open one, and has one link).
  When none of them can vouch for it, the link is not followed. These tests
  switch the Linux path off (``descriptors.PROC_FD = None``) to run the
  fallbacks on Linux, as they run on a platform without ``/proc``.
- Child processes are listed from ``/proc``, else with POSIX ``ps``; the test
  helper fails rather than pass unchecked where neither works.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from wskit import fs
from wskit.fs import descriptors
from wskit.session import testing as proc_testing


@pytest.fixture(params=["linux", "no-proc"])
def platform(request, monkeypatch):
    if request.param == "no-proc":
        monkeypatch.setattr(descriptors, "PROC_FD", None)
        monkeypatch.setattr(descriptors, "F_GETPATH", None)
    elif descriptors.PROC_FD is None:
        pytest.skip("no /proc/self/fd here")
    return request.param


@pytest.fixture
def home(tmp_path):
    h = tmp_path / "home"
    (h / ".ssh").mkdir(parents=True)
    (h / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\ncanary\n")
    (h / "dotfiles").mkdir()
    (h / "dotfiles" / "notes.md").write_text("# my notes\n")
    (h / "rules").mkdir()
    (h / "rules" / "notes.md").symlink_to(h / "dotfiles" / "notes.md")
    (h / "rules" / "key.md").symlink_to(h / ".ssh" / "id_rsa")
    return h


def test_followed_link_to_a_plain_file_is_read(home, platform):
    res = fs.read_bytes(home, "rules/notes.md", follow_links=True)
    assert res.raw == b"# my notes\n"
    assert res.link_target == str((home / "dotfiles" / "notes.md").resolve())


def test_followed_link_to_a_secret_is_refused(home, platform):
    with pytest.raises(fs.SafeFsError) as err:
        fs.read_bytes(home, "rules/key.md", follow_links=True)
    assert err.value.code == "secret-path"


def test_target_that_cannot_be_verified_is_not_followed(home, monkeypatch):
    """A swap between resolving and opening: the path resolved first no longer names
    the open file. With /proc the real target is used (and judged); without it the
    link is not followed at all."""
    real_realpath = os.path.realpath

    def stale(path, *a, **k):  # what realpath() said before the swap
        out = real_realpath(path, *a, **k)
        return str(home / "dotfiles" / "gone.md") if out.endswith("notes.md") else out

    monkeypatch.setattr(os.path, "realpath", stale)
    if descriptors.PROC_FD is not None:
        assert fs.read_bytes(home, "rules/notes.md", follow_links=True).raw == b"# my notes\n"
    monkeypatch.setattr(descriptors, "PROC_FD", None)
    monkeypatch.setattr(descriptors, "F_GETPATH", None)
    with pytest.raises(fs.SafeFsError) as err:
        fs.read_bytes(home, "rules/notes.md", follow_links=True)
    assert err.value.code == "symlink" and "cannot verify" in str(err.value)


def test_swap_into_a_secret_link_is_caught_even_without_a_link_at_resolve_time(home, monkeypatch, platform):
    """realpath() saw a plain file; the open found a link to the key (a swap in
    between). The opened target is verified and judged, link or not."""
    (home / "rules" / "plain.md").write_text("plain\n")
    real_open = os.open

    def swapping_open(path, flags, *a, **k):
        if path == "plain.md":
            os.unlink("plain.md", dir_fd=k.get("dir_fd"))
            os.symlink(home / ".ssh" / "id_rsa", "plain.md", dir_fd=k.get("dir_fd"))
        return real_open(path, flags, *a, **k)

    monkeypatch.setattr(os, "open", swapping_open)
    with pytest.raises(fs.SafeFsError) as err:
        fs.read_bytes(home, "rules/plain.md", follow_links=True)
    assert err.value.code in {"secret-path", "symlink", "special-file"}


def test_children_are_listed_without_proc(monkeypatch):
    # a short command line: the listing without /proc may cut a long one (a deep venv path)
    child = subprocess.Popen(["sleep", "30"])
    try:
        with_proc = proc_testing.live_children() if proc_testing.PROC is not None else None
        monkeypatch.setattr(proc_testing, "PROC", None)
        without = proc_testing.live_children()
        assert child.pid in without and "sleep 30" in without[child.pid]
        if with_proc is not None:
            assert child.pid in with_proc
    finally:
        child.kill()
        child.wait()
    assert child.pid not in proc_testing.live_children()


def test_no_way_to_list_children_fails_closed(monkeypatch):
    monkeypatch.setattr(proc_testing, "PROC", None)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(proc_testing.ChildListingError):
        proc_testing.live_children()
