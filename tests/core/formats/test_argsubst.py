"""wskit.formats.argsubst: the argument rules of skills and commands (Claude Code's), against a
plain reference implementation, one example per rule, and linear time."""

from __future__ import annotations

import shlex
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.security.harness import bounded_process
from wskit.formats.argsubst import MAX_INDEX_DIGITS, append_arguments, parse_args, render, split_words, substitute

# --- reference implementations: obvious, slow, independent of the real code ---------------


def ref_split(text: str) -> list[str]:
    """shlex.split; where it fails (unterminated quote, trailing backslash), the
    first closing suffix that makes it parse: wskit closes what is open at the end."""
    for suffix in ("", "\\", '"', "'", '\\"'):
        try:
            return shlex.split(text + suffix)
        except ValueError:
            continue
    raise AssertionError(f"no suffix closes {text!r}")


_ID0 = set(string.ascii_letters + "_")
_ID = _ID0 | set(string.digits)
_DIGITS = set(string.digits)


def _run(text: str, k: int, chars: set[str]) -> int:
    while k < len(text) and text[k] in chars:
        k += 1
    return k


def ref_render(text, args, names=(), indexed=True, append=True) -> str:
    """Character by character: at each ``$`` (or ``\\$``) read the longest form by hand."""
    if args is None:
        whole, words = "", []
    elif isinstance(args, str):
        whole, words = args, ref_split(args)
    else:
        words = list(args)
        whole = " ".join(words)
    named = {}
    for i, n in enumerate(names):
        named[n] = words[i] if i < len(words) else ""

    def word(digits: str):
        if len(digits) > MAX_INDEX_DIGITS or int(digits) >= len(words):
            return None
        return words[int(digits)]

    out, i, used = "", 0, False
    while i < len(text):
        esc = text[i] == "\\" and text[i + 1:i + 2] == "$"
        d = i + 1 if esc else i
        if text[d:d + 1] != "$":
            out += text[i]
            i += 1
            continue
        j = d + 1
        value, end = None, None  # replacement for text[d:end] when recognised
        if text[j:j + 1] == "{" and text[j + 1:j + 2] in _ID0:
            k = _run(text, j + 2, _ID | {"-"})
            name = text[j + 1:k]
            if text[k:k + 1] == "}":
                if name == "ARGUMENTS":
                    value, end = whole, k + 1
                elif name in named:
                    value, end = named[name], k + 1
        elif text[j:j + 1] in _DIGITS:
            k = _run(text, j, _DIGITS)
            if indexed and (esc or word(text[j:k]) is not None):
                value, end = word(text[j:k]), k
        elif text[j:j + 1] in _ID0:
            k = _run(text, j, _ID)
            name = text[j:k]
            m = _run(text, k + 1, _DIGITS)
            if name == "ARGUMENTS" and text[k:k + 1] == "[" and m > k + 1 and text[m:m + 1] == "]":
                if indexed and (esc or word(text[k + 1:m]) is not None):
                    value, end = word(text[k + 1:m]), m + 1
                elif not indexed:
                    end = -1  # the whole bracket form stays as written
                    out += text[i:m + 1]
                    i = m + 1
                    continue
            elif name == "ARGUMENTS":
                value, end = whole, k
            elif name in named:
                value, end = named[name], k
        if end is None:  # not a placeholder: copy one character and go on
            out += text[i]
            i += 1
            continue
        if esc:
            out += text[d:end]
        else:
            out += value
            used = True
        i = end
    if append and not used and whole.strip():
        body = out.rstrip("\n")
        tail = "\n" if out.endswith("\n") else ""
        out = (f"{body}\n\n" if body else "") + f"ARGUMENTS: {whole.strip()}{tail}"
    return out


# --- properties -------------------------------------------------------------------------------

_TEXT = st.lists(st.sampled_from(["$", "\\", "ARGUMENTS", "[", "]", "0", "1", "10", "2", "{", "}", "who", "a",
                                  "my-name", " ", "x", "-", "\n", "_", "é", "\u0663", "[0]", "$ARGUMENTS"]),
                 max_size=30).map("".join)
