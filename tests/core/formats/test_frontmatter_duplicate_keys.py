"""A repeated key in frontmatter keeps its last value, with a ``yaml-duplicate-key`` warning.

Claude Code 2.1.332 (``Bun.YAML.parse``) keeps the last value of a repeated key and
loads the file; so does every wskit loader with frontmatter (skills, commands,
agents, rules, output styles), loaded here from real files. The warning names the
file, the repeated line and the key's first line. Strict skill validation
(``wsctl skills validate --strict``) refuses the mapping, as ``skills-ref``
(strictyaml) does; lenient validation warns.
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


def _dups(diags, suffix: str):
    return [d for d in diags if d.code == "yaml-duplicate-key" and d.path.endswith(suffix)]


def _check(d, line: int, key: str, first: int) -> None:
    assert d.level == "warning" and d.line == line
    assert f"repeats the key {key!r} (first at line {first}); the last value is read" in d.message


def test_parse_frontmatter_keeps_the_last_value_and_names_file_line_and_key():
    fm = parse_frontmatter(DUP_TOP.format(n="x"), "f.md")
    assert fm.ok and fm.present and fm.data == {"name": "x", "description": "Second.", "model": "x"}
    (d,) = fm.diagnostics
    assert (d.code, d.path, d.line, d.level) == ("yaml-duplicate-key", "f.md", 5, "warning")
    assert fm.line_of("description") == 5  # the line whose value is read
    fm = parse_frontmatter(DUP_NESTED.format(n="x"), "f.md")
    assert fm.data["metadata"] == {"owner": "b"}
    assert [(d.code, d.line) for d in fm.diagnostics] == [("yaml-duplicate-key", 6)]
    # a key written in two mappings, and a key next to a merge, are not repeated
    ok = parse_frontmatter("---\na:\n  k: 1\nb:\n  k: 2\nc:\n  <<: {k: 1}\n  k: 3\n---\n")
    assert ok.ok and ok.data == {"a": {"k": 1}, "b": {"k": 2}, "c": {"k": 3}} and not ok.diagnostics


def test_a_repeated_key_after_the_quoting_retry_is_named_too():
    """A block that is invalid YAML until ': ' values are quoted, and then repeats a key."""
    fm = parse_frontmatter("---\nname: a\ndescription: Use when: x\nname: b\n---\n", "f.md")
    assert fm.ok and fm.data == {"name": "b", "description": "Use when: x"}
    assert [(d.code, d.line) for d in fm.diagnostics] == [("yaml-duplicate-key", 4), ("yaml-quoted-retry", 3)]
    assert "'name' (first at line 2)" in fm.diagnostics[0].message


def test_the_flat_fast_path_declines_and_the_loader_names_it():
    """``name: a`` lines only: the flat reader declines a repeated key, the loader keeps the last."""
    for text, value in (("---\nname: a\ndescription: b\nname: c\n---\n", {"name": "c", "description": "b"}),
                        ("---\npaths:\n  - a\npaths:\n  - b\n---\n", {"paths": ["b"]})):
        fm = parse_frontmatter(text, "f.md")
        assert fm.ok and fm.data == value
        assert fm.diagnostics[0].code == "yaml-duplicate-key" and fm.diagnostics[0].line == 4


@pytest.mark.parametrize("template,line,key,first", [(DUP_TOP, 5, "description", 3), (DUP_NESTED, 6, "owner", 5)])
def test_skills_load_with_the_last_value(make_tree, wskit_home, template, line, key, first):
    ws_root = make_tree({
        # plain flat blocks: the one-pass skill lane declines them, the general path keeps the last value
        ".claude/skills/flat/SKILL.md": "---\nname: flat\ndescription: a\ndescription: b\n---\n",
        ".claude/skills/dup/SKILL.md": template.format(n="dup"),
        ".claude/skills/good/SKILL.md": "---\nname: good\ndescription: fine\n---\n",
        ".agents/skills/dup/SKILL.md": "---\nname: dup\ndescription: lower precedence, valid\n---\n",
    })
    ws = load(ws_root, wskit_home)
    reg = ws.registry("skill")
    assert sorted(s.name for s in reg) == ["dup", "flat", "good"]
    assert reg.get("flat").description == "b"
    assert reg.get("dup").description == ("Second." if template is DUP_TOP else "D.")
    (flat,) = _dups(ws.diagnostics, ".claude/skills/flat/SKILL.md")
    _check(flat, 4, "description", 3)
    (dup,) = _dups(ws.diagnostics, ".claude/skills/dup/SKILL.md")
    _check(dup, line, key, first)


def test_commands_load_with_the_last_value(make_tree, wskit_home):
    ws_root = make_tree({
        ".claude/commands/dup.md": "---\ndescription: a\nargument-hint: x\ndescription: b\n---\nDo it.\n",
        ".claude/commands/good.md": "---\ndescription: fine\n---\nDo it.\n",
    })
    ws = load(ws_root, wskit_home)
    assert sorted(c.name for c in ws.registry("command")) == ["dup", "good"]
    assert ws.registry("command").get("dup").description == "b"
    (d,) = _dups(ws.diagnostics, "commands/dup.md")
    _check(d, 4, "description", 2)


def test_agents_load_with_the_last_value(make_tree, wskit_home):
    ws_root = make_tree({
        ".claude/agents/dup.md": "---\nname: dup\ndescription: a\ntools: Read\nname: dup2\n---\nPrompt.\n",
        ".claude/agents/good.md": "---\nname: good\ndescription: fine\n---\nPrompt.\n",
    })
    ws = load(ws_root, wskit_home)
    assert sorted(a.name for a in ws.registry("agent")) == ["dup2", "good"]
    (d,) = _dups(ws.diagnostics, "agents/dup.md")
    _check(d, 5, "name", 2)


def test_rules_load_with_the_last_value(make_tree, wskit_home):
    ws = load(make_tree({
        ".claude/rules/dup.md": '---\npaths:\n  - "src/**"\npaths:\n  - "docs/**"\n---\nRule text.\n',
        ".claude/rules/nested.md": "---\npaths: [a]\nx:\n  k: 1\n  k: 2\n---\nRule text.\n",
        ".claude/rules/good.md": '---\npaths:\n  - "src/**"\n---\nRule text.\n',
    }), wskit_home)
    cat = ws.catalog("rules")
    assert sorted(r.path for r in cat.rules()) == [".claude/rules/dup.md", ".claude/rules/good.md",
                                                   ".claude/rules/nested.md"]
    (d,) = _dups(cat.diagnostics, "dup.md")
    _check(d, 4, "paths", 2)
    (d2,) = _dups(cat.diagnostics, "nested.md")
    _check(d2, 5, "k", 4)


def test_output_styles_load_with_the_last_value(make_tree, tmp_path):
    from wskit.builtin_plugins.styles.loader import load_styles

    root = make_tree({
        "output-styles/dup.md": "---\nname: Dup\ndescription: a\nname: Again\n---\nBe brief.\n",
        "output-styles/good.md": "---\nname: Good\n---\nBe brief.\n",
    }, root=tmp_path / "p")
    res = load_styles(ResourceSource(scope=Scope.PLUGIN, root=str(root), base=str(root), plugin="kit"))
    assert sorted(s.id for s in res.resources) == ["plugin:kit:dup", "plugin:kit:good"]
    assert "Again" in [getattr(s, "name", None) for s in res.resources] + \
        [getattr(s, "display_name", None) for s in res.resources] + [getattr(s, "title", None) for s in res.resources]


@pytest.mark.parametrize("strict", [False, True])
def test_skill_validation_warns_and_strict_refuses(tmp_path, strict):
    d = tmp_path / "dup"
    d.mkdir()
    (d / "SKILL.md").write_text(DUP_NESTED.format(n="dup"))
    report = validate_skill(d, strict=strict)
    assert report.valid is not strict
    found = report.errors if strict else report.warnings
    assert [(e.code, e.line) for e in found] == [("yaml-duplicate-key", 6)]
    assert found[0].path == str(d / "SKILL.md")


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
