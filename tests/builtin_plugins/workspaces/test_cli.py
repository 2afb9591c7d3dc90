"""wsctl workspace|worktree|ref: JSON contract, dispositions, error kinds, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "proj"
    r.mkdir()
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run([*GIT, "-C", str(r), "init", "-q"], check=True, env=env)
    (r / "README.md").write_text("x\n")
    subprocess.run([*GIT, "-C", str(r), "add", "."], check=True, env=env)
    subprocess.run([*GIT, "-C", str(r), "commit", "-qm", "init"], check=True, env=env)
    return r


def run(wsctl, *args, code=0):
    res = wsctl(*args, json=True)
    assert res.exit_code == code, (res.stdout, res.stderr)
    return json.loads(res.stdout), res


def test_workspace_commands_json(wsctl, repo: Path):
    data, _ = run(wsctl, "workspace", "list", "--agent", "a1")
    assert data["agent_id"] == "a1" and data["active_workspace_id"] == "agent_home:a1"
    assert [w["workspace_id"] for w in data["workspaces"]] == ["agent_home:a1"]
    att, _ = run(wsctl, "workspace", "attach", str(repo), "--agent", "a1")
    assert set(att) == {"workspace", "already_attached", "active_unchanged", "discovered_projection_kind",
                        "discovered_execution_root", "pruned"}
    ws = att["workspace"]["workspace_id"]
    assert ws.startswith("ws_") and len(ws) == 18
    sw, _ = run(wsctl, "workspace", "switch", "--id", ws, "--agent", "a1")
    assert sw["disposition"] == "switched" and sw["active"]["execution_root_id"] == f"canonical_root:{ws}"
    sw, _ = run(wsctl, "workspace", "switch", "--path", str(repo), "--agent", "a1")
    assert sw["disposition"] == "no_op"
    st, _ = run(wsctl, "workspace", "state", "--agent", "a1")
    assert set(st) == {"agent_id", "attached", "workspaces", "active", "execution_roots", "occupancies", "snapshot"}
    assert st["snapshot"]["workspace_id"] == ws
    det, _ = run(wsctl, "workspace", "detach", ws, "--agent", "a1")
    assert det == {"detached": ws, "switched_to_agent_home": True, "retained_execution_roots": []}
    # other agents are independent
    data, _ = run(wsctl, "workspace", "list")
    assert data["agent_id"] == "default" and len(data["workspaces"]) == 1


def test_errors_are_json_with_kind_and_exit_1(wsctl, repo: Path):
    err, res = run(wsctl, "workspace", "detach", "agent_home", code=1)
    assert err == {"error": {"kind": "protected_workspace", "message": "AgentHome cannot be detached",
                             "details": {}}}
    assert res.stderr.startswith("error: AgentHome cannot be detached")
    err, _ = run(wsctl, "workspace", "switch", code=1)
    assert err["error"]["kind"] == "invalid_tool_input" and err["error"]["details"] == {"selector_count": 0}
    err, _ = run(wsctl, "workspace", "switch", "--path", str(repo), code=1)
    assert err["error"]["kind"] == "not_attached"
    res = wsctl("worktree", "remove", "x", "--branch-policy", "nope")
    assert res.exit_code == 2


def test_worktree_create_remove_and_refs(wsctl, repo: Path):
    ws = run(wsctl, "workspace", "attach", str(repo))[0]["workspace"]["workspace_id"]
    c, _ = run(wsctl, "worktree", "create", ws, "feat/cli", "main", "--label", "cli")
    assert c["disposition"] == "created" and c["activated"] is True
    assert set(c) >= {"disposition", "workspace_id", "branch", "requested_base_ref", "resolved_base_commit",
                      "base_ref_applied", "branch_tip", "execution_root_id", "worktree_path", "conflict_reason",
                      "activated", "activation_error"}
    again, _ = run(wsctl, "worktree", "create", ws, "feat/cli", "main", "--on-existing", "error", code=1)
    assert again["disposition"] == "already_exists"
    conflict, _ = run(wsctl, "worktree", "create", ws, "main", "main", code=1)
    assert (conflict["disposition"], conflict["conflict_reason"]) == (
        "conflict", "branch_checked_out_in_canonical_checkout")
    rid, path = c["execution_root_id"], Path(c["worktree_path"])
    refs, _ = run(wsctl, "ref", "resolve", str(path / "a.txt"), f"workspace://{ws}/b.txt")
    assert [r["execution_root_id"] for r in refs["results"]] == [rid, f"canonical_root:{ws}"]
    assert set(refs) == {"results", "resolved", "gone", "unknown", "invalid"}
    err, res = run(wsctl, "worktree", "remove", rid, code=1)
    assert err["error"]["kind"] == "return_to_required"
    assert "pass --return-to" in res.stderr  # the flag, not the library's parameter name
    (path / "dirty.txt").write_text("x")
    dirty, res = run(wsctl, "worktree", "remove", rid, "--return-to", "canonical", code=1)
    assert dirty["disposition"] == "retained_dirty" and dirty["changed_files"] == ["?? dirty.txt"]
    assert "retained_dirty" in res.stderr
    (path / "dirty.txt").unlink()
    rem, _ = run(wsctl, "worktree", "remove", rid, "--return-to", "canonical", "--branch-policy",
                 "delete_if_merged", "--merged-into", "main")
    assert rem["disposition"] == "removed" and rem["branch_deleted"] is True
    assert rem["switched_to"] == f"canonical_root:{ws}"
    gone, _ = run(wsctl, "ref", "resolve", str(path / "a.txt"))
    assert gone["gone"] == [str(path / "a.txt")]
    assert run(wsctl, "worktree", "remove", rid)[0]["disposition"] == "already_removed"


def test_human_output(wsctl, repo: Path):
    res = wsctl("workspace", "attach", str(repo))
    assert res.exit_code == 0 and res.stdout.startswith("attached ws_")
    res = wsctl("workspace", "state")
    assert res.exit_code == 0 and "canonical_root:agent_home:default" in res.stdout


def test_workspace_list_creates_no_state(wsctl, wskit_home: Path, repo: Path):
    """A read command writes nothing: before any workspace was recorded, ``list`` shows
    the agent home the first write will make, and the home stays as it was."""
    before = sorted(p.relative_to(wskit_home) for p in wskit_home.rglob("*"))
    data, _ = run(wsctl, "workspace", "list", "--agent", "a1")
    assert data["active_workspace_id"] == "agent_home:a1"
    (row,) = data["workspaces"]
    assert row["workspace_kind"] == "agent_home" and row["active"] and row["created_at"] is None
    assert "(not created yet)" in wsctl("workspace", "list").stdout
    assert sorted(p.relative_to(wskit_home) for p in wskit_home.rglob("*")) == before
    assert not (wskit_home / ".wskit" / "workspaces.db").exists()
    run(wsctl, "workspace", "attach", str(repo), "--agent", "a1")  # a write makes the store
    data, _ = run(wsctl, "workspace", "list", "--agent", "a1")
    assert data["workspaces"][0]["created_at"] is not None and len(data["workspaces"]) == 2


def test_workspace_attach_of_a_root_or_home_warns(wsctl, wskit_home: Path, repo: Path):
    """``workspace attach /`` warns as ``trust grant /`` does; a project does not."""
    res = wsctl("workspace", "attach", "/")
    assert res.exit_code == 0
    assert "warning: / is the file-system root" in res.stderr and "wsctl --home" in res.stderr
    assert "is your home folder" in wsctl("workspace", "attach", str(wskit_home)).stderr
    assert wsctl("workspace", "attach", str(repo)).stderr == ""
