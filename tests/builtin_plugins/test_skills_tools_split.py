"""allowed-tools splitting: same result as the original regex, in linear time."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.security.harness import bounded_process
from wskit.builtin_plugins.skills import _split_tools


def _reference(text: str) -> list[str]:
    return re.split(r"[,\s]+(?![^()]*\))", text)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["Bash", "(", ")", " ", ",", "git", ":", "*", "\t", "Read", "a b"]), max_size=25)
       .map("".join))
def test_split_matches_the_reference_regex(text):
    assert _split_tools(text) == _reference(text)


def test_examples():
    assert _split_tools("Read, Bash(git status, git diff) Write") == ["Read", "Bash(git status, git diff)", "Write"]


def test_linear_on_many_separators():
    text = "a " * 200_000 + "("

    def check() -> None:
        assert len(_split_tools(text)) == 200_001

    bounded_process(check, 20)
