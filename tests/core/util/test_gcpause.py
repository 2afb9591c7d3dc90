"""``gc_paused`` disables the cyclic collector for a block and gives it back as found."""

from __future__ import annotations

import gc

import pytest

from wskit.util.gcpause import gc_paused


def test_paused_inside_given_back_after_even_on_error() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():  # nested: still off, and the outer block gives it back
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(KeyError), gc_paused():
        raise KeyError("x")
    assert gc.isenabled()


def test_left_disabled_when_it_was() -> None:
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_skills_list_gives_the_collector_back(wsctl, make_tree, wskit_home) -> None:
    ws = make_tree({".claude/skills/a/SKILL.md": "---\nname: a\ndescription: d\n---\n"})
    assert wsctl("skills", "list", str(ws), "--json").exit_code == 0
    assert gc.isenabled()


def test_a_wsctl_run_freezes_what_the_block_made_before_collecting_again() -> None:
    """With ``freeze_loads`` on (the console script) the block's objects are frozen when it
    ends, so the first allocation after it does not start a young collection walking
    them; off (any host process), nothing is frozen."""
    from wskit.util.gcpause import freeze_loads

    before = gc.get_freeze_count()
    with gc_paused():
        kept = [[i] for i in range(5000)]
    assert gc.get_freeze_count() == before  # not a wsctl run: nothing frozen
    freeze_loads(True)
    try:
        with gc_paused():
            kept += [[i] for i in range(5000)]
            assert gc.get_count()[0] >= 4000  # the block's containers, waiting for a collection
        assert gc.isenabled()
        assert gc.get_freeze_count() >= before + 10000
        assert gc.get_count()[0] < 100  # nothing left for a young collection to walk
    finally:
        freeze_loads(False)
        gc.unfreeze()
    assert len(kept) == 10000
