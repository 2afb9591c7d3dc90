"""Hook definitions + per-entry approval (docs/hooks.md) + the session hook runner (docs/runtime.md), end to end:
real settings files, the real trust store, real subprocesses."""

import json

from wskit.approval.store import ApprovalStore
from wskit.builtin_plugins.hooks.trust import hook_approval_status
from wskit.cache import WorkspaceCache
from wskit.session import snapshot
from wskit.trust import TrustStore


def settings(command: str) -> str:
    return json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": command}]}]}})


def run(profile, pm, root):
    ws = WorkspaceCache(profile, pm).resolve(root)
    session = snapshot(ws)
    try:
        return session.hook_runner.run("PreToolUse", {"tool_name": "Bash", "tool_use_id": "t1",
                                                "tool_input": {"command": "ls"}})
    finally:
        session.close()


def test_project_hooks_run_only_after_digest_approval(make_tree, wskit_profile, wskit_pm, wskit_home, tmp_path):
    marker = tmp_path / "ran"
    root = make_tree({".claude/settings.json": settings(f"touch {marker}; echo no >&2; exit 2")})
    TrustStore.for_home(wskit_home).grant(root)

    out = run(wskit_profile, wskit_pm, root)
    assert not out.blocked and not marker.exists()
    assert any("skipped: awaiting approval (not approved)" in w for w in out.warnings)
    assert [s.state for s in out.skipped] == ["awaiting"] and len(out.undecided) == 1

    ws = WorkspaceCache(wskit_profile, wskit_pm).resolve(root)
    st = hook_approval_status(wskit_home, ws.source_root, ws.registry("hook").active())
    ApprovalStore.for_home(wskit_home).approve(ws.source_root, [r.entry for r in st.awaiting], st.digest)
    out = run(wskit_profile, wskit_pm, root)
    assert out.blocked and out.reason == "no" and marker.exists() and not out.skipped

    marker.unlink()
    (root / ".claude/settings.json").write_text(settings(f"touch {marker}; exit 2; # edited"))
    out = run(wskit_profile, wskit_pm, root)
    assert not out.blocked and not marker.exists()
    assert any("skipped: awaiting approval (not approved)" in w for w in out.warnings)  # another command


def test_user_hooks_need_no_digest_approval(make_tree, wskit_profile, wskit_pm, wskit_home):
    (wskit_home / ".claude").mkdir()
    (wskit_home / ".claude/settings.json").write_text(settings("echo from-user >&2; exit 2"))
    root = make_tree({"README.md": "x"})
    out = run(wskit_profile, wskit_pm, root)
    assert out.blocked and out.reason == "from-user"
