"""Admin-installed skills: manifest, precedence, 512 KiB per-file limit (docs/skills.md)."""

import tomllib

import pytest

from tests.markdown_helpers import load, skill_md
from wskit.builtin_plugins.skills.admin import (
    ADMIN_FILE_LIMIT,
    AdminSkillError,
    admin_root,
    install,
    manifest_path,
    read_manifest,
    set_enabled,
)
from wskit.builtin_plugins.skills.runtime import SkillError, SkillRuntime
from wskit.host import HostProfile


def _profile(home, **settings):
    return HostProfile(name="wskit", home=home, settings=settings)


def test_install_enable_disable_manifest(tmp_path, make_tree, wskit_home):
    src = make_tree({"pdf/SKILL.md": skill_md("pdf", "Admin PDF."), "pdf/ref/x.txt": "x"}, root=tmp_path / "src")
    prof = _profile(wskit_home)
    target = install(prof, src / "pdf")
    assert target == wskit_home / ".wskit" / "admin-skills" / "pdf"
    assert (target / "ref" / "x.txt").read_text() == "x"
    data = tomllib.loads(manifest_path(prof).read_text())
    assert data == {"skills": {"pdf": {"enabled": True}}}
    assert oct(manifest_path(prof).stat().st_mode & 0o777) == "0o600"
    set_enabled(prof, "pdf", False)
    assert read_manifest(prof) == {"pdf": False}
    with pytest.raises(AdminSkillError, match="no admin skill"):
        set_enabled(prof, "nope", True)


def test_enabled_admin_outranks_repository_and_disabled_does_not(tmp_path, make_tree, wskit_home):
    ws = make_tree({".wskit/skills/pdf/SKILL.md": skill_md("pdf", "Project PDF."),
                    ".agents/skills/pdf/SKILL.md": skill_md("pdf", "Agents PDF.")})
    src = make_tree({"pdf/SKILL.md": skill_md("pdf", "Admin PDF.")}, root=tmp_path / "src")
    prof = _profile(wskit_home)
    install(prof, src / "pdf")
    w = load(ws, wskit_home)
    winner = w.registry("skill").get("pdf")
    assert (winner.id, winner.description) == ("admin:pdf", "Admin PDF.")
    assert any(d.code == "shadowed" and "project:pdf" in d.message for d in w.diagnostics)
    set_enabled(prof, "pdf", False)
    w2 = load(ws, wskit_home)
    assert w2.registry("skill").get("pdf").id == "project:pdf"
    assert w2.registry("skill").get("pdf").provenance.path.startswith(".wskit/")


def test_configured_admin_root(tmp_path, make_tree, wskit_home):
    prof = _profile(wskit_home, admin_skills_root=str(tmp_path / "admin"))
    assert admin_root(prof) == tmp_path / "admin"
    src = make_tree({"s/SKILL.md": skill_md("s")}, root=tmp_path / "src")
    install(prof, src / "s")
    w = load(tmp_path / "ws", wskit_home, settings={"admin_skills_root": str(tmp_path / "admin")})
    assert w.registry("skill").get("s").id == "admin:s"


def test_512_kib_boundary(tmp_path, make_tree, wskit_home):
    head = skill_md("big").encode()
    prof = _profile(wskit_home)
    ok = make_tree({"big/SKILL.md": head + b"x" * (ADMIN_FILE_LIMIT - len(head)),
                    "big/data.txt": b"y" * ADMIN_FILE_LIMIT}, root=tmp_path / "ok")
    assert (ok / "big" / "SKILL.md").stat().st_size == 524288
    install(prof, ok / "big")
    w = load(tmp_path / "ws", wskit_home)
    rt = SkillRuntime(w, prof)
    assert len(rt.read("big", "data.txt").content) == 524288
    # one byte more, in an installed skill: discovery refuses SKILL.md, read refuses other files
    root = admin_root(prof) / "big"
    with open(root / "data.txt", "ab") as fh:
        fh.write(b"z")
    with pytest.raises(SkillError, match="data.txt.*524288"):
        rt.read("big", "data.txt")
    with open(root / "SKILL.md", "ab") as fh:
        fh.write(b"z")
    w2 = load(tmp_path / "ws", wskit_home)
    assert "big" not in w2.registry("skill")
    err = [d for d in w2.diagnostics if d.code == "too-large"]
    assert err and err[0].path.endswith("big/SKILL.md") and "524289" in err[0].message
    # install refuses the file by name
    bad = make_tree({"big2/SKILL.md": skill_md("big2"), "big2/blob.bin": b"b" * (ADMIN_FILE_LIMIT + 1)},
                    root=tmp_path / "bad")
    with pytest.raises(AdminSkillError, match="blob.bin"):
        install(prof, bad / "big2")


def test_repository_skills_have_no_byte_limit(make_tree, wskit_home):
    ws = make_tree({".claude/skills/huge/SKILL.md": skill_md("huge", body="x" * (ADMIN_FILE_LIMIT + 10))})
    w = load(ws, wskit_home)
    assert len(SkillRuntime(w, w.profile).read("huge").content) == ADMIN_FILE_LIMIT + 10


def test_corrupt_manifest_fails_closed(tmp_path, make_tree, wskit_home):
    prof = _profile(wskit_home)
    src = make_tree({"s/SKILL.md": skill_md("s")}, root=tmp_path / "src")
    install(prof, src / "s")
    manifest_path(prof).write_text("[skills\nbroken")
    with pytest.raises(AdminSkillError, match="not valid TOML"):
        read_manifest(prof)
    w = load(tmp_path / "ws", wskit_home)
    assert "s" not in w.registry("skill")
    assert any(d.code == "hook-failed" and d.plugin == "admin_skills" for d in w.diagnostics)
