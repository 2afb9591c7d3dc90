"""Fixtures for the rule catalog tests: real git-marked project folders, a real
trust store in a temporary home, and workspaces loaded through the hooks."""

from __future__ import annotations

from pathlib import Path

import pytest

from wskit.binding import Binding
from wskit.host import HostProfile
from wskit.plugin.facade import WskitHooks
from wskit.testing import write_tree
from wskit.trust import TrustStore
from wskit.workspace import load_workspace


@pytest.fixture
def rules_ws(tmp_path: Path, wskit_home: Path, wskit_pm):
    """Factory: ``rules_ws(files, home_files=None, trusted=True, host="wskit", settings=None, cwd=None)``
    → the loaded :class:`WorkspaceResources` (its catalog is ``ws.catalog("rules")``)."""

    def _make(files, *, home_files=None, trusted=True, host="wskit", settings=None, cwd=None, root=None):
        root = root or tmp_path / "ws"
        write_tree(root, {".git/HEAD": "ref: refs/heads/main\n", **files})
        if home_files:
            write_tree(wskit_home, home_files)
        store = TrustStore.for_home(wskit_home)
        if trusted:
            store.set(root, "trusted")
        profile = HostProfile(name=host, home=wskit_home, settings={"rules": settings} if settings else {})
        binding = Binding.discover(cwd or root)
        return load_workspace(WskitHooks(wskit_pm), binding, profile)

    return _make


