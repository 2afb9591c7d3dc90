"""``session.hooks``: the plugin-hook facade of a session, plus ``run`` for hook definitions.

A :class:`~wskit.session.SessionResources` keeps the
:class:`~wskit.plugin.facade.WskitHooks` facade it was made with in its
``hooks`` field. :class:`SessionHooks` is that facade (same plugin manager,
every method unchanged) with one more method, :meth:`SessionHooks.run`, so the
call ``session.hooks.run(event, payload)`` runs the session's
configured hooks through its runtime's :class:`~wskit.builtin_plugins.hooks.runner.HookRunner`.
"""

from __future__ import annotations

import weakref
from typing import Any, Literal

from wskit.plugin.facade import WskitHooks


class SessionHooks(WskitHooks):
    """A :class:`WskitHooks` bound to one session.

    :param base: the facade to share the plugin manager with.
    :param session: the session (held weakly).
    """

    def __init__(self, base: WskitHooks, session: Any) -> None:
        super().__init__(base.pm)
        self._session = weakref.ref(session)

    def run(self, event: str, payload: Any = None, *, tool: str | None = None,
            unapproved: Literal["report", "block"] | None = None):
        """Run the session's hooks of ``event``: ``session.runtime.hooks.run(event, payload,
        tool=tool, unapproved=unapproved)``.

        :param unapproved: ``report`` (a guard that did not run is listed in
            ``outcome.skipped``/``outcome.undecided``) or ``block`` (a ``PreToolUse`` with
            such a guard that matches or may match the tool is blocked); None: the runner
            config's (``HookRunnerConfig.unapproved``, default ``report``).
        :returns: a :class:`~wskit.builtin_plugins.hooks.outcome.HookOutcome`.
        :raises ReferenceError: the session no longer exists.
        :raises ValueError: ``event`` is not a hook event (the message lists them).
        """
        session = self._session()
        if session is None:
            raise ReferenceError("the session of this hook facade no longer exists")
        if unapproved is None:
            return session.runtime.hooks.run(event, payload, tool=tool)
        return session.runtime.hooks.run(event, payload, tool=tool, unapproved=unapproved)


def bind(hooks: Any, session: Any) -> Any:
    """``hooks`` bound to ``session`` (a :class:`SessionHooks`), or ``hooks`` itself when it is
    not a :class:`WskitHooks` (e.g. None)."""
    if isinstance(hooks, WskitHooks):
        return SessionHooks(hooks, session)
    return hooks
