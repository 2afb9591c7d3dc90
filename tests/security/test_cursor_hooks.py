"""A repository's ``.cursor/hooks.json`` runs nothing by folder trust alone: an untrusted
project's file is not read, a trusted project's entries run only once approved, one by one,
and an approval names the script in ``.cursor`` it covers (docs/compatibility.md, "Cursor")."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conformance.answers import _plugin_manager
from wskit import HostProfile, WorkspaceCache
from wskit.builtin_plugins.hooks.runner import HookRunner, HookRunnerConfig, ScopeHookTrust
from wskit.trust import TrustStore


def _project(tmp_path: Path, marker: Path) -> tuple[Path, Path]:
    project, home = tmp_path / "p", tmp_path / "h"
    (project / ".git").mkdir(parents=True)
    (project / ".cursor").mkdir()
    home.mkdir()
    (project / ".cursor/hooks.json").write_text(json.dumps({"version": 1, "hooks": {
        "sessionStart": [{"command": f"touch {marker}"}],
        "beforeShellExecution": [{"command": f"touch {marker}; echo '{{\"permission\": \"allow\"}}'"}]}}))
    return project, home


def test_an_untrusted_projects_cursor_hooks_are_not_read(tmp_path: Path):
    marker = tmp_path / "ran"
    project, home = _project(tmp_path, marker)
    for host in ("cursor", "wskit"):
        ws = WorkspaceCache(HostProfile(name=host, home=home), _plugin_manager()).resolve(str(project))
        assert list(ws.registry("hook").active()) == []


def test_a_trusted_projects_cursor_hooks_do_not_run_unapproved(tmp_path: Path):
    marker = tmp_path / "ran"
    project, home = _project(tmp_path, marker)
    TrustStore.for_home(home).grant(project)
    ws = WorkspaceCache(HostProfile(name="cursor", home=home), _plugin_manager()).resolve(str(project))
    hooks = list(ws.registry("hook").active())
    assert len(hooks) == 2
    runner = HookRunner(hooks, host="cursor", session_id="s", execution_root=str(project),
                        config=HookRunnerConfig(trust=ScopeHookTrust(hooks)))
    start = runner.run("SessionStart", {"source": "startup"})
    pre = runner.run("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t"})
    runner.close()
    assert not marker.exists()
    assert len(start.skipped) == 1 and len(pre.skipped) == 1
    assert pre.permission_decision != "allow"  # an unapproved guard grants nothing
