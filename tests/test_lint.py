"""The ruff configuration in pyproject.toml passes on the whole repository (core,
built-ins, first-party plugins, tests and the examples under docs)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.layers import REPO


def test_ruff_passes() -> None:
    if shutil.which("ruff") is None and subprocess.run([sys.executable, "-m", "ruff", "--version"],
                                                       capture_output=True).returncode != 0:
        pytest.skip("ruff is not installed (it comes with the test extra)")
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
