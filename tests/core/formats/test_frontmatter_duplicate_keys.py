"""A repeated key in frontmatter is ``yaml-duplicate-key``, handled as ``yaml-error``.

PyYAML keeps the last value of a repeated key without a word; Claude Code's
parser and the Agent Skills reference validator (strictyaml) refuse the mapping.
Every kind with frontmatter (skills, commands, agents, rules, output styles) is
loaded from real files: the resource is skipped as it is for a YAML error, with a
diagnostic that names the file, the line and the key; strict and lenient skill
validation (``wsctl skills validate``) agree, and so does ``skills-ref``.
"""

from __future__ import annotations

import json

import pytest

from tests.markdown_helpers import load
from wskit.builtin_plugins.skills.validate import validate_skill
from wskit.formats.frontmatter import parse_frontmatter
from wskit.models import ResourceSource, Scope

DUP_TOP = "---\nname: {n}\ndescription: First.\nmodel: x\ndescription: Second.\n---\nBody.\n"
DUP_NESTED = "---\nname: {n}\ndescription: D.\nmetadata:\n  owner: a\n  owner: b\n---\nBody.\n"
BROKEN = "---\nname: {n}\ndescription: [unclosed\n---\nBody.\n"


def _dups(diags, suffix: str):
    return [d for d in diags if d.code == "yaml-duplicate-key" and d.path.endswith(suffix)]


def _check(d, line: int, key: str) -> None:
    assert d.level == "error" and d.line == line
    assert f"duplicate key {key!r}" in d.message


def test_parse_frontmatter_names_file_line_and_key():
    fm = parse_frontmatter(DUP_TOP.format(n="x"), "f.md")
    assert not fm.ok and fm.data == {} and fm.present
    (d,) = fm.diagnostics
    assert (d.code, d.path, d.line) == ("yaml-duplicate-key", "f.md", 5)
    assert d.message == ("invalid YAML frontmatter: duplicate key 'description' (first at line 3); "
                         "a YAML mapping may not repeat a key")
    fm = parse_frontmatter(DUP_NESTED.format(n="x"), "f.md")
    assert [(d.code, d.line) for d in fm.diagnostics] == [("yaml-duplicate-key", 6)]
    # a key written in two mappings, and a key next to a merge, are not repeated
    ok = parse_frontmatter("---\na:\n  k: 1\nb:\n  k: 2\nc:\n  <<: {k: 1}\n  k: 3\n---\n")
    assert ok.ok and ok.data == {"a": {"k": 1}, "b": {"k": 2}, "c": {"k": 3}} and not ok.diagnostics


def test_the_quoting_retry_does_not_hide_a_repeated_key():
    """A block that is invalid YAML until ': ' values are quoted, and then repeats a key."""
    fm = parse_frontmatter("---\nname: a\ndescription: Use when: x\nname: b\n---\n", "f.md")
    assert not fm.ok and [(d.code, d.line) for d in fm.diagnostics] == [("yaml-duplicate-key", 4)]
    assert "'name' (first at line 2)" in fm.diagnostics[0].message


def test_the_flat_fast_path_declines_and_the_loader_names_it():
    """``name: a`` lines only: the flat reader would accept the block if it did not repeat a key."""
    for text in ("---\nname: a\ndescription: b\nname: a\n---\n", "---\npaths:\n  - a\npaths:\n  - b\n---\n"):
        fm = parse_frontmatter(text, "f.md")
        assert not fm.ok and fm.diagnostics[0].code == "yaml-duplicate-key" and fm.diagnostics[0].line == 4


@pytest.mark.parametrize("template,line,key", [(DUP_TOP, 5, "description"), (DUP_NESTED, 6, "owner")])
def test_skills_are_skipped_like_a_yaml_error(make_tree, wskit_home, template, line, key):
    ws_root = make_tree({
        # plain flat blocks: the one-pass skill lane would build these if it accepted the repeat
        ".claude/skills/flat/SKILL.md": "---\nname: flat\ndescription: a\ndescription: b\n---\n",
        ".claude/skills/dup/SKILL.md": template.format(n="dup"),
        ".claude/skills/broken/SKILL.md": BROKEN.format(n="broken"),
        ".claude/skills/good/SKILL.md": "---\nname: good\ndescription: fine\n---\n",
        ".agents/skills/dup/SKILL.md": "---\nname: dup\ndescription: lower precedence, valid\n---\n",
    })
    ws = load(ws_root, wskit_home)
    reg = ws.registry("skill")
    assert sorted(s.name for s in reg) == ["dup", "good"]
    assert reg.get("dup").description == "lower precedence, valid"  # as for 'broken': the next one wins
    (flat,) = _dups(ws.diagnostics, ".claude/skills/flat/SKILL.md")
    _check(flat, 4, "description")
    (dup,) = _dups(ws.diagnostics, ".claude/skills/dup/SKILL.md")
    _check(dup, line, key)
    (broken,) = [d for d in ws.diagnostics if d.path.endswith("broken/SKILL.md")]
    assert (broken.code, broken.level) == ("yaml-error", dup.level)


