"""A user's ``/name args`` in a framework's prompt, expanded through the session's commands.

Claude Code reads a prompt that starts with ``/`` followed by a command name as that
command: the command's body, with the rest of the line as its arguments
(``$ARGUMENTS``, ``$0``…; docs/commands.md), is what the model gets. Every adapter of
:mod:`wskit.integrations` does the same with :func:`expand_prompt`: the pydantic-ai
capability and the LangChain middleware on the run's user prompt, the OpenAI Agents SDK
through :func:`wskit.integrations.openai_agents.expand_input` (the SDK has no hook that
may rewrite the input).

A prompt that does not start with ``/``, or whose first word names no command of the
session (``/usr/bin is empty``), is left as it is. The expansion never runs a shell embed
(``!`cmd```), and its diagnostics (a refused ``@file``, an embed not run) are for the
host's user, not the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wskit.errors import UnknownResourceError
from wskit.formats.argsubst import WHITESPACE, split_words
from wskit.values import FrozenValue

if TYPE_CHECKING:
    from wskit.models import Diagnostic
    from wskit.session import SessionResources

__all__ = ["PromptExpansion", "expand_prompt"]


class PromptExpansion(FrozenValue):
    """What :func:`expand_prompt` made of a prompt.

    :ivar prompt: what the model gets: the expanded command, or the prompt unchanged.
    :ivar command: the id of the command that expanded it (``project:ship``,
        ``plugin:<p>:<x>``), None when the prompt was left as it is.
    :ivar arguments: the argument text after the command name (``""`` without).
    :ivar diagnostics: the expansion's diagnostics, for the host's user.
    """

    prompt: str
    command: str | None = None
    arguments: str = ""
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def expanded(self) -> bool:
        """True when a command expanded the prompt."""
        return self.command is not None


def _split(prompt: str) -> tuple[str, str] | None:
    """``("name", "args")`` of ``/name args``, or None when the prompt is not a command call."""
    if not prompt.startswith("/"):
        return None
    end = next((i for i, c in enumerate(prompt) if c in WHITESPACE), len(prompt))
    name = prompt[1:end]
    if not name or "/" in name:  # "/" alone, or a path
        return None
    return name, prompt[end:].lstrip(WHITESPACE)


def expand_prompt(session: SessionResources, prompt: str) -> PromptExpansion:
    """``prompt`` with a leading ``/name args`` expanded through the session's command
    ``name`` (bare, qualified or ``plugin:<p>:<x>``: :meth:`SessionResources.expand_command
    <wskit.session.SessionResources.expand_command>`), as Claude Code expands a slash command.

    The arguments are split into words as a POSIX shell would (without running one) and
    passed one per word: ``$ARGUMENTS`` is the words joined by single spaces.

    :param session: the session whose commands apply.
    :param prompt: the user's prompt as typed.
    :returns: a :class:`PromptExpansion`; ``prompt`` unchanged (``command`` None) when it
        does not start with ``/<name>`` or no command of the session has that name.
    :raises AmbiguousNameError: a bare name that several commands answer to (the message
        lists their qualified names; the user picks one).
    """
    parts = _split(prompt)
    if parts is None:
        return PromptExpansion(prompt)
    name, arguments = parts
    try:
        command = session.get("command", name)
    except UnknownResourceError:  # no such command: not a command call
        return PromptExpansion(prompt)
    expansion = session.expand_command(name, split_words(arguments))
    return PromptExpansion(expansion.text, command.id, arguments, tuple(expansion.diagnostics))
