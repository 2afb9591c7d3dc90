"""An approved MCP or LSP server never runs bytecode planted in the project's ``__pycache__``.

Planting it turns the entry ``modified`` (bytecode beside a covered module is covered);
approved again with the planted file in place, the private prefix still keeps it from running.

Approval coverage digests the Python sources a server imports beside its script and leaves
``__pycache__`` out (the interpreter rewrites it). A ``.pyc`` that a repository ships there
with the source's recorded mtime and size would run instead of the covered source without
changing one covered byte. wskit starts MCP and LSP servers (as it does command hooks) with
``PYTHONPYCACHEPREFIX`` set to a private folder (``wskit.util.bytecode``), so Python never
looks there. Each case starts the real server through real ``wsctl`` commands.
"""

from __future__ import annotations

import importlib.util
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from wskit.util.bytecode import PYCACHE_VARIABLE, PrivateBytecode

HERE = Path(__file__).resolve().parents[1]
MCP_SERVER = HERE / "plugins" / "wskit_mcp" / "mcp_server.py"
LSP_SERVER = HERE / "plugins" / "wskit_lsp" / "lsp_server.py"


def _project(tmp_path: Path, real_server: Path, marker: Path) -> Path:
    """A trusted-to-be project whose ``srv.py`` imports ``helper`` (covered), writes
    ``helper.VALUE`` to ``marker`` and then serves as ``real_server``."""
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    (p / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (p / "helper.py").write_text("VALUE = 'clean'\n")
    (p / "srv.py").write_text(
        "import runpy\nimport helper\n"
        f"open({str(marker)!r}, 'w').write(helper.VALUE)\n"
        f"runpy.run_path({str(real_server)!r}, run_name='__main__')\n")
    return p


def _plant(project: Path) -> Path:
    """Write a ``.pyc`` for ``helper.py`` saying 'planted', valid for the source's mtime and
    size, and show that plain Python runs it."""
    from importlib._bootstrap_external import _code_to_timestamp_pyc

    helper = project / "helper.py"
    info = helper.stat()
    pyc = Path(importlib.util.cache_from_source(str(helper)))
    pyc.parent.mkdir(exist_ok=True)
    pyc.write_bytes(_code_to_timestamp_pyc(compile("VALUE = 'planted'\n", str(helper), "exec"),
                                           int(info.st_mtime), info.st_size))
    env = {k: v for k, v in os.environ.items() if k != PYCACHE_VARIABLE}
    out = subprocess.run([sys.executable, "-c", "import helper; print(helper.VALUE)"], cwd=project, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.stdout == "planted\n", out  # the attack works where nothing sets the prefix
    return pyc


def test_an_approved_mcp_server_never_runs_planted_bytecode(wsctl, wskit_pm, tmp_path):
    wskit_pm.register(pytest.importorskip("wskit_mcp"), name="mcp-client")
    marker = tmp_path / "value"
    project = _project(tmp_path, MCP_SERVER, marker)
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": {"command": sys.executable,
                                                                          "args": ["srv.py"]}}}))
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    (row,) = json.loads(wsctl("mcp", "list", str(project), json=True).stdout)["servers"]
    assert "helper.py" in row["covers"]
    assert wsctl("mcp", "approve", "srv", str(project), "--digest", row["digest"]).exit_code == 0
    pyc = _plant(project)
    (row,) = json.loads(wsctl("mcp", "list", str(project), json=True).stdout)["servers"]
    assert row["approval"] == "modified"  # bytecode beside a covered module is covered
    # approved again with the planted file: the private prefix still keeps it from running
    assert wsctl("mcp", "approve", "srv", str(project), "--digest", row["digest"]).exit_code == 0
    r = wsctl("mcp", "check", "srv", str(project))
    assert r.exit_code == 0, r.stderr
    assert marker.read_text() == "clean"
    assert b"planted" in pyc.read_bytes()  # the planted file was neither used nor rewritten


def test_an_approved_lsp_server_never_runs_planted_bytecode(wsctl, wskit_pm, tmp_path):
    pytest.importorskip("pygls")
    wskit_pm.register(pytest.importorskip("wskit_lsp"), name="lsp-client")
    marker = tmp_path / "value"
    project = _project(tmp_path, LSP_SERVER, marker)
    (project / ".lsp.json").write_text(json.dumps({"py": {"command": sys.executable, "args": ["srv.py"],
                                                          "extensionToLanguage": {".txt": "plaintext"}}}))
    (project / "a.txt").write_text("hello\n")
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    (row,) = json.loads(wsctl("lsp", "list", str(project), json=True).stdout)["servers"]
    assert wsctl("lsp", "approve", "py", str(project), "--digest", row["digest"]).exit_code == 0
    _plant(project)
    (row,) = json.loads(wsctl("lsp", "list", str(project), json=True).stdout)["servers"]
    assert row["approval"] == "modified"  # bytecode beside a covered module is covered
    assert wsctl("lsp", "approve", "py", str(project), "--digest", row["digest"]).exit_code == 0
    r = wsctl("lsp", "check", "py", str(project / "a.txt"), "--wait", "0")
    assert marker.exists(), r.stderr
    assert marker.read_text() == "clean"


def test_the_private_folder_is_private_and_a_hosts_own_prefix_is_kept(tmp_path):
    b = PrivateBytecode()
    env = b.apply({PYCACHE_VARIABLE: str(tmp_path / "from-a-definition")})
    assert env[PYCACHE_VARIABLE] == b.path and stat.S_IMODE(os.stat(b.path).st_mode) == 0o700
    host = {PYCACHE_VARIABLE: str(tmp_path / "host")}
    assert b.apply({PYCACHE_VARIABLE: "x"}, keep=host)[PYCACHE_VARIABLE] == str(tmp_path / "host")
    path = b.path
    del b
    import gc

    gc.collect()
    assert not os.path.exists(path)  # removed with its owner
