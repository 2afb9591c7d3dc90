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
