"""Resume: the runtime's records round-trip through SessionState; restore
verifies them against the workspace, fails closed naming the field, refuses a
newer format, and reports (or, strict, refuses) drift."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wskit.binding import Binding
from wskit.errors import SessionStateError
from wskit.host import HostProfile
from wskit.plugin.facade import WskitHooks
from wskit.session import snapshot
from wskit.session.resume import ProvenanceMismatchError, restore
from wskit.trust import TrustStore
from wskit.workspace import load_workspace

SKILL = "---\nname: fmt\ndescription: Format the code\n---\nRun the formatter.\n"


@pytest.fixture
def ws(tmp_path: Path, wskit_pm, wskit_home):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (proj / ".claude" / "skills" / "fmt").mkdir(parents=True)
    (proj / ".claude" / "skills" / "fmt" / "SKILL.md").write_text(SKILL)
    TrustStore.for_home(wskit_home).grant(proj)
    profile = HostProfile(name="wskit", home=wskit_home)

    def load():
        return load_workspace(WskitHooks(wskit_pm), Binding.discover(proj), profile)

    return proj, load


def _state_with_workflow(load):
    session = snapshot(load())
    rt = session.runtime
    skill = session.get("skill", "fmt")
    rt.extensions["workflows"] = [{"skill": skill.id, "sha256": skill.provenance.sha256, "allowed_tools": ["Read"]}]
    for _ in range(10):
        rt.monitor.record_reply("same")
    return session, rt.state()


def test_round_trip_restores_monitor_and_records(ws):
    proj, load = ws
    session, state = _state_with_workflow(load)
    text = state.to_json()
    r = restore(text, load())
    assert r.ok and r.session.session_id == session.session_id
    rt = r.runtime()
    assert rt.monitor.notified and rt.monitor.record_reply("same") is None  # not repeated after resume
    assert rt.extensions["workflows"][0]["allowed_tools"] == ["Read"]
    assert rt.state().extensions["repetition_monitor"]["count"] == 11


def test_skill_drift_strict_fails_refresh_reports(ws):
    proj, load = ws
    _, state = _state_with_workflow(load)
    (proj / ".claude" / "skills" / "fmt" / "SKILL.md").write_text(SKILL.replace("formatter", "linter"))
    with pytest.raises(ProvenanceMismatchError, match=r"skills/fmt/SKILL\.md \(changed\)"):
        restore(state, load())
    r = restore(state, load(), policy="refresh")
    assert not r.ok
    assert {"field": "workflows", "id": "project:fmt", "change": "changed",
            "path": str(proj / ".claude" / "skills" / "fmt" / "SKILL.md")} in r.drift
    assert any(d["field"] == "resources" and d["change"] == "changed" for d in r.drift)


def _mutate(state_json: str, fn) -> str:
    raw = json.loads(state_json)
    fn(raw)
    return json.dumps(raw)


@pytest.mark.parametrize("fn,field", [
    (lambda r: r["extensions"].__setitem__("rules", {"static_digest": "nothex", "delivered": []}),
     "extensions.rules.*static_digest"),
    (lambda r: r["extensions"].__setitem__("rules", {"static_digest": "0" * 64,
                                                     "delivered": [{"id": "a", "path": "x.md", "source": "web",
                                                                    "sha256": "0" * 64}]}),
     "extensions.rules.*delivered"),
    (lambda r: r["extensions"]["workflows"][0].__setitem__("sha256", 5), "workflows[0].sha256"),
    (lambda r: r["extensions"]["repetition_monitor"].__setitem__("count", "ten"), "repetition_monitor.count"),
    (lambda r: r["extensions"].__setitem__("hook_trust", {"digest": "md5:x"}), "hook_trust.digest"),
    (lambda r: r["extensions"].__setitem__("output_style", {"id": "s"}), "output_style.sha256"),
    (lambda r: r["workspace"].__setitem__("source_root", "/elsewhere"), "workspace.source_root"),
    (lambda r: r.__delitem__("session_id"), "session_id"),
])
def test_malformed_fails_closed_naming_the_field(ws, fn, field):
    _, load = ws
    _, state = _state_with_workflow(load)
    with pytest.raises(SessionStateError, match=field.replace("[", r"\[").replace("]", r"\]")):
        restore(_mutate(state.to_json(), fn), load())


def test_newer_format_refused(ws):
    _, load = ws
    _, state = _state_with_workflow(load)
    with pytest.raises(SessionStateError, match="newer than this wskit"):
        restore(_mutate(state.to_json(), lambda r: r.__setitem__("format", 99)), load())


def test_hook_trust_and_static_digest_verifiers(ws):
    _, load = ws
    _, state = _state_with_workflow(load)
    raw = json.loads(state.to_json())
    raw["extensions"]["rules"] = {"static_digest": "a" * 64, "delivered": []}
    r = restore(json.dumps(raw), load(), policy="refresh", static_rules_digest=lambda s: "b" * 64,
                hook_trust_digest=lambda s: "sha256:" + "c" * 64)
    # the rule catalog reports its own drift ("rules"); the extra verifier adds "rules.static_digest"
    assert {d["field"] for d in r.drift} == {"rules", "rules.static_digest", "hook_trust.digest"}
    with pytest.raises(ProvenanceMismatchError, match="rules"):
        restore(json.dumps(raw), load(), static_rules_digest=lambda s: "b" * 64)


def test_runtime_refuses_to_write_a_malformed_record(ws):
    _, load = ws
    rt = snapshot(load()).runtime
    rt.extensions["output_style"] = {"id": "plain"}
    with pytest.raises(SessionStateError, match="output_style.sha256"):
        rt.state()


def test_hook_trust_digest_drift_by_default(tmp_path, wskit_pm, wskit_home):
    """A project hook set that changed after the state was written is reported."""
    from wskit.resources.hooks import HookDefinition
    from wskit.session.build import provenance, register_definitions

    proj = tmp_path / "hp"
    (proj / ".git").mkdir(parents=True)
    (proj / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    profile = HostProfile(name="wskit", home=wskit_home)
    plugin = register_definitions(wskit_pm, [HookDefinition(
        id="project:guard", name="guard", event="Stop", command="exit 0",
        provenance=provenance("project", proj, ".wskit/settings.json", "v1"))])

    def load():
        return load_workspace(WskitHooks(wskit_pm), Binding.discover(proj), profile)

    state = snapshot(load()).runtime.state()
    assert state.extensions["hook_trust"]["digest"].startswith("sha256:")
    assert restore(state, load()).ok
    plugin.resources = [HookDefinition(id="project:guard", name="guard", event="Stop", command="rm -rf ~",
                                       provenance=provenance("project", proj, ".wskit/settings.json", "v2"))]
    r = restore(state, load())
    assert {"field": "hook_trust.digest", "id": None, "change": "changed"} in r.drift


def test_a_rules_record_nobody_can_check_is_unverified_drift(ws, wskit_home):
    """With the ``rules`` built-in blocked, no component can check a recorded rules
    extension: restore reports it as ``unverified`` drift (and refuses it under ``strict``)
    instead of accepting it unchecked."""
    from wskit.plugin.manager import make_plugin_manager

    proj, load = ws
    state = snapshot(load()).state()
    assert state.extensions.get("rules") is not None
    pm = make_plugin_manager(load_entrypoints=False, env={"WSKIT_DISABLE_PLUGINS": "rules"})
    blocked = load_workspace(WskitHooks(pm), Binding.discover(proj), HostProfile(name="wskit", home=wskit_home))
    r = restore(state, blocked, policy="refresh")
    assert {"field": "rules", "id": None, "change": "unverified"} in r.drift
    with pytest.raises(ProvenanceMismatchError, match="rules"):
        restore(state, blocked)


def test_restore_reports_a_host_change(ws, wskit_pm, wskit_home):
    """A state recorded under another host is compared against a workspace loaded
    under this one: restore() says so (a ``host`` drift entry, first) rather than
    leaving the caller to read the differences as drift of the files."""
    proj, load = ws
    claude = HostProfile(name="claude", home=wskit_home)
    state = snapshot(load_workspace(WskitHooks(wskit_pm), Binding.discover(proj), claude)).state()
    assert state.workspace.host == "claude"
    r = restore(state.to_json(), load())
    assert r.drift[0] == {"field": "host", "id": None, "change": "changed", "recorded": "claude", "current": "wskit"}
    same = restore(state.to_json(), load_workspace(WskitHooks(wskit_pm), Binding.discover(proj), claude))
    assert same.ok
