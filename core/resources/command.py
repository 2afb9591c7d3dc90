"""The custom command resource (Claude Code ``.claude/commands``, Blade §10)."""

from __future__ import annotations

from typing import Any, Literal

from wskit.models import Diagnostic, Resource
from wskit.values import Value, field

__all__ = ["Command", "Expansion"]


class Command(Resource):
    """A markdown custom command.

    :ivar name: the file path below ``commands/`` without ``.md``, folders joined
        by ``:`` (``a/b.md`` -> ``a:b``; Gemini's rule, design §5: no collisions).
    :ivar namespace: the folder part (``a``), or None at the top level.
    :ivar body: the template (text after the frontmatter).
    :ivar body_line: the 1-based line of the file where ``body`` starts (diagnostics
        about the body name file lines: 1 plus the frontmatter's lines).
    :ivar argument_hint, model: as in frontmatter.
    :ivar allowed_tools: raw ``allowed-tools`` selectors (None: absent).
    :ivar disable_model_invocation: hide from the model (default False).
    :ivar arguments: names for ``$name`` substitution (frontmatter ``arguments``).
    :ivar extra: other frontmatter keys, verbatim.
    """

    kind: Literal["command"] = "command"
    namespace: str | None = None
    body: str = ""
    body_line: int = 1
    argument_hint: str | None = None
    model: str | None = None
    allowed_tools: tuple[str, ...] | None = None
    disable_model_invocation: bool = False
    arguments: tuple[str, ...] = ()
    extra: dict[str, Any] = {}


class Expansion(Value):
    """The result of expanding a command (``wskit_expand_command``;
    the markdown expansion is :func:`wskit.builtin_plugins.commands.expand.expand`): the prompt ``text`` and ``diagnostics``
    (refused files, commands not run or failed, output over the cap)."""

    text: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
