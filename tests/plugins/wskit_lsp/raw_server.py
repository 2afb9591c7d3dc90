"""A language server written by hand on JSON-RPC, to send what pygls servers never
send: a capability of the wrong shape beside good ones, and a hover answer that is
not a Hover. Used by test_lsp_protocol.py."""

from __future__ import annotations

import json
import sys


def read() -> dict | None:
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))


def send(msg: dict) -> None:
    body = json.dumps(msg).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    sys.stdout.buffer.flush()


CAPS = {
    "textDocumentSync": 1,
    "hoverProvider": True,
    "definitionProvider": True,
    "notebookDocumentSync": {"notebookSelector": [{"cells": [{"language": "python"}]}]},
    "semanticTokensProvider": 42,
}

while (msg := read()) is not None:
    method, mid = msg.get("method"), msg.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {"capabilities": CAPS}})
    elif method == "textDocument/hover":
        send({"jsonrpc": "2.0", "id": mid, "result": {"contents": {"kind": 7, "value": ["bad"]}, "range": "x"}})
    elif method == "textDocument/definition":
        send({"jsonrpc": "2.0", "id": mid, "result": [{"uri": "file:///elsewhere/lib.py",
                                                       "range": {"start": {"line": 3, "character": 4},
                                                                 "end": {"line": 3, "character": 9}}}]})
    elif method == "shutdown":
        send({"jsonrpc": "2.0", "id": mid, "result": None})
    elif method == "exit":
        break
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": f"no {method}"}})
