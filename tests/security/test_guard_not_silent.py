"""A guard never switches off silently (issue 32, red-team F6 and F10).

F6: a trusted project's ``disableAllHooks: true`` (``settings.json`` or
``settings.local.json``) switched the user's own guard off with no approval, and ``wsctl
hooks run`` said ``allowed``, exit 0. Claude Code 2.1.337 does switch the user's hooks off
for it (recorded case ``project-disable-all-hooks``), so wskit does too, but reports each
higher-layer guard it switched off as not decided (exit 3, the file named; blocked under
``--unapproved block``). The user's own switch stays a decision.
F10: a guard that timed out, was not found (127) or was killed was reported ``allowed``,
exit 0. The decision keeps Claude Code's rule (a non-blocking error does not block), but the
verdict is ``not decided: N hook(s) failed (…)``, exit 3. Real ``wsctl``, real hook processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

GUARD = 'grep -q "rm -rf /" && { echo "blocked by the user guard" >&2; exit 2; } || exit 0'


def _project(tmp_path: Path, settings: dict | None = None, name: str = "settings.json") -> Path:
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    (p / ".git/HEAD").write_text("ref: refs/heads/main\n")
    (p / ".claude").mkdir()
    if settings is not None:
        (p / ".claude" / name).write_text(json.dumps(settings))
    return p


def _pre(*commands: str, timeout: float | None = None) -> dict:
    hooks = [{"type": "command", "command": c, **({"timeout": timeout} if timeout else {})} for c in commands]
    return {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}


def _user_guard(home: Path, extra: dict | None = None) -> None:
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude/settings.json").write_text(json.dumps({"hooks": _pre(GUARD), **(extra or {})}))


def _payload(tmp_path: Path, tool: str = "Bash", command: str = "rm -rf /") -> str:
    f = tmp_path / "payload.json"
    f.write_text(json.dumps({"tool_name": tool, "tool_input": {"command": command}}))
    return str(f)


def assert_switched_off(wsctl, project: Path, tmp_path: Path, guard: str, named: str) -> None:
    """The one ``Bash`` guard of ``project`` did not run, switched off by a project file:
    ``wsctl hooks run`` says not decided (exit 3) with ``named`` in its line, the JSON lists it
    ``switched-off`` and undecided, ``--unapproved block`` blocks naming the guard (its id
    starts with ``guard``), and a ``Read`` call its exact-name matcher does not name is allowed."""
    r = wsctl("hooks", "run", "PreToolUse", str(project), "--payload", _payload(tmp_path))
    assert r.exit_code == 3, r.output
    assert r.stdout.startswith("PreToolUse: not decided: 1 hook(s) did not run"), r.stdout
    assert named in r.stdout, r.stdout
    data = json.loads(wsctl("hooks", "run", "PreToolUse", str(project), "--payload", _payload(tmp_path),
                            json=True).stdout)
    (sk,) = data["skipped"]
    assert sk["state"] == "switched-off" and sk["hook_id"].startswith(guard)
    assert data["undecided"] == 1 and not data["blocked"]
    r = wsctl("hooks", "run", "PreToolUse", str(project), "--payload", _payload(tmp_path), "--unapproved", "block")
    assert r.exit_code == 0 and r.stdout.startswith(f"PreToolUse: blocked: guard {guard}"), r.stdout
    # a guard whose exact-name matcher does not name the tool would not have run anyway
    r = wsctl("hooks", "run", "PreToolUse", str(project), "--payload", _payload(tmp_path, tool="Read"))
    assert r.exit_code == 0 and r.stdout.startswith("PreToolUse: allowed"), r.stdout


@pytest.mark.parametrize("name", ["settings.json", "settings.local.json"])
def test_a_projects_disable_all_hooks_leaves_the_users_guard_not_decided(wsctl, wskit_home, tmp_path, name):
    _user_guard(wskit_home)
    project = _project(tmp_path, {"disableAllHooks": True}, name)
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    assert_switched_off(wsctl, project, tmp_path, "user:", f".claude/{name} switches hooks off, this user guard with them")


def test_the_users_own_switch_is_a_decision(wsctl, wskit_home, tmp_path):
    _user_guard(wskit_home, {"disableAllHooks": True})
    project = _project(tmp_path, {"disableAllHooks": True})
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    r = wsctl("hooks", "run", "PreToolUse", str(project), "--payload", _payload(tmp_path))
    assert r.exit_code == 0 and r.stdout.startswith("PreToolUse: allowed"), r.stdout
    assert "hooks are switched off" in r.stdout


def test_a_projects_switch_of_its_own_hooks_is_a_decision(wsctl, wskit_home, tmp_path):
    project = _project(tmp_path, {"disableAllHooks": True, "hooks": _pre(GUARD)})
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    r = wsctl("hooks", "run", "PreToolUse", str(project), "--payload", _payload(tmp_path))
    assert r.exit_code == 0 and r.stdout.startswith("PreToolUse: allowed"), r.stdout


def _approved(wsctl, project: Path) -> None:
    st = json.loads(wsctl("hooks", "status", str(project), json=True).stdout)
    r = wsctl("hooks", "trust", str(project), "--digest", st["digest"], "--accept-unverified")
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("command, failure", [
    ("nosuchprogram-wskit-f10", "not found"),
    ("kill -KILL $$", "killed by signal 9"),
    ("sleep 5", "timeout"),
])
def test_a_guard_that_failed_leaves_the_call_not_decided(wsctl, wskit_home, tmp_path, command, failure):
    project = _project(tmp_path, {"hooks": _pre(command, timeout=0.5)})
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    _approved(wsctl, project)
    r = wsctl("hooks", "run", "PreToolUse", str(project), "--payload", _payload(tmp_path))
    assert r.exit_code == 3, r.output
    assert r.stdout.startswith(f"PreToolUse: not decided: 1 hook(s) failed ({failure})"), r.stdout
    data = json.loads(wsctl("hooks", "run", "PreToolUse", str(project), "--payload", _payload(tmp_path),
                            json=True).stdout)
    assert data["undecided"] == 1 and not data["blocked"] and data["failed"][0]["failure"] == failure
    r = wsctl("hooks", "run", "PreToolUse", str(project), "--payload", _payload(tmp_path), "--unapproved", "block")
    assert r.exit_code == 0 and f"failed ({failure}); the call is blocked" in r.stdout, r.stdout


def test_a_guards_own_non_blocking_error_is_a_decision(wsctl, wskit_home, tmp_path):
    project = _project(tmp_path, {"hooks": _pre("echo careful >&2; exit 1")})
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    _approved(wsctl, project)
    r = wsctl("hooks", "run", "PreToolUse", str(project), "--payload", _payload(tmp_path))
    assert r.exit_code == 0 and r.stdout.startswith("PreToolUse: allowed"), r.stdout


def test_the_python_api_lists_a_failed_guard_as_undecided(tmp_path):
    from wskit.builtin_plugins.hooks.runner import HookRunner, HookRunnerConfig
    from wskit.models import Provenance, Scope
    from wskit.resources.hooks import HookDefinition

    prov = Provenance(scope=Scope.USER, source_root=str(tmp_path), path=".claude/settings.json", sha256="0" * 64)
    h = HookDefinition(id="user:PreToolUse-0-0-x", name="PreToolUse-0-0-x", kind="hook", provenance=prov,
                       event="PreToolUse", matcher="Bash", type="command", command="exit 127")
    runner = HookRunner([h], host="wskit", session_id="s", execution_root=str(tmp_path), config=HookRunnerConfig())
    out = runner.run("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}}, tool="Bash")
    assert not out.blocked and [s.state for s in out.undecided] == ["failed"]
    assert "not found" in out.undecided[0].message
    out = runner.run("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}}, tool="Bash",
                     unapproved="block")
    assert out.blocked and "failed (not found)" in out.reason
