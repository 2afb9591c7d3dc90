"""Layering (deny > ask > allow across layers, trust gating, managed settings), modes,
and how a PreToolUse hook's permissionDecision combines with the rules."""

from __future__ import annotations

import json

import pytest

from wskit.binding import Binding
from wskit.host import HostProfile
from wskit.plugin.facade import WskitHooks
from wskit.session import snapshot
from wskit.trust import TrustStore
from wskit.workspace import load_workspace


def settings(perms):
    return json.dumps({"permissions": perms})


@pytest.fixture
def tree(make_tree, wskit_home):
    (wskit_home / ".claude").mkdir()
    (wskit_home / ".claude" / "settings.json").write_text(settings({"allow": ["Bash(git push:*)", "Edit"]}))
    return make_tree({
        ".git/HEAD": "ref: refs/heads/main\n",
        ".claude/settings.json": settings({"ask": ["Bash(git push:*)"], "allow": ["Bash(npm test:*)"],
                                           "additionalDirectories": ["../shared"]}),
        ".claude/settings.local.json": settings({"deny": ["Edit(./locked/**)"], "defaultMode": "acceptEdits"}),
    })


def session_for(pm, project, home, **settings_):
    profile = HostProfile(name="wskit", home=home, settings=settings_)
    return snapshot(load_workspace(WskitHooks(pm), Binding.discover(project), profile))


def test_deny_beats_ask_beats_allow_whatever_the_layer(tree, wskit_home, wskit_pm) -> None:
    TrustStore.for_home(wskit_home).grant(tree)
    s = session_for(wskit_pm, tree, wskit_home)
    push = s.check_permission("Bash", {"command": "git push origin main"})
    assert (push.decision, push.rule.text, push.layer) == ("ask", "Bash(git push:*)", "project")  # user allow loses
    locked = s.check_permission("Edit", {"file_path": str(tree / "locked" / "a.txt")})
    assert (locked.decision, locked.layer) == ("deny", "local")
    assert locked.rule.path == str(tree / ".claude" / "settings.local.json")
    assert str(tree / ".claude" / "settings.local.json") in locked.reason
    assert s.check_permission("Edit", {"file_path": str(tree / "a.txt")}).rule.text == "Edit"


def test_an_untrusted_project_grants_and_restricts_nothing(tree, wskit_home, wskit_pm) -> None:
    s = session_for(wskit_pm, tree, wskit_home)
    push = s.check_permission("Bash", {"command": "git push"})
    assert (push.decision, push.layer) == ("allow", "user")           # the project's ask is not applied
    policy = s.component("permissions").policy
    assert policy.rules and {r.scope for r in policy.rules} == {"user"} and not policy.ignored
    assert policy.default_mode == "default" and policy.additional_directories == ()
    unread = {d.path for d in policy.diagnostics if d.code == "settings-untrusted"}  # not read, and said so
    assert unread == {str(tree / ".claude" / "settings.json"), str(tree / ".claude" / "settings.local.json")}


def test_modes_and_working_directories(tree, wskit_home, wskit_pm) -> None:
    TrustStore.for_home(wskit_home).grant(tree)
    s = session_for(wskit_pm, tree, wskit_home)
    policy = s.component("permissions").policy
    assert (policy.default_mode, policy.mode_layer) == ("acceptEdits", "local")
    assert str(tree.parent / "shared") in policy.additional_directories
    policy = policy.copy_with(rules=())  # the mode alone
    inside = policy.check("Write", {"file_path": str(tree.parent / "shared" / "x")}, cwd=str(tree))
    assert inside.decision == "allow" and inside.by == "mode"
    outside = policy.check("Write", {"file_path": "/etc/x"}, cwd=str(tree))
    assert outside.decision == "ask" and "outside the working directories" in outside.reason
    for mode, read, bash in (("default", "allow", "ask"), ("plan", "allow", "deny"),
                             ("dontAsk", "deny", "deny"), ("bypassPermissions", "allow", "allow")):
        p = policy.__class__(project=str(tree), home=str(wskit_home), default_mode=mode)
        assert p.check("Read", {"file_path": str(tree / "a")}).decision == read, mode
        assert p.check("Bash", {"command": "make"}).decision == bash, mode


