"""load_workspace pauses the cyclic garbage collector (``wskit.util.gcpause``, whose own
tests are tests/core/util/test_gcpause.py): each collection during a load traverses
everything the load has built, none of it garbage."""

from __future__ import annotations

import gc

from wskit import workspace
from wskit.workspace import gc_paused


def test_load_workspace_runs_with_the_collector_paused(tmp_path, wskit_pm, wskit_profile, monkeypatch) -> None:
    from wskit.binding import Binding
    from wskit.plugin.facade import WskitHooks

    seen = []
    real = workspace._load_workspace
    monkeypatch.setattr(workspace, "_load_workspace", lambda *a, **k: seen.append(gc.isenabled()) or real(*a, **k))
    ws = workspace.load_workspace(WskitHooks(wskit_pm), Binding.discover(tmp_path), wskit_profile)
    assert seen == [False] and gc.isenabled() and ws.binding.source_root == tmp_path


def test_one_pause_for_the_load_the_listing_and_the_console_script():
    import wskit.util.gcpause

    assert gc_paused is wskit.util.gcpause.gc_paused
