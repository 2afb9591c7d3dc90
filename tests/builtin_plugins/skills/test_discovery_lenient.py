"""Skill discovery through the built-in plugin: lenient loading, allowed_tools, plugin ids."""

import os

from tests.markdown_helpers import load, skill_md
from wskit.builtin_plugins.skills import wskit_load_skills
from wskit.models import ResourceSource, Scope


def test_lenient_discovery_reports_spec_violations_as_warnings(tmp_path, make_tree, wskit_home):
    ws = make_tree({
        ".claude/skills/mixed/SKILL.md": skill_md("Mixed-Name", extra="verison: 2\n"),
        ".claude/skills/tools/SKILL.md": skill_md("tools", extra="allowed-tools: Read\nallowed_tools: Bash(git status)\n"),
        ".claude/skills/broken/SKILL.md": skill_md("broken", extra="allowed-tools: Read(x/**)\n"),
        ".claude/skills/nodesc/SKILL.md": "---\nname: nodesc\n---\n",
    })
    w = load(ws, wskit_home)
    reg = w.registry("skill")
    assert {"mixed", "tools", "broken"} <= {s.name for s in reg.active()}
    assert reg.get("nodesc").description == "Skill"  # no description, empty body: Claude Code's fallback
    assert reg.get("tools").allowed_tools == ("Bash(git status)",)  # allowed_tools wins (Sakura B2)
    assert reg.get("broken").allowed_tools == ("Read(x/**)",)
    codes = {(d.code, os.path.basename(os.path.dirname(d.path or ""))) for d in w.diagnostics}
    assert ("skill-unknown-field", "mixed") in codes
    assert ("skill-name-mismatch", "mixed") in codes
    assert ("invalid-allowed-tools", "broken") in codes
    assert ("skill-missing-description", "nodesc") in codes


def test_plugin_source_ids_and_components(tmp_path, make_tree):
    root = make_tree({"extra/alpha/SKILL.md": skill_md("alpha"), "skills/beta/SKILL.md": skill_md("beta")},
                     root=tmp_path / "plug")
    src = ResourceSource(scope=Scope.PLUGIN, root=str(root), base=str(root), plugin="kit",
                         components={"skill": ("extra",)})
    res = wskit_load_skills(src)
    assert [s.id for s in res.resources] == ["plugin:kit:alpha"]
    assert res.resources[0].plugin == "kit"
    default = wskit_load_skills(ResourceSource(scope=Scope.PLUGIN, root=str(root), base=str(root), plugin="kit"))
    assert [s.id for s in default.resources] == ["plugin:kit:beta"]


def test_names_filter(tmp_path, make_tree):
    root = make_tree({"skills/a/SKILL.md": skill_md("a"), "skills/b/SKILL.md": skill_md("b")}, root=tmp_path / "s")
    src = ResourceSource(scope=Scope.USER, root=str(root), base=str(root), names=frozenset({"b"}))
    assert [s.name for s in wskit_load_skills(src).resources] == ["b"]


def test_bom_crlf_colon_skill_is_discovered_with_warnings(make_tree, wskit_home):
    text = "---\nname: colon\ndescription: Use when: asked\nargument_hint: FILE\nwhen_to_use: often\n---\nB\n"
    ws = make_tree({".claude/skills/colon/SKILL.md": b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode()})
    w = load(ws, wskit_home)
    skill = w.registry("skill").get("colon")
    assert skill.description == "Use when: asked"
    assert (skill.argument_hint, skill.when_to_use) == ("FILE", "often")  # snake_case accepted, kebab canonical
    codes = {d.code for d in w.diagnostics if d.path and d.path.endswith("colon/SKILL.md")}
    assert {"skill-bom", "yaml-quoted-retry"} <= codes
    assert all(d.level != "error" for d in w.diagnostics if d.path and d.path.endswith("colon/SKILL.md"))


def test_metadata_keys_that_are_not_text_do_not_take_every_skill_down(make_tree, wskit_home):
    # a number key in one skill's metadata would make pydantic refuse that Skill, and the
    # exception would fail the whole skills hook: `skills list` would say "no skills"
    ws = make_tree({
        ".claude/skills/good/SKILL.md": skill_md("good"),
        ".claude/skills/num/SKILL.md": skill_md(
            "num", extra="metadata:\n  2: a\n  true: b\n  ~: c\n  2020-01-01: d\n  1.5: e\n  k: 2\n"),
        ".claude/skills/clash/SKILL.md": skill_md("clash", extra="metadata:\n  1: a\n  '1': b\n"),
    })
    w = load(ws, wskit_home)
    reg = w.registry("skill")
    assert sorted(s.name for s in reg.active()) == ["clash", "good", "num"]
    assert reg.get("num").metadata == {"2": "a", "true": "b", "null": "c", "2020-01-01": "d", "1.5": "e", "k": 2}
    assert reg.get("clash").metadata == {"1": "b"}
    assert [(d.code, d.level) for d in w.diagnostics if "clash" in (d.path or "")] == [
        ("skill-metadata-key", "warning")]
    assert not [d for d in w.diagnostics if d.code == "hook-failed"]


def test_one_skill_that_raises_is_refused_alone(make_tree, wskit_home, monkeypatch):
    """The general guard beside the case above: any ValueError/TypeError while one skill
    is built is that skill's diagnostic, not the loader's failure."""
    import wskit.builtin_plugins.skills.discovery as scan

    ws = make_tree({".claude/skills/good/SKILL.md": skill_md("good"),
                    ".claude/skills/boom/SKILL.md": skill_md("boom")})
    real_one = scan.skillfast.one

    def one(lane, slug):
        if slug == "boom":
            raise ValueError("surprise\nsecond line")
        return real_one(lane, slug)

    monkeypatch.setattr(scan.skillfast, "one", one)
    w = load(ws, wskit_home)
    assert [s.name for s in w.registry("skill").active()] == ["good"]
    (d,) = [d for d in w.diagnostics if d.code == "skill-invalid"]
    assert d.level == "error" and d.path.endswith(".claude/skills/boom/SKILL.md")
    assert d.message == "ValueError: surprise"
