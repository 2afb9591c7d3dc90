"""Helpers for the bundle, server and hook tests: real files, real pipeline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from wskit.binding import Binding
from wskit.host import HostProfile
from wskit.plugin.facade import WskitHooks
from wskit.testing import write_tree
from wskit.trust import TrustStore
from wskit.workspace import load_workspace

SHARED = (Path(__file__).resolve().parents[2] / ".." / "shared").resolve()
CORPUS = SHARED / "corpus" / "claude-plugins-official"


def corpus() -> Path:
    """The published marketplace of ../shared; skips the test when absent."""
    if not (CORPUS / ".claude-plugin" / "marketplace.json").is_file():
        pytest.skip("../shared/corpus/claude-plugins-official is not present")
    return CORPUS


def manifest(name: str, **extra: Any) -> str:
    return json.dumps({"name": name, **extra})


def plugin(root: Path, name: str, files: dict[str, Any] | None = None, *, host_dir: str = ".claude-plugin",
           **fields: Any) -> Path:
    """A plugin folder ``root`` with a manifest and ``files`` (dict values become JSON)."""
    tree: dict[str, Any] = {f"{host_dir}/plugin.json": manifest(name, **fields)}
    for rel, content in (files or {}).items():
        tree[rel] = json.dumps(content) if isinstance(content, (dict, list)) else content
    return write_tree(root, tree)


def skill(description: str = "Does things. Use when testing.") -> str:
    return f"---\ndescription: {description}\n---\nBody\n"


def load(pm, ws: Path, profile: HostProfile, *, trusted: bool = True, **settings: Any):
    """Load the workspace at ``ws`` through the real pipeline."""
    if trusted:
        TrustStore.for_home(profile.require_home()).grant(ws)
    if settings:
        profile = profile.model_copy(update={"settings": {**profile.settings, **settings}})
    return load_workspace(WskitHooks(pm), Binding.discover(ws), profile)


def codes(diags) -> list[str]:
    return [d.code for d in diags]
