"""A dropped WorkspaceCache and what it loaded are freed by reference counting,
not left for the cyclic collector: a cache whose default loader closed over the
cache itself would stay alive, with every load it holds, until a collection, and
that collection can cost up to 400 ms in the next load."""

from __future__ import annotations

import gc
import weakref

from wskit.cache import WorkspaceCache
from wskit.testing import write_tree
from wskit.trust import TrustStore


def _project(tmp_path, home):
    root = tmp_path / "proj"
    write_tree(root, {
        ".git/HEAD": "ref: refs/heads/main\n",
        "AGENTS.md": "# agents\n",
        "src/AGENTS.md": "# nested\n",
        ".claude/rules/py.md": "---\npaths:\n  - '**/*.py'\n---\nUse types.\n",
        ".claude/skills/demo/SKILL.md": "---\nname: demo\ndescription: a demo\n---\nbody\n",
        ".claude/commands/hi.md": "say hi\n",
    })
    TrustStore.for_home(home).grant(root)
    return root


def test_dropped_cache_is_freed_without_the_cycle_collector(tmp_path, wskit_profile, wskit_pm) -> None:
    root = _project(tmp_path, wskit_profile.home)
    WorkspaceCache(wskit_profile, wskit_pm).resolve(root)  # first load: lazy imports, schema builds
    gc.collect()
    gc.disable()
    try:
        cache = WorkspaceCache(wskit_profile, wskit_pm)
        ws = cache.resolve(root)
        assert ws.counts()["skill"] == 1 and ws.counts()["command"] == 1
        cache_ref, ws_ref = weakref.ref(cache), weakref.ref(ws)
        del cache, ws
        assert cache_ref() is None, "the cache is in a reference cycle"
        assert ws_ref() is None, "the loaded workspace is in a reference cycle"
        assert gc.collect() == 0, "a load left cyclic garbage"
    finally:
        gc.enable()
