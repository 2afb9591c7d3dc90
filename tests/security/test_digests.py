"""Digests cover what the model reads: a skill's whole SKILL.md, a style's whole file.

Discovery reads only a skill's frontmatter, so an edit further down the body
used to leave every recorded digest equal: resume and ``wsctl session verify``
said "no drift" while the model got other instructions. And the output-style
record ``select_style()`` wrote was refused by ``restore()``.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from wskit import hookimpl
from wskit.binding import Binding
from wskit.builtin_plugins.skills.runtime import SkillRuntime
from wskit.builtin_plugins.styles.catalog import EXTENSION_KEY, StyleCatalog, restore_style, select_style
from wskit.host import HostProfile
from wskit.plugin.facade import WskitHooks
from wskit.plugin.manager import make_plugin_manager
from wskit.resources.style import builtin_style
from wskit.session import SessionState, snapshot
from wskit.session.resume import ProvenanceMismatchError, restore
from wskit.trust import TrustStore
from wskit.workspace import load_workspace

#: a body far past the head discovery reads (256 bytes and a little more)
BODY = "Step one: run the formatter.\n" + "Keep going.\n" * 200 + "Finally: push nothing.\n"
SKILL = "---\nname: fmt\ndescription: Format the code\n---\n" + BODY


class HostStyles:
    __name__ = "host_styles"

    @hookimpl
    def wskit_builtin_styles(self):
        return [builtin_style("auto", ""), builtin_style("pragmatic", "Be pragmatic.")]


@pytest.fixture
def ws(tmp_path, wskit_home):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (proj / ".claude/skills/fmt").mkdir(parents=True)
    (proj / ".claude/skills/fmt/SKILL.md").write_text(SKILL)
    (proj / ".claude/output-styles").mkdir(parents=True)
    (proj / ".claude/output-styles/compact.md").write_text("---\ndescription: terse\n---\nShort answers.\n")
    TrustStore.for_home(wskit_home).grant(proj)
    profile = HostProfile(name="wskit", home=wskit_home)
    pm = make_plugin_manager(load_entrypoints=False, env={}, plugins=[HostStyles()])

    def load():
        return load_workspace(WskitHooks(pm), Binding.discover(proj), profile)

    return proj, load, profile


def _edit_body(proj):
    p = proj / ".claude/skills/fmt/SKILL.md"
    p.write_text(SKILL.replace("push nothing", "push --force to main"))  # far below the frontmatter
    return p


def test_the_recorded_skill_digest_is_the_whole_file(ws):
    proj, load, profile = ws
    raw = (proj / ".claude/skills/fmt/SKILL.md").read_bytes()
    skill = snapshot(load()).get("skill", "fmt")
    assert skill.provenance.sha256 != hashlib.sha256(raw).hexdigest()  # discovery hashed the head only
    assert skill.content_digest() == hashlib.sha256(raw).hexdigest()
    assert SkillRuntime(load(), profile).read("fmt").content_hash == skill.content_digest()
    state = snapshot(load()).state()
    ref = next(r for r in state.resources if r.id == "project:fmt")
    assert ref.sha256 == hashlib.sha256(raw).hexdigest()


def test_body_drift_is_reported_on_resume_naming_the_file(ws):
    proj, load, _ = ws
    state = snapshot(load()).state()
    assert restore(state, load()).ok
    path = _edit_body(proj)
    r = restore(state, load(), policy="refresh")
    assert {"field": "resources", "id": "project:fmt", "kind": "skill", "change": "changed",
            "path": str(path)} in r.drift


def test_workflow_records_notice_a_body_edit(ws):
    proj, load, profile = ws
    session = snapshot(load())
    content = SkillRuntime(session, profile).read("fmt")
    session.runtime.extensions["workflows"] = [{"skill": "project:fmt", "sha256": content.content_hash}]
    state = session.runtime.state()
    assert restore(state, load()).ok
    _edit_body(proj)
    with pytest.raises(ProvenanceMismatchError, match=r"skills/fmt/SKILL\.md \(changed\)"):  # names the file
        restore(state, load())


def test_wsctl_session_verify_reports_body_drift(ws, wsctl, wskit_home, tmp_path):
    proj, _, _ = ws
    out = tmp_path / "state.json"
    assert wsctl("snapshot", str(proj), "-o", str(out)).exit_code == 0
    recorded = {r["id"]: r["sha256"] for r in json.loads(out.read_text())["resources"]}
    skill_md = proj / ".claude/skills/fmt/SKILL.md"
    assert recorded["project:fmt"] == hashlib.sha256(skill_md.read_bytes()).hexdigest()
    assert "no drift" in wsctl("session", "verify", str(out)).stdout
    _edit_body(proj)
    res = wsctl("session", "verify", str(out))
    assert res.exit_code == 0
    assert "drift: resources .claude/skills/fmt/SKILL.md changed" in res.stdout  # the file, not an id
    assert wsctl("session", "verify", str(out), "--strict").exit_code == 1


def test_custom_style_selection_round_trips_through_restore(ws):
    proj, load, _ = ws
    session = snapshot(load())
    record = select_style(StyleCatalog.for_resources(load()), "project:compact")
    assert set(record) == {"id", "sha256"}
    style_file = proj / ".claude/output-styles/compact.md"
    assert record["sha256"] == hashlib.sha256(style_file.read_bytes()).hexdigest()
    session.runtime.extensions[EXTENSION_KEY] = record
    text = session.runtime.state().to_json()
    r = restore(text, load())  # the shape restore() verifies: no "unknown field 'builtin'"
    assert r.ok, r.drift
    back = SessionState.from_json(text).extensions[EXTENSION_KEY]
    assert restore_style(StyleCatalog.for_resources(load()), back).id == "project:compact"
    style_file.write_text("---\ndescription: terse\nkeep-coding-instructions: true\n---\nShort answers.\n")
    r = restore(text, load(), policy="refresh")
    assert {"field": "output_style", "id": "project:compact", "change": "changed",
            "path": str(style_file)} in r.drift
    with pytest.raises(ProvenanceMismatchError, match=r"output-styles/compact\.md \(changed\)"):
        restore(text, load())
    from wskit.builtin_plugins.styles.catalog import StyleProvenanceError

    with pytest.raises(StyleProvenanceError):  # the two checks agree
        restore_style(StyleCatalog.for_resources(load()), back)


def test_builtin_style_selection_round_trips_through_restore(ws):
    _, load, _ = ws
    session = snapshot(load())
    record = select_style(StyleCatalog.for_resources(load()), "pragmatic")
    assert record == {"id": "pragmatic", "sha256": hashlib.sha256(b"Be pragmatic.").hexdigest()}
    session.runtime.extensions[EXTENSION_KEY] = record
    text = session.runtime.state().to_json()
    r = restore(text, load())
    assert r.ok, r.drift  # a built-in is not in the style registry, yet it is not "missing"
    assert restore_style(StyleCatalog.for_resources(load()), record).id == "pragmatic"
    changed = {"id": "pragmatic", "sha256": "0" * 64}
    raw = json.loads(text)
    raw["extensions"][EXTENSION_KEY] = changed
    r = restore(json.dumps(raw), load(), policy="refresh")
    assert {"field": "output_style", "id": "pragmatic", "change": "changed"} in r.drift
