"""Hook definitions, matchers and hook trust (digest approval)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tests.builtin_plugins._bundle_helpers import codes, load, plugin
from wskit.builtin_plugins.hooks.definitions import matcher_matches
from wskit.builtin_plugins.hooks.trust import (
    HookTrustDigestMismatchError,
    HookTrustError,
    HookTrustStore,
    hook_config_digest,
    runnable_hooks,
)

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


def test_trust_states_and_modified_after_edit(wskit_pm, wskit_profile, make_tree):
    ws = _hook_ws(make_tree)
    store = HookTrustStore.for_home(wskit_profile.home)
    w = load(wskit_pm, ws, wskit_profile)
    hooks = w.registry("hook").active()
    st = store.status(ws, hooks)
    assert st.state == "untrusted" and st.digest.startswith("sha256:") and not st.runs
    with pytest.raises(HookTrustDigestMismatchError):
        store.trust(ws, hooks, "sha256:" + "0" * 64)
    store.trust(ws, hooks, st.digest)
    assert store.status(ws, hooks).state == "trusted"
    assert os.stat(store.path).st_mode & 0o777 == 0o600
    (ws / ".claude/settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "./evil.sh"}]}]}}))
    w2 = load(wskit_pm, ws, wskit_profile)
    st2 = store.status(ws, w2.registry("hook").active())
    assert st2.state == "modified" and not st2.runs and st2.trusted_digest == st.digest
    assert runnable_hooks(w2.registry("hook").active(), st2) == []  # edited after trust: not run
    assert len(runnable_hooks(hooks, store.status(ws, hooks))) == 1
    assert store.status(ws, hooks, enabled=False).state == "disabled"
    assert store.status(ws, []).state == "not_required"
    assert store.revoke(ws) and store.status(ws, hooks).state == "untrusted"
    with pytest.raises(HookTrustError, match="No configured external hooks"):
        store.trust(ws, [], "sha256:x")


def test_store_with_mode_0644_is_error(wskit_pm, wskit_profile, make_tree):
    ws = _hook_ws(make_tree)
    store = HookTrustStore.for_home(wskit_profile.home)
    hooks = load(wskit_pm, ws, wskit_profile).registry("hook").active()
    store.trust(ws, hooks, hook_config_digest(hooks, ws))  # the files its command names are read in ws
    os.chmod(store.path, 0o644)
    st = store.status(ws, hooks)
    assert st.state == "error" and "0600" in st.error
    with pytest.raises(HookTrustError):
        store.trust(ws, hooks, hook_config_digest(hooks, ws))


def test_store_that_is_a_link_or_corrupt_is_error(tmp_path, wskit_profile):
    store = HookTrustStore.for_home(wskit_profile.home)
    store.path.parent.mkdir(parents=True)
    real = tmp_path / "real.json"
    real.write_text(json.dumps({"version": 1, "projects": {}}))
    os.chmod(real, 0o600)
    store.path.symlink_to(real)
    assert store.status("/p", []).state == "error"
    store.path.unlink()
    store.path.write_text("{\"version\": 1, \"projects\": {}, \"extra\": 1}")
    os.chmod(store.path, 0o600)
    assert store.status("/p", []).state == "error"


def test_moving_a_plugin_keeps_the_digest(tmp_path, wskit_pm, wskit_profile, make_tree):
    hooks_json = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/s.sh"}]}]}}
    p1 = plugin(tmp_path / "one/p", "p", {"hooks/hooks.json": hooks_json})
    ws = make_tree({"a": "b"})
    d1 = hook_config_digest(load(wskit_pm, ws, wskit_profile, plugin_dirs=[str(p1)]).registry("hook").active())
    p2 = tmp_path / "two/p"
    shutil.copytree(p1, p2)
    d2 = hook_config_digest(load(wskit_pm, ws, wskit_profile, plugin_dirs=[str(p2)]).registry("hook").active())
    assert d1 == d2
    p3 = plugin(tmp_path / "three/q", "q", {"hooks/hooks.json": hooks_json})
    d3 = hook_config_digest(load(wskit_pm, ws, wskit_profile, plugin_dirs=[str(p3)]).registry("hook").active())
    assert d3 != d1  # renaming the plugin does not keep trust
