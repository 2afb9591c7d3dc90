"""The resource of a markdown kind made with :class:`wskit.kit.markdown.MarkdownKind`."""

from __future__ import annotations

from typing import Any

from wskit.models import Resource

__all__ = ["MarkdownResource"]


class MarkdownResource(Resource):
    """One markdown file of a kind read by :meth:`wskit.kit.markdown.MarkdownKind.load_markdown`.

    ``kind`` is the kind's name (one class serves every such kind).

    :ivar name: the file's path below the kind's folder without ``.md``,
        folders joined by ``:`` (``a/b.md`` -> ``a:b``).
    :ivar description: frontmatter ``description``, else the first line of the body.
    :ivar body: the text after the frontmatter (the whole file without one), stripped.
    :ivar extra: the frontmatter keys other than ``description``, verbatim.
    """

    body: str = ""
    extra: dict[str, Any] = {}
