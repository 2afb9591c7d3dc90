"""The output (communication) style resource (reference/blade.md §3)."""

from __future__ import annotations

from typing import Literal

from wskit.models import Provenance, Resource, Scope, sha256_hex

__all__ = ["builtin_style", "Style"]


class Style(Resource):
    """An output style.

    Styles of different sources live in different namespaces, so :attr:`id`
    and :attr:`name` are both the qualified id (``user:<key>``,
    ``project:<key>``, ``plugin:<plugin>:<key>``; a built-in's own id such as
    ``pragmatic``); same ids compete by source rank (``.<host>`` over ``.claude``).

    :ivar key: the path below ``output-styles/`` without ``.md``, folders joined by ``:``.
    :ivar title: frontmatter ``name`` (≤ 80 characters), else the file name without ``.md``, case kept
        (Claude Code's name for it: ``review/Strict.md`` is ``Strict``); a built-in's: its id.
    :ivar prompt: the trimmed body (≤ 16 KiB); empty only for a built-in like ``auto``.
    :ivar content_sha256: hex SHA-256 of ``prompt`` (UTF-8): the digest a session records.
    :ivar keep_coding_instructions: frontmatter ``keep-coding-instructions`` (Claude Code).
    :ivar builtin: contributed by the host through ``wskit_builtin_styles``.
    """

    kind: Literal["style"] = "style"
    key: str
    title: str = ""
    prompt: str = ""
    content_sha256: str
    keep_coding_instructions: bool = False
    builtin: bool = False


def builtin_style(style_id: str, prompt: str, *, title: str | None = None, description: str = "",
                  plugin: str | None = None) -> Style:
    """A built-in style for ``wskit_builtin_styles``: ``builtin_style("pragmatic", "Be brief.")``.

    :param style_id: the id (no ``user:``/``project:``/``plugin:`` prefix).
    :param prompt: the style prompt (``""`` for a no-op style such as ``auto``).
    """
    prompt = prompt.strip()
    digest = sha256_hex(prompt.encode("utf-8"))
    return Style(
        id=style_id, name=style_id, key=style_id, title=title or style_id, description=description,
        prompt=prompt, content_sha256=digest, builtin=True,
        provenance=Provenance(scope=Scope.BUILTIN, source_root="<builtin>", path=style_id, plugin=plugin,
                              sha256=digest),
    )
