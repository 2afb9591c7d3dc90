import os
import threading
from pathlib import Path

import pytest

from tests.conftest import skill_md
from wskit.cache import WorkspaceCache
from wskit.trust import TrustStore


@pytest.fixture
def resolve(wskit_profile, wskit_pm):
    def _resolve(path: Path, trusted: bool = True):
        if trusted:
            TrustStore.for_home(wskit_profile.home).grant(path)
        return WorkspaceCache(wskit_profile, wskit_pm).resolve(path)

    return _resolve


def by_code(ws, code):
    return [d for d in ws.diagnostics if d.code == code]


def test_discovers_project_and_user_skills_with_precedence(make_tree, wskit_home, resolve):
    ws_root = make_tree({
        ".agents/skills/alpha/SKILL.md": skill_md("alpha", "from agents"),
        ".claude/skills/alpha/SKILL.md": skill_md("alpha", "from claude"),
        ".wskit/skills/alpha/SKILL.md": skill_md("alpha", "from host"),
        ".claude/skills/beta/SKILL.md": skill_md("beta", "project beta"),
    })
    from wskit.testing import write_tree

    write_tree(wskit_home, {
        ".claude/skills/beta/SKILL.md": skill_md("beta", "user beta"),
        ".agents/skills/gamma/SKILL.md": skill_md("gamma", "user gamma"),
    })
    ws = resolve(ws_root)
    reg = ws.registry("skill")
    assert reg.get("alpha").description == "from host"     # project host dir > .claude > .agents
    assert reg.get("beta").description == "project beta"   # project > user
    assert reg.get("gamma").id == "user:gamma"
    assert reg.get("alpha").provenance.path == ".wskit/skills/alpha/SKILL.md"
    shadowed = {d.message.split("'")[1] for d in by_code(ws, "shadowed")}
    assert shadowed == {"project:alpha", "user:beta"}
    assert len([r for r in reg.shadowed() if r.name == "alpha"]) == 2


def test_untrusted_project_shows_no_project_skills_and_says_why(make_tree, wskit_home, resolve):
    root = make_tree({".claude/skills/alpha/SKILL.md": skill_md("alpha")})
    from wskit.testing import write_tree

    write_tree(wskit_home, {".claude/skills/mine/SKILL.md": skill_md("mine")})
    ws = resolve(root, trusted=False)
    assert [s.id for s in ws.registry("skill")] == ["user:mine"]
    (d,) = by_code(ws, "project-untrusted")
    # the API's message says what to do without naming the CLI; the CLI adds its own hint
    assert "until the user trusts it" in d.message and "wsctl" not in d.message and ws.trust.state == "unknown"
    assert ws.trust.cli_hint().startswith("run 'wsctl trust grant ")


def test_unreadable_frontmatter_loads_and_shadows_as_in_claude_code(make_tree, resolve):
    """Claude Code 2.1.332 loads a SKILL.md whose frontmatter does not parse (no fields),
    has no description or no frontmatter at all, described by its first body line;
    so the higher-ranked one shadows the lower one, and every leniency is a warning."""
    root = make_tree({
        ".agents/skills/alpha/SKILL.md": skill_md("alpha", "good one"),
        ".claude/skills/alpha/SKILL.md": '---\nname: alpha\ndescription: "broken\n---\n# Alpha body\n',
        ".claude/skills/nodesc/SKILL.md": "---\nname: nodesc\n---\nbody\n",
        ".claude/skills/nofm/SKILL.md": "# no frontmatter\n",
        ".claude/skills/empty-folder/README.md": "not a skill",
    })
    ws = resolve(root)
    reg = ws.registry("skill")
    assert reg.get("alpha").description == "Alpha body"
    assert sorted(s.name for s in reg) == ["alpha", "nodesc", "nofm"]
    assert reg.get("nodesc").description == "body" and reg.get("nofm").description == "no frontmatter"
    assert not [d for d in ws.diagnostics if d.level == "error"]
    codes = {d.code for d in ws.diagnostics if d.level == "warning"}
    assert {"yaml-error", "skill-missing-description", "skill-no-frontmatter"} <= codes
    err = next(d for d in ws.diagnostics if d.code == "yaml-error")
    assert err.path.endswith(".claude/skills/alpha/SKILL.md") and err.line == 4
    assert "quoted scalar (line 3)" in err.message and err.message.endswith("as Claude Code does")


