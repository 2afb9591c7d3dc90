"""Fixtures for runtime tests: a project folder and a session factory."""

from __future__ import annotations

from pathlib import Path

import pytest

from wskit.binding import Binding
from wskit.session.build import session_from_resources
from wskit.session.testing import no_leaked_children  # noqa: F401  (autouse: no process may outlive a test)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "project"
    p.mkdir()
    return p


@pytest.fixture
def make_session(project: Path):
    def _make(*resources, host: str = "wskit", hooks=None):
        b = Binding(source_root=project, execution_root=project, cwd=project)
        return session_from_resources(b, resources, host=host, hooks=hooks)
    return _make
