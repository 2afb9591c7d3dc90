"""A small real language server (pygls) used by the tests.

Hover answers ``<word> @ <root folder name>`` (so a test sees the root it was
initialised with); every line containing ``TODO`` gets a warning diagnostic.
When ``PID_FILE`` is set each start appends its pid there.
"""

from __future__ import annotations

import os
import re

from lsprotocol import types
from pygls.lsp.server import LanguageServer

if os.environ.get("PID_FILE"):
    with open(os.environ["PID_FILE"], "a") as fh:
        fh.write(f"{os.getpid()}\n")

server = LanguageServer("wskit-test-lsp", "0.1")
ROOT: dict[str, str] = {}


@server.feature(types.INITIALIZE)
def initialize(ls: LanguageServer, params: types.InitializeParams):
    ROOT["uri"] = params.root_uri or ""
    ROOT["cwd"] = os.getcwd()


def _publish(ls: LanguageServer, uri: str) -> None:
    doc = ls.workspace.get_text_document(uri)
    diags = [
        types.Diagnostic(range=types.Range(start=types.Position(line=i, character=line.index("TODO")),
                                           end=types.Position(line=i, character=line.index("TODO") + 4)),
                         message="TODO left in code", severity=types.DiagnosticSeverity.Warning, source="wskit-test")
        for i, line in enumerate(doc.source.splitlines()) if "TODO" in line
    ]
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diags))


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams):
    _publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: LanguageServer, params: types.HoverParams):
    doc = ls.workspace.get_text_document(params.text_document.uri)
    line = doc.lines[params.position.line]
    words = [m for m in re.finditer(r"\w+", line) if m.start() <= params.position.character <= m.end()]
    if not words:
        return None
    root = ROOT.get("uri", "").rstrip("/").rsplit("/", 1)[-1]
    text = f"{words[0].group()} @ {root} (cwd {os.path.basename(ROOT.get('cwd', ''))})"
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.PlainText, value=text))


if __name__ == "__main__":
    server.start_io()
