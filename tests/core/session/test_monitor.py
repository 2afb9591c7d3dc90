"""RepetitionMonitor: the 10th repetition gives exactly one notice; anything new
resets; the state survives a resume so the notice is not repeated."""

from __future__ import annotations

import pytest

from wskit.errors import SessionStateError
from wskit.session.monitor import RepetitionMonitor


def test_tenth_identical_tool_call_gives_one_notice():
    m = RepetitionMonitor()
    notices = [m.record_tool_call("Read", {"path": "a.py", "limit": 10}, "same text", turn=t) for t in range(1, 13)]
    assert notices[:9] == [None] * 9
    n = notices[9]
    assert n is not None and all(x is None for x in notices[10:])
    assert n.metadata["type"] == "repetition_self_check" and n.metadata["item"] == "tool_call"
    assert n.metadata["count"] == 10 and n.metadata["first_turn"] == 1 and n.metadata["last_turn"] == 10
    assert n.metadata["tool"] == "Read" and len(n.metadata["digest"]) == 64
    assert "task continues" in n.message


def test_arguments_are_normalised():
    m = RepetitionMonitor()
    for i in range(9):
        args = {"path": "a.py", "limit": 10} if i % 2 else {"limit": 10, "path": "a.py"}
        assert m.record_tool_call("Read", args, "r") is None
    assert m.record_tool_call("Read", {"limit": 10, "path": "a.py"}, "r") is not None


@pytest.mark.parametrize("breaker", ["new_result", "new_args", "new_tool", "user", "reply"])
def test_anything_new_resets(breaker):
    m = RepetitionMonitor()
    for _ in range(9):
        m.record_tool_call("Bash", {"command": "make"}, "fail")
    if breaker == "new_result":
        m.record_tool_call("Bash", {"command": "make"}, "ok")
    elif breaker == "new_args":
        m.record_tool_call("Bash", {"command": "make -j2"}, "fail")
    elif breaker == "new_tool":
        m.record_tool_call("Read", {"command": "make"}, "fail")
    elif breaker == "user":
        m.record_user_message()
    else:
        m.record_reply("thinking")
    results = [m.record_tool_call("Bash", {"command": "make"}, "fail") for _ in range(9)]
    assert results == [None] * 9  # the count restarted: 9 more are not enough
    assert m.record_tool_call("Bash", {"command": "make"}, "fail") is not None


def test_identical_plain_replies():
    m = RepetitionMonitor()
    out = [m.record_reply("I will now fix the test.") for _ in range(10)]
    assert out[-1] is not None and out[-1].metadata["item"] == "reply" and out[-1].metadata["tool"] is None
    assert m.notices == 1


def test_resume_does_not_repeat_the_notice():
    m = RepetitionMonitor()
    for _ in range(10):
        m.record_reply("same")
    restored = RepetitionMonitor.from_state(m.state())
    assert restored.record_reply("same") is None and restored.count == 11
    # a fresh streak after the resume notifies again
    for _ in range(9):
        assert restored.record_reply("other") is None
    assert restored.record_reply("other") is not None and restored.notices == 2


def test_resume_mid_streak_keeps_counting():
    m = RepetitionMonitor()
    for _ in range(6):
        m.record_reply("same")
    r = RepetitionMonitor.from_state(m.state())
    assert [r.record_reply("same") is not None for _ in range(4)] == [False, False, False, True]


@pytest.mark.parametrize("patch,field", [
    ({"count": -1}, "count"), ({"digest": "XYZ"}, "digest"), ({"notified": "yes"}, "notified"),
    ({"version": 99}, "version"), ({"extra": 1}, "extra"), ({"item": "other"}, "item"),
])
def test_malformed_state_fails_closed_naming_the_field(patch, field):
    m = RepetitionMonitor()
    m.record_reply("x")
    bad = {**m.state(), **patch}
    with pytest.raises(SessionStateError, match=field):
        RepetitionMonitor.from_state(bad)
