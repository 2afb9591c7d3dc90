import json
import shutil

import pytest

import wskit
from tests.conftest import git, skill_md
from wskit.binding import Binding
from wskit.cache import WorkspaceCache
from wskit.errors import SessionStateError
from wskit.session import STATE_FORMAT, SessionState, snapshot
from wskit.trust import TrustStore


@pytest.fixture
def project(make_tree, wskit_profile):
    root = make_tree({
        ".claude/skills/alpha/SKILL.md": skill_md("alpha", "first"),
        ".claude/skills/beta/SKILL.md": skill_md("beta"),
    })
    TrustStore.for_home(wskit_profile.home).grant(root)
    return root


def test_snapshot_is_unchanged_by_file_edits_refresh_and_trust_revocation(project, wskit_profile, wskit_pm):
    cache = WorkspaceCache(wskit_profile, wskit_pm)
    with cache.using(project) as ws:
        session = snapshot(ws)
    assert sorted(s.name for s in session.registry("skill")) == ["alpha", "beta"]
    (project / ".claude/skills/alpha/SKILL.md").write_text(skill_md("alpha", "edited"))
    shutil.rmtree(project / ".claude/skills/beta")
    TrustStore.for_home(wskit_profile.home).revoke(project)
    cache.reset()
    fresh = cache.resolve(project)
    assert len(fresh.registry("skill")) == 0           # the workspace changed...
    assert session.get("skill", "alpha").description == "first"   # ...the snapshot did not
    assert session.registry("skill").find("beta") is not None
    assert session.trust.state == "trusted"


def test_snapshot_shares_resources_not_copies(project, wskit_profile, wskit_pm):
    ws = WorkspaceCache(wskit_profile, wskit_pm).resolve(project)
    s = snapshot(ws)
    assert s.registry("skill") is ws.registry("skill")
    assert s.registries is not ws.registries
    with pytest.raises(TypeError):
        s.registries["skill"] = None  # type: ignore[index]
    with pytest.raises(Exception):
        s.host = "other"  # type: ignore[misc]


def test_child_session(project, wskit_profile, wskit_pm):
    s = snapshot(WorkspaceCache(wskit_profile, wskit_pm).resolve(project))
    kid = s.child()
    assert kid.parent_id == s.session_id and kid.session_id != s.session_id
    assert kid.get("skill", "alpha") is s.get("skill", "alpha")


def test_session_created_hook_fires(project, wskit_profile, wskit_pm):
    seen = []

    class Listener:
        @wskit.hookimpl
        def wskit_session_created(self, session):
            seen.append(session.session_id)

    wskit_pm.register(Listener(), name="listener")
    s = snapshot(WorkspaceCache(wskit_profile, wskit_pm).resolve(project))
    kid = s.child()
    assert seen == [s.session_id, kid.session_id]


def test_state_round_trip_has_refs_and_digests_not_bodies(project, wskit_profile, wskit_pm):
    s = snapshot(WorkspaceCache(wskit_profile, wskit_pm).resolve(project))
    state = s.state(extensions={"example": {"k": 1}})
    text = state.to_json()
    assert "Body of alpha" not in text
    again = SessionState.from_json(text)
    assert again == state
    data = json.loads(text)
    assert data["format"] == STATE_FORMAT
    ref = next(r for r in data["resources"] if r["id"] == "project:alpha")
    assert ref["path"] == ".claude/skills/alpha/SKILL.md" and len(ref["sha256"]) == 64


def test_state_drift(project, wskit_profile, wskit_pm):
    cache = WorkspaceCache(wskit_profile, wskit_pm)
    state = snapshot(cache.resolve(project)).state()
    (project / ".claude/skills/alpha/SKILL.md").write_text(skill_md("alpha", "changed"))
    shutil.rmtree(project / ".claude/skills/beta")
    (project / ".claude/skills/gamma").mkdir()
    (project / ".claude/skills/gamma/SKILL.md").write_text(skill_md("gamma"))
    cache.reset()
    drift = state.drift(snapshot(cache.resolve(project)))
    skills = project / ".claude/skills"
    assert drift == [  # each entry names the file
        {"kind": "skill", "id": "project:alpha", "change": "changed", "path": str(skills / "alpha/SKILL.md")},
        {"kind": "skill", "id": "project:beta", "change": "missing", "path": str(skills / "beta/SKILL.md")},
        {"kind": "skill", "id": "project:gamma", "change": "added", "path": str(skills / "gamma/SKILL.md")},
    ]


