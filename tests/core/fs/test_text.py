"""wskit.fs.text: UTF-8 decoding of read files and the hidden-character search."""

from __future__ import annotations

import pytest

from wskit import fs
from wskit.errors import SafeFsError
from wskit.fs import text as safetext


def test_decode_text_strips_bom_and_normalises_newlines():
    assert safetext.decode_text(b"\xef\xbb\xbfa\r\nb\rc\n") == "a\nb\nc\n"
    assert safetext.decode_text(b"\xef\xbb\xbf\xef\xbb\xbfx") == "\ufeffx"  # only one BOM stripped
    with pytest.raises(SafeFsError) as info:
        safetext.decode_text(b"ok\nok\n\xff\n", "f.md")
    assert info.value.code == "invalid-utf8" and "line 3" in str(info.value)
    assert info.value.path == "f.md" and info.value.line == 3


def test_decode_text_without_a_path_names_bytes():
    with pytest.raises(SafeFsError) as info:
        safetext.decode_text(b"\xc3")
    assert info.value.path == "<bytes>" and info.value.line == 1


def test_hidden_characters_found_with_line():
    found = list(safetext.find_hidden_chars("ok\nbad\u202eline\n"))
    assert found == [(2, "U+202E")]
    assert list(safetext.find_hidden_chars("tab\tand\r\nnewline")) == []
    assert list(safetext.find_hidden_chars("\u200b\n\n\ufeffx\u0007")) == [(1, "U+200B"), (3, "U+FEFF"), (3, "U+0007")]


def test_lazy_hidden_expression_is_the_documented_one() -> None:
    assert safetext._HIDDEN.search("a\u202eb") and not safetext._HIDDEN.search("a\tb\r\n")
    assert list(safetext.find_hidden_chars("x\n\u200by")) == [(2, "U+200B")]


def test_safefs_re_exports_the_same_objects() -> None:
    assert fs.decode_text is safetext.decode_text
    assert fs.find_hidden_chars is safetext.find_hidden_chars
