"""The ``prompt`` kind: reusable prompts, one markdown file each.

A prompt is ``prompts/<name>.md`` in any source folder (the project's
``.example/`` this plugin adds, ``.claude/``, ``~/.claude/``…) or in a content
plugin, whose ``plugin.json`` may name other folders under ``prompts``. The
frontmatter is optional: ``description`` (default: the first line) and
``model``. ``wsctl prompts list`` and ``wsctl prompts show NAME`` show them.
"""

from __future__ import annotations

from wskit.kinds import ResourceKind
from wskit.kit.markdown import MarkdownKind
from wskit.util.deferred import folders_present, idle_unless

__all__ = ["PROMPTS", "wskit_register_commands", "wskit_resource_kinds"]

#: The kind's folders: ``prompts/`` of a source, or what a plugin manifest's ``prompts`` names instead.
PROMPT_FOLDERS = ResourceKind(name="prompt", plural="prompts", default_dir="prompts", manifest_keys=("prompts",))


def _load_markdown(source):
    """The prompts of ``source``, read by the kind's own markdown loader."""
    return PROMPTS.load_markdown(source)


PROMPTS = MarkdownKind(
    PROMPT_FOLDERS,
    # the idle declaration (wskit.util.deferred): a source without a ``prompts`` entry (and
    # not a plugin's, not a link) holds none, and its load reads nothing
    load=idle_unless("wskit_example.prompts:_load_markdown", folders_present(PROMPT_FOLDERS)),
    help="Prompts: .example/prompts, .claude/prompts and plugin prompts.",
    columns=(("ID", lambda p: p.id), ("MODEL", lambda p: p.extra.get("model") or ""),
             ("DESCRIPTION", lambda p: p.description)),   # `list` cuts it, with a final "…"
)

wskit_resource_kinds = PROMPTS.wskit_resource_kinds
wskit_register_commands = PROMPTS.wskit_register_commands
