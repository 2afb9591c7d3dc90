"""What the LSP service returns: bounded query results with paths relative to the
execution root, and the diagnostics report a host feeds back to the model after
a write.

Bounds are counts and characters, never a silent cut: a result keeps ``total``
(how many the server sent) beside ``items`` (how many are kept), and every
rendering says how many were left out.
"""

from __future__ import annotations

from typing import Any

from wskit.values import FrozenValue, field

__all__ = [
    "MAX_HOVER_CHARS", "MAX_RESULTS", "MAX_TOOL_TEXT", "QueryResult", "SEVERITY", "WriteDiagnostics",
    "bounded_text", "render_diagnostics"
]

#: Locations or symbols kept from one answer (the rest are counted, not kept).
MAX_RESULTS = 100
#: Characters of hover text kept.
MAX_HOVER_CHARS = 8000
#: Characters of one tool answer (rendered text) given to the model.
MAX_TOOL_TEXT = 32000
#: LSP DiagnosticSeverity -> word.
SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}
_MARK = {1: "✘", 2: "⚠", 3: "ℹ", 4: "★"}


def bounded_text(text: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` characters, else its start and the marker
    ``[… N more characters not shown]``."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[… {len(text) - limit} more characters not shown]"


class QueryResult(FrozenValue):
    """One semantic query's answer.

    :ivar kind: ``definition``, ``references``, ``document_symbols`` or ``workspace_symbols``.
    :ivar items: locations ``{"path", "line", "character", "end_line", "end_character",
        "in_root"}`` (0-based, characters in code points; ``path`` relative to the
        execution root with ``/``, or absolute when ``in_root`` is false) — symbols add
        ``name``, ``kind`` (LSP SymbolKind name, lower case) and ``container``.
    :ivar total: how many the server returned (``len(items)`` unless bounded).
    :ivar server: the server id that answered.
    """

    kind: str
    items: tuple[dict[str, Any], ...]
    total: int
    server: str

    @property
    def truncated(self) -> bool:
        """True when the server returned more than :attr:`items` holds."""
        return self.total > len(self.items)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: ``{"kind", "server", "items", "total", "truncated"}``."""
        return {"kind": self.kind, "server": self.server, "items": [dict(x) for x in self.items],
                "total": self.total, "truncated": self.truncated}

    def render(self) -> str:
        """Text for a model or a terminal: one ``path:line:col`` (1-based) per item."""
        if not self.items:
            return f"No {self.kind.replace('_', ' ')} found"
        lines = []
        for x in self.items:
            where = f"{x['path']}:{x['line'] + 1}:{x['character'] + 1}"
            if "name" in x:
                inside = f" in {x['container']}" if x.get("container") else ""
                lines.append(f"{x['kind']} {x['name']}{inside}  {where}")
            else:
                lines.append(where)
        if self.truncated:
            lines.append(f"[… {self.total - len(self.items)} more of {self.total} not shown]")
        return "\n".join(lines)


def render_diagnostics(path: str, diagnostics: list[dict[str, Any]]) -> str:
    """``diagnostics`` of ``path`` in the block Claude Code gives the model after an edit
    (``<new-diagnostics>…</new-diagnostics>``, one ``✘ [Line L:C] message [code] (source)``
    line each, 1-based); ``""`` when there are none."""
    if not diagnostics:
        return ""
    out = ["<new-diagnostics>The following new diagnostic issues were detected:", "", f"{path}:"]
    for d in diagnostics:
        code = f" [{d['code']}]" if d.get("code") not in (None, "") else ""
        src = f" ({d['source']})" if d.get("source") else ""
        out.append(f"  {_MARK.get(d.get('severity') or 1, '✘')} [Line {d['line'] + 1}:{d['character'] + 1}] "
                   f"{d['message']}{code}{src}")
    out.append("</new-diagnostics>")
    return "\n".join(out)


def _key(d: dict[str, Any]) -> tuple:
    return (d.get("message"), d.get("severity"), d.get("source"), d.get("code"))


class WriteDiagnostics(FrozenValue):
    """The diagnostics of a file after the host wrote it (:meth:`LspService.after_write`).

    :ivar path: the file, relative to the execution root.
    :ivar server: the server id, or None when no server serves the file.
    :ivar version: the document version the diagnostics belong to.
    :ivar current: True when the server published for :attr:`version` within the wait;
        False: nothing is known for the new text (never an older version's result).
    :ivar diagnostics: every diagnostic of :attr:`version` (empty unless current).
    :ivar new: those not present before the write (compared by message, severity,
        source and code, so a line shift does not make an old issue new) — what
        Claude Code tells the model.
    """

    path: str
    server: str | None
    version: int | None
    current: bool
    diagnostics: tuple[dict[str, Any], ...] = ()
    new: tuple[dict[str, Any], ...] = field(default=())

    @staticmethod
    def compare(before: list[dict[str, Any]] | None, after: list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
        """The members of ``after`` not in ``before`` (as a multiset by message, severity, source, code)."""
        left: dict[tuple, int] = {}
        for d in before or ():
            left[_key(d)] = left.get(_key(d), 0) + 1
        out = []
        for d in after:
            k = _key(d)
            if left.get(k):
                left[k] -= 1
            else:
                out.append(d)
        return tuple(out)

    def render(self) -> str:
        """The text to give the model: :func:`render_diagnostics` of :attr:`new`
        (``""`` when nothing new, or nothing current)."""
        return render_diagnostics(self.path, list(self.new)) if self.current else ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form of every field."""
        return {"path": self.path, "server": self.server, "version": self.version, "current": self.current,
                "diagnostics": [dict(d) for d in self.diagnostics], "new": [dict(d) for d in self.new]}
