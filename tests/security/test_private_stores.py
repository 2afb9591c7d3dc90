"""Every per-user store (hook trust, MCP approvals, MCP OAuth tokens) goes through
``wskit.fs.store.PrivateJsonFile``: a linked ``~/.wskit``, a loose mode, another
owner, a deep or huge document are refused the same way for each, and concurrent
updates lose nothing."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from wskit.fs.atomic import StateFileError
from wskit.fs.store import PrivateJsonFile


def _stores(home: Path):
    """(name, path, read) for each store; read raises the store's own error."""
    from wskit.approval.store import ApprovalStore
    from wskit.builtin_plugins.hooks.legacy import HookTrustStore
    from wskit.builtin_plugins.mcp.approval import McpApprovalStore

    hook = HookTrustStore.for_home(home)
    mcp = McpApprovalStore.for_home(home)
    approvals = ApprovalStore.for_home(home)
    out = [("hook-trust", hook.path, hook.read), ("mcp-approvals", mcp.path, mcp.read),
           ("approvals", approvals.path, approvals.read)]
    try:
        from wskit_mcp.oauth import McpTokenStore, token_path
    except ImportError:  # the wskit-mcp plugin is not installed
        return out
    path = token_path(home, "user:remote", "https://example.invalid/mcp")
    tokens = McpTokenStore(path, "user:remote", "https://example.invalid/mcp", anchor=home)
    return [*out, ("mcp-oauth", path, tokens.load)]


def _write(path: Path, doc, mode: int = 0o600) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    os.chmod(path, mode)


@pytest.mark.parametrize("which", ["hook-trust", "mcp-approvals", "approvals", "mcp-oauth"])
def test_a_linked_state_folder_is_refused_by_every_store(tmp_path, which) -> None:
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    (elsewhere / "mcp-oauth").mkdir(parents=True)
    home.mkdir()
    (home / ".wskit").symlink_to(elsewhere)
    stores = {name: (path, read) for name, path, read in _stores(home)}
    if which not in stores:
        pytest.skip("wskit-mcp is not installed")
    path, read = stores[which]
    _write(elsewhere / path.relative_to(home / ".wskit"), {"version": 1, "projects": {}})
    with pytest.raises(Exception, match="symbolic link") as err:
        read()
    assert not isinstance(err.value, (RecursionError, json.JSONDecodeError))


@pytest.mark.parametrize("which", ["hook-trust", "mcp-approvals", "approvals", "mcp-oauth"])
def test_a_loose_mode_is_refused_by_every_store(tmp_path, which) -> None:
    home = tmp_path / "home"
    stores = {name: (path, read) for name, path, read in _stores(home)}
    if which not in stores:
        pytest.skip("wskit-mcp is not installed")
    path, read = stores[which]
    _write(path, {"version": 1, "projects": {}}, mode=0o644)
    with pytest.raises(Exception, match="must be 0600"):
        read()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_a_store_owned_by_someone_else_is_refused(tmp_path) -> None:
    f = PrivateJsonFile(tmp_path / "s.json", what="test store")
    _write(f.path, {"a": 1})
    os.chown(f.path, 65534, 65534)
    with pytest.raises(StateFileError, match="not owned by the current user"):
        f.read()


def test_deep_huge_and_garbage_documents_are_errors_not_crashes(tmp_path) -> None:
    f = PrivateJsonFile(tmp_path / "s.json", what="test store", max_bytes=4096)
    _write(f.path, None)
    f.path.write_text("[" * 2000)
    with pytest.raises(StateFileError, match="corrupt"):
        f.read()
    f.path.write_text("x" * 5000)
    with pytest.raises(StateFileError, match="larger than 4096 bytes"):
        f.read()
    f.path.write_text("{not json")
    with pytest.raises(StateFileError, match="corrupt"):
        f.update(lambda doc: {"replaced": True})
    assert f.path.read_text() == "{not json"  # a refused store is never overwritten


def test_update_refuses_to_grow_past_the_bound_and_keeps_the_old_file(tmp_path) -> None:
    f = PrivateJsonFile(tmp_path / "s.json", what="test store", max_bytes=256)
    f.update(lambda doc: {"n": 1})
    with pytest.raises(StateFileError, match="would grow over 256 bytes"):
        f.update(lambda doc: {"n": "x" * 300})
    assert f.read() == {"n": 1}
    assert (f.path.stat().st_mode & 0o777) == 0o600


def test_concurrent_updates_lose_nothing(tmp_path) -> None:
    f = PrivateJsonFile(tmp_path / "deep" / "s.json", anchor=tmp_path, what="test store")

    def add(i: int) -> None:
        for j in range(20):
            f.update(lambda doc, k=f"{i}-{j}": {**(doc or {}), k: True})

    threads = [threading.Thread(target=add, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(f.read()) == 160
    assert (f.path.parent.stat().st_mode & 0o777) == 0o700
