"""The two renderers of a :class:`~wskit.builtin_plugins.rules.model.RuleSelection`.

- :func:`render_text` — Blade's tagged block (reference/blade.md §4.10):
  ``<project-instructions>`` for static rules,
  ``<contextual-project-instructions trigger-paths="a,b">`` for contextual
  ones, one ``<instruction-file path=… source=… sha256=…[ conditional="true"]>``
  per file, attributes escaped (``& " < >``), bodies verbatim, files joined by
  a blank line; an empty selection renders as ``""``.
- :func:`render_json` — Sakura's JSON form (reference/holon-sakura.md B1):
  ``{"instructions": [{"path", "scope", "content"}], "diagnostics": [...]}``;
  ``scope`` is the rule's scope folder (``.`` for the project root, ``~`` for
  user-level files); files skipped for budget appear as ``rule-over-budget``
  diagnostics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wskit.builtin_plugins.rules.model import RuleSelection


def escape_attr(value: str) -> str:
    """Escape ``&``, ``"``, ``<`` and ``>`` for an attribute value."""
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def render_text(selection: "RuleSelection", tag: str | None = None) -> str:
    """The tagged text block of ``selection`` (``""`` when it has no files).

    :param tag: wrapper tag (default by kind: ``project-instructions`` or
        ``contextual-project-instructions``).
    """
    if not selection.files:
        return ""
    tag = tag or ("project-instructions" if selection.kind == "static" else "contextual-project-instructions")
    blocks = []
    for r in selection.files:
        attrs = f'path="{escape_attr(r.display_path)}" source="{r.source}" sha256="{r.sha256}"'
        if r.conditional:
            attrs += ' conditional="true"'
        blocks.append(f"<instruction-file {attrs}>\n{r.body}\n</instruction-file>")
    opening = tag
    if selection.kind == "contextual" and selection.trigger_paths:
        opening += f' trigger-paths="{escape_attr(",".join(selection.trigger_paths))}"'
    return f"<{opening}>\n" + "\n\n".join(blocks) + f"\n</{tag}>"


def scope_label(rule) -> str:
    """Sakura's ``scope``: ``~`` for user files, ``.`` for the root, else the folder."""
    if rule.source == "user":
        return "~"
    return rule.scope_dir or "."


def render_json(selection: "RuleSelection", diagnostics: Any = ()) -> dict[str, Any]:
    """The JSON form: ``{"instructions": [{"path", "scope", "content"}], "diagnostics": [...]}``.

    :param diagnostics: extra :class:`~wskit.models.Diagnostic` objects to include.
    """
    diags = [d.to_json() if hasattr(d, "to_json") else d for d in (*selection.diagnostics, *diagnostics)]
    for s in selection.skipped:
        diags.append({"level": "warning", "code": f"rule-{s.reason}", "path": s.rule.display_path, "line": None,
                      "message": f"skipped: {s.detail or s.reason}", "plugin": None})
    return {
        "instructions": [{"path": r.display_path, "scope": scope_label(r), "content": r.body} for r in selection.files],
        "diagnostics": diags,
    }
