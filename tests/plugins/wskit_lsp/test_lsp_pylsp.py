"""The published python-lsp-server (PyPI ``python-lsp-server[pyflakes]``, the test
extra) on a real little project: its capabilities are read (``notebookDocumentSync``
once made initialisation fail), definition and references across files, symbols,
and an edit followed by the diagnostics of the new version. Skipped without pylsp."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import pylsp_def

SHAPES = '''class Square:
    """A square."""

    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side


def make(side):
    return Square(side)
'''
MAIN = '''from pkg.shapes import Square, make

s = make(2)
t = Square(3)
print(s.area() + t.area())
'''


@pytest.fixture
def cli(wsctl, wskit_pm):
    """``wsctl`` with wskit-lsp registered."""
    import wskit_lsp

    if not wskit_pm.is_registered(wskit_lsp):
        wskit_pm.register(wskit_lsp, name="lsp-client")
    return wsctl


def project(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "shapes.py").write_text(SHAPES, encoding="utf-8")
    (root / "main.py").write_text(MAIN, encoding="utf-8")
    return root


def test_pylsp_definition_references_symbols_and_fresh_diagnostics(session_for, tmp_path):
    d = pylsp_def()
    root = project(tmp_path / "proj")
    s = session_for(d, root=root)
    assert s.lsp.did_open("main.py") == "user:pylsp"
    info = s.lsp.running()["user:pylsp"]
    assert info["dropped_capabilities"] == []              # every capability was understood
    assert s.lsp.capabilities("pylsp").notebook_document_sync is not None
    assert s.lsp.diagnostics("main.py") == []

    # definition of `Square` (line 4 of main.py) is in another file, relative to the root
    found = s.lsp.goto_definition("main.py", 3, 5)
    assert [(x["path"], x["line"], x["character"]) for x in found.items] == [("pkg/shapes.py", 0, 6)]
    assert found.items[0]["in_root"] and not found.truncated
    refs = s.lsp.references("pkg/shapes.py", 0, 7)
    assert {(x["path"], x["line"]) for x in refs.items} == {("main.py", 0), ("main.py", 3), ("pkg/shapes.py", 0),
                                                             ("pkg/shapes.py", 11)}
    bounded = s.lsp.references("pkg/shapes.py", 0, 7, limit=2)
    assert len(bounded.items) == 2 and bounded.total == 4 and bounded.truncated
    assert "[… 2 more of 4 not shown]" in bounded.render()
    symbols = s.lsp.document_symbols("pkg/shapes.py")
    assert [(x["kind"], x["name"]) for x in symbols.items][:3] == [("class", "Square"), ("method", "__init__"),
                                                                    ("field", "side")]
    assert "Square(side)" in s.lsp.hover("main.py", 3, 5)

    # an edit: the diagnostics are those of version 2, never version 1's empty list
    (root / "main.py").write_text(MAIN + "print(undefined_name)\n", encoding="utf-8")
    report = s.lsp.after_write("main.py")
    assert report.current and report.version == 2
    assert [(x["line"], x["message"]) for x in report.new] == [(5, "undefined name 'undefined_name'")]
    assert "✘ [Line 6:7] undefined name 'undefined_name' (pyflakes)" in report.render()
    # and back: version 3 is clean again
    s.lsp.did_change("main.py", MAIN)
    assert s.lsp.version("main.py") == 3 and s.lsp.diagnostics("main.py") == []

    (tool,) = s.lsp.tool_definitions()
    assert set(tool["input_schema"]["properties"]["operation"]["enum"]) == {
        "goToDefinition", "findReferences", "hover", "documentSymbol"}   # pylsp has no workspace/symbol
    res = s.lsp.call_tool("LSP", {"operation": "goToDefinition", "filePath": str(root / "main.py"),
                                  "line": 4, "character": 6})
    assert res == {"is_error": False, "text": "pkg/shapes.py:1:7"}


def test_wsctl_lsp_check_and_query_with_pylsp(cli, tmp_path):
    wsctl = cli
    d = pylsp_def()
    root = project(tmp_path / "proj")
    (root / ".lsp.json").write_text(json.dumps({"pylsp": {"command": d.command, "extensionToLanguage": {".py": "python"},
                                                          "diagnosticWaitTimeout": 5000, "startupTimeout": 30000,
                                                          "requestTimeout": 30000}}), encoding="utf-8")
    (root / "bad.py").write_text("import os\n", encoding="utf-8")
    assert wsctl("trust", "grant", str(root)).exit_code == 0
    refused = wsctl("lsp", "check", "pylsp", str(root / "bad.py"), "--wait", "10")
    assert refused.exit_code == 1 and "is awaiting (not approved)" in refused.stderr  # folder trust is not enough
    (row,) = json.loads(wsctl("lsp", "list", str(root), "--json").stdout)["servers"]
    assert row["approval"] == "awaiting"
    # pylsp loads its configuration and plugins from the project: coverage says so, the user accepts it
    assert row["unverified"] and "--accept-unverified" in wsctl("lsp", "list", str(root)).stdout
    assert wsctl("lsp", "approve", "pylsp", str(root), "--digest", row["digest"], "--accept-unverified").exit_code == 0
    check = wsctl("lsp", "check", "pylsp", str(root / "bad.py"), "--wait", "10", "--json")
    assert check.exit_code == 0, check.output
    data = json.loads(check.stdout)
    assert data["dropped_capabilities"] == [] and "Traceback" not in check.stderr
    assert [x["message"] for x in data["diagnostics"]] == ["'os' imported but unused"]

    q = wsctl("lsp", "query", "definition", f"{root / 'main.py'}:4:5", "--json")
    assert q.exit_code == 0, q.output
    out = json.loads(q.stdout)
    assert out["file"] == "main.py" and out["position"] == {"line": 4, "character": 5}
    assert [(x["path"], x["line"]) for x in out["result"]["items"]] == [("pkg/shapes.py", 0)]
    human = wsctl("lsp", "query", "references", f"{root / 'pkg' / 'shapes.py'}:12:12")
    assert human.exit_code == 0, human.output
    assert human.stdout.split() == ["main.py:1:24", "main.py:4:5", "pkg/shapes.py:1:7", "pkg/shapes.py:12:12"]


@pytest.mark.parametrize("args,message", [
    (("hover", "main.py"), "hover needs a position"),
    (("definition", "main.py:0:1"), "LINE and COL are 1-based"),
    (("symbols", "missing.py"), "no such file"),
])
def test_wsctl_lsp_query_usage_errors(cli, tmp_path, monkeypatch, args, message):
    wsctl = cli
    root = project(tmp_path / "proj")
    monkeypatch.chdir(root)
    res = wsctl("lsp", "query", *args)
    assert res.exit_code == 2 and message in res.output
