"""Real input: the published Agent Skills of ../shared/corpus/anthropic-skills."""

import json
import shutil

import pytest


@pytest.fixture
def skills_workspace(shared_dir, tmp_path):
    src = shared_dir / "corpus" / "anthropic-skills" / "skills"
    ws = tmp_path / "ws"
    (ws / ".agents").mkdir(parents=True)
    shutil.copytree(src, ws / ".agents" / "skills")
    return ws, sorted(p.name for p in src.iterdir() if (p / "SKILL.md").is_file())


def test_trusted_workspace_shows_every_skill_without_errors(wsctl, skills_workspace):
    ws, names = skills_workspace
    assert len(names) == 12
    assert wsctl("trust", "grant", str(ws)).exit_code == 0
    data = json.loads(wsctl("inspect", str(ws), json=True).stdout)
    skills = sorted(r["name"] for r in data["resources"] if r["kind"] == "skill")
    assert skills == names
    assert [d for d in data["diagnostics"] if d["level"] == "error"] == []


def test_untrusted_workspace_shows_none_and_says_why(wsctl, skills_workspace):
    ws, _ = skills_workspace
    data = json.loads(wsctl("inspect", str(ws), json=True).stdout)
    assert [r for r in data["resources"] if r["kind"] == "skill"] == []
    why = [d for d in data["diagnostics"] if d["code"] == "project-untrusted"]
    assert why and "trust" in why[0]["message"]
