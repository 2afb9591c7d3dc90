"""docs/examples/lsp_agent_loop.py (shown in docs/runtime.md) runs as written against
the published python-lsp-server, and leaves no process running."""

from __future__ import annotations

import re
import runpy
import shutil
import sys
from pathlib import Path

import pytest

from wskit.session.testing import no_leaked_children  # noqa: F401  (autouse)

DOCS = Path(__file__).resolve().parents[2] / "docs"
EXAMPLE = DOCS / "examples" / "lsp_agent_loop.py"


def test_runtime_doc_shows_the_example_as_it_is():
    text = (DOCS / "runtime.md").read_text(encoding="utf-8")
    section = text.split("### An agent loop with a language server", 1)[1]
    block = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert block == EXAMPLE.read_text(encoding="utf-8")


def test_lsp_agent_loop_example_runs():
    pytest.importorskip("wskit_lsp")
    pytest.importorskip("pyflakes", reason="python-lsp-server's pyflakes plugin is not installed")
    if not (shutil.which("pylsp") or Path(sys.executable).with_name("pylsp").exists()):
        pytest.skip("python-lsp-server (pylsp) is not installed")
    ns = runpy.run_path(str(EXAMPLE))             # the asserts are in the example
    assert ns["session"].runtime.closed and len(ns["transcript"]) == 4
