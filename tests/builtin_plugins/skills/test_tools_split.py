"""toolpolicy.split_selector_text: same result as the reference regex, in linear time."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.security.harness import bounded_process
from wskit.builtin_plugins.skills.tools import _SPLIT, split_selector_text, split_value


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["Bash", "(", ")", " ", ",", "git", ":", "*", "\t", "Read", "a b", "\n"]),
                max_size=25).map("".join))
def test_split_matches_the_reference_regex(text):
    assert split_selector_text(text) == _SPLIT.split(text)


def test_examples():
    assert split_value("Read, Bash(git status, git diff) Write") == ["Read", "Bash(git status, git diff)", "Write"]


def test_linear_on_many_separators():
    """The regex took ~10 s on 60 KB; 400 KB would take minutes. Bound: 20 s."""
    text = "a " * 200_000 + "("

    def check() -> None:
        assert len(split_value(text)) == 200_001

    bounded_process(check, 20)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["Read", "Grep", "a", ",", " ", "\t", "\n", "\x1c", "\x1f", "\x85", "\xa0",
                                 "\u2028", "\u3000", "\u200b", "\ufeff", "é", "*", ":", "(", ")"]),
                max_size=25).map("".join))
def test_paren_free_fast_path_matches_the_reference_regex(text):
    """Texts without parentheses take one re.split; unicode blanks split as str.isspace says."""
    assert split_selector_text(text) == _SPLIT.split(text)