@pytest.mark.parametrize(
    "text,match",
    [
        ("not json", "not JSON"),
        ("[]", "JSON object"),
        ('{"format": 99}', "newer"),
        ('{"format": 1, "session_id": "x"}', "field"),
    ],
)
def test_bad_state_fails_closed_naming_the_problem(text, match):
    with pytest.raises(SessionStateError, match=match):
        SessionState.from_json(text)


def test_state_without_resources_and_errors_naming_the_file(project, wskit_profile, wskit_pm):
    """A state with no 'resources' key is an error naming the key, not verified as
    'everything added'; a file that is not JSON is named by its path, not '<json>'."""
    good = json.loads(snapshot(WorkspaceCache(wskit_profile, wskit_pm).resolve(project)).state().to_json())
    assert SessionState.from_json(json.dumps(good)).resources
    del good["resources"]
    with pytest.raises(SessionStateError, match="'resources'"):
        SessionState.from_json(json.dumps(good))
    with pytest.raises(SessionStateError, match="/some/state.json"):
        SessionState.from_json("not json", path="/some/state.json")


@pytest.mark.parametrize("fmt", ["1", True, 1.0, None, [1], "99"])
def test_format_of_the_wrong_type_is_malformed_naming_file_and_field(project, wskit_profile, wskit_pm, fmt):
    """A "format" of the wrong type is malformed, naming file and field, not coerced:
    coerced to 1 by pydantic, "1" or true would pass while 99 is refused."""
    good = json.loads(snapshot(WorkspaceCache(wskit_profile, wskit_pm).resolve(project)).state().to_json())
    assert SessionState.from_json(json.dumps(good), path="/s/state.json").format == 1
    good["format"] = fmt
    with pytest.raises(SessionStateError) as err:
        SessionState.from_json(json.dumps(good), path="/s/state.json")
    assert str(err.value) == f"/s/state.json: session state field 'format': must be an integer, got {json.dumps(fmt)}"
    with pytest.raises(ValueError, match="format"):  # the model too (pydantic ValidationError): never coerced
        SessionState.model_validate({**good, "format": "1"})


def test_snapshot_with_worktree_binding(git_repo, tmp_path, wskit_profile, wskit_pm):
    repo = git_repo("main", {".claude/skills/alpha/SKILL.md": skill_md("alpha")})
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "f", str(wt))
    TrustStore.for_home(wskit_profile.home).grant(repo)
    cache = WorkspaceCache(wskit_profile, wskit_pm)
    ws = cache.resolve(wt)
    assert ws.source_root == repo.resolve() and ws.trust.trusted   # inherited from the main checkout
    s = snapshot(ws, Binding.discover(wt))
    assert s.binding.execution_root == wt.resolve()
    assert s.get("skill", "alpha").provenance.source_root == str(repo.resolve())
    with pytest.raises(ValueError):
        snapshot(ws, Binding.discover(tmp_path))


def test_a_missing_service_or_component_names_the_blocked_plugins(tmp_path, wskit_home):
    """With a built-in blocked, what it provided is missing and the error says which
    plugins are blocked (not a suggestion to install a package that does not exist)."""
    from wskit.binding import Binding
    from wskit.host import HostProfile
    from wskit.plugin.facade import WskitHooks
    from wskit.plugin.manager import make_plugin_manager
    from wskit.session import snapshot
    from wskit.session.components import UnknownComponentError
    from wskit.session.runtime import UnknownServiceError
    from wskit.workspace import load_workspace

    (tmp_path / "p" / ".git").mkdir(parents=True)
    pm = make_plugin_manager(load_entrypoints=False, env={"WSKIT_DISABLE_PLUGINS": "hooks,rules"})
    s = snapshot(load_workspace(WskitHooks(pm), Binding.discover(tmp_path / "p"), HostProfile(home=wskit_home)))
    with pytest.raises(UnknownServiceError, match=r"'hooks' \(blocked plugins: hooks, rules\)"):
        s.runtime.hooks  # noqa: B018
    with pytest.raises(UnknownComponentError, match=r"'rules' \(blocked plugins: hooks, rules\)"):
        s.component("rules")
    plain = snapshot(load_workspace(WskitHooks(make_plugin_manager(load_entrypoints=False)),
                                    Binding.discover(tmp_path / "p"), HostProfile(home=wskit_home)))
    with pytest.raises(UnknownServiceError, match=r"'mcp' \(install wskit-mcp\?\)"):
        plain.runtime.service("mcp")
