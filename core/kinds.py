"""Resource kinds: what a kind is called and how it is loaded from a source."""

# No ``from __future__ import annotations`` here: pydantic would compile and evaluate
# every field's annotation string when the model classes are made, a cost paid at start-up.

from collections.abc import Callable
from typing import Any

from wskit.models import Frozen

__all__ = ["ResourceKind"]


class ResourceKind(Frozen):
    """A resource kind contributed through ``wskit_resource_kinds``.

    :ivar name: singular kind name (``"skill"``, ``"command"``…), used as
        :attr:`wskit.models.Resource.kind` and in ``wsctl inspect`` counts.
    :ivar hook: name of the loader hook called once per source
        (``"wskit_load_skills"``); the hook takes ``source`` and returns a
        :class:`~wskit.models.LoadResult`.
    :ivar loader: alternatively a callable ``loader(source) -> LoadResult``
        (for a plugin that adds a kind without adding a hookspec).
    :ivar default_dir: the folder under a source root that holds this kind.
    :ivar plural: plural used in listings (default ``name + "s"``).
    :ivar filter: optional ``filter(resources, profile) -> (kept, diagnostics)``
        applied to everything loaded for this kind before precedence (skills:
        the ``skills_enabled`` switch; subagents: the host's reserved names).
    """

    name: str
    hook: str | None = None
    loader: Callable[[Any], Any] | None = None
    default_dir: str = ""
    plural: str = ""
    filter: Callable[[list[Any], Any], tuple[list[Any], list[Any]]] | None = None

    @property
    def plural_name(self) -> str:
        return self.plural or f"{self.name}s"