@pytest.mark.parametrize("hook,rule_list,expected,by", [
    ("allow", None, "allow", "hook"),       # allow skips the prompt the mode would show
    ("allow", "ask", "ask", "rule"),        # but never an ask rule
    ("allow", "deny", "deny", "rule"),      # nor a deny rule
    ("ask", "allow", "ask", "hook"),
    ("deny", "allow", "deny", "hook"),
    ("defer", None, "ask", "mode"),         # defer expresses no opinion
    (None, "allow", "allow", "rule"),
])
def test_hook_decisions_combine_as_claude_code_documents(tmp_path, hook, rule_list, expected, by) -> None:
    from wskit.builtin_plugins.permissions import PermissionPolicy

    policy = PermissionPolicy(project=str(tmp_path), home=str(tmp_path))
    if rule_list:
        policy = policy.with_rules(**{rule_list: ["Bash(make:*)"]})
    d = policy.check("Bash", {"command": "make all"}, hook=hook)
    assert (d.decision, d.by) == (expected, by)


def test_a_hook_outcome_object_is_read(tmp_path) -> None:
    from wskit.builtin_plugins.hooks.outcome import HookOutcome
    from wskit.builtin_plugins.permissions import PermissionPolicy

    policy = PermissionPolicy(project=str(tmp_path), home=str(tmp_path))
    assert policy.check("Bash", {"command": "x"}, hook=HookOutcome(event="PreToolUse", blocked=True)).decision == "deny"
    assert policy.check("Bash", {"command": "x"},
                        hook=HookOutcome(event="PreToolUse", permission_decision="allow")).decision == "allow"


def test_managed_settings_win_and_can_allow_only_managed_rules(tree, wskit_home, wskit_pm, tmp_path) -> None:
    TrustStore.for_home(wskit_home).grant(tree)
    managed = tmp_path / "etc" / "managed-settings.json"
    managed.parent.mkdir()
    managed.write_text(json.dumps({"permissions": {"deny": ["Bash(npm test:*)"], "defaultMode": "plan",
                                                   "allowManagedPermissionRulesOnly": True}}))
    s = session_for(wskit_pm, tree, wskit_home, managed_settings=str(managed))
    d = s.check_permission("Bash", {"command": "npm test"})
    assert (d.decision, d.layer, d.rule.path) == ("deny", "managed", str(managed))
    policy = s.component("permissions").policy
    assert {r.scope for r in policy.rules} == {"managed"}
    assert all(why == "managed settings allow managed permission rules only" for _, why in policy.ignored)
    assert (policy.default_mode, policy.mode_layer) == ("plan", "managed")


def test_unreadable_managed_settings_deny_every_call(tree, wskit_home, wskit_pm, tmp_path) -> None:
    managed = tmp_path / "managed.json"
    managed.write_text("{not json")
    s = session_for(wskit_pm, tree, wskit_home, managed_settings=str(managed))
    d = s.check_permission("Read", {"file_path": str(tree / "a")})
    assert d.decision == "deny" and d.by == "managed" and str(managed) in d.reason


def test_session_rules_and_a_blocked_plugin(tmp_path, wskit_home) -> None:
    from wskit.plugin.manager import make_plugin_manager
    from wskit.session.components import UnknownComponentError

    project = tmp_path / "p"
    project.mkdir()
    pm = make_plugin_manager(load_entrypoints=False, env={})
    s = session_for(pm, project, wskit_home)
    assert s.check_permission("Bash", {"command": "make"}).decision == "ask"
    s.component("permissions").allow_for_session("Bash(make:*)")
    d = s.check_permission("Bash", {"command": "make"})
    assert (d.decision, d.layer) == ("allow", "session")
    blocked = make_plugin_manager(load_entrypoints=False, env={"WSKIT_DISABLE_PLUGINS": "permissions"})
    with pytest.raises(UnknownComponentError, match="permissions"):
        session_for(blocked, project, wskit_home).check_permission("Bash", {"command": "make"})


