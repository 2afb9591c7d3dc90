"""The plugin-author kit: declarations a plugin builds a capability from, built on the
framework below it (resource kinds, safe file access, the ``wsctl`` command framework).

- :mod:`wskit.kit.markdown`: :class:`~wskit.kit.markdown.MarkdownKind`, a markdown
  resource kind with its loader and ``wsctl <plural> list|show`` in one declaration
  (the commands are built by the internal ``wskit.kit.markdown_cli`` when they run).

The kit sits above the CLI it uses: nothing under ``wskit.kinds``, ``wskit.cli`` or the
other core packages imports it.
"""

__all__: list[str] = []
