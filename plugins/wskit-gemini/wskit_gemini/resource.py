"""The resource class of the ``gemini_extension`` kind (:mod:`wskit_gemini.kind`),
in a module of its own: the model class is built only where an extension loads."""

from __future__ import annotations

from typing import Literal

from wskit.models import Resource

from .kind import KIND


class GeminiExtension(Resource):
    """A Gemini CLI extension (``gemini-extension.json``).

    :ivar version: manifest ``version`` (may be empty).
    :ivar origin: ``user`` (``~/.gemini/extensions``) or ``project``.
    :ivar context_files: context files, relative to the extension folder.
    :ivar exclude_tools: manifest ``excludeTools``.
    :ivar mcp_servers: names of the MCP servers it declares (ids ``plugin:<ext>:<server>``).
    """

    kind: Literal["gemini_extension"] = KIND
    version: str = ""
    origin: str = "user"
    context_files: tuple[str, ...] = ()
    exclude_tools: tuple[str, ...] = ()
    mcp_servers: tuple[str, ...] = ()
