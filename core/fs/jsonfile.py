"""Reading small JSON files through safe file access, as diagnostics not exceptions."""

from __future__ import annotations

import json
import os
from typing import Any

from wskit import fs
from wskit.fs import jsonsafe
from wskit.models import Diagnostic

__all__ = ["MAX_JSON_BYTES", "MAX_JSON_DEPTH", "read_json"]


#: Largest JSON configuration file read (bytes): manifests, settings, .mcp.json…
MAX_JSON_BYTES = 1 << 20
#: Deepest nesting of arrays/objects accepted in those files.
MAX_JSON_DEPTH = 64


def read_json(base: str, rel: str, *, plugin: str | None = None, follow_links: bool = False,
              missing_ok: bool = True, max_bytes: int = MAX_JSON_BYTES) -> tuple[Any, list[Diagnostic]]:
    """Read and parse ``base/rel``.

    :returns: ``(data, diagnostics)``; ``data`` is None when the file is absent
        (no diagnostic when ``missing_ok``), refused by safe file access
        (its code), or not JSON (``invalid-json`` with the line; also a number
        Python cannot convert, such as a 5,000-digit integer). Never raises
        for the file's content.
    """
    try:
        res = fs.read_bytes(base, rel, max_bytes=max_bytes, follow_links=follow_links)
    except fs.SafeFsError as err:
        if err.code == "not-found" and missing_ok:
            return None, []
        return None, [err.diagnostic(plugin=plugin)]
    path = os.path.join(base, rel)
    try:
        text = fs.decode_text(res.raw, path)
        jsonsafe.check_depth(text, MAX_JSON_DEPTH, path)  # json.loads recurses: RecursionError on deep files
        return json.loads(text), []
    except fs.SafeFsError as err:
        return None, [err.diagnostic(plugin=plugin)]
    except json.JSONDecodeError as err:
        return None, [Diagnostic(level="error", code="invalid-json", path=path, line=err.lineno,
                                 message=f"invalid JSON: {err.msg} (column {err.colno})", plugin=plugin)]
    except (ValueError, RecursionError) as err:
        # an integer of more than 4,300 digits (Python's int-string limit) raises a
        # plain ValueError: this one file is invalid, not the loader
        return None, [Diagnostic(level="error", code="invalid-json", path=path,
                                 message=f"invalid JSON: {str(err)[:200]}", plugin=plugin)]
