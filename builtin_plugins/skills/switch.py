"""The ``skills_enabled`` switch (:func:`skills_enabled`) and the skill kind's
filter (:func:`skills_filter`), re-exported by :mod:`wskit.builtin_plugins.skills.runtime`.

A module of their own so that registering the skill kind, which every load does,
does not import the skill runtime."""

from __future__ import annotations

from typing import Any

_TRUE = {"true", "1"}
_FALSE = {"false", "0"}


def skills_enabled(profile: Any) -> bool:
    """The ``skills_enabled`` host setting, read now (Sakura B2 values; invalid -> off)."""
    settings = getattr(profile, "settings", None) or {}
    if "skills_enabled" not in settings:
        return True
    v = settings["skills_enabled"]
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v == 1 if v in (0, 1) else False
    if isinstance(v, str) and v.strip().lower() in _TRUE | _FALSE:
        return v.strip().lower() in _TRUE
    return False


def skills_filter(resources: list[Any], profile: Any) -> tuple[list[Any], list[Any]]:
    """:class:`~wskit.kinds.ResourceKind` filter of skills: nothing when the switch is off."""
    from wskit.models import Diagnostic

    if skills_enabled(profile):
        return resources, []
    return [], [Diagnostic(level="info", code="skills-disabled",
                           message=f"skills_enabled is off: {len(resources)} skill(s) not offered")]