def test_commands_are_skipped_like_a_yaml_error(make_tree, wskit_home):
    ws_root = make_tree({
        ".claude/commands/dup.md": "---\ndescription: a\nargument-hint: x\ndescription: b\n---\nDo it.\n",
        ".claude/commands/broken.md": "---\ndescription: [unclosed\n---\nDo it.\n",
        ".claude/commands/good.md": "---\ndescription: fine\n---\nDo it.\n",
    })
    ws = load(ws_root, wskit_home)
    assert sorted(c.name for c in ws.registry("command")) == ["good"]
    (d,) = _dups(ws.diagnostics, "commands/dup.md")
    _check(d, 4, "description")
    (broken,) = [d for d in ws.diagnostics if d.path.endswith("commands/broken.md")]
    assert (broken.code, broken.level) == ("yaml-error", d.level)


def test_agents_are_skipped_like_a_yaml_error(make_tree, wskit_home):
    ws_root = make_tree({
        ".claude/agents/dup.md": "---\nname: dup\ndescription: a\ntools: Read\nname: dup2\n---\nPrompt.\n",
        ".claude/agents/broken.md": "---\nname: broken\ndescription: [unclosed\n---\nPrompt.\n",
        ".claude/agents/good.md": "---\nname: good\ndescription: fine\n---\nPrompt.\n",
    })
    ws = load(ws_root, wskit_home)
    assert sorted(a.name for a in ws.registry("agent")) == ["good"]
    (d,) = _dups(ws.diagnostics, "agents/dup.md")
    assert d.line == 5 and "duplicate key 'name'" in d.message
    (broken,) = [d for d in ws.diagnostics if d.path.endswith("agents/broken.md")]
    assert (broken.code, broken.level) == ("yaml-error", d.level) == ("yaml-error", "warning")  # as every bad agent


def test_rules_are_skipped_like_a_yaml_error(make_tree, wskit_home):
    ws = load(make_tree({
        ".claude/rules/dup.md": '---\npaths:\n  - "src/**"\npaths:\n  - "docs/**"\n---\nRule text.\n',
        ".claude/rules/nested.md": "---\npaths: [a]\nx:\n  k: 1\n  k: 2\n---\nRule text.\n",
        ".claude/rules/broken.md": "---\npaths: [unclosed\n---\nRule text.\n",
        ".claude/rules/good.md": '---\npaths:\n  - "src/**"\n---\nRule text.\n',
    }), wskit_home)
    cat = ws.catalog("rules")
    assert [r.path for r in cat.rules()] == [".claude/rules/good.md"]
    (d,) = _dups(cat.diagnostics, "dup.md")
    _check(d, 4, "paths")
    (d2,) = _dups(cat.diagnostics, "nested.md")
    _check(d2, 5, "k")
    (broken,) = [d for d in cat.diagnostics if d.path.endswith("broken.md")]
    assert (broken.code, broken.level) == ("yaml-error", d.level)


def test_output_styles_are_skipped_like_a_yaml_error(make_tree, tmp_path):
    from wskit.builtin_plugins.styles.loader import load_styles

    root = make_tree({
        "output-styles/dup.md": "---\nname: Dup\ndescription: a\nname: Again\n---\nBe brief.\n",
        "output-styles/broken.md": "---\nname: [unclosed\n---\nBe brief.\n",
        "output-styles/good.md": "---\nname: Good\n---\nBe brief.\n",
    }, root=tmp_path / "p")
    res = load_styles(ResourceSource(scope=Scope.PLUGIN, root=str(root), base=str(root), plugin="kit"))
    assert [s.id for s in res.resources] == ["plugin:kit:good"]
    (d,) = [d for d in res.diagnostics if d.path.endswith("dup.md")]
    (broken,) = [d for d in res.diagnostics if d.path.endswith("broken.md")]
    # styles report every unloadable file as style-skipped with the parse message and line
    assert (d.code, d.level, d.line) == ("style-skipped", broken.level, 4) and broken.code == "style-skipped"
    assert "duplicate key 'name' (first at line 2)" in d.message


@pytest.mark.parametrize("strict", [False, True])
def test_skill_validation_refuses_it_in_both_modes(tmp_path, strict):
    d = tmp_path / "dup"
    d.mkdir()
    (d / "SKILL.md").write_text(DUP_NESTED.format(n="dup"))
    report = validate_skill(d, strict=strict)
    assert not report.valid
    assert [(e.code, e.line) for e in report.errors] == [("yaml-duplicate-key", 6)]
    assert report.errors[0].path == str(d / "SKILL.md")


def test_wsctl_skills_validate_agrees_with_skills_ref(wsctl, tmp_path):
    d = tmp_path / "dup"
    d.mkdir()
    (d / "SKILL.md").write_text("---\nname: dup\ndescription: a\nlicense: MIT\ndescription: b\n---\nBody.\n")
    res = wsctl("skills", "validate", str(d), "--strict", "--json")
    assert res.exit_code == 1
    data = json.loads(res.output)
    assert data["valid"] is False
    assert [(e["code"], e["line"], e["path"]) for e in data["errors"]] == [
        ("yaml-duplicate-key", 5, str(d / "SKILL.md"))]
    assert "'description'" in data["errors"][0]["message"]
    validator = pytest.importorskip("skills_ref.validator")
    assert validator.validate(d)  # the reference validator refuses it too (strictyaml DuplicateKeysDisallowed)
