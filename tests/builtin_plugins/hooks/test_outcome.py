"""Hook stdout and payload files are untrusted JSON: deep nesting is refused, never a RecursionError."""

from wskit.builtin_plugins.hooks.outcome import parse_json_object

DEEP = '{"a":' * 5000 + "1" + "}" * 5000


def test_deep_hook_stdout_is_not_an_object():
    assert parse_json_object(DEEP) is None
    assert parse_json_object('{"decision": "block"}') == {"decision": "block"}


def test_deep_payload_file_is_an_error(wsctl, tmp_path, make_tree):
    payload = tmp_path / "deep.json"
    payload.write_text(DEEP)
    res = wsctl("hooks", "run", "PreToolUse", str(make_tree({"a": "x"})), "--payload", str(payload))
    assert res.exit_code == 1 and res.stderr.startswith("error: ") and "deeper" in res.stderr
