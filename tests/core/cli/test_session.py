"""``wsctl session verify`` (--json contract: docs/wsctl.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wskit.trust import TrustStore


@pytest.fixture
def project(tmp_path: Path, wskit_home) -> Path:
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    (p / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (p / ".claude" / "skills" / "fmt").mkdir(parents=True)
    (p / ".claude" / "skills" / "fmt" / "SKILL.md").write_text("---\nname: fmt\ndescription: Format\n---\nbody\n")
    TrustStore.for_home(wskit_home).grant(p)
    return p


def test_session_verify(wsctl, project, tmp_path):
    state = tmp_path / "state.json"
    assert wsctl("snapshot", str(project), "-o", str(state)).exit_code == 0
    res = wsctl("session", "verify", str(state), "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert set(data) == {"file", "session_id", "ok", "drift", "monitor", "hook_trust_digest"}
    assert data["ok"] and data["drift"] == []
    (project / ".claude" / "skills" / "fmt" / "SKILL.md").write_text("---\nname: fmt\ndescription: Changed\n---\nx\n")
    res = wsctl("session", "verify", str(state), str(project), "--json")
    data = json.loads(res.stdout)
    assert res.exit_code == 0 and not data["ok"]
    skill_md = project / ".claude" / "skills" / "fmt" / "SKILL.md"
    assert data["drift"] == [{"field": "resources", "id": "project:fmt", "kind": "skill", "path": str(skill_md),
                              "change": "changed"}]
    human = wsctl("session", "verify", str(state), str(project))
    assert "drift: resources .claude/skills/fmt/SKILL.md changed" in human.output  # the file, not an id
    strict = wsctl("session", "verify", str(state), "--strict")
    assert strict.exit_code == 1 and "drifted" in strict.stderr


@pytest.mark.parametrize("mutate,msg", [
    (lambda r: r.__setitem__("format", 7), "newer than this wskit"),
    # a wrong type is refused, not coerced to 1; so is a workflow record without its digest
    (lambda r: r.__setitem__("format", "1"), "state.json: session state field 'format': must be an integer, got \"1\""),
    (lambda r: r.__setitem__("format", True), "state.json: session state field 'format': must be an integer, got true"),
    (lambda r: r["extensions"].__setitem__("workflows", [{"skill": "x"}]), "workflows[0].sha256"),
    # no format below 1, and none missing
    (lambda r: r.__setitem__("format", 0), "state.json: session state field 'format': must be at least 1, got 0"),
    (lambda r: r.__setitem__("format", -1), "state.json: session state field 'format': must be at least 1, got -1"),
    (lambda r: r.pop("format"), "state.json: session state field 'format': Field required"),
    (lambda r: r.__setitem__("trust", "bogus"), "state.json: session state field 'trust'"),
    (lambda r: r.__setitem__("trust", None), "state.json: session state field 'trust'"),
])
def test_session_verify_fails_closed(wsctl, project, tmp_path, mutate, msg):
    state = tmp_path / "state.json"
    wsctl("snapshot", str(project), "-o", str(state))
    raw = json.loads(state.read_text())
    mutate(raw)
    state.write_text(json.dumps(raw))
    res = wsctl("session", "verify", str(state), "--json")
    assert res.exit_code == 1 and res.stdout == "" and msg in res.stderr


def test_session_verify_reports_a_trust_change_as_drift(wsctl, project, tmp_path, wskit_home):
    """A state recording "untrusted" does not verify clean on a trusted workspace. The
    recorded trust decided which project resources the
    session saw, so a different current trust is drift (reported, as resources are)."""
    state = tmp_path / "state.json"
    wsctl("snapshot", str(project), "-o", str(state))
    raw = json.loads(state.read_text())
    assert raw["trust"] == "trusted"
    raw["trust"] = "untrusted"
    state.write_text(json.dumps(raw))
    res = wsctl("session", "verify", str(state), "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert not data["ok"]
    assert data["drift"] == [{"field": "trust", "id": None, "change": "changed",
                              "recorded": "untrusted", "current": "trusted"}]
    human = wsctl("session", "verify", str(state))
    assert "drift: trust changed (recorded untrusted, now trusted)" in human.stdout
    assert wsctl("session", "verify", str(state), "--strict").exit_code == 1
    # revoking the project after the snapshot: trust drift plus the project resources gone
    state2 = tmp_path / "state2.json"
    wsctl("snapshot", str(project), "-o", str(state2))
    TrustStore.for_home(wskit_home).revoke(project)
    data = json.loads(wsctl("session", "verify", str(state2), "--json").stdout)
    assert {"field": "trust", "id": None, "change": "changed", "recorded": "trusted",
            "current": "untrusted"} in data["drift"]
    assert {"field": "resources", "id": "project:fmt", "kind": "skill", "change": "missing",
            "path": str(project / ".claude" / "skills" / "fmt" / "SKILL.md")} in data["drift"]


def test_session_verify_uses_the_recorded_host(wsctl, project, tmp_path):
    """A state recorded under ``--host claude`` is verified under claude (where
    AGENTS.md is not an instruction file), not under the default host where it is,
    which would report AGENTS.md as drift that never happened. An explicit --host
    that differs is honoured and the difference is reported first."""
    (project / "CLAUDE.md").write_text("c\n")
    (project / "AGENTS.md").write_text("a\n")
    state = tmp_path / "state.json"
    assert wsctl("--host", "claude", "snapshot", str(project), "-o", str(state)).exit_code == 0
    assert json.loads(state.read_text())["workspace"]["host"] == "claude"
    res = wsctl("session", "verify", str(state), "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["drift"] == []
    human = wsctl("session", "verify", str(state))
    assert "verified, no drift" in human.stdout
    other = wsctl("--host", "wskit", "session", "verify", str(state), "--json")
    drift = json.loads(other.stdout)["drift"]
    assert drift[0] == {"field": "host", "id": None, "change": "changed", "recorded": "claude", "current": "wskit"}
    assert any(d["field"] == "rules" and d.get("path") == "AGENTS.md" for d in drift)
    human = wsctl("--host", "wskit", "session", "verify", str(state))
    assert human.stdout.splitlines()[0] == "drift: host changed (recorded claude, now wskit)"
    # WSKIT_HOST is an explicit choice as well
    env = wsctl("session", "verify", str(state), "--json", env={"WSKIT_HOST": "wskit"})
    assert json.loads(env.stdout)["drift"][0]["field"] == "host"


def test_session_verify_names_a_bad_recorded_host(wsctl, project, tmp_path):
    state = tmp_path / "state.json"
    wsctl("snapshot", str(project), "-o", str(state))
    raw = json.loads(state.read_text())
    raw["workspace"]["host"] = "Bad Name"
    state.write_text(json.dumps(raw))
    res = wsctl("session", "verify", str(state))
    assert res.exit_code == 1
    assert "state.json: session state field 'workspace.host': invalid host name 'Bad Name'" in res.stderr
