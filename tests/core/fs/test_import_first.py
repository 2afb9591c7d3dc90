"""Modules split out of larger ones (to keep modules under ~400 lines) import on their
own, first, in a fresh interpreter: none of them needs the module it was split from
at import time (a split that imports its parent back forms an import cycle).
Here the parts of safe file access (``wskit.fs``); the rules built-in's ``scopewalk``
is checked in tests/builtin_plugins/rules/test_import_first.py."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", ["wskit.fs.paths", "wskit.fs.text", "wskit.fs.scan"])
def test_split_module_imports_first(module: str) -> None:
    run = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
