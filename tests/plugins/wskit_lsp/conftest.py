"""Fixtures for the wskit-lsp tests. Every test here fails if it leaves a server
process running (``no_leaked_children``)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.process_helpers import alive, wait_dead  # noqa: F401  (used by the tests here)
from wskit.session.testing import no_leaked_children  # noqa: F401  (autouse)

SERVER = Path(__file__).resolve().parent / "lsp_server.py"


def pids(pid_file: Path) -> list[int]:
    """The pids the test server wrote, one per start."""
    return [int(x) for x in pid_file.read_text().split()] if pid_file.exists() else []


def lsp_def(name="pyls", pid_file=None, env=None, **fields):
    """An LspServer definition running the pygls test server (``lsp_server.py``)."""
    from wskit.resources.servers import LspServer
    from wskit.session.build import provenance

    fields.setdefault("extension_to_language", {".py": "python"})
    env = dict(env or {})
    if pid_file:
        env["PID_FILE"] = str(pid_file)
    prov = provenance("user", "/home", ".lsp.json", {name: fields})
    return LspServer(id=f"user:{name}", name=name, command=sys.executable, args=(str(SERVER),), env=env,
                     provenance=prov, **fields)


def pylsp_def(**fields):
    """An LspServer definition running the published python-lsp-server; skips without it."""
    from wskit.resources.servers import LspServer
    from wskit.session.build import provenance

    exe = shutil.which("pylsp") or str(Path(sys.executable).with_name("pylsp"))
    if not Path(exe).exists():
        pytest.skip("python-lsp-server (pylsp) is not installed")
    pytest.importorskip("pyflakes", reason="python-lsp-server's pyflakes plugin is not installed")
    fields.setdefault("extension_to_language", {".py": "python"})
    fields.setdefault("diagnostic_wait_timeout", 5000)
    fields.setdefault("startup_timeout", 30000)
    fields.setdefault("request_timeout", 30000)
    return LspServer(id="user:pylsp", name="pylsp", command=exe, provenance=provenance("user", "/home", ".lsp.json", {}),
                     **fields)


@pytest.fixture
def lsp_pm():
    """A plugin manager with the built-ins and wskit-lsp registered (no entry points)."""
    import wskit_lsp
    from wskit.plugin.manager import make_plugin_manager

    pm = make_plugin_manager(load_entrypoints=False, env={})
    if not pm.is_registered(wskit_lsp):
        pm.register(wskit_lsp, name="lsp-client")
    return pm


@pytest.fixture
def session_for(tmp_path: Path, lsp_pm):
    """Factory: ``session_for(*definitions, root=None)`` -> a session whose execution root is
    ``tmp_path/exec-root`` (with ``app.py`` and ``notes.txt``) or ``root``; closed after the test."""
    from wskit.binding import Binding
    from wskit.plugin.facade import WskitHooks
    from wskit.session.build import session_from_resources

    src, exe = tmp_path / "src", tmp_path / "exec-root"
    src.mkdir()
    exe.mkdir()
    (exe / "app.py").write_text("import os\nvalue = 1  # TODO fix\n", encoding="utf-8")
    (exe / "notes.txt").write_text("plain\n", encoding="utf-8")
    made = []

    def _make(*defs, root: Path | None = None):
        r = root or exe
        s = session_from_resources(Binding(source_root=root or src, execution_root=r, cwd=r, worktree=root is None),
                                   defs, hooks=WskitHooks(lsp_pm))
        made.append(s)
        return s

    yield _make
    for s in reversed(made):
        s.close()
