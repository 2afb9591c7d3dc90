"""File and folder names that are not UTF-8 (POSIX hands them to Python as lone
surrogates): each loader refuses the one file with a diagnostic that shows the
byte, the rest loads, and nothing downstream (ids, JSON, session files, the
trust store) meets a string it cannot encode."""

import json
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.markdown_helpers import load
from tests.undecodable_helpers import BAD, bad_names_ok, write  # noqa: F401 (fixture)
from wskit.errors import SessionStateError, TrustStoreError
from wskit.fs.names import shown_path, undecodable
from wskit.trust import TrustStore


@pytest.fixture
def proj(tmp_path, wskit_home):
    """``(project folder, load())``: the project trusted, loaded with the built-ins."""
    root = tmp_path / "p"
    root.mkdir()
    return root, lambda: load(root, wskit_home)


@given(st.binary(max_size=12))
def test_undecodable_is_exactly_a_name_that_is_not_utf8(raw):
    name = raw.decode("utf-8", "surrogateescape")
    try:
        raw.decode("utf-8")
        utf8 = True
    except UnicodeDecodeError:
        utf8 = False
    assert (undecodable(name) is None) == utf8
    shown = shown_path(name)
    shown.encode("utf-8")  # always text
    assert (shown == name) == utf8


def test_shown_path_names_the_byte():
    name = b"d\xfe/AGENTS.md".decode("utf-8", "surrogateescape")
    assert undecodable(name) == "0xFE"
    assert shown_path(name) == "d\\xfe/AGENTS.md"


def test_one_bad_name_does_not_empty_the_rule_catalog(bad_names_ok, proj):
    tmp_path, load_ws = proj
    write(tmp_path, b"CLAUDE.md", "ROOT RULES\n")
    write(tmp_path, b"d" + BAD + b"/AGENTS.md", "nested\n")
    write(tmp_path, b".claude/rules/r" + BAD + b".md", "rule\n")
    write(tmp_path, b".claude/rules/good.md", "good rule\n")
    ws = load_ws()
    rules = sorted(r.name for r in ws.catalogs["rules"].rules())
    assert rules == [".claude/rules/good.md", "CLAUDE.md"]
    # the lazy catalog's diagnostics: every folder's, once rules() read the whole project
    bad = sorted((d.code, d.path) for d in ws.catalogs["rules"].diagnostics if "0xFF" in d.message)
    assert bad == [("rule-name-invalid", str(tmp_path / ".claude/rules/r\\xff.md")),
                   ("rule-name-invalid", str(tmp_path / "d\\xff/AGENTS.md"))]
    assert not [d for d in ws.diagnostics if d.code == "hook-failed"]


def test_markdown_kinds_refuse_the_file_and_keep_the_rest(bad_names_ok, proj):
    tmp_path, load_ws = proj
    fm = "---\nname: {n}\ndescription: d\n---\nbody\n"
    write(tmp_path, b".claude/skills/bad" + BAD + b"/SKILL.md", fm.format(n="bad"))
    write(tmp_path, b".claude/skills/good/SKILL.md", fm.format(n="good"))
    write(tmp_path, b".claude/commands/c" + BAD + b".md", "---\ndescription: d\n---\nbody\n")
    write(tmp_path, b".claude/commands/sub" + BAD + b"/x.md", "---\ndescription: d\n---\nbody\n")
    write(tmp_path, b".claude/commands/ok.md", "---\ndescription: d\n---\nbody\n")
    write(tmp_path, b".claude/agents/a" + BAD + b".md", fm.format(n="ag"))
    write(tmp_path, b".claude/output-styles/s" + BAD + b".md", fm.format(n="st"))
    write(tmp_path, b".claude/commands/notes" + BAD + b".txt", "not a command: ignored without a word\n")
    ws = load_ws()
    assert [s.name for s in ws.registry("skill")] == ["good"]
    assert [c.name for c in ws.registry("command")] == ["ok"]
    assert ws.registry("agent").ids() == [] and ws.registry("style").ids() == []
    codes = sorted((d.code, os.path.relpath(d.path, tmp_path)) for d in ws.diagnostics if "0xFF" in d.message)
    assert codes == [
        ("name-not-utf8", ".claude/agents/a\\xff.md"),
        ("name-not-utf8", ".claude/commands/c\\xff.md"),
        ("name-not-utf8", ".claude/commands/sub\\xff"),
        ("name-not-utf8", ".claude/output-styles/s\\xff.md"),
        ("skill-name-invalid", ".claude/skills/bad\\xff/SKILL.md"),
    ]
    for d in ws.diagnostics:
        json.dumps(d.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")


def test_a_bundle_in_a_folder_not_utf8_is_refused(bad_names_ok, proj):
    tmp_path, load_ws = proj
    write(tmp_path, b".claude/plugins/p" + BAD + b"/.claude-plugin/plugin.json", '{"name": "px"}')
    write(tmp_path, b".claude/plugins/p" + BAD + b"/commands/x.md", "---\ndescription: d\n---\nx\n")
    ws = load_ws()
    assert ws.registry("command").ids() == []
    (d,) = [d for d in ws.diagnostics if d.code == "name-not-utf8"]
    assert d.path == str(tmp_path / ".claude/plugins/p\\xff") and "0xFF" in d.message and d.level == "error"


def test_snapshot_of_such_a_project_writes_valid_json(bad_names_ok, proj):
    tmp_path, load_ws = proj
    write(tmp_path, b".claude/skills/good/SKILL.md", "---\nname: good\ndescription: d\n---\nb\n")
    write(tmp_path, b".claude/skills/bad" + BAD + b"/SKILL.md", "---\nname: bad\ndescription: d\n---\nb\n")
    ws = load_ws()
    from wskit.session import snapshot

    text = snapshot(ws).state().to_json()  # raised PydanticSerializationError before
    assert [r["id"] for r in json.loads(text)["resources"]] == ["project:good"]


def test_session_state_that_cannot_be_encoded_is_a_clean_error():
    from wskit.session import SessionState, WorkspaceRef

    ref = WorkspaceRef.model_construct(source_root="/p\udcff", execution_root="/p\udcff", host="wskit")
    state = SessionState.model_construct(session_id="s", created_at="t", workspace=ref, trust="trusted",
                                         resources=(), extensions={}, format=1, parent_id=None)
    with pytest.raises(SessionStateError, match="cannot be written as JSON"):
        state.to_json()


def test_trust_store_refuses_a_path_not_utf8_and_keeps_its_file(bad_names_ok, tmp_path):
    store = TrustStore(tmp_path / "home" / "trust.toml")
    store.set(str(tmp_path), "trusted")
    before = (tmp_path / "home" / "trust.toml").read_bytes()
    bad = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"q" + BAD))
    os.mkdir(bad)
    with pytest.raises(TrustStoreError, match=r"q\\xff.*0xFF, which is not UTF-8"):
        store.set(bad, "trusted")
    assert (tmp_path / "home" / "trust.toml").read_bytes() == before
