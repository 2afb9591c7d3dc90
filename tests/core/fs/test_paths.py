"""wskit.fs.paths: the lexical path checks of safe file access. Its string tests
equal the regular expressions they stand in for on the hot path (the expressions
are compiled only when used, not at start-up); split_relative refuses what fs refuses."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase, translate

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from wskit import fs
from wskit.errors import SafeFsError
from wskit.fs import names as namecheck
from wskit.fs import paths as safepath

_DRIVE = re.compile(r"^[A-Za-z]:|^[A-Za-z][A-Za-z0-9+.-]*://")
_SECRET = re.compile("|".join(f"(?:{translate(p)})" for p in safepath.SECRET_PATTERNS))
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
    assert namecheck._is_drive_or_url(text) == (_DRIVE.match(text) is not None)


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
    assert safepath.is_secret_name(name) == (_SECRET.match(name.lower()) is not None)


@given(st.text(alphabet="._-abcdeknprsvwyzAEGHINKPSTW0123456789*", min_size=1, max_size=14))
def test_secret_regex_matches_fnmatch(name: str) -> None:
    expect = any(fnmatchcase(name.lower(), p) for p in safepath.SECRET_PATTERNS)
    assert safepath.is_secret_name(name) is expect


def test_lazy_expressions_are_the_documented_ones() -> None:
    assert safepath._DRIVE_OR_URL.pattern == _DRIVE.pattern
    assert safepath._SECRET_RE.pattern == _SECRET.pattern


def test_patterns_with_other_globs_fall_back_to_the_expression() -> None:
    exact, pre, suf, other = namecheck._secret_tests((".a", "b*", "*.c", "d?e", "[fg]"))
    assert exact == {".a"} and pre == ("b",) and suf == (".c",) and other


@pytest.mark.parametrize(
    "rel,code",
    [
        ("../x", "path-escape"),
        ("a/../../b", "path-escape"),
        ("/etc/passwd", "path-absolute"),
        ("C:/x", "path-absolute"),
        ("https://h/x", "path-absolute"),
        ("a\\b", "path-invalid"),
        ("a\x00b", "path-invalid"),
        ("", "path-invalid"),
        ("./.", "path-invalid"),
        (".env", "secret-path"),
        ("x/.ssh/id_rsa", "secret-path"),
        ("keys/server.pem", "secret-path"),
        (".git/config", "secret-path"),
        ("credentials.json", "secret-path"),
    ],
)
def test_split_relative_refuses(rel: str, code: str) -> None:
    with pytest.raises(SafeFsError) as info:
        safepath.split_relative(rel)
    assert info.value.code == code and info.value.path == rel.replace("\x00", "\\0")


def test_split_relative_drops_empty_and_dot_components() -> None:
    assert safepath.split_relative("./a//b/./c.md") == ["a", "b", "c.md"]


def test_check_not_secret_names_the_component_and_the_shown_path() -> None:
    safepath.check_not_secret(["a", "b.md"], "a/b.md")
    with pytest.raises(SafeFsError) as info:
        safepath.check_not_secret(["a", ".AWS", "x"], "/root/a/.AWS/x")
    assert info.value.code == "secret-path" and info.value.path == "/root/a/.AWS/x" and "'.AWS'" in info.value.reason


def test_safefs_re_exports_the_same_objects() -> None:
    for name in ("SECRET_PATTERNS", "split_relative", "check_not_secret", "is_secret_name"):
        assert getattr(fs, name) is getattr(safepath, name)
    assert fs.SafeFsError is SafeFsError
