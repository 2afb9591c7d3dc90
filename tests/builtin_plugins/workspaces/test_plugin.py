"""The built-in ``workspaces`` plugin registers wsctl commands and can be blocked."""

from __future__ import annotations

from wskit.plugin.manager import DEFAULT_PLUGINS, make_plugin_manager


def test_registered_as_default_plugin(wsctl):
    assert ("workspaces", "wskit.builtin_plugins.workspaces") in DEFAULT_PLUGINS
    res = wsctl("--help")
    for cmd in ("workspace", "worktree", "ref"):
        assert cmd in res.stdout


def test_can_be_blocked_by_name(wsctl):
    pm = make_plugin_manager(load_entrypoints=False, env={"WSKIT_DISABLE_PLUGINS": "workspaces"})
    res = wsctl("workspace", "list", pm=pm)
    assert res.exit_code == 2 and "No such command" in res.stderr
