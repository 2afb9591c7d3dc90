"""docs/runtime.md: the agent-loop example runs as written, and leaves no server running."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "runtime.md"


def _example(heading: str = "## A complete agent loop") -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text.split(heading, 1)[1]
    m = re.search(r"```python\n(.*?)```", section, re.S)
    assert m, "no python block in the agent-loop section"
    return m.group(1)


def _children() -> set[int]:
    me = str(os.getpid())
    out = set()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[1] == me and fields[0] != "Z":
                out.add(int(d.name))
    return out


def test_agent_loop_example_runs(monkeypatch):
    pytest.importorskip("wskit_mcp")
    before = _children()
    namespace: dict = {}
    exec(compile(_example(), str(DOC), "exec"), namespace)  # the asserts are in the example
    assert namespace["transcript"][0][3] is None  # no self-check on three different calls
    assert _children() - before == set(), "the example left a child process running"


def test_mcp_loop_example_runs():
    """The MCP section's loop: elicitation (callback + ElicitationResult hook), sampling,
    list_changed, a bounded 3 MB result, a crash and restart, a cancelled long call."""
    pytest.importorskip("wskit_mcp")
    before = _children()
    namespace: dict = {}
    exec(compile(_example("### An agent loop with live MCP servers"), str(DOC), "exec"), namespace)
    assert namespace["status"].generation == 2
    assert _children() - before == set(), "the example left a child process running"
