"""Dependencies.unchanged_just_now: what a change check verified is handed to
the reload, and only that."""

from __future__ import annotations

import os

from wskit import changes

OLD = 1_700_000_000


def test_verified_paths_stop_at_the_first_change(tmp_path):
    files = []
    for name in ("a", "b", "c"):
        p = tmp_path / name
        p.write_text(name)
        os.utime(p, (OLD, OLD))
        files.append(str(p))
    with changes.recording() as deps:
        for f in files:
            changes.note(f)
    (tmp_path / "b").write_text("bb")
    assert deps.changed() == files[1]
    verified = deps.unchanged_just_now()
    assert list(verified) == [(files[0], False)]
    assert verified[(files[0], False)] == deps.signature_of(files[0])


def test_reuse_takes_a_verified_signature_without_stat(tmp_path):
    p = tmp_path / "x"
    p.write_text("1")
    os.utime(p, (OLD, OLD))
    with changes.recording(), changes.reusing(None):
        with changes.reusing(None) as memo:
            changes.note(str(p))
            changes.remember(str(p), False, "value")
    sig = changes.stat_signature(str(p), False)
    memo.verified = {(str(p), False): sig}
    p.unlink()  # gone now, but the check of this very resolve saw it unchanged
    with changes.recording(), changes.reusing(memo):
        assert changes.reuse(str(p)) == "value"
    memo.verified = {}
    with changes.recording(), changes.reusing(memo):
        assert changes.reuse(str(p)) is None  # without it, reuse stats and sees the file gone


def test_adopt_carries_held_items_built_or_pending(tmp_path):
    """adopt() carries the previous memo's items of the adopted paths into the new memo:
    a plain dict's, and a persistent index's items whether built already or still pending
    (its ``keys()`` name both); paths without an item carry nothing."""
    from wskit.builtin_plugins.rules.persist import _Items

    paths = []
    for name in ("a", "b", "c", "d"):
        p = tmp_path / name
        p.write_text(name)
        os.utime(p, (OLD, OLD))
        paths.append(str(p))
    sigs = {(p, False): changes.stat_signature(p, False) for p in paths}
    plain = {(paths[0], False): (sigs[(paths[0], False)], "A")}
    pending = _Items()
    pending[(paths[1], False)] = (sigs[(paths[1], False)], "B")
    pending.pending[(paths[2], False)] = lambda: (sigs[(paths[2], False)], "C")
    pending.pending[(str(tmp_path / "elsewhere"), False)] = lambda: (None, "never asked")
    for items, want in ((plain, {paths[0]: "A"}), (pending, {paths[1]: "B", paths[2]: "C"})):
        with changes.recording() as deps, changes.reusing(None) as memo, changes.offering(changes.Memo.of(items)):
            changes.adopt(sigs)
        assert {k[0]: v[1] for k, v in memo._items.items()} == want
        assert all(deps.signature_of(p) == sigs[(p, False)] for p in paths)
