"""A real ``pip uninstall`` / reinstall of wskit-gemini (opt-in: ``WSKIT_TEST_PIP_ROUNDTRIP=1``).

It changes the test environment for a few seconds, so it does not run by
default; the same property is tested without pip by building the plugin
manager with ``WSKIT_DISABLE_PLUGINS=gemini`` (test_gemini_workspace.py).
Reinstalling uses ``pip install --no-deps -e`` (the build backend comes from your index).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wskit.trust import TrustStore

PLUGIN = Path(__file__).resolve().parents[3] / "plugins" / "wskit-gemini"

pytestmark = pytest.mark.skipif(os.environ.get("WSKIT_TEST_PIP_ROUNDTRIP") != "1",
                                reason="set WSKIT_TEST_PIP_ROUNDTRIP=1 to run a real pip uninstall/reinstall")


def _inspect(repo: Path, home: Path) -> dict[tuple[str, str], tuple[str | None, str]]:
    out = subprocess.run([sys.executable, "-m", "wskit", "--home", str(home), "--json", "inspect", str(repo)],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    return {(r["kind"], r["id"]): (r.get("plugin"), r["path"]) for r in json.loads(out)["resources"]}


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "-q", *args], check=True, timeout=300, capture_output=True)


def test_pip_uninstall_removes_exactly_the_gemini_resources(gemini_repo, gemini_home):
    TrustStore.for_home(gemini_home).grant(gemini_repo)
    before = _inspect(gemini_repo, gemini_home)
    _pip("uninstall", "-y", "wskit-gemini")
    try:
        without = _inspect(gemini_repo, gemini_home)
    finally:
        _pip("install", "--no-deps", "-e", str(PLUGIN))
    after = _inspect(gemini_repo, gemini_home)
    assert set(without) < set(before) and after == before
    assert all(before[k] == v for k, v in without.items())  # what stays is unchanged
    gone = set(before) - set(without)
    assert ("mcp_server", "plugin:mcp-server:nodeServer") in gone and ("skill", "project:docs-writer") in gone
    for key in gone:
        plugin, path = before[key]
        assert plugin in ("mcp-server", "custom-commands", "context") or path.startswith(".gemini/"), key