def test_each_part_of_a_compound_command_needs_an_allow_rule_of_its_own(tmp_path) -> None:
    from wskit.builtin_plugins.permissions import PermissionPolicy

    policy = PermissionPolicy(project=str(tmp_path), home=str(tmp_path)).with_rules(
        allow=["Bash(npm test:*)", "Bash(git status)"], deny=["Bash(rm *)"])
    both = policy.check("Bash", {"command": "npm test && git status"})
    assert (both.decision, both.rule.text) == ("allow", "Bash(git status)")
    assert policy.check("Bash", {"command": "npm test && make"}).decision == "ask"       # make has no rule
    assert policy.check("Bash", {"command": "npm test && rm -rf x"}).decision == "deny"
    assert policy.check("Bash", {"command": "npm test && git status $(id)"}).decision == "ask"


@pytest.mark.parametrize("shape", [{"command": "git push origin main"}, "git push origin main"],
                         ids=["mapping", "command-string"])
def test_check_permission_takes_the_documented_input_shapes(tree, wskit_home, wskit_pm, shape) -> None:
    """A dict of the tool's arguments, or for Bash the command itself (it used to raise
    ``ValueError: dictionary update sequence element #0``)."""
    TrustStore.for_home(wskit_home).grant(tree)
    s = session_for(wskit_pm, tree, wskit_home)
    d = s.check_permission("Bash", shape)
    assert (d.decision, d.rule.text) == ("ask", "Bash(git push:*)")
    assert s.check_permission("Bash", "npm test").decision == "allow"
    assert s.check_permission("Read", None).decision in ("allow", "ask", "deny")


@pytest.mark.parametrize("bad", ["src/a.py", ["ls"], 3, b"ls"], ids=["string-for-read", "list", "int", "bytes"])
def test_check_permission_refuses_other_shapes_naming_the_accepted_ones(tree, wskit_home, wskit_pm, bad) -> None:
    s = session_for(wskit_pm, tree, wskit_home)
    tool = "Read" if isinstance(bad, str) else "Bash"
    with pytest.raises(TypeError) as exc:
        s.check_permission(tool, bad)
    msg = str(exc.value)
    assert "mapping" in msg and "command string" in msg and tool in msg


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"])
def test_a_policy_without_rules_decides_as_one_whose_rules_never_match(tmp_path, mode) -> None:
    """Without a rule the policy skips the rule engine (``permissions.rules`` is not imported on
    an empty project's ``permissions check``): every answer is the one a policy with a rule
    that matches nothing gives (the rule engine's path), reason and layer included."""
    from wskit.builtin_plugins.permissions import PermissionPolicy

    bare = PermissionPolicy(project=str(tmp_path / "p"), home=str(tmp_path), default_mode=mode, mode_layer="user",
                            additional_directories=(str(tmp_path / "shared"),))
    engine = bare.with_rules(deny=["NoSuchTool"], ask=["mcp__none__tool"], allow=["Read(/nowhere/**)"])
    calls = [("Bash", {"command": "ls"}), ("Bash", {"command": "echo hi > out.txt"}), ("Bash", {"command": "a && b"}),
             ("Bash", {"command": "echo '>' x"}), ("Bash", {"command": "make 2>&1 >/dev/null"}),
             ("Bash", {"command": "cat <<EOF >f"}), ("Bash", {}), ("PowerShell", {"command": "dir > x"}),
             ("Read", {"file_path": "src/a.py"}), ("Read", {"file_path": "/etc/passwd"}),
             ("Read", {"file_path": str(tmp_path / "shared" / "x")}), ("Edit", {"file_path": "a.py"}),
             ("Write", {"file_path": "../out"}), ("Grep", {}), ("LS", {"path": "."}), ("WebFetch", {"url": "x"}),
             ("NotebookEdit", {"notebook_path": "n.ipynb"}), ("mcp__srv__tool", {})]
    for tool, tool_input in calls:
        for hook in (None, "allow", "ask", "deny", "defer"):
            for cwd in (None, str(tmp_path / "p" / "sub")):
                got = bare.check(tool, tool_input, cwd=cwd, hook=hook)
                want = engine.check(tool, tool_input, cwd=cwd, hook=hook)
                assert got.to_json() == want.to_json(), (tool, tool_input, hook, cwd)
    assert bare.check("Bash", "echo hi > out.txt").reason.startswith("output redirection to 'out.txt'")
