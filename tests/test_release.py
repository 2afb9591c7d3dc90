"""Ready to publish: ``python -m build`` gives an sdist and a wheel for wskit and each
first-party plugin, ``twine check`` passes on all of them, and the wheels install in a
fresh virtual environment where ``wsctl --version`` runs (docs/releasing.md).

Marked ``slow`` (six builds and a fresh environment): ``.ci/run`` runs it in its second step."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.layers import REPO

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(importlib.util.find_spec("build") is None or importlib.util.find_spec("twine") is None,
                                 reason="build and twine are in the test extra")]

PROJECTS = [REPO, *sorted(p for p in (REPO / "plugins").iterdir() if (p / "pyproject.toml").is_file())]


def test_wheels_build_check_and_install_in_a_fresh_venv(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    for project in PROJECTS:
        done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(project)],
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    wheels = sorted(dist.glob("*.whl"))
    sdists = sorted(dist.glob("*.tar.gz"))
    assert len(wheels) == len(sdists) == len(PROJECTS)
    check = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, wheels + sdists)],
                           capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stdout + check.stderr
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    core = next(w for w in wheels if w.name.startswith("wskit-"))
    install = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--find-links", str(dist), str(core)],
                             capture_output=True, text=True, timeout=900)
    assert install.returncode == 0, install.stderr[-3000:]
    version = subprocess.run([str(venv / "bin" / "wsctl"), "--version"], capture_output=True, text=True, timeout=120)
    import wskit

    assert version.returncode == 0 and version.stdout.strip() == f"wsctl {wskit.__version__}", version
