"""The client side of the wire: a pygls protocol and cattrs converter that tolerate
what real servers send.

lsprotocol's converter structures every server answer into typed classes. Two
things go wrong with published servers:

- a capability the converter cannot structure (python-lsp-server's
  ``notebookDocumentSync`` selector ``{"cells": [{"language": "python"}]}``:
  lsprotocol registers a hook for ``Union[str, NotebookDocumentFilter]`` but not
  for the ``Optional`` form the ``notebook`` field of
  ``NotebookDocumentFilterWithCells`` uses) made the whole ``initialize``
  answer unreadable; pygls logged a traceback and the request never finished;
- any answer that fails to structure is dropped the same way, so the caller
  waits for its timeout.

:func:`tolerant_converter` registers the missing hook and structures
``ServerCapabilities`` field by field when the whole fails, dropping (and
reporting) only the fields it cannot read. :class:`TolerantProtocol` turns an
answer that still cannot be read into an error response for its request, so
the caller gets an error at once naming the method.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

import attrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol, default_converter

__all__ = ["TolerantProtocol", "tolerant_converter"]

# pygls reports unreadable messages through logging; without a handler Python's
# last-resort handler printed them to the host's stderr. The service reports them itself.
logging.getLogger("pygls").addHandler(logging.NullHandler())

#: JSON-RPC "internal error", used for an answer the client cannot read.
_PARSE_ERROR = -32603


def tolerant_converter(dropped: Callable[[str, str], None] | None = None):
    """A pygls/lsprotocol cattrs converter that reads real servers' capabilities.

    :param dropped: called with ``(capability name, reason)`` for each top-level
        ``ServerCapabilities`` field that could not be read and was left out.
    :returns: a ``cattrs.Converter``.
    """
    conv = default_converter()
    inner = attrs.fields(types.NotebookCellTextDocumentFilter).notebook.type
    optional = attrs.fields(types.NotebookDocumentFilterWithCells).notebook.type
    if optional != inner:
        notebook_hook = conv.get_structure_hook(inner)
        conv.register_structure_hook(optional, lambda obj, _t: None if obj is None else notebook_hook(obj, inner))

    strict = conv.get_structure_hook(types.ServerCapabilities)

    def capabilities(obj: Any, cls: type) -> types.ServerCapabilities:
        try:
            return strict(obj, cls)
        except Exception:  # noqa: BLE001 -- read what can be read, report the rest
            if not isinstance(obj, dict):
                raise
        kept = {}
        for key, value in obj.items():
            try:
                strict({key: value}, cls)
            except Exception as err:  # noqa: BLE001
                if dropped is not None:
                    dropped(key, f"{type(err).__name__}: {err}"[:300])
                continue
            kept[key] = value
        return strict(kept, cls)

    conv.register_structure_hook(types.ServerCapabilities, capabilities)
    return conv


class TolerantProtocol(LanguageServerProtocol):
    """pygls's protocol, except that an answer which cannot be structured fails
    its request with an error response (code -32603, the method named) instead of
    being dropped while the caller waits for its timeout."""

    def structure_message(self, data: dict[str, Any]):
        """Structure one incoming message (see ``JsonRPCProtocol.structure_message``)."""
        answer = isinstance(data, dict) and "jsonrpc" in data and "id" in data and "method" not in data
        method = self._wskit_methods().pop(data["id"], None) if answer else None
        try:
            return super().structure_message(data)
        except JsonRpcException as err:
            if not answer or "error" in data:
                raise
            cause = err.__cause__ or err
            return types.ResponseErrorMessage(
                id=data["id"],
                error=types.ResponseError(code=_PARSE_ERROR, message=(
                    f"cannot read the server's answer to {method or 'a request'}: "
                    f"{type(cause).__name__}: {cause}")[:1000]))

    def _wskit_methods(self) -> dict[Any, str]:
        return self.__dict__.setdefault("_wskit_method_of", {})

    def send_request(self, method, params=None, callback=None, msg_id=None):
        """Send a request, remembering its method so an unreadable answer can name it."""
        if msg_id is None:
            msg_id = str(uuid.uuid4())
        self._wskit_methods()[msg_id] = method
        return super().send_request(method, params, callback, msg_id)
