"""Results and catalog entries bounded in size before the host (and its model) sees them.

Nothing is cut silently: a text over its limit keeps its first bytes and ends with a
marker naming the size and the limit; an image, audio or blob over its limit is
replaced by a text item saying what was left out; once a result's total is spent the
remaining items are replaced by one marker. Every such step is listed in the result's
``projection`` entries (``index``, ``type``, ``bytes``, ``limit``, ``action``).
"""

from __future__ import annotations

import json
from typing import Any

from .options import McpLimits

__all__ = ["MARKER", "bound_text", "project_content", "check_catalog_entry", "tool_full_name"]

#: Every marker starts with this, so a host (or a test) can find them.
MARKER = "[wskit: "


def _utf8_prefix(text: str, limit: int) -> str:
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    return raw[:limit].decode("utf-8", errors="ignore")


def bound_text(text: str, limit: int, what: str) -> tuple[str, int | None]:
    """``text`` if it fits in ``limit`` UTF-8 bytes, else its first bytes and a marker.

    :returns: ``(text, original size or None when unchanged)``.
    """
    size = len(text.encode("utf-8"))
    if size <= limit:
        return text, None
    kept = _utf8_prefix(text, limit)
    return (f"{kept}\n{MARKER}{what} truncated: {size} bytes, limit {limit}; "
            f"the first {len(kept.encode('utf-8'))} bytes are shown]"), size


def _json_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8"))


def project_content(content: list[dict[str, Any]], structured: Any, limits: McpLimits
                    ) -> tuple[list[dict[str, Any]], Any, list[dict[str, Any]]]:
    """Bound a tool result's (or resource's, or prompt's) content items.

    :param content: MCP content items as JSON (``type`` ``text``, ``image``, ``audio``,
        ``resource_link``, ``resource``).
    :param structured: the result's ``structuredContent`` (None when absent).
    :returns: ``(items, structured, projection)``: bounded items, the structured content
        (None with a marker item when over ``max_item_bytes``), the steps taken.
    """
    out: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    budget = limits.max_result_bytes
    for i, item in enumerate(content):
        kind = item.get("type", "?")
        if budget <= 0:
            left = len(content) - i
            steps.append({"index": i, "type": kind, "bytes": None, "limit": limits.max_result_bytes,
                          "action": "omitted"})
            out.append({"type": "text", "text": f"{MARKER}{left} more content item(s) omitted: the result "
                                                f"limit of {limits.max_result_bytes} bytes is spent]"})
            break
        item = dict(item)
        if kind == "text":
            text, size = bound_text(str(item.get("text", "")), min(limits.max_item_bytes, budget), "result text")
            item["text"] = text
            if size is not None:
                steps.append({"index": i, "type": kind, "bytes": size, "limit": min(limits.max_item_bytes, budget),
                              "action": "truncated"})
            budget -= len(text.encode("utf-8"))
        elif kind in ("image", "audio"):
            data = str(item.get("data", ""))
            limit = min(limits.max_binary_bytes, budget)
            if len(data) > limit:
                steps.append({"index": i, "type": kind, "bytes": len(data), "limit": limit, "action": "omitted"})
                item = {"type": "text", "text": f"{MARKER}{kind} ({item.get('mimeType', '?')}) of {len(data)} "
                                                f"base64 bytes omitted: limit {limit}]"}
                budget -= len(item["text"])
            else:
                budget -= len(data)
        elif kind == "resource":
            res = dict(item.get("resource") or {})
            if "text" in res:
                limit = min(limits.max_item_bytes, budget)
                res["text"], size = bound_text(str(res["text"]), limit, f"resource {res.get('uri', '?')} text")
                if size is not None:
                    steps.append({"index": i, "type": kind, "bytes": size, "limit": limit, "action": "truncated"})
                budget -= len(res["text"].encode("utf-8"))
            if "blob" in res:
                limit = min(limits.max_binary_bytes, budget)
                blob = str(res["blob"])
                if len(blob) > limit:
                    steps.append({"index": i, "type": kind, "bytes": len(blob), "limit": limit, "action": "omitted"})
                    res.pop("blob")
                    res["text"] = (f"{MARKER}blob of resource {res.get('uri', '?')} ({len(blob)} base64 bytes) "
                                   f"omitted: limit {limit}]")
                else:
                    budget -= len(blob)
            item["resource"] = res
        else:  # resource_link and anything newer: bounded as JSON
            size = _json_size(item)
            limit = min(limits.max_item_bytes, budget)
            if size > limit:
                steps.append({"index": i, "type": kind, "bytes": size, "limit": limit, "action": "omitted"})
                item = {"type": "text", "text": f"{MARKER}{kind} item of {size} bytes omitted: limit {limit}]"}
            budget -= min(size, limit)
        out.append(item)
    if structured is not None:
        size = _json_size(structured)
        limit = min(limits.max_item_bytes, max(budget, 0))
        if size > limit:
            steps.append({"index": None, "type": "structured", "bytes": size, "limit": limit, "action": "omitted"})
            out.append({"type": "text", "text": f"{MARKER}structured content of {size} bytes omitted: "
                                                f"limit {limit}]"})
            structured = None
    return out, structured, steps


def tool_full_name(server_key: str, tool: str) -> str:
    """``mcp__<server>__<tool>`` as Claude Code spells it (characters outside
    ``[A-Za-z0-9_-]`` in the server key become ``_``)."""
    import re

    return f"mcp__{re.sub(r'[^A-Za-z0-9_-]', '_', server_key)}__{tool}"


def check_catalog_entry(entry: dict[str, Any], limits: McpLimits, full_name: str | None = None
                        ) -> tuple[dict[str, Any] | None, str | None]:
    """Size-check one tool (or prompt, resource) before it can reach a prompt.

    A description over ``max_description_bytes`` is cut with a marker; a schema over
    ``max_schema_bytes`` or a full name over ``max_name_chars`` leaves the entry out.

    :returns: ``(entry or None, problem or None)``.
    """
    if full_name is not None and len(full_name) > limits.max_name_chars:
        return None, f"{full_name[:60]}…: name longer than {limits.max_name_chars} characters; left out"
    for key in ("input_schema", "output_schema"):
        schema = entry.get(key)
        if schema is not None and (size := _json_size(schema)) > limits.max_schema_bytes:
            return None, (f"{entry.get('name')}: {key} of {size} bytes is over the limit of "
                          f"{limits.max_schema_bytes}; left out")
    desc = entry.get("description") or ""
    text, size = bound_text(desc, limits.max_description_bytes, "description")
    problem = None
    if size is not None:
        problem = f"{entry.get('name')}: description of {size} bytes cut to {limits.max_description_bytes}"
    return {**entry, "description": text}, problem
