"""The skill resource (Agent Skills specification, reference/conventions.md §5)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from wskit.models import Resource

__all__ = ["Skill"]


class Skill(Resource):
    """A skill: a folder ``<slug>/`` holding ``SKILL.md``.

    Only metadata is held (progressive disclosure); the body is read at use
    time, so a session snapshot freezes metadata, not bodies.

    :ivar kind: always ``"skill"``.
    :ivar name: the folder name (slug) — the skill's identity (design §5).
    :ivar display_name: the frontmatter ``name`` (may differ: a warning).
    :ivar directory: absolute path of the skill folder.
    :ivar allowed_tools: ``allowed-tools`` as a tuple (``allowed_tools`` wins when both given).
    :ivar argument_hint, model, license, compatibility, when_to_use: as in frontmatter.
    :ivar user_invocable: default True. :ivar disable_model_invocation: default False.
    :ivar arguments: names for ``$name`` substitution.
    :ivar metadata: the ``metadata`` map.
    :ivar extra: other frontmatter keys, kept verbatim.
    :ivar follow_links: files are read following links (user-scope skills, design §5).
    :ivar max_file_bytes: per-file byte limit (admin skills: 524,288), None for no limit.
    """

    kind: Literal["skill"] = "skill"
    display_name: str = ""
    directory: str
    allowed_tools: tuple[str, ...] | None = None
    argument_hint: str | None = None
    user_invocable: bool = True
    disable_model_invocation: bool = False
    model: str | None = None
    license: str | None = None
    compatibility: str | None = None
    when_to_use: str | None = None
    arguments: tuple[str, ...] = ()
    metadata: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    follow_links: bool = False
    max_file_bytes: int | None = None

    @property
    def slug(self) -> str:
        """The folder name (same as :attr:`name`)."""
        return self.name

    @property
    def skill_file(self) -> Path:
        """Absolute path of ``SKILL.md``."""
        return self.provenance.absolute_path
