"""``wskit.fs.is_file``: an existence check noted for change detection, so a file created,
replaced or removed after a load makes that load stale (as a file it read would)."""

from __future__ import annotations

import os

from wskit import changes, fs


def test_is_file_answers_as_isfile_and_notes_the_answer(tmp_path) -> None:
    present, absent, folder = tmp_path / "a.md", tmp_path / "b.md", tmp_path / "d"
    present.write_text("x")
    folder.mkdir()
    os.symlink(present, tmp_path / "link.md")
    for p in (present, folder, tmp_path):
        os.utime(p, (1_700_000_000, 1_700_000_000))  # settled: not within the racy window
    os.utime(tmp_path / "link.md", (1_700_000_000, 1_700_000_000), follow_symlinks=False)
    with changes.recording() as deps:
        assert fs.is_file(present) and not fs.is_file(absent) and not fs.is_file(folder)
        assert fs.is_file(tmp_path / "link.md")  # links followed, as os.path.isfile
        assert not fs.is_file(tmp_path / "link.md", follow_links=False)
    assert deps.changed() is None
    assert deps.signature_of(str(absent), True) is None and str(absent) in deps.paths()
    absent.write_text("created")
    assert deps.changed() == str(absent)


def test_outside_a_recording_nothing_is_noted(tmp_path) -> None:
    assert not changes.recording_active()
    assert not fs.is_file(tmp_path / "nothing")
