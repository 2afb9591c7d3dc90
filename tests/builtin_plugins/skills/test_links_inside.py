"""Skill folders reached through links inside the source project are followed
(``.claude/skills -> ../skills``, ``.claude/skills/x -> ../../shared/x``), as every host
does (tests/conformance ``skills-link-root``, ``skills-link-folder``); links that leave the
project, loop, lead to a FIFO or a secret path are refused with the target named."""

from __future__ import annotations

import os

from wskit import fs
from wskit.builtin_plugins.skills import wskit_load_skills
from wskit.models import ResourceSource, Scope


def _skill(folder, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: the {name} skill\n---\nbody\n")


def _load(project):
    src = ResourceSource(scope=Scope.PROJECT, root=str(project / ".claude"), base=str(project), rank=21)
    res = wskit_load_skills(src)
    return {s.name: s for s in res.resources}, list(res.diagnostics)


def test_a_linked_skills_folder_inside_the_project_is_followed(tmp_path):
    project = tmp_path / "p"
    _skill(project / "skills" / "deploy", "deploy")
    (project / ".claude").mkdir(parents=True)
    os.symlink("../skills", project / ".claude" / "skills")
    skills, diags = _load(project)
    assert list(skills) == ["deploy"]
    assert skills["deploy"].directory == str(project / "skills" / "deploy")
    assert skills["deploy"].provenance.path == "skills/deploy/SKILL.md"
    assert [d.code for d in diags] == ["followed-link"]
    assert "'skills'" in diags[0].message


def test_a_linked_skill_folder_inside_the_project_loads_under_the_link_name(tmp_path):
    project = tmp_path / "p"
    _skill(project / "shared" / "review", "review")
    (project / ".claude" / "skills").mkdir(parents=True)
    os.symlink("../../shared/review", project / ".claude" / "skills" / "review")
    skills, diags = _load(project)
    assert list(skills) == ["review"]
    assert skills["review"].provenance.path == "shared/review/SKILL.md"
    assert any(d.code == "followed-link" for d in diags)


def test_links_leaving_the_project_looping_or_to_secret_paths_are_refused_naming_the_target(tmp_path):
    project = tmp_path / "p"
    _skill(tmp_path / "outside" / "away", "away")
    _skill(project / ".ssh" / "keys", "keys")
    _skill(project / "ok" / "fine", "fine")
    skills_dir = project / ".claude" / "skills"
    skills_dir.mkdir(parents=True)
    os.symlink("../../../outside/away", skills_dir / "away")
    os.symlink("../../.ssh/keys", skills_dir / "keys")
    os.symlink("loop2", skills_dir / "loop1")
    os.symlink("loop1", skills_dir / "loop2")
    os.symlink("../../ok/fine", skills_dir / "fine")
    skills, diags = _load(project)
    assert list(skills) == ["fine"]
    refused = {os.path.basename(d.path): d.message for d in diags if d.code == "symlink"}
    assert set(refused) == {"away", "keys", "loop1", "loop2"}
    assert "'../../../outside/away'" in refused["away"] and "outside the project" in refused["away"]
    assert "secret" in refused["keys"]
    assert "loops" in refused["loop1"]


def test_a_linked_skills_folder_leaving_the_project_is_refused(tmp_path):
    project = tmp_path / "p"
    _skill(tmp_path / "elsewhere" / "x", "x")
    (project / ".claude").mkdir(parents=True)
    os.symlink(str(tmp_path / "elsewhere"), project / ".claude" / "skills")
    skills, diags = _load(project)
    assert skills == {}
    assert [d.code for d in diags] == ["symlink"]
    assert str(tmp_path / "elsewhere") in diags[0].message


def test_a_link_to_a_fifo_or_a_hard_linked_file_is_not_followed(tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    os.mkfifo(project / "pipe")
    (project / "data.md").write_text("x")
    os.link(project / "data.md", project / "twin.md")
    os.symlink("pipe", project / "AGENTS.md")
    os.symlink("data.md", project / "CLAUDE.md")
    os.symlink("pipe", project / "dirlink")
    assert fs.inside_target(str(project), "AGENTS.md") == (None, "pipe", "does not lead to a regular file")
    assert fs.inside_target(str(project), "CLAUDE.md")[2] == "leads to a file with more than one hard link"
    assert fs.inside_target(str(project), "dirlink", want="dir")[2] == "does not lead to a folder"
    assert fs.inside_target(str(project), "data.md") == (None, "?", "leads to a file with more than one hard link")


def test_a_skill_file_linked_to_a_file_inside_the_project_loads_and_reads(tmp_path):
    """``.claude/skills/x/SKILL.md -> ../../../docs/x.md``: loaded from the resolved file, as
    Claude Code 2.1.337 loads it (tests/conformance ``skill-file-link-inside``), and its body
    read through the runtime; one leaving the project or to a secret path stays refused."""
    from wskit import HostProfile, WorkspaceCache
    from wskit.builtin_plugins.skills.runtime import SkillRuntime
    from wskit.trust import TrustStore

    project, home = tmp_path / "p", tmp_path / "h"
    (project / "docs").mkdir(parents=True)
    (project / "docs" / "x.md").write_text("---\nname: linked\ndescription: the linked skill\n---\nLINKED BODY\n")
    (tmp_path / "outside.md").write_text("---\nname: out\ndescription: outside\n---\nSECRET\n")
    (project / ".claude" / "skills" / "linked").mkdir(parents=True)
    os.symlink("../../../docs/x.md", project / ".claude" / "skills" / "linked" / "SKILL.md")
    (project / ".claude" / "skills" / "out").mkdir(parents=True)
    os.symlink("../../../../outside.md", project / ".claude" / "skills" / "out" / "SKILL.md")
    skills, diags = _load(project)
    assert list(skills) == ["linked"] and skills["linked"].description == "the linked skill"
    refused = [d for d in diags if d.code == "symlink"]
    assert len(refused) == 1 and refused[0].path.endswith("out/SKILL.md")
    home.mkdir()
    TrustStore.for_home(home).grant(project)
    ws = WorkspaceCache(HostProfile(name="claude", home=home)).resolve(str(project))
    assert SkillRuntime(ws, ws.profile).read("linked").content.strip() == "LINKED BODY"