_ARGS_TEXT = st.lists(st.sampled_from([" ", "a", "b c", "'", '"', "\\", "$0", "$ARGUMENTS", "x", "\t", "\n", "#",
                                       "é", "''"]), max_size=15).map("".join)
_ARGS = st.one_of(st.none(), _ARGS_TEXT, st.lists(st.sampled_from(["a", "b c", "", "$1", "'"]), max_size=4))
_NAMES = st.lists(st.sampled_from(["who", "a", "ARGUMENTS", "my-name", "x1"]), max_size=3).map(tuple)


@settings(max_examples=600, deadline=None)
@given(_ARGS_TEXT)
def test_split_words_is_shlex_split_closing_what_is_open(text):
    assert split_words(text) == ref_split(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_split_words_never_raises_on_any_text(text):
    assert split_words(text) == ref_split(text)


@settings(max_examples=1500, deadline=None)
@given(_TEXT, _ARGS, _NAMES, st.booleans(), st.booleans())
def test_render_matches_the_reference(text, args, names, indexed, append):
    assert render(text, args, names, indexed=indexed, append=append) == ref_render(text, args, names, indexed, append)


@settings(max_examples=300, deadline=None)
@given(_TEXT, _ARGS_TEXT)
def test_argument_text_is_never_rescanned(text, args):
    """A value is inserted once: substituting into a text whose only placeholder is
    ``$ARGUMENTS`` gives the argument string verbatim, whatever it contains."""
    assert render("<$ARGUMENTS>", args) == f"<{args}>"
    assert render(text, args) == ref_render(text, args)


# --- one example per rule -----------------------------------------------------------------------

@pytest.mark.parametrize(("body", "args", "names", "expected"), [
    # $ARGUMENTS is the whole string, quotes and all
    ("run $ARGUMENTS", 'a "b c"', (), 'run a "b c"'),
    ("run ${ARGUMENTS}!", "a b", (), "run a b!"),
    # no placeholder at all: appended after a blank line (the trailing newline kept)
    ("please\n", "please do X", (), "please\n\nARGUMENTS: please do X\n"),
    ("please", "do X", (), "please\n\nARGUMENTS: do X"),
    ("", "do X", (), "ARGUMENTS: do X"),
    ("please\n\n\n", "  do X  ", (), "please\n\nARGUMENTS: do X\n"),
    ("please\n", "   ", (), "please\n"),  # blank arguments append nothing
    ("please\n", None, (), "please\n"),
    # $ARGUMENTS[N] and $N, 0-based, shell-style words
    ("first=$0 second=$1 br=$ARGUMENTS[0]", "a b", (), "first=a second=b br=a"),
    ("$0|$1|$ARGUMENTS[1]", "'x y' \"z w\"", (), "x y|z w|z w"),
    # a missing index stays literal
    ("$0 $1 $2 $ARGUMENTS[2]", "a b", (), "a b $2 $ARGUMENTS[2]"),
    ("only $2 here", "a b", (), "only $2 here\n\nARGUMENTS: a b"),  # nothing replaced: still appended
    # $10 is index 10, never $1 then 0
    ("$10|$1|$1 0", " ".join("abcdefghijk"), (), "k|b|b 0"),
    ("$10|$1", "a b", (), "$10|b"),
    # \$1 escapes (the backslash goes); a backslash before anything else stays
    (r"\$1 $1 \$ARGUMENTS \$ARGUMENTS[0] \${who} \$HOME \x", "a b", ("who",),
     r"$1 b $ARGUMENTS $ARGUMENTS[0] ${who} \$HOME \x"),
    (r"only \$0", "a", (), "only $0\n\nARGUMENTS: a"),  # an escaped placeholder replaces nothing
    (r"\\$0", "a", (), "\\$0\n\nARGUMENTS: a"),  # only the backslash right before $ counts
    # $ARGUMENTS[0] alongside $ARGUMENTS: each is its own placeholder, no half-substitution
    ("$ARGUMENTS / $ARGUMENTS[0] / $ARGUMENTS[1]", "a b", (), "a b / a / b"),
    ("$ARGUMENTS[x] $ARGUMENTS[]", "a b", (), "a b[x] a b[]"),
    ("$ARGUMENTSX $ARGUMENTS_1", "a", (), "$ARGUMENTSX $ARGUMENTS_1\n\nARGUMENTS: a"),
    # declared names: the word at their position, "" when missing; others stay
    ("Hi $who, ${mood} $unknown $whom", "Ann", ("who", "mood"), "Hi Ann,  $unknown $whom"),
    ("${my-name} $my-name", "v", ("my-name",), "v $my-name"),
    ("$who[0]", "Ann", ("who",), "Ann[0]"),
    # unterminated quotes close at the end; a trailing backslash is literal
    ("$0|$1", 'a "b c', (), "a|b c"),
    ("$0|$1", "a 'b c", (), "a|b c"),
    ("$0|$1", "a b\\", (), "a|b\\"),
    ('$ARGUMENTS', 'a "b c', (), 'a "b c'),
    # argument text is inserted once, never scanned for placeholders
    ("$0 $1", "$1 $ARGUMENTS", (), "$1 $ARGUMENTS"),
    # a list is the words already split; the whole string joins them with spaces
    ("$ARGUMENTS|$0", ["important arg"], (), "important arg|important arg"),
    ("plain", ["important arg"], (), "plain\n\nARGUMENTS: important arg"),
    # an index too long to look up stays literal (int() would raise)
    ("$" + "9" * 5000, "a", (), "$" + "9" * 5000 + "\n\nARGUMENTS: a"),
])
def test_rules(body, args, names, expected):
    assert render(body, args, names) == expected
    assert ref_render(body, args, names) == expected


def test_other_skill_files_take_only_arguments_and_names():
    """indexed=False (a skill's files other than SKILL.md): $N and $ARGUMENTS[N] stay, as Sakura."""
    text = "echo $1 $ARGUMENTS[0] $ARGUMENTS $who \\$1"
    assert render(text, "a b", ("who",), indexed=False, append=False) == "echo $1 $ARGUMENTS[0] a b a \\$1"
    assert render("echo $1", "a b", indexed=False, append=False) == "echo $1"


def test_parse_args_and_append_helpers():
    assert parse_args(None) == ("", [])
    assert parse_args(" a  'b c' ") == (" a  'b c' ", ["a", "b c"])
    assert parse_args(("a", "b c")) == ("a b c", ["a", "b c"])
    assert split_words("a '' \"\" b") == ["a", "", "", "b"]
    assert split_words('x"y z"w \\ q') == ["xy zw", " q"]
    assert split_words('"a\\"b\\\\c\\d"') == ['a"b\\c\\d']
    assert append_arguments("x\n", "") == "x\n"
    assert substitute("no dollar", "a", ["a"]) == ("no dollar", False)
    assert substitute("$0", "a", ["a"]) == ("a", True)
    assert substitute("\\$0", "a", ["a"]) == ("$0", False)


# --- linear time (a hang guard, not a speed assertion) ------------------------------------------

def test_linear_on_hostile_bodies_and_arguments():
    """Long runs of every near-placeholder and of open quotes and backslashes.
    A rescanning or backtracking implementation takes minutes. Bound: 20 s; takes < 1 s."""
    n = 100_000
    body = ("$ARGUMENTS[" * n + "\\$" * n + "${" + "a" * n + "$" + "9" * n + " $ARGUMENTS[" + "1" * n
            + "$0" * n + "$who" * n + "\\" * n)
    args = '"' + "\\" * n + "'" * n + " " * n + "x " * n

    def check() -> None:
        assert split_words(args) == ["\\" * (n // 2) + "'" * n + " " * n + "x " * n]  # one open quote to the end
        assert len(split_words("x 'y " * n)) == n  # each quote pair joins "y" and "x" into one word
        out = render(body, "a b", ("who",))
        # "$ARGUMENTS[" not followed by "N]" is $ARGUMENTS then "["; "\\$" before "\\" is no placeholder
        assert out.count("a b[") == n + 1 and out.count("\\$") == n and ("9" * n) in out
        assert render("$0 $ARGUMENTS[0] $who", args, ("who",)).count("x") == 3 * n

    bounded_process(check, 20)
