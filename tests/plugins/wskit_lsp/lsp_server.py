"""A small real language server (pygls) used by the tests.

Hover answers ``<word> @ <root folder name>`` (so a test sees the root it was
initialised with); hover on the word ``crash`` makes the process exit at once
(only the first time when ``CRASH_ONCE`` names a marker file to create).
Every line containing ``TODO`` gets a warning diagnostic.

Environment:

- ``PID_FILE``: each start appends its pid there.
- ``SYNC``: ``incremental`` (default) or ``full`` — the textDocumentSync kind it advertises.
- ``VERSIONED``: ``1`` to put the document version in every publish (default: none, as many servers).
- ``STALE``: ``1`` to misbehave as slow servers do: on each change it first publishes
  the diagnostics of the *previous* text, then those of the new text after 0.3 s.
- ``LATE``: ``1`` to publish, after each change's diagnostics, the previous text's again 0.1 s later.
- ``PULL``: ``1`` to offer pull diagnostics (``textDocument/diagnostic``) as well.
- ``LOG_FILE``: one JSON line per change received: ``{"version", "kind", "text"}``
  (the server's text after applying it) and per save: ``{"saved", "text"}``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re

from lsprotocol import types
from pygls.lsp.server import LanguageServer

if os.environ.get("PID_FILE"):
    with open(os.environ["PID_FILE"], "a") as fh:
        fh.write(f"{os.getpid()}\n")

SYNC = types.TextDocumentSyncKind.Full if os.environ.get("SYNC") == "full" else types.TextDocumentSyncKind.Incremental
VERSIONED = os.environ.get("VERSIONED") == "1"
STALE = os.environ.get("STALE") == "1"
LOG = os.environ.get("LOG_FILE")

server = LanguageServer("wskit-test-lsp", "0.1", text_document_sync_kind=SYNC)
ROOT: dict[str, str] = {}
LAST: dict[str, tuple[int, str]] = {}


def log(entry: dict) -> None:
    if LOG:
        with open(LOG, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")


@server.feature(types.INITIALIZE)
def initialize(ls: LanguageServer, params: types.InitializeParams):
    ROOT["uri"] = params.root_uri or ""
    ROOT["cwd"] = os.getcwd()


def _diags(text: str) -> list[types.Diagnostic]:
    return [
        types.Diagnostic(range=types.Range(start=types.Position(line=i, character=line.index("TODO")),
                                           end=types.Position(line=i, character=line.index("TODO") + 4)),
                         message=f"TODO left in code: {line.strip()}", severity=types.DiagnosticSeverity.Warning,
                         source="wskit-test", code="todo")
        for i, line in enumerate(text.splitlines()) if "TODO" in line
    ]


def _publish(ls: LanguageServer, uri: str, text: str, version: int) -> None:
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
        uri=uri, diagnostics=_diags(text), version=version if VERSIONED else None))


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams):
    doc = params.text_document
    LAST[doc.uri] = (doc.version, doc.text)
    _publish(ls, doc.uri, doc.text, doc.version)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams):
    uri, version = params.text_document.uri, params.text_document.version
    doc = ls.workspace.get_text_document(uri)
    kinds = ["incremental" if getattr(c, "range", None) is not None else "full" for c in params.content_changes]
    log({"version": version, "kind": kinds, "text": doc.source})
    old_version, old_text = LAST.get(uri, (0, ""))
    LAST[uri] = (version, doc.source)
    if STALE:
        _publish(ls, uri, old_text, old_version)
        await asyncio.sleep(0.3)
        if LAST[uri][0] != version:
            return
    _publish(ls, uri, doc.source, version)
    if os.environ.get("LATE") == "1":
        await asyncio.sleep(0.1)
        _publish(ls, uri, old_text, old_version)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=True))
def did_save(ls: LanguageServer, params: types.DidSaveTextDocumentParams):
    log({"saved": params.text_document.uri.rsplit("/", 1)[-1], "text": params.text})


if os.environ.get("PULL") == "1":
    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC,
                    types.DiagnosticOptions(inter_file_dependencies=False, workspace_diagnostics=False))
    def pull(ls: LanguageServer, params: types.DocumentDiagnosticParams):
        doc = ls.workspace.get_text_document(params.text_document.uri)
        return types.RelatedFullDocumentDiagnosticReport(items=_diags(doc.source))


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: LanguageServer, params: types.HoverParams):
    doc = ls.workspace.get_text_document(params.text_document.uri)
    line = doc.lines[params.position.line]
    words = [m for m in re.finditer(r"\w+", line) if m.start() <= params.position.character <= m.end()]
    if not words:
        return None
    if words[0].group() == "crash":
        marker = os.environ.get("CRASH_ONCE")
        if not marker or not os.path.exists(marker):
            if marker:
                open(marker, "w").close()
            os._exit(3)
    root = ROOT.get("uri", "").rstrip("/").rsplit("/", 1)[-1]
    text = f"{words[0].group()} @ {root} (cwd {os.path.basename(ROOT.get('cwd', ''))})"
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.PlainText, value=text))


if __name__ == "__main__":
    server.start_io()
