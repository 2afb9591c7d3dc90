"""Strict and lenient skill validation (docs/skills.md, "Validation: lenient and strict")."""

from tests.markdown_helpers import skill_md
from wskit.builtin_plugins.skills.validate import validate_skill


def _codes(items):
    return sorted({d.code for d in items})


def test_bom_crlf_unquoted_colon_loads_with_warning(tmp_path):
    d = tmp_path / "colon-skill"
    d.mkdir()
    text = "---\nname: colon-skill\ndescription: Use when: the user asks\n---\nBody\n"
    (d / "SKILL.md").write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    lenient = validate_skill(d)
    assert lenient.valid
    assert {"skill-bom", "yaml-quoted-retry"} <= set(_codes(lenient.warnings))
    retry = next(w for w in lenient.warnings if w.code == "yaml-quoted-retry")
    assert retry.line == 3 and retry.path.endswith("colon-skill/SKILL.md")
    strict = validate_skill(d, strict=True)
    assert not strict.valid
    assert {"skill-bom", "yaml-quoted-retry"} <= set(_codes(strict.errors))


def test_strict_rules(tmp_path):
    cases = {
        "good-one": (skill_md("good-one", extra="license: MIT\ncompatibility: any\nallowed-tools: Read\n"), []),
        "Upper": (skill_md("Upper"), ["skill-name-format"]),
        "dash-": (skill_md("dash-"), ["skill-name-format"]),
        "dou--ble": (skill_md("dou--ble"), ["skill-name-format"]),
        "mismatch": (skill_md("other"), ["skill-name-mismatch"]),
        "unknown": (skill_md("unknown", extra="colour: 1\n"), ["skill-unknown-field"]),
        "noname": ("---\ndescription: d\n---\n", ["skill-missing-name"]),
        "longdesc": (skill_md("longdesc", "x" * 1025), ["skill-description-too-long"]),
        "okdesc": (skill_md("okdesc", "x" * 1024), []),
        "compat": (skill_md("compat", extra=f"compatibility: {'c' * 501}\n"), ["skill-compatibility-too-long"]),
        "flow": (skill_md("flow", extra="allowed-tools: [Read]\n"), ["skill-yaml-flow-style"]),
        "a" * 65: (skill_md("a" * 65), ["skill-name-too-long"]),
    }
    for slug, (text, expected) in cases.items():
        d = tmp_path / slug
        d.mkdir()
        (d / "SKILL.md").write_text(text)
        strict = validate_skill(d, strict=True)
        assert _codes(strict.errors) == sorted(expected), slug
        lenient = validate_skill(d)
        assert lenient.valid, slug
        assert set(expected) <= set(_codes(lenient.warnings)), slug


def test_lenient_warnings_are_strict_errors(tmp_path):
    """What Claude Code loads leniently is a warning in lenient validation and an error in strict."""
    for slug, text, code in [
        ("nodesc", "---\nname: nodesc\n---\n", "skill-missing-description"),
        ("nofm", "just text\n", "skill-no-frontmatter"),
        ("badyaml", '---\nname: "unclosed\ndescription: x\n---\n', "yaml-error"),
        ("unclosed", "---\nname: unclosed\ndescription: x\n", "frontmatter-unterminated"),
        ("tabbed", "---\nname: tabbed\ndescription: x\nmetadata:\n\towner: a\n---\n", "yaml-quoted-retry"),
        ("bracket", "---\nname: bracket\ndescription: x\nlicense: [MIT\n---\n", "yaml-quoted-retry"),
        ("dup", "---\nname: dup\ndescription: x\ndescription: y\n---\n", "yaml-duplicate-key"),
    ]:
        d = tmp_path / slug
        d.mkdir()
        (d / "SKILL.md").write_text(text)
        r = validate_skill(d)
        assert r.valid and code in _codes(r.warnings), slug
        s = validate_skill(d, strict=True)
        assert not s.valid and code in _codes(s.errors), slug
        assert all(e.path.endswith(f"{slug}/SKILL.md") for e in s.errors)
    missing = tmp_path / "empty"
    missing.mkdir()
    assert _codes(validate_skill(missing).errors) == ["skill-missing-file"]
    assert _codes(validate_skill(tmp_path / "nope").errors) == ["not-found"]


def test_json_shape(tmp_path):
    d = tmp_path / "shape"
    d.mkdir()
    (d / "SKILL.md").write_text(skill_md("other"))
    data = validate_skill(d, strict=True).to_json()
    assert set(data) == {"valid", "errors", "warnings"}
    assert data["valid"] is False
    assert set(data["errors"][0]) == {"path", "line", "code", "message"}
    assert data["errors"][0]["line"] == 2


def test_claude_code_fields_are_known_but_not_spec_fields(tmp_path):
    """Fields Claude Code reads (``version``, ``user-invocable``, ``argument-hint``…, used
    by most plugins of the official marketplace) are no warning in lenient checks, which
    still warn on a truly unknown field; strict validation (the specification exactly,
    as ``skills-ref``) still refuses them all."""
    d = tmp_path / "cc"
    d.mkdir()
    extra = ("version: 1.0.0\nuser-invocable: false\ndisable-model-invocation: true\nargument-hint: '[file]'\n"
             "tools: Read\nmodel: haiku\nwhen_to_use: always\ncontext: fork\nagent: Explore\n")
    (d / "SKILL.md").write_text(skill_md("cc", extra=extra))
    lenient = validate_skill(d)
    assert lenient.valid and "skill-unknown-field" not in _codes(lenient.warnings)
    strict = validate_skill(d, strict=True)
    unknown = sorted(e.message.split("'")[1] for e in strict.errors if e.code == "skill-unknown-field")
    assert unknown == ["agent", "argument-hint", "context", "disable-model-invocation", "model", "tools",
                       "user-invocable", "version", "when_to_use"]
    (d / "SKILL.md").write_text(skill_md("cc", extra="version: 1\nverison: 1\n"))
    typo = [w for w in validate_skill(d).warnings if w.code == "skill-unknown-field"]
    assert [w.message.split("'")[1] for w in typo] == ["verison"] and typo[0].line is not None
