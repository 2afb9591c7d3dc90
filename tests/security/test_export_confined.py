"""wsctl export stays inside the project: it never reads through a link leaving it, never
writes through a link or in place of one, and a manifest (a project file) cannot name a file
outside the project or make --prune delete one."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from tests.builtin_plugins.export.tree import make_project
from wskit.trust import TrustStore


@pytest.fixture
def project(tmp_path: Path, wskit_home: Path) -> Path:
    root = make_project(tmp_path / "proj")
    TrustStore.for_home(wskit_home).grant(root)
    return root


def test_a_link_in_place_of_a_target_file_or_folder_is_refused(project: Path, wsctl, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim").write_text("x")
    os.symlink(outside, project / ".gemini")
    os.symlink(outside / "victim", project / "AGENTS.md")
    r = wsctl("export", str(project), "--to", "codex,gemini", "--force")
    assert r.exit_code == 1 and "refused" in r.output
    assert sorted(p.name for p in outside.iterdir()) == ["victim"] and (outside / "victim").read_text() == "x"
    assert (project / "AGENTS.md").is_symlink()


def test_a_link_in_a_skill_folder_is_not_copied(project: Path, wsctl, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOKEN")
    os.symlink(secret, project / ".claude/skills/pdf-tools/leak.txt")
    os.symlink(tmp_path, project / ".claude/skills/pdf-tools/up")
    r = wsctl("export", str(project), "--to", "codex")
    assert r.exit_code == 0, r.output
    copied = project / ".agents/skills/pdf-tools"
    assert (copied / "SKILL.md").is_file()
    assert not (copied / "leak.txt").exists() and not (copied / "up").exists()
    assert "leak.txt not copied" in r.output and "up is a link" in r.output


def test_a_linked_wskit_folder_is_refused(project: Path, wsctl, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, project / ".wskit")
    r = wsctl("export", str(project), "--to", "codex")
    assert r.exit_code == 2 and "link" in r.output
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("bad", ["../outside/victim", "/etc/passwd", ".env", "a/../../outside/victim"])
def test_a_manifest_naming_a_path_outside_the_project_is_refused(project: Path, wsctl, tmp_path: Path,
                                                                bad: str) -> None:
    victim = project / ".env" if bad == ".env" else tmp_path / "outside" / "victim"
    victim.parent.mkdir(exist_ok=True)
    victim.write_text("keep")
    (project / ".wskit").mkdir()
    digest = hashlib.sha256(b"keep").hexdigest()
    (project / ".wskit/export.json").write_text(json.dumps(
        {"format": 1, "files": {bad: {"sha256": digest, "targets": ["codex"], "sources": []}}}))
    r = wsctl("export", str(project), "--to", "codex", "--prune")
    assert r.exit_code == 2 and "refused" in r.output
    assert victim.read_text() == "keep"


def test_prune_does_not_delete_through_a_linked_folder(project: Path, wsctl, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim").write_text("keep")
    os.symlink(outside, project / "sub")
    (project / ".wskit").mkdir()
    digest = hashlib.sha256(b"keep").hexdigest()
    (project / ".wskit/export.json").write_text(json.dumps(
        {"format": 1, "files": {"sub/victim": {"sha256": digest, "targets": ["codex"], "sources": []}}}))
    wsctl("export", str(project), "--to", "codex", "--prune")
    assert (outside / "victim").read_text() == "keep"
