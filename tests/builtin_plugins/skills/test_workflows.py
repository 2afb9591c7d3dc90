"""Workflow restrictions, end_skill and resume (docs/skills.md; holon-sakura.md B4, B5)."""

import hashlib
import json
import os

import pytest

from tests.markdown_helpers import load, skill_md
from wskit.builtin_plugins.skills.runtime import SkillError, SkillRuntime
from wskit.builtin_plugins.skills.workflows import CORRUPT, EXTENSION_KEY, SkillWorkflows
from wskit.session import SessionState, snapshot


@pytest.fixture
def tree(make_tree):
    return make_tree({
        ".claude/skills/git-only/SKILL.md": skill_md("git-only", extra="allowed-tools: Read Bash(git:*)\n"),
        ".claude/skills/status/SKILL.md": skill_md("status", extra="allowed-tools: Bash(git status)\n"),
        ".claude/skills/free/SKILL.md": skill_md("free"),
    })


def _wf(tree, home, **kw):
    w = load(tree, home, **kw)
    return w, SkillWorkflows(SkillRuntime(snapshot(w), w.profile))


def _edit(tree, slug, extra):
    with open(os.path.join(tree, f".claude/skills/{slug}/SKILL.md"), "w") as fh:
        fh.write(skill_md(slug, extra=extra))


def test_activate_narrows_and_end_restores(tree, wskit_home):
    _, wf = _wf(tree, wskit_home)
    assert wf.check("write_file")
    wf.activate("git-only")
    assert wf.check("read_file") and wf.check("run_command", "git log")
    assert not wf.check("write_file")
    wf.activate("status")  # both must allow
    assert wf.check("run_command", "git status")
    assert not wf.check("run_command", "git log")
    assert not wf.check("read_file")
    wf.end_skill("status")
    assert wf.check("run_command", "git log") and wf.check("read_file")
    wf.end_skill("git-only")
    assert wf.check("write_file")
    wf.activate("free")  # no allowed-tools: no restriction
    assert wf.check("write_file")


def _resume(tree, home, state_json, **kw):
    w = load(tree, home, **kw)
    state = SessionState.from_json(state_json)
    return SkillWorkflows.restore(SkillRuntime(snapshot(w), w.profile), state.extensions)


def _state(wf, w):
    return snapshot(w).state(extensions={EXTENSION_KEY: wf.to_extension()}).to_json()


def test_resume_replays_records(tree, wskit_home):
    w, wf = _wf(tree, wskit_home)
    wf.activate("git-only")
    wf.activate("status")
    wf.end_skill("status")
    text = _state(wf, w)
    rec = json.loads(text)["extensions"][EXTENSION_KEY]
    assert [r["operation"] for r in rec["records"]] == ["activate", "activate", "end"]
    md_path = tree / ".claude" / "skills" / "git-only" / "SKILL.md"
    assert rec["records"][0] == {"version": 1, "slug": "git-only", "id": "project:git-only",
                                 "operation": "activate", "scope": [["Read", "Bash(git:*)"]],
                                 "sha256": hashlib.sha256(md_path.read_bytes()).hexdigest(), "path": str(md_path)}
    back = _resume(tree, wskit_home, text)
    assert set(back.active) == {"git-only"}
    assert back.check("run_command", "git log") and not back.check("write_file")


def test_resume_after_relaxed_metadata_never_widens(tree, wskit_home):
    w, wf = _wf(tree, wskit_home)
    wf.activate("status")
    text = _state(wf, w)
    _edit(tree, "status", "allowed-tools: Bash\n")  # relaxed
    back = _resume(tree, wskit_home, text)
    assert back.check("run_command", "git status")
    assert not back.check("run_command", "rm -rf x")
    _edit(tree, "status", "")  # restriction removed entirely
    assert not _resume(tree, wskit_home, text).check("run_command", "ls")
    _edit(tree, "status", "allowed-tools: []\n")  # narrowed: applies
    assert not _resume(tree, wskit_home, text).check("run_command", "git status")


def test_resume_after_deleted_or_corrupt_metadata_denies(tree, wskit_home):
    w, wf = _wf(tree, wskit_home)
    wf.activate("status")
    text = _state(wf, w)
    _edit(tree, "status", "allowed-tools: Bash(git status && id)\n")
    assert not _resume(tree, wskit_home, text).check("run_command", "git status")
    os.remove(os.path.join(tree, ".claude/skills/status/SKILL.md"))
    back = _resume(tree, wskit_home, text)
    assert not back.check("run_command", "git status")
    assert back.check("use_skill")
    back.end_skill("status")  # ending still works and restores what was there before
    assert back.check("write_file")


@pytest.mark.parametrize("mutate", [
    lambda e: e["records"][0].update(version=2),
    lambda e: e["records"][0].update(operation="bogus"),
    lambda e: e["records"][0].update(scope="Read"),
    lambda e: e["ceiling"]["active"].pop("git-only"),
    lambda e: e["ceiling"].update(version=9),
    lambda e: e["records"].pop(0),  # the activation record is missing; the ceiling still names it
])
def test_missing_or_corrupt_records_deny_that_skill(tree, wskit_home, mutate):
    w, wf = _wf(tree, wskit_home)
    wf.activate("git-only")
    ext = wf.to_extension()
    mutate(ext)
    state = snapshot(w).state(extensions={EXTENSION_KEY: ext})
    back = SkillWorkflows.restore(SkillRuntime(snapshot(w), w.profile), state.extensions)
    assert not back.check("read_file")
    assert not back.check("run_command", "git status")


def test_unreadable_record_denies_everything(tree, wskit_home):
    w, wf = _wf(tree, wskit_home)
    back = SkillWorkflows.restore(wf.runtime, {EXTENSION_KEY: {"version": 1, "records": ["junk"],
                                                               "ceiling": {"version": 1, "active": {}}}})
    assert CORRUPT in back.active and not back.check("read_file")
    assert not SkillWorkflows.restore(wf.runtime, {EXTENSION_KEY: "garbage"}).check("read_file")
    assert SkillWorkflows.restore(wf.runtime, {}).check("read_file")  # nothing recorded: nothing restricted


def test_switch_off_cannot_reactivate_but_end_works(tree, wskit_home):
    w, wf = _wf(tree, wskit_home)
    wf.activate("git-only")
    text = _state(wf, w)
    back = _resume(tree, wskit_home, text, settings={"skills_enabled": False})
    assert not back.check("read_file")  # restored, but never re-activated: deny
    with pytest.raises(SkillError) as err:
        back.activate("git-only")
    assert err.value.code == "SKILLS_DISABLED"
    assert back.end_skill("git-only") == {"slug": "git-only", "ended": True}
    assert back.check("read_file")
