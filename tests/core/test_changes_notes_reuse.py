"""changes.Notes.reuse/remember (the context read once per folder)
give what changes.reuse/remember give: the same value, the same carried memo
items, the same recorded signatures, and a racy recording at least as often."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wskit import changes, fs
from wskit.testing import write_tree

OLD = 1_700_000_000


def _tree(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "ws", {"d/a.md": "alpha\n", "d/b.md": "beta\n", "real/c.md": "gamma\n"})
    os.symlink(root / "real", root / "link")
    for p in ("d/a.md", "d/b.md", "real/c.md", "d", "real"):
        os.utime(root / p, (OLD, OLD))
    return root


def _first_load(root: Path):
    """A load that reads three files and remembers a value for each (one in a namespace,
    one read following a link)."""
    with changes.recording(), changes.reusing(None) as memo:
        for rel, follow, ns in (("d/a.md", False, ""), ("d/b.md", False, "mine"), ("link/c.md", True, "")):
            res = fs.read_bytes(root, rel, follow_links=follow)
            changes.remember(str(root / rel), follow, ("v", rel, res.raw), namespace=ns)
    assert len(memo) == 3
    return memo


def _reload(root: Path, previous, use_notes: bool, verified: bool):
    if verified:  # what the cache's change check hands over: signatures it found unchanged
        previous.verified = {(str(root / "d/a.md"), False): changes.stat_signature(str(root / "d/a.md"), False)}
    else:
        previous.verified = {}
    got = []
    with changes.recording() as outer, changes.recording() as deps, changes.reusing(previous) as memo:
        notes = changes.Notes()
        for rel, follow, ns in (("d/a.md", False, ""), ("d/b.md", False, "mine"), ("link/c.md", True, ""),
                                ("d/a.md", False, "other")):
            path = str(root / rel)
            if use_notes:
                got.append(notes.reuse(path, ns, follow))
            else:
                got.append(changes.reuse(path, follow, namespace=ns))
    return got, dict(memo._items), dict(deps._paths), dict(outer._paths), deps.racy


@pytest.mark.parametrize("verified", [False, True])
@pytest.mark.parametrize("edit", [None, "d/a.md", "d/b.md", "real/c.md", "delete"])
def test_notes_reuse_equals_module_reuse(tmp_path: Path, edit: str | None, verified: bool) -> None:
    root = _tree(tmp_path)
    memo = _first_load(root)
    if edit == "delete":
        (root / "d/b.md").unlink()
    elif edit is not None:
        (root / edit).write_text("changed, and longer\n")
        os.utime(root / edit, (OLD, OLD))
    a = _reload(root, memo, use_notes=False, verified=verified)
    b = _reload(root, memo, use_notes=True, verified=verified)
    assert a == b
    values = a[0]
    assert values[3] is None  # nothing was remembered in that namespace
    if edit is None:
        assert all(v is not None for v in values[:3])
    else:
        assert values.count(None) == 2  # the edited or deleted one, and the unknown namespace


def test_notes_reuse_marks_a_fresh_file_racy(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    memo = _first_load(root)
    (root / "d/a.md").write_text("alpha\n")  # same bytes and size, a new mtime: a different signature
    memo_sig = next(sig for key, (sig, _v) in memo._items.items() if key == (str(root / "d/a.md"), False))
    with changes.recording() as deps, changes.reusing(memo):
        assert changes.Notes().reuse(str(root / "d/a.md")) is None  # changed signature: not reused
    assert not deps.racy
    # a signature recorded now, of a file just written, makes the walk's recording racy
    memo._items[(str(root / "d/a.md"), False)] = (changes.stat_signature(str(root / "d/a.md"), False), "v")
    with changes.recording() as deps, changes.reusing(memo):
        assert changes.Notes().reuse(str(root / "d/a.md")) == "v"
    assert deps.racy
    assert memo_sig != memo._items[(str(root / "d/a.md"), False)][0]


def test_notes_remember_follows_the_follow_flag(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    with changes.recording(), changes.reusing(None) as memo:
        notes = changes.Notes()
        fs.read_bytes(root, "link/c.md", follow_links=True)
        notes.remember(str(root / "link/c.md"), "followed", follow=True)
        notes.remember(str(root / "link/c.md"), "not read so", follow=False)  # never noted: not kept
    assert memo._items == {(str(root / "link/c.md"), True): (memo._items[(str(root / "link/c.md"), True)][0], "followed")}
