"""The ``prompt`` kind: reusable prompts, one markdown file each.

A prompt is ``prompts/<name>.md`` in any source folder (the project's
``.example/`` this plugin adds, ``.claude/``, ``~/.claude/``…) or in a content
plugin, whose ``plugin.json`` may name other folders under ``prompts``. The
frontmatter is optional: ``description`` (default: the first line) and
``model``. ``wsctl prompts list`` and ``wsctl prompts show NAME`` show them.
"""

from __future__ import annotations

from wskit.kit.markdown import MarkdownKind

__all__ = ["PROMPTS", "wskit_register_commands", "wskit_resource_kinds"]

PROMPTS = MarkdownKind(
    "prompt",
    help="Prompts: .example/prompts, .claude/prompts and plugin prompts.",
    columns=(("ID", lambda p: p.id), ("MODEL", lambda p: p.extra.get("model") or ""),
             ("DESCRIPTION", lambda p: p.description)),   # `list` cuts it, with a final "…"
)

wskit_resource_kinds = PROMPTS.wskit_resource_kinds
wskit_register_commands = PROMPTS.wskit_register_commands
