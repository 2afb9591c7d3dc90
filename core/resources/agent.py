"""The subagent resource (Claude Code ``.claude/agents``, Blade §7)."""

from __future__ import annotations

from typing import Any, Literal

from wskit.models import Resource

__all__ = ["Agent"]


class Agent(Resource):
    """A subagent definition: markdown with frontmatter, the body is its system prompt.

    :ivar name: frontmatter ``name`` (native agents); for plugin agents the
        folders below ``agents/`` prefix it with ``:`` (``review/security.md`` ->
        ``review:security``), as Claude Code does.
    :ivar prompt: the system prompt (body, stripped).
    :ivar tools: allowed tools (comma string or list); None inherits every tool.
    :ivar disallowed_tools: ``disallowedTools``/``disallowed-tools``.
    :ivar model: model alias or id; ``inherit`` by default.
    :ivar skills: skills preloaded into the subagent.
    :ivar color, permission_mode, isolation: as in frontmatter.
    :ivar extra: other frontmatter keys, verbatim.
    """

    kind: Literal["agent"] = "agent"
    prompt: str = ""
    tools: tuple[str, ...] | None = None
    disallowed_tools: tuple[str, ...] | None = None
    model: str = "inherit"
    skills: tuple[str, ...] = ()
    color: str | None = None
    permission_mode: str | None = None
    isolation: str | None = None
    extra: dict[str, Any] = {}
