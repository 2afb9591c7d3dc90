"""Hook definitions, matchers and hook approval (one entry per hook)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tests.builtin_plugins._bundle_helpers import codes, load, plugin
from wskit.approval.store import ApprovalDigestMismatchError, ApprovalStore, ApprovalStoreError
from wskit.builtin_plugins.hooks.definitions import matcher_matches
from wskit.builtin_plugins.hooks.trust import EntryHookTrust, hook_approval_status, hook_entry

SETTINGS_HOOKS = {"hooks": {
    "PreToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 5}]}],
    "PostToolUse": [{"hooks": [{"type": "http", "url": "https://hooks.example/x", "headers": {"A": "b"}}]}],
    "Stop": [{"hooks": [{"type": "prompt", "prompt": "Done?"}, {"type": "agent", "prompt": "x"}]}],
    "NotAnEvent": [],
}}


def test_settings_and_plugin_hooks(tmp_path, wskit_pm, wskit_profile, make_tree):
    ws = make_tree({".claude/settings.json": json.dumps(SETTINGS_HOOKS),
                    ".wskit/settings.local.json": json.dumps({"hooks": {"SessionStart": [
                        {"hooks": [{"type": "command", "command": "echo local"}]}]}})})
    p = plugin(tmp_path / "p", "guard", {"hooks/hooks.json": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "\"${CLAUDE_PLUGIN_ROOT}/g.sh\""}]}]}})
    w = load(wskit_pm, ws, wskit_profile, plugin_dirs=[str(p)])
    hooks = w.registry("hook").active()
    by_event = {}
    for h in hooks:
        by_event.setdefault(h.event, []).append(h)
    pre = {h.plugin: h for h in by_event["PreToolUse"]}
    assert pre[None].matcher == "Edit|Write" and pre[None].timeout == 5.0 and pre[None].scope.value == "project"
    assert pre["guard"].id.startswith("plugin:guard:") and pre["guard"].plugin_root == str(p)
    assert pre["guard"].command == "\"${CLAUDE_PLUGIN_ROOT}/g.sh\""  # the runner sets the variable
    assert by_event["PostToolUse"][0].type == "http" and by_event["PostToolUse"][0].headers == {"A": "b"}
    assert [h.type for h in by_event["Stop"]] == ["prompt"]
    assert by_event["SessionStart"][0].scope.value == "local"
    assert "hook-type-unsupported" in codes(w.diagnostics) and "hook-unknown-event" in codes(w.diagnostics)


@pytest.mark.parametrize("matcher,value,expected", [
    ("", "Bash", True), ("*", "x", True), ("Edit|Write", "Write", True), ("Edit|Write", "NotebookEdit", False),
    ("Edit, Write", "Write", True), ("Edit.*", "NotebookEdit", True), ("^Edit$", "NotebookEdit", False),
    ("mcp__.*", "mcp__x__y", True), ("Bash", None, True), ("[bad", "[bad", True),
])
def test_matcher_semantics(matcher, value, expected):
    assert matcher_matches(matcher, value) is expected


def _hook_ws(make_tree, command="./check.sh"):
    return make_tree({".claude/settings.json": json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]}})})


def _status(home, ws, hooks, **kw):
    return hook_approval_status(home, ws, hooks, files_root=ws, **kw)


def test_approval_states_and_modified_after_edit(wskit_pm, wskit_profile, make_tree):
    ws = _hook_ws(make_tree)
    (ws / "check.sh").write_text("exit 0\n")
    home = wskit_profile.home
    store = ApprovalStore.for_home(home)
    hooks = load(wskit_pm, ws, wskit_profile).registry("hook").active()
    st = _status(home, ws, hooks)
    assert st.state == "awaiting" and st.digest.startswith("sha256:") and st.awaiting_approval == 1
    assert [r.state for r in st.rows] == ["awaiting"] and "check.sh" in [f.path for f in st.rows[0].entry.files]
    with pytest.raises(ApprovalDigestMismatchError):
        store.approve(ws, [r.entry for r in st.awaiting], "sha256:" + "0" * 64)
    store.approve(ws, [r.entry for r in st.awaiting], st.digest)
    assert _status(home, ws, hooks).state == "approved"
    assert os.stat(store.path).st_mode & 0o777 == 0o600
    (ws / "check.sh").write_text("exit 2\n")  # the script it runs, edited after approval
    st2 = _status(home, ws, hooks)
    assert st2.state == "modified" and st2.rows[0].reason.startswith("check.sh changed")
    assert EntryHookTrust(st2).state(hooks[0]) == "modified"
    (ws / "check.sh").write_text("exit 0\n")
    os.chmod(ws / "check.sh", 0o755)  # the executable bit is covered too
    assert _status(home, ws, hooks).rows[0].reason.startswith("check.sh executable bit changed")
    os.chmod(ws / "check.sh", 0o644)
    assert EntryHookTrust(_status(home, ws, hooks)).state(hooks[0]) == "approved"
    (ws / ".claude/settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "./evil.sh"}]}]}}))
    w2 = load(wskit_pm, ws, wskit_profile)
    st3 = _status(home, ws, w2.registry("hook").active())
    assert st3.state == "awaiting" and st3.rows[0].reason == "not approved"  # another command: another entry
    assert _status(home, ws, hooks, enabled=False).state == "disabled"
    assert _status(home, ws, []).state == "not_required"
    assert store.revoke(ws, capability="hooks") == 1 and _status(home, ws, hooks).state == "awaiting"
    with pytest.raises(ApprovalStoreError, match="nothing to approve"):
        store.approve(ws, [], "sha256:x")


def test_store_with_mode_0644_is_error(wskit_pm, wskit_profile, make_tree):
    ws = _hook_ws(make_tree)
    home = wskit_profile.home
    store = ApprovalStore.for_home(home)
    hooks = load(wskit_pm, ws, wskit_profile).registry("hook").active()
    st = _status(home, ws, hooks)
    store.approve(ws, [r.entry for r in st.awaiting], st.digest)
    os.chmod(store.path, 0o644)
    st = _status(home, ws, hooks)
    assert st.state == "error" and "0600" in st.error and EntryHookTrust(st).state(hooks[0]) == "error"
    with pytest.raises(ApprovalStoreError):
        store.approve(ws, [r.entry for r in st.rows], st.rows[0].entry.digest)


def test_store_that_is_a_link_or_corrupt_is_error(tmp_path, wskit_pm, wskit_profile, make_tree):
    ws = _hook_ws(make_tree)
    hooks = load(wskit_pm, ws, wskit_profile).registry("hook").active()
    store = ApprovalStore.for_home(wskit_profile.home)
    store.path.parent.mkdir(parents=True, exist_ok=True)
    real = tmp_path / "real.json"
    real.write_text(json.dumps({"version": 1, "projects": {}}))
    os.chmod(real, 0o600)
    store.path.symlink_to(real)
    assert _status(wskit_profile.home, ws, hooks).state == "error"
    store.path.unlink()
    store.path.write_text("{\"version\": 1, \"projects\": {}, \"extra\": 1}")
    os.chmod(store.path, 0o600)
    assert _status(wskit_profile.home, ws, hooks).state == "error"


def test_moving_a_plugin_keeps_the_approval(tmp_path, wskit_pm, wskit_profile, make_tree):
    hooks_json = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/s.sh"}]}]}}
    p1 = plugin(tmp_path / "one/p", "p", {"hooks/hooks.json": hooks_json, "s.sh": "exit 0\n"})
    ws = make_tree({"a": "b"})

    def entry(p):
        h = load(wskit_pm, ws, wskit_profile, plugin_dirs=[str(p)]).registry("hook").active()[0]
        return hook_entry(h, ws)

    e1 = entry(p1)
    assert ("plugin", "s.sh") in [(f.base, f.path) for f in e1.files]
    p2 = tmp_path / "two/p"
    shutil.copytree(p1, p2)
    assert entry(p2).digest == e1.digest and entry(p2).key == e1.key
    p3 = plugin(tmp_path / "three/q", "q", {"hooks/hooks.json": hooks_json, "s.sh": "exit 0\n"})
    assert entry(p3).key != e1.key  # another plugin: another entry