def test_folder_name_is_identity_and_mismatch_warns(make_tree, resolve):
    root = make_tree({".claude/skills/my-skill/SKILL.md": skill_md("other-name")})
    ws = resolve(root)
    s = ws.registry("skill").get("my-skill")
    assert s.display_name == "other-name"
    (w,) = by_code(ws, "skill-name-mismatch")
    assert w.level == "warning" and w.line == 2


def test_frontmatter_fields(make_tree, resolve):
    extra = ("allowed-tools: Read Bash(git log:*)\nallowed_tools: [Read]\nuser-invocable: 'no'\n"
             "disable-model-invocation: yes\nlicense: MIT\nmetadata:\n  owner: me\nx-custom: 1\n")
    root = make_tree({".claude/skills/s/SKILL.md": skill_md("s", extra=extra)})
    s = resolve(root).registry("skill").get("s")
    assert s.allowed_tools == ("Read",)  # allowed_tools wins (Sakura)
    assert s.user_invocable is False and s.disable_model_invocation is True
    assert s.license == "MIT" and s.metadata == {"owner": "me"} and s.extra == {"x-custom": 1}


def test_allowed_tools_string_keeps_parenthesised_spaces(make_tree, resolve):
    root = make_tree({".claude/skills/s/SKILL.md": skill_md("s", extra="allowed-tools: Read, Bash(git log:*)\n")})
    assert resolve(root).registry("skill").get("s").allowed_tools == ("Read", "Bash(git log:*)")


def test_discovery_reads_frontmatter_only(make_tree, resolve, monkeypatch):
    body = "y" * 500_000
    root = make_tree({".claude/skills/big/SKILL.md": skill_md("big") + body})
    read = []
    real_read = os.read

    def counting(fd, n):
        data = real_read(fd, n)
        read.append(len(data))
        return data

    monkeypatch.setattr(os, "read", counting)
    ws = resolve(root)
    assert ws.registry("skill").get("big")
    assert sum(read) < 20_000


def test_fifo_named_skill_md_does_not_hang(make_tree, resolve):
    root = make_tree({".claude/skills/ok/SKILL.md": skill_md("ok"), ".claude/skills/pipe/": None})
    os.mkfifo(root / ".claude/skills/pipe/SKILL.md")
    out = []
    t = threading.Thread(target=lambda: out.append(resolve(root)), daemon=True)
    t.start()
    t.join(10)
    assert out, "discovery hung on a FIFO"
    ws = out[0]
    assert [s.name for s in ws.registry("skill")] == ["ok"]
    (d,) = by_code(ws, "special-file")
    assert d.path.endswith("pipe/SKILL.md")


def test_project_symlinks_refused_user_symlinks_followed(make_tree, tmp_path, wskit_home, resolve):
    elsewhere = make_tree({"linked/SKILL.md": skill_md("linked")}, root=tmp_path / "elsewhere")
    root = make_tree({".claude/skills/": None})
    (root / ".claude/skills/linked").symlink_to(elsewhere / "linked")
    (wskit_home / ".claude/skills").mkdir(parents=True)
    (wskit_home / ".claude/skills/stowed").symlink_to(elsewhere / "linked")
    ws = resolve(root)
    reg = ws.registry("skill")
    assert reg.find("linked") is None
    assert reg.get("stowed").scope.value == "user"
    assert any(d.code == "symlink" and d.path.endswith(".claude/skills/linked") for d in ws.diagnostics)
    assert any(d.code == "followed-link" for d in ws.diagnostics)


def test_digest_covers_frontmatter_bytes(make_tree, resolve, wskit_profile, wskit_pm):
    root = make_tree({".claude/skills/s/SKILL.md": skill_md("s", "one")})
    first = resolve(root).registry("skill").get("s").provenance.sha256
    (root / ".claude/skills/s/SKILL.md").write_text(skill_md("s", "two"))
    second = WorkspaceCache(wskit_profile, wskit_pm).resolve(root).registry("skill").get("s").provenance.sha256
    assert first != second and len(first) == 64
