"""Agent home, attach, detach, switch, state and ExecutionSnapshot (A2, A4, A6)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.builtin_plugins.workspaces.wsgit import git, git_identity  # noqa: F401  (git_identity: autouse)
from wskit.binding import Binding
from wskit.builtin_plugins.workspaces import ExecutionSnapshot, WorkspaceError, ensure_agent_home, workspace_id_for


def test_agent_home_layout_and_agents_md_never_overwritten(tmp_path: Path):
    home = tmp_path / "ah"
    created = ensure_agent_home(home, "a1", host="blade")
    for rel in ("AGENTS.md", "memory", "notes", "work-items", "skills", "tmp", ".blade", ".blade/state"):
        assert rel in created
        assert (home / rel).exists()
    assert "a1" in (home / "AGENTS.md").read_text()
    (home / "AGENTS.md").write_text("mine\n")
    assert ensure_agent_home(home, "a1", host="blade") == []
    assert (home / "AGENTS.md").read_text() == "mine\n"


def test_agent_home_is_an_always_attached_protected_workspace(manager, wskit_home: Path):
    m = manager("a1")
    assert m.attached() == ["agent_home:a1"]
    act = m.active()
    assert (act.workspace_id, act.execution_root_id, act.access_mode) == (
        "agent_home:a1", "canonical_root:agent_home:a1", "shared_read")
    assert act.workspace_anchor == wskit_home / ".wskit" / "agent-homes" / "a1"
    ws = m.store.get_workspace("agent_home:a1")
    assert (ws.workspace_alias, ws.workspace_kind, ws.owner_agent_id, ws.repo_name) == (
        "agent_home", "agent_home", "a1", "AgentHome")
    for sel in ("agent_home", "agent_home:a1"):
        with pytest.raises(WorkspaceError) as e:
            m.detach(sel)
        assert (e.value.kind, str(e.value)) == ("protected_workspace", "AgentHome cannot be detached")


def test_attach_normalises_to_anchor_and_never_changes_active(manager, repo: Path, tmp_path: Path):
    m = manager()
    (repo / "sub").mkdir()
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "side", str(wt))
    before = m.active()
    r1 = m.attach(repo / "sub")
    assert r1["workspace"]["workspace_id"] == workspace_id_for(repo)
    assert (r1["already_attached"], r1["active_unchanged"]) == (False, True)
    r2 = m.attach(wt)
    assert r2["workspace"]["workspace_id"] == workspace_id_for(repo)
    assert r2["already_attached"] is True
    assert (r2["discovered_projection_kind"], r2["discovered_execution_root"]) == ("git_worktree_root", str(wt))
    assert m.active() == before
    assert m.attached() == ["agent_home:default", workspace_id_for(repo)]
    with pytest.raises(WorkspaceError) as e:
        m.attach(tmp_path / "nope")
    assert (e.value.kind, str(e.value)) == ("invalid_tool_input", "workspace path is not an existing directory")


def test_attach_prunes_stale_bindings(manager, tmp_path: Path):
    m = manager()
    gone = tmp_path / "gone"
    gone.mkdir()
    ws = m.attach(gone)["workspace"]["workspace_id"]
    gone.rmdir()
    other = tmp_path / "other"
    other.mkdir()
    r = m.attach(other)
    assert r["pruned"] == [{"workspace_id": ws, "reason": "stale_workspace_anchor"}]
    assert ws not in m.attached()
    assert m.store.get_workspace(ws) is not None  # the registry never forgets


def test_detach_active_switches_home_and_deletes_nothing(manager, repo: Path, tmp_path: Path):
    m = manager()
    ws = m.attach(repo)["workspace"]["workspace_id"]
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "side", str(wt))
    m.switch(workspace_id=ws)
    r = m.detach(ws)
    assert r["detached"] == ws and r["switched_to_agent_home"] is True
    assert [x["path"] for x in r["retained_execution_roots"]] == [str(wt)]
    assert m.active().workspace_id == "agent_home:default"
    assert wt.is_dir() and repo.is_dir()
    with pytest.raises(WorkspaceError) as e:
        m.detach(ws)
    assert (e.value.kind, str(e.value)) == ("not_attached", f"workspace {ws} is not attached to agent default")


def test_switch_selectors_no_op_and_cwd(manager, repo: Path, tmp_path: Path):
    m = manager()
    ws = m.attach(repo)["workspace"]["workspace_id"]
    for kw in ({}, {"workspace_id": ws, "path": str(repo)}, {"workspace_id": "  "}):
        with pytest.raises(WorkspaceError) as e:
            m.switch(**kw)
        assert e.value.kind == "invalid_tool_input"
        assert str(e.value) == "SwitchWorkspace requires exactly one selector"
        assert "selector_count" in e.value.details
    home_occ = m.active().occupancy_id
    r = m.switch(workspace_id=ws)
    assert r["disposition"] == "switched"
    assert r["active"]["access_mode"] == "shared_read" and r["active"]["projection_kind"] == "canonical_root"
    # the old occupancy was released only after the new state was stored
    old = [o for o in m.store.occupancies(active_only=False) if o.occupancy_id == home_occ][0]
    new = [o for o in m.store.occupancies() if o.occupancy_id == r["active"]["occupancy_id"]][0]
    with sqlite3.connect(m.store.path) as c:
        stored_at = c.execute("SELECT updated_at FROM active_entries WHERE agent_id='default'").fetchone()[0]
    assert new.acquired_at <= stored_at <= old.released_at
    assert m.switch(workspace_id=ws)["disposition"] == "no_op"
    (repo / "src").mkdir()
    r = m.switch(workspace_id=ws, cwd="src")
    assert r["disposition"] == "switched" and r["active"]["cwd"] == str(repo / "src")
    assert m.switch(path=str(repo / "src"))["disposition"] == "no_op"
    with pytest.raises(WorkspaceError) as e:
        m.switch(workspace_id=ws, cwd="../..")
    assert e.value.kind == "cwd_escapes_execution_root"
    other = tmp_path / "other"
    other.mkdir()
    with pytest.raises(WorkspaceError) as e:
        m.switch(path=str(other))
    assert e.value.kind == "not_attached" and "attach canonical root" in str(e.value)
    with pytest.raises(WorkspaceError) as e:
        m.switch(execution_root_id="canonical_root:ws_nope")
    assert e.value.kind == "execution_root_not_found"
    assert m.switch(workspace_id="agent_home")["active"]["workspace_id"] == "agent_home:default"


def test_switch_by_path_into_existing_worktree_is_exclusive(manager, repo: Path, tmp_path: Path):
    a, b = manager("a"), manager("b")
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "side", str(wt))
    for m in (a, b):
        m.attach(repo)
    r = a.switch(path=str(wt))
    act = r["active"]
    assert act["projection_kind"] == "git_worktree_root" and act["access_mode"] == "exclusive_write"
    assert act["execution_root_id"] == f"git_worktree_root:{workspace_id_for(repo)}:{wt}"
    assert act["workspace_anchor"] == str(repo)
    with pytest.raises(WorkspaceError) as e:
        b.switch(execution_root_id=act["execution_root_id"])
    assert e.value.kind == "exclusive_write_held"
    assert b.active().workspace_id == "agent_home:b"  # unchanged on failure


def test_switch_to_worktree_missing_from_git(manager, repo: Path, tmp_path: Path):
    m = manager()
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "side", str(wt))
    m.attach(repo)
    root = m.switch(path=str(wt))["active"]["execution_root_id"]
    m.switch(workspace_id="agent_home")
    git(repo, "worktree", "remove", str(wt))
    with pytest.raises(WorkspaceError) as e:
        m.switch(execution_root_id=root)
    assert (e.value.kind, str(e.value)) == ("worktree_missing", "worktree is missing from live git state")


def test_snapshot_round_trip_and_binding_for_resource_layer(manager, repo: Path, tmp_path: Path):
    m = manager()
    ws = m.attach(repo)["workspace"]["workspace_id"]
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "side", str(wt))
    (wt / "src").mkdir()
    m.switch(path=str(wt / "src"))
    snap = m.snapshot()
    assert snap.attached_workspaces[0] == (ws, repo)  # active first
    assert snap.attached_workspaces[1][0] == "agent_home:default"
    assert snap.worktree_root == wt and snap.projection_kind == "git_worktree_root"
    assert {r.execution_root_id for r in snap.execution_roots} >= {f"canonical_root:{ws}", snap.execution_root_id}
    again = ExecutionSnapshot.model_validate_json(snap.model_dump_json())
    assert again == snap
    assert again.to_binding() == Binding.discover(wt / "src")
    assert again.to_source("a.py") == repo / "src" / "a.py"
    assert again.to_source(str(tmp_path / "elsewhere")) == tmp_path / "elsewhere"
    assert again.root_for(wt / "src" / "a.py").filesystem_path == wt
    # a missing policy is derived from the profile, missing execution_roots default to []
    raw = snap.model_dump(mode="json")
    del raw["policy"], raw["execution_roots"]
    raw["profile"]["supports_managed_worktrees"] = False
    loaded = ExecutionSnapshot.model_validate(raw)
    assert loaded.policy.supports_managed_worktrees is False and loaded.policy.path_confinement == "not_enforced"
    assert loaded.execution_roots == []


def test_state_lists_roots_with_live_evidence(manager, repo: Path, tmp_path: Path):
    m = manager()
    m.attach(repo)
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "side", str(wt))
    m.switch(path=str(wt))
    (wt / "new.txt").write_text("x")
    st = m.state()
    assert st["attached"] == ["agent_home:default", workspace_id_for(repo)]
    assert [w["workspace_id"] for w in st["workspaces"]] == sorted(w["workspace_id"] for w in st["workspaces"])
    wtr = [r for r in st["execution_roots"] if r["root_kind"] == "git_worktree_root"][0]
    assert wtr["live"] is True
    assert wtr["evidence"]["status"] == "dirty" and wtr["evidence"]["changed_files"] == ["?? new.txt"]
    assert [o["execution_root_id"] for o in st["occupancies"]] == [wtr["execution_root_id"]]


def test_anchor_stored_under_a_legacy_id_is_refused(manager, tmp_path: Path):
    m = manager()
    p = tmp_path / "legacy"
    p.mkdir()
    with sqlite3.connect(m.store.path) as c:
        c.execute("INSERT INTO workspaces VALUES ('ws_legacy', NULL, 'project', NULL, ?, 'legacy', 't', 't')",
                  (str(p),))
    with pytest.raises(WorkspaceError) as e:
        m.attach(p)
    assert e.value.kind == "unsupported_legacy_workspace_id"
    assert str(e.value).startswith("unsupported legacy workspace ID")


def test_resource_layer_loads_the_source_project_for_a_worktree_session(manager, repo: Path, tmp_path: Path,
                                                                         wskit_pm, wskit_profile, wskit_home):
    from tests.builtin_plugins.workspaces.wsgit import commit
    from wskit.plugin.facade import WskitHooks
    from wskit.trust import TrustStore
    from wskit.workspace import load_workspace

    commit(repo, ".agents/skills/only-in-main/SKILL.md",
           "---\nname: only-in-main\ndescription: d\n---\nbody\n")
    m = manager()
    ws = m.attach(repo)["workspace"]["workspace_id"]
    c = m.create_worktree(ws, "feat/res", "main")
    # the skill is committed, so the worktree has it too; delete it there to see which tree is read
    (Path(c["worktree_path"]) / ".agents" / "skills" / "only-in-main" / "SKILL.md").unlink()
    TrustStore.for_home(wskit_home).grant(repo)
    res = load_workspace(WskitHooks(wskit_pm), m.snapshot().to_binding(), wskit_profile)
    assert res.source_root == repo.resolve()
    assert res.binding.execution_root == Path(c["worktree_path"]).resolve()
    skills = res.registry("skill")
    assert "only-in-main" in skills
    assert str(skills.get("only-in-main").provenance.source_root) == str(repo.resolve())


def test_folders_of_the_agent_home_belong_to_the_agent_home(manager):
    m = manager()
    notes = m.agent_home / "notes"
    assert m.attach(notes)["workspace"]["workspace_id"] == "agent_home:default"
    r = m.switch(path=str(notes))
    assert r["active"]["workspace_id"] == "agent_home:default" and r["active"]["cwd"] == str(notes)


def test_profile_without_managed_worktrees(manager, repo: Path, tmp_path: Path):
    from wskit.builtin_plugins.workspaces import ExecutionProfile

    m = manager(profile=ExecutionProfile(supports_managed_worktrees=False))
    ws = m.attach(repo)["workspace"]["workspace_id"]
    with pytest.raises(WorkspaceError) as e:
        m.create_worktree(ws, "x", "main")
    assert (e.value.kind, str(e.value)) == (
        "managed_worktrees_disabled", "managed worktrees are disabled by the execution profile")
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "side", str(wt))
    with pytest.raises(WorkspaceError) as e:
        m.switch(path=str(wt))
    assert e.value.kind == "managed_worktrees_disabled"
    assert "git_worktree_root is disabled by the current host_local execution profile" in str(e.value)
    assert m.snapshot().policy.supports_managed_worktrees is False
