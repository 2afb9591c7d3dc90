"""Session components: per-session state objects that capabilities attach to a
:class:`~wskit.session.SessionResources` (the ``rules`` built-in's invocation barrier
and delivery bookkeeping is one), registered through ``wskit_session_components``.

A component is made the first time :meth:`SessionResources.component` asks for it and
kept in ``session.components``; its ``to_extension()`` value (if it has one) is what
:meth:`SessionResources.state` records under its name, and its :class:`SessionComponent`
entry says how :func:`wskit.session.resume.restore` checks and resumes that record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from wskit.errors import WskitError
from wskit.values import FrozenValue

if TYPE_CHECKING:  # pragma: no cover
    from wskit.session import SessionResources

__all__ = ["SessionComponent", "UnknownComponentError", "blocked_hint", "component_specs"]


class UnknownComponentError(WskitError, LookupError):
    """No plugin provides the session component asked for (e.g. ``rules`` while the
    ``rules`` built-in is blocked)."""


class SessionComponent(FrozenValue):
    """How a plugin's per-session component is made, recorded and resumed.

    :ivar name: the component's name: its key in ``session.components`` and in
        ``SessionState.extensions``.
    :ivar create: ``create(session) -> component``, called once per session on first use.
    :ivar check_extension: ``check_extension(value)`` raises
        :class:`~wskit.errors.SessionStateError` (its message names what is wrong)
        when a recorded value is malformed; None: any value is kept.
    :ivar resume: ``resume(session, value, policy) -> drift`` restores a recorded value
        into the resumed session and returns drift entries ``{"field", "id", "change", …}``;
        under ``policy == "strict"`` it raises :class:`~wskit.errors.ProvenanceMismatchError`
        on drift. None: the value is carried over unchecked.
    :ivar pinned: ``pinned(session) -> bool``: make the component before a state is
        written even when nothing asked for it yet (the rules component pins the static
        rule digest). None: recorded only once made.
    """

    name: str
    create: Callable[["SessionResources"], Any]
    check_extension: Callable[[Any], None] | None = None
    resume: Callable[["SessionResources", Any, str], list[dict[str, Any]]] | None = None
    pinned: Callable[["SessionResources"], bool] | None = None


def component_specs(hooks: Any) -> dict[str, SessionComponent]:
    """Every registered :class:`SessionComponent` by name (the first plugin naming one wins).

    :param hooks: a :class:`~wskit.plugin.facade.WskitHooks` facade, or None (no plugins:
        no components).
    """
    if hooks is None or not hasattr(hooks.pm.hook, "wskit_session_components"):
        return {}
    found: dict[str, SessionComponent] = {}
    for plugin, value in hooks.call("wskit_session_components").values:
        for spec in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(spec, SessionComponent):
                found.setdefault(spec.name, spec)
            else:  # shown as the plugin's failure by `wsctl plugins`, like a hook that raised
                hooks.pm.hook_failures.setdefault(plugin, []).append(
                    f"wskit_session_components: returned {type(spec).__name__}, expected SessionComponent")
    return found


def blocked_hint(hooks: Any) -> str:
    """``" (blocked plugins: a, b)"`` for an error saying no plugin provides something, or
    ``""`` when no plugin is blocked (``WSKIT_DISABLE_PLUGINS``)."""
    pm = getattr(hooks, "pm", None)
    if pm is None:
        return ""
    blocked = sorted(name for name, plugin in pm.list_name_plugin() if plugin is None)
    return f" (blocked plugins: {', '.join(blocked)})" if blocked else ""
