"""The read-only ``LSP`` tool a host registers for its model.

Shape as Claude Code's LSP tool: one tool named ``LSP`` with an ``operation``
(``goToDefinition``, ``findReferences``, ``hover``, ``documentSymbol``,
``workspaceSymbol``), a ``filePath`` and 1-based ``line``/``character``. One
difference, written down in docs/compatibility.md: ``workspaceSymbol`` takes a
``query`` (Claude Code's schema has none, so its servers get an empty query).

The tool is offered only while a server runs (or died and will be restarted by
the next call), and its ``filePath`` must have the
extension of a running server (the description names them); ``operation`` lists
only what some running server advertises. Answers are text bounded to
:data:`~wskit_lsp.results.MAX_TOOL_TEXT` characters, with paths relative to
the execution root.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .results import MAX_TOOL_TEXT, bounded_text

if TYPE_CHECKING:  # pragma: no cover
    from .service import LspService

__all__ = ["OPERATIONS", "TOOL_NAME", "call_tool", "tool_definitions"]

TOOL_NAME = "LSP"
#: operation -> the ServerCapabilities field that advertises it.
OPERATIONS = {
    "goToDefinition": "definition_provider",
    "findReferences": "references_provider",
    "hover": "hover_provider",
    "documentSymbol": "document_symbol_provider",
    "workspaceSymbol": "workspace_symbol_provider",
}
_DESCRIBE = {
    "goToDefinition": "where the symbol at the position is defined",
    "findReferences": "every reference to the symbol at the position",
    "hover": "type and documentation of the symbol at the position",
    "documentSymbol": "the symbols (classes, functions, variables) of the file",
    "workspaceSymbol": "symbols matching `query` across the project",
}


def _offered(service: "LspService") -> tuple[dict[str, str], list[str]]:
    langs = service.running_languages()
    ops: list[str] = []
    for op, cap in OPERATIONS.items():
        for sid in set(langs.values()):
            if getattr(service.capabilities(sid), cap, None):
                ops.append(op)
                break
    return langs, ops


def tool_definitions(service: "LspService") -> list[dict[str, Any]]:
    """``[{"name", "description", "input_schema"}]``: the ``LSP`` tool for the servers
    running now (see :meth:`LspService.running_languages`), or ``[]`` when none runs (or
    none advertises a query)."""
    langs, ops = _offered(service)
    if not langs or not ops:
        return []
    exts = ", ".join(sorted(langs))
    desc = ("Ask the project's language server about code (read-only). Works on files with the extensions "
            f"{exts}. Operations: " + "; ".join(f"{op}: {_DESCRIBE[op]}" for op in ops)
            + ". line and character are 1-based, as an editor shows them. Paths in answers are relative "
            "to the project.")
    schema = {
        "type": "object",
        "properties": {
            "operation": {"type": "string", "enum": ops, "description": "The query to run."},
            "filePath": {"type": "string", "description": "The file, absolute or relative to the project."},
            "line": {"type": "integer", "minimum": 1, "description": "1-based line of the symbol."},
            "character": {"type": "integer", "minimum": 1, "description": "1-based column of the symbol."},
            "query": {"type": "string", "maxLength": 256, "description": "Symbol name to search (workspaceSymbol)."},
        },
        "required": ["operation", "filePath"],
        "additionalProperties": False,
    }
    if "workspaceSymbol" not in ops:
        del schema["properties"]["query"]
    return [{"name": TOOL_NAME, "description": desc, "input_schema": schema}]


def _error(text: str) -> dict[str, Any]:
    return {"is_error": True, "text": text}


def call_tool(service: "LspService", name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Run the ``LSP`` tool: ``{"is_error", "text"}``. Bad arguments, a file whose
    language has no running server, or a failed request are errors the model reads,
    never exceptions."""
    from .service import LspError

    if name != TOOL_NAME:
        return _error(f"unknown tool {name!r}")
    if not isinstance(arguments, dict):
        return _error("arguments must be an object")
    langs, ops = _offered(service)
    unknown = sorted(set(arguments) - {"operation", "filePath", "line", "character", "query"})
    if unknown:
        return _error(f"unknown argument {unknown[0]!r}")
    op, path = arguments.get("operation"), arguments.get("filePath")
    if op not in ops:
        return _error(f"operation must be one of {', '.join(ops) or '(none: no language server is running)'}")
    if not isinstance(path, str) or not path:
        return _error("filePath must be a non-empty string")
    from pathlib import Path

    ext = Path(path).suffix.lower()
    if ext not in langs:
        return _error(f"no language server is running for {ext or 'files without an extension'} files "
                      f"(running for: {', '.join(sorted(langs)) or 'none'})")
    needs_position = op in ("goToDefinition", "findReferences", "hover")
    line, character = arguments.get("line"), arguments.get("character")
    if needs_position:
        for key, value in (("line", line), ("character", character)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                return _error(f"{key} must be an integer of at least 1 for {op}")
    query = arguments.get("query", "")
    if not isinstance(query, str) or len(query) > 256:
        return _error("query must be a string of at most 256 characters")
    try:
        if op == "goToDefinition":
            text = service.goto_definition(path, line - 1, character - 1).render()
        elif op == "findReferences":
            text = service.references(path, line - 1, character - 1).render()
        elif op == "hover":
            text = service.hover(path, line - 1, character - 1) or "No hover information"
        elif op == "documentSymbol":
            text = service.document_symbols(path).render()
        else:
            text = service.workspace_symbols(query, path).render()
    except (LspError, OSError) as err:
        return _error(str(err))
    except Exception as err:  # noqa: BLE001 -- a file the safe reader refuses, a bad path
        return _error(f"{type(err).__name__}: {err}")
    return {"is_error": False, "text": bounded_text(text, MAX_TOOL_TEXT)}
