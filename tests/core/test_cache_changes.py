"""WorkspaceCache change detection: a warm resolve re-stats, and reloads on change."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.aging_helpers import age as _age
from tests.aging_helpers import skill_text as _skill
from wskit.cache import WorkspaceCache
from wskit.session import snapshot
from wskit.testing import write_tree
from wskit.trust import TrustStore


@pytest.fixture
def ws(tmp_path: Path, wskit_home: Path) -> Path:
    root = write_tree(tmp_path / "ws", {
        ".git/HEAD": "ref: refs/heads/main\n",
        ".claude/skills/alpha/SKILL.md": _skill("alpha", "first version"),
    })
    TrustStore.for_home(wskit_home).grant(root)
    _age(root, wskit_home)
    return root


@pytest.fixture
def cache(wskit_profile, wskit_pm) -> WorkspaceCache:
    return WorkspaceCache(wskit_profile, wskit_pm)


def _desc(ws_res, name: str) -> str:
    return ws_res.registry("skill").get(name).description


def test_warm_resolve_with_nothing_changed_is_the_cached_object(cache, ws) -> None:
    first = cache.resolve(ws)
    assert cache.resolve(ws) is first
    assert cache.stats()["reloads"] == 0


def test_edited_skill_file_reloads_and_old_session_keeps_what_it_saw(cache, ws) -> None:
    first = cache.resolve(ws)
    session = snapshot(first)
    (ws / ".claude/skills/alpha/SKILL.md").write_text(_skill("alpha", "second version"))
    second = cache.resolve(ws)
    assert second is not first
    assert _desc(second, "alpha") == "second version"
    assert session.get("skill", "alpha").description == "first version"
    assert cache.stats()["reloads"] == 1


def test_new_skill_folder_is_seen(cache, ws) -> None:
    first = cache.resolve(ws)
    write_tree(ws, {".claude/skills/beta/SKILL.md": _skill("beta", "new")})
    second = cache.resolve(ws)
    assert second is not first
    assert "beta" in second.registry("skill") and "beta" not in first.registry("skill")


def test_skills_folder_created_later_is_seen(tmp_path, wskit_home, cache) -> None:
    root = write_tree(tmp_path / "late", {".git/HEAD": "ref: refs/heads/main\n"})
    TrustStore.for_home(wskit_home).grant(root)
    _age(root, wskit_home)
    assert len(cache.resolve(root).registry("skill")) == 0
    write_tree(root, {".claude/skills/gamma/SKILL.md": _skill("gamma", "late")})
    assert "gamma" in cache.resolve(root).registry("skill")


def test_revoking_trust_reloads_without_project_skills(cache, ws, wskit_home) -> None:
    assert "alpha" in cache.resolve(ws).registry("skill")
    TrustStore.for_home(wskit_home).revoke(ws)
    again = cache.resolve(ws)
    assert "alpha" not in again.registry("skill")
    assert not again.trust.trusted


def test_fresh_files_reload_until_they_settle(tmp_path, wskit_home, cache) -> None:
    root = write_tree(tmp_path / "fresh", {".git/HEAD": "x\n", ".claude/skills/a/SKILL.md": _skill("a", "d")})
    TrustStore.for_home(wskit_home).grant(root)
    first = cache.resolve(root)
    assert cache.resolve(root) is not first  # racy: written within the racy window
    _age(root, wskit_home)
    settled = cache.resolve(root)
    assert cache.resolve(root) is settled


def test_detect_changes_off_keeps_the_cached_load(wskit_profile, wskit_pm, ws) -> None:
    cache = WorkspaceCache(wskit_profile, wskit_pm, detect_changes=False)
    first = cache.resolve(ws)
    (ws / ".claude/skills/alpha/SKILL.md").write_text(_skill("alpha", "second version"))
    assert cache.resolve(ws) is first
    assert cache.invalidate(ws)
    assert _desc(cache.resolve(ws), "alpha") == "second version"


def test_pinned_workspace_survives_a_reload(cache, ws) -> None:
    with cache.using(ws) as pinned:
        (ws / ".claude/skills/alpha/SKILL.md").write_text(_skill("alpha", "changed while pinned"))
        fresh = cache.resolve(ws)
        assert fresh is not pinned
        assert _desc(pinned, "alpha") == "first version"
    assert cache.stats()["active_users"] == 0


def test_reload_reuses_unchanged_skills_and_rereads_the_changed_one(cache, ws) -> None:
    write_tree(ws, {".claude/skills/beta/SKILL.md": _skill("beta", "untouched")})
    _age(ws)
    first = cache.resolve(ws)
    beta, alpha = first.registry("skill").get("beta"), first.registry("skill").get("alpha")
    (ws / ".claude/skills/alpha/SKILL.md").write_text(_skill("alpha", "edited"))
    second = cache.resolve(ws)
    assert second is not first
    assert second.registry("skill").get("beta") is beta  # not read again: same immutable object
    new_alpha = second.registry("skill").get("alpha")
    assert new_alpha is not alpha and new_alpha.description == "edited"


def test_cold_load_and_invalidate_reuse_nothing(cache, ws, wskit_profile, wskit_pm) -> None:
    first = cache.resolve(ws)
    other = WorkspaceCache(wskit_profile, wskit_pm).resolve(ws)
    assert other.registry("skill").get("alpha") is not first.registry("skill").get("alpha")
    assert cache.invalidate(ws)
    again = cache.resolve(ws)
    assert again.registry("skill").get("alpha") is not first.registry("skill").get("alpha")


def test_reused_bad_skill_keeps_its_diagnostic(cache, ws) -> None:
    write_tree(ws, {".claude/skills/broken/SKILL.md": "---\nname: broken\n---\nno description\n"})
    _age(ws)
    first = cache.resolve(ws)
    codes = [d.code for d in first.diagnostics if "broken" in (d.path or "")]
    assert codes == ["skill-missing-description"]
    (ws / ".claude/skills/alpha/SKILL.md").write_text(_skill("alpha", "edited"))
    second = cache.resolve(ws)
    assert second is not first
    assert [d.code for d in second.diagnostics if "broken" in (d.path or "")] == codes
    # loaded, described by its first body line (Claude Code 2.1.332 does the same)
    assert second.registry("skill").get("broken").description == "no description"


def test_unchanged_skills_folder_is_not_listed_again_on_a_reload(cache, ws, monkeypatch) -> None:
    """A reload takes the previous listing of a skills folder whose
    signature is unchanged; a folder that changed (an entry added, removed or renamed)
    is listed again."""
    from wskit import fs

    write_tree(ws, {".claude/skills/beta/SKILL.md": _skill("beta", "second skill")})
    _age(ws)
    skills_dir = str(ws / ".claude/skills")
    listed: list[str] = []
    real = fs.scan_fd_tuples
    monkeypatch.setattr(fs, "scan_fd_tuples", lambda fd, shown, **kw: listed.append(shown) or real(fd, shown, **kw))
    first = cache.resolve(ws)
    assert listed.count(skills_dir) == 1
    (ws / ".claude/skills/alpha/SKILL.md").write_text(_skill("alpha", "edited"))
    second = cache.resolve(ws)
    assert second is not first and _desc(second, "alpha") == "edited"
    assert listed.count(skills_dir) == 1, "the unchanged skills folder was listed again"
    assert second.registry("skill").get("beta") is first.registry("skill").get("beta")
    os.rename(ws / ".claude/skills/beta", ws / ".claude/skills/gamma")  # the folder's signature changes
    third = cache.resolve(ws)
    assert listed.count(skills_dir) == 2
    assert "gamma" in third.registry("skill") and "beta" not in third.registry("skill")
