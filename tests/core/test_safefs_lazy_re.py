"""safefs's string tests equal the regular expressions they replace on the
hot path (issue 8, B7: the expressions are compiled only when used)."""

from __future__ import annotations

import re
from fnmatch import translate

from hypothesis import example, given
from hypothesis import strategies as st

from wskit import safefs

_DRIVE = re.compile(r"^[A-Za-z]:|^[A-Za-z][A-Za-z0-9+.-]*://")
_SECRET = re.compile("|".join(f"(?:{translate(p)})" for p in safefs.SECRET_PATTERNS))
_ALPHABET = st.sampled_from(list("aAzZ09+.-:/_\\ \n\x00é.envsh") + [".env", "id_rsa", ".pem", ".key", "credentials",
                                                                  ".git", ".netrc", "://", "C:"])
_TEXT = st.lists(_ALPHABET, max_size=12).map("".join) | st.text(max_size=12)


@given(_TEXT)
@example("C:")
@example("c:/x")
@example("http://x")
@example("a+b.c-d://")
@example("1a://")
@example("ab:/x")
@example("é://")
@example("a://")
@example("ab:c://")
def test_drive_or_url_equals_the_expression(text: str) -> None:
    assert safefs._is_drive_or_url(text) == (_DRIVE.match(text) is not None)


@given(_TEXT)
@example(".env")
@example(".env.")
@example(".ENV.local")
@example(".envx")
@example("x.pem")
@example(".pem")
@example("id_rsa.pub")
@example("credentials")
@example("credentials.json")
@example(".git")
@example(".gitx")
@example(".env\n")
@example("a.key\n")
@example("ID_ED25519")
def test_secret_name_equals_the_expression(name: str) -> None:
    assert safefs.is_secret_name(name) == (_SECRET.match(name.lower()) is not None)


def test_lazy_expressions_are_the_documented_ones() -> None:
    assert safefs._DRIVE_OR_URL.pattern == _DRIVE.pattern
    assert safefs._SECRET_RE.pattern == _SECRET.pattern
    assert safefs._HIDDEN.search("a\u202eb") and not safefs._HIDDEN.search("a\tb\r\n")
    assert list(safefs.find_hidden_chars("x\n\u200by")) == [(2, "U+200B")]


def test_patterns_with_other_globs_fall_back_to_the_expression() -> None:
    exact, pre, suf, other = safefs._secret_tests((".a", "b*", "*.c", "d?e", "[fg]"))
    assert exact == {".a"} and pre == ("b",) and suf == (".c",) and other
