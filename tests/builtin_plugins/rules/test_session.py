"""The invocation barrier, worktree mapping, provenance and resume (docs/rules.md §5, §6)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from wskit.binding import Binding
from wskit.builtin_plugins.rules import Proceed, RuleProvenanceMismatch, RulesRequired
from wskit.host import HostProfile
from wskit.plugin.facade import WskitHooks
from wskit.session import SessionState, snapshot
from wskit.trust import TrustStore
from wskit.workspace import load_workspace

FILES = {
    "CLAUDE.md": "root rules",
    "api/AGENTS.md": "api rules",
    "api/.claude/rules/py.md": "---\npaths: [\"**/*.py\"]\n---\npython rules\n",
    "web/AGENTS.md": "web rules",
}


def test_static_rules_count_as_delivered(rules_ws):
    s = snapshot(rules_ws(FILES))
    assert [r.path for r in s.rules.static().files] == ["CLAUDE.md"]
    assert isinstance(s.check_invocation("Edit", "write", ["CLAUDE.md"]), Proceed)


def test_writes_policy_holds_back_writes_only(rules_ws):
    s = snapshot(rules_ws(FILES))
    read = s.check_invocation("Read", "read", ["api/x.py"])
    assert isinstance(read, Proceed) and [r.path for r in read.rules.files] == ["api/AGENTS.md", "api/.claude/rules/py.md"]
    write = s.check_invocation("Edit", "write", ["api/x.py"])
    assert isinstance(write, RulesRequired) and not write.proceed
    assert write.rules.ids == read.rules.ids
    s.mark_delivered(write.rules)
    assert isinstance(s.check_invocation("Edit", "write", ["api/x.py"]), Proceed)
    assert not s.check_invocation("Edit", "write", ["api/x.py"]).rules.files


def test_batch_policy_holds_back_the_whole_batch(rules_ws):
    s = snapshot(rules_ws(FILES, settings={"invocation_policy": "batch"}))
    assert s.rules.policy == "batch"
    assert isinstance(s.check_invocation("Read", "read", ["web/index.html"]), RulesRequired)
    out = s.rules.check_batch([("Read", "read", ["README"]), ("Read", "read", ["web/a.js"]),
                               ("Grep", "read", ["api/x.py"])])
    assert all(isinstance(d, RulesRequired) for d in out)
    assert [r.path for r in out[0].rules.files] == ["api/AGENTS.md", "web/AGENTS.md", "api/.claude/rules/py.md"]
    s.mark_delivered([r.rule_ref() for r in out[0].rules.files])
    assert all(isinstance(d, Proceed) for d in s.rules.check_batch([("Read", "read", ["web/a.js"])]))


def test_writes_policy_batch_checks_each_call_alone(rules_ws):
    s = snapshot(rules_ws(FILES))
    out = s.rules.check_batch([("Read", "read", ["web/a.js"]), ("Write", "write", ["api/x.py"])])
    assert isinstance(out[0], Proceed) and isinstance(out[1], RulesRequired)


def test_shell_without_paths_needs_every_rule(rules_ws):
    s = snapshot(rules_ws(FILES))
    d = s.check_invocation("Bash", "shell", [])
    assert isinstance(d, RulesRequired) and len(d.rules.files) == 3


def test_paths_outside_the_project_are_dropped(rules_ws, tmp_path):
    s = snapshot(rules_ws(FILES))
    assert isinstance(s.check_invocation("Write", "write", [str(tmp_path / "elsewhere.py")]), Proceed)


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(cwd)})


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_worktree_paths_map_to_the_source_project(tmp_path, wskit_home, wskit_pm):
    from wskit.testing import write_tree

    main = tmp_path / "main"
    write_tree(main, FILES)
    _git("init", "-q", "-b", "main", cwd=main)
    _git("add", "-A", cwd=main)
    _git("commit", "-qm", "init", cwd=main)
    wt = tmp_path / "wt"
    _git("worktree", "add", "-q", str(wt), cwd=main)
    (wt / "api" / "AGENTS.md").write_text("changed only in the worktree")
    TrustStore.for_home(wskit_home).set(main, "trusted")
    binding = Binding.discover(wt)
    assert binding.worktree and binding.source_root == main.resolve()
    ws = load_workspace(WskitHooks(wskit_pm), binding, HostProfile(home=wskit_home))
    s = snapshot(ws, binding)
    d = s.check_invocation("Edit", "write", [str(wt / "api" / "x.py")])
    assert isinstance(d, RulesRequired)
    assert [r.path for r in d.rules.files] == ["api/AGENTS.md", "api/.claude/rules/py.md"]
    assert d.rules.files[0].body == "api rules"  # read from the source project
    assert d.rules.trigger_paths == ("api/x.py",)
    assert s.rules.map_paths(["api/y.py"]) == [str(main.resolve() / "api" / "y.py")]


def test_state_keeps_refs_never_bodies_and_round_trips(rules_ws):
    s = snapshot(rules_ws(FILES))
    s.mark_delivered(s.check_invocation("Edit", "write", ["api/x.py"]).rules)
    state = SessionState.from_json(s.state().to_json())
    ext = state.extensions["rules"]
    assert ext["static_digest"] == s.rules.static().provenance_sha256
    assert [r["path"] for r in ext["delivered"]] == ["api/AGENTS.md", "api/.claude/rules/py.md"]
    assert set(ext["delivered"][0]) == {"id", "path", "source", "sha256"}
    assert "api rules" not in state.to_json() and "python rules" not in state.to_json()


def test_edited_rule_snapshot_keeps_old_body_strict_raises_refresh_reports(rules_ws, tmp_path):
    ws = rules_ws(FILES)
    s = snapshot(ws)
    s.mark_delivered(s.check_invocation("Edit", "write", ["api/x.py"]).rules)
    ext = s.state().extensions["rules"]
    (tmp_path / "ws" / "api" / "AGENTS.md").write_text("api rules, edited")
    assert s.rules.catalog.by_path("api/AGENTS.md").body == "api rules"  # the snapshot is frozen
    assert s.check_invocation("Read", "read", ["api/x.py"]).rules.files == ()
    fresh = snapshot(rules_ws({}))
    with pytest.raises(RuleProvenanceMismatch) as exc:
        fresh.rules.resume(ext)
    assert exc.value.paths == ["api/AGENTS.md"] and exc.value.drift[0]["change"] == "changed"
    with pytest.raises(RuleProvenanceMismatch):
        fresh.rules.hydrate(ext["delivered"])
    fresh2 = snapshot(rules_ws({}))
    res = fresh2.rules.resume(ext, policy="refresh")
    assert [r.body for r in res.contextual.files] == ["api rules, edited", "python rules"]
    assert res.drift == [{"id": ext["delivered"][0]["id"], "path": "api/AGENTS.md", "source": "project",
                          "change": "changed"}]
    assert "project:" in next(iter(fresh2.rules.delivered_ids - set(fresh2.rules.static().ids)))
    assert isinstance(fresh2.check_invocation("Edit", "write", ["api/x.py"]), Proceed)


def test_resume_missing_rule_and_static_drift(rules_ws, tmp_path):
    s = snapshot(rules_ws(FILES))
    s.mark_delivered(s.check_invocation("Edit", "write", ["web/a.js"]).rules)
    ext = s.state().extensions["rules"]
    os.remove(tmp_path / "ws" / "web" / "AGENTS.md")
    (tmp_path / "ws" / "CLAUDE.md").write_text("root rules v2")
    with pytest.raises(RuleProvenanceMismatch) as exc:
        snapshot(rules_ws({})).rules.resume(ext)
    assert exc.value.paths == ["CLAUDE.md"]  # static provenance is checked first
    res = snapshot(rules_ws({})).rules.resume(ext, policy="refresh")
    assert sorted((d["path"], d["change"]) for d in res.drift) == [("CLAUDE.md", "changed"), ("web/AGENTS.md", "missing")]
    assert res.contextual.files == ()


def test_unchanged_resume_passes_strict(rules_ws):
    s = snapshot(rules_ws(FILES))
    s.mark_delivered(s.check_invocation("Edit", "write", ["api/x.py"]).rules)
    ext = json.loads(json.dumps(s.state().extensions["rules"]))
    res = snapshot(rules_ws({})).rules.resume(ext)
    assert res.drift == [] and [r.path for r in res.contextual.files] == ["api/AGENTS.md", "api/.claude/rules/py.md"]


def test_malformed_rule_state_is_refused(rules_ws):
    from wskit.errors import SessionStateError

    s = snapshot(rules_ws(FILES))
    with pytest.raises(SessionStateError):
        s.rules.resume({"static_digest": "nope"})
    with pytest.raises(SessionStateError):
        s.rules.resume({"static_digest": "0" * 64, "delivered": [{"id": "x"}]})


def test_child_session_has_its_own_delivery_state(rules_ws):
    s = snapshot(rules_ws(FILES))
    s.mark_delivered(s.check_invocation("Edit", "write", ["api/x.py"]).rules)
    kid = s.child()
    assert kid.catalogs["rules"] is s.catalogs["rules"]
    assert isinstance(kid.check_invocation("Edit", "write", ["api/x.py"]), RulesRequired)


def test_session_without_rules_plugin_has_no_rule_barrier(tmp_path, wskit_home):
    """Blocking the ``rules`` built-in removes its session component: asking for the barrier
    is an error naming it (never a barrier that silently lets every call through), and the
    state records no rules."""
    from wskit.plugin.manager import make_plugin_manager
    from wskit.session.components import UnknownComponentError
    from wskit.testing import write_tree

    write_tree(tmp_path / "p", {".git/HEAD": "ref: x\n", "AGENTS.md": "x"})
    TrustStore.for_home(wskit_home).set(tmp_path / "p", "trusted")
    pm = make_plugin_manager(load_entrypoints=False, env={"WSKIT_DISABLE_PLUGINS": "rules"})
    ws = load_workspace(WskitHooks(pm), Binding.discover(tmp_path / "p"), HostProfile(home=wskit_home))
    assert ws.catalog("rules") is None
    s = snapshot(ws)
    with pytest.raises(UnknownComponentError, match="'rules'"):
        s.check_invocation("W", "write", ["a.py"])
    with pytest.raises(UnknownComponentError):
        s.rules  # noqa: B018
    assert "rules" not in s.state().extensions


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_worktree_inside_the_project_is_not_walked(tmp_path, wskit_home, wskit_pm):
    from wskit.testing import write_tree

    main = tmp_path / "main"
    write_tree(main, {"AGENTS.md": "root"})
    _git("init", "-q", "-b", "main", cwd=main)
    _git("add", "-A", cwd=main)
    _git("commit", "-qm", "init", cwd=main)
    _git("worktree", "add", "-q", str(main / "trees" / "feature"), cwd=main)
    assert (main / "trees" / "feature" / "AGENTS.md").is_file()
    TrustStore.for_home(wskit_home).set(main, "trusted")
    ws = load_workspace(WskitHooks(wskit_pm), Binding.discover(main), HostProfile(home=wskit_home))
    assert [r.path for r in ws.catalog("rules").rules()] == ["AGENTS.md"]
