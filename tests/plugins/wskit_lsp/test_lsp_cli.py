"""``wsctl lsp check NAME FILE`` against a real pygls server."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from wskit.resources.servers import LspServer
from wskit.session.build import provenance, register_definitions

SERVER = Path(__file__).resolve().parent / "lsp_server.py"


def test_lsp_check_json(wsctl, wskit_pm, tmp_path):
    import wskit_lsp

    wskit_pm.register(wskit_lsp, name="lsp-client")
    d = LspServer(id="user:pyls", name="pyls", command=sys.executable, args=(str(SERVER),),
                  extension_to_language={".py": "python"}, provenance=provenance("user", "/h", ".lsp.json", {}))
    register_definitions(wskit_pm, [d])
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("x = 1\n# TODO one\n")
    (ws / "a.txt").write_text("x\n")
    res = wsctl("lsp", "check", "pyls", str(ws / "a.py"), "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert set(data) == {"server", "file", "ok", "pid", "diagnostics", "diagnostics_current", "dropped_capabilities",
                         "close_errors"}
    assert data["diagnostics_current"] is True and data["dropped_capabilities"] == []
    assert data["server"] == "user:pyls" and isinstance(data["pid"], int)
    assert [(x["line"], x["message"]) for x in data["diagnostics"]] == [(1, "TODO left in code: # TODO one")]
    deadline = time.monotonic() + 10
    while Path(f"/proc/{data['pid']}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{data['pid']}").exists(), "language server left running after lsp check"
    wrong = wsctl("lsp", "check", "pyls", str(ws / "a.txt"))
    assert wrong.exit_code == 1 and "does not serve .txt" in wrong.stderr
