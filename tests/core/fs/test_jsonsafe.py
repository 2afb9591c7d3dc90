"""wskit.fs.jsonsafe: depth-bounded JSON for files strangers wrote."""

from __future__ import annotations

import os

import pytest

from wskit.fs import SafeFsError, jsonsafe


def test_parses_ordinary_json():
    assert jsonsafe.loads('{"a": [1, {"b": "x"}], "c": null}') == {"a": [1, {"b": "x"}], "c": None}


def test_brackets_inside_strings_do_not_count():
    text = '{"a": "' + "[" * 500 + '\\"{{{"}'
    assert jsonsafe.loads(text, max_depth=2) == {"a": "[" * 500 + '"{{{'}


def test_100000_levels_refused_without_recursion_error():
    text = "[" * 100_000 + "]" * 100_000
    with pytest.raises(SafeFsError) as ei:
        jsonsafe.loads(text)
    assert ei.value.code == "json-too-deep"
    assert ei.value.line == 1


def test_depth_limit_is_exact():
    assert jsonsafe.loads("[" * 64 + "]" * 64) is not None
    with pytest.raises(SafeFsError, match="json-too-deep"):
        jsonsafe.loads("[" * 65 + "]" * 65)


def test_depth_error_names_the_line():
    text = "{\n\"a\":\n" + "[\n" * 70 + "]" * 70 + "}"
    with pytest.raises(SafeFsError) as ei:
        jsonsafe.loads(text, path="m.json")
    assert ei.value.line == 3 + 63  # the 65th opening bracket
    assert ei.value.diagnostic().path == "m.json"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('{"a": 1, "a": 2}', "json-duplicate-key"),
        ("NaN", "json-error"),
        ('{"a": Infinity}', "json-error"),
        ("[1,\n2,", "json-error"),
        (b'{"a": "\xff"}', "invalid-utf8"),
    ],
)
def test_refusals_have_stable_codes(text, code):
    with pytest.raises(SafeFsError) as ei:
        jsonsafe.loads(text)
    assert ei.value.code == code


def test_bom_and_bytes_accepted():
    assert jsonsafe.loads(b'\xef\xbb\xbf{"a": 1}') == {"a": 1}


def test_read_json_refuses_oversized_file_unread(tmp_path):
    p = tmp_path / "big.json"
    with open(p, "wb") as fh:
        fh.truncate(64 * 1024 * 1024)  # sparse: costs nothing on disk
    with pytest.raises(SafeFsError) as ei:
        jsonsafe.read_json(tmp_path, "big.json", max_bytes=1024)
    assert ei.value.code == "too-large"


def test_read_json_goes_through_safe_file_access(tmp_path):
    (tmp_path / "real.json").write_text('{"ok": true}')
    os.symlink(tmp_path / "real.json", tmp_path / "link.json")
    assert jsonsafe.read_json(tmp_path, "real.json") == {"ok": True}
    with pytest.raises(SafeFsError, match="symlink"):
        jsonsafe.read_json(tmp_path, "link.json")
    with pytest.raises(SafeFsError, match="path-escape"):
        jsonsafe.read_json(tmp_path, "../real.json")
