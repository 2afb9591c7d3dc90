"""Builders for runtime tests: hook definitions from explicit fields; a process liveness check;
the ``project`` and ``make_session`` fixtures (a project folder and a session factory), which the
conftest.py files of the hooks and providers tests import."""

from __future__ import annotations

from pathlib import Path

import pytest

from wskit.binding import Binding
from wskit.resources.hooks import HookDefinition
from wskit.session.build import provenance, session_from_resources


def hook(event: str, *, scope: str = "user", name: str | None = None, root: Path | None = None, **fields) -> HookDefinition:
    """One HookDefinition (command unless ``type=`` says otherwise)."""
    name = name or f"{event}-{abs(hash(repr(sorted(fields.items())))) % 10**8}"
    root = root or Path("/nonexistent-home")
    prov = provenance(scope, root, ".claude/settings.json", {"event": event, **fields},
                      plugin=fields.get("plugin_root") and "demo")
    hid = f"plugin:demo:{name}" if scope == "plugin" else f"{scope}:{name}"
    return HookDefinition(id=hid, name=name, event=event, provenance=prov, **fields)


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
