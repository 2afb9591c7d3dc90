"""The runtime records a session state carries in ``SessionState.extensions``: their
shapes, checked before a state is written and when one is restored (fail closed,
naming the field). The table of keys is in :mod:`wskit.session.resume`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from wskit.errors import SessionStateError
from wskit.session.monitor import RepetitionMonitor

if TYPE_CHECKING:  # pragma: no cover
    from wskit.session.components import SessionComponent


_HEX64 = re.compile(r"^[0-9a-f]{64}\Z")
_TRUST_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}\Z")
RULE_SOURCES = frozenset({"project", "local", "user", "admin", "builtin", "plugin", "cli"})
#: Drift in these fields makes a ``strict`` restore fail (provenance mismatch).
STRICT_FIELDS = ("rules", "rules.static_digest", "output_style", "workflows", "skill_workflows")


def _bad(where: str, why: str) -> SessionStateError:
    return SessionStateError(f"session state field {where!r}: {why}")


def _hex(value: Any, where: str, *, null: bool = False) -> str | None:
    if value is None and null:
        return None
    if not isinstance(value, str) or not _HEX64.match(value):
        raise _bad(where, "must be 64 lowercase hex digits" + (" or null" if null else ""))
    return value


def _obj(value: Any, where: str, keys: set[str], required: set[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _bad(where, "must be an object")
    for k in sorted(set(value) - keys):
        raise _bad(f"{where}.{k}", "unknown field")
    for k in sorted(required - set(value)):
        raise _bad(f"{where}.{k}", "missing")
    return value


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise _bad(where, "must be a non-empty string")
    return value


def verify_extensions(ext: dict[str, Any], components: Mapping[str, SessionComponent] | None = None
                      ) -> dict[str, Any]:
    """Check the shape of every runtime key of ``ext`` (see the table of
    :mod:`wskit.session.resume`) and of every registered component's record.

    :param components: the session's :class:`~wskit.session.components.SessionComponent`
        entries by name (:func:`~wskit.session.components.component_specs`); each one's
        ``check_extension`` checks the value recorded under its name.
    :returns: the normalised values, with defaults for absent keys; a component's
        record is kept under its name (None when absent).
    :raises SessionStateError: naming the first malformed field (``extensions.<key>…``).
    """
    out: dict[str, Any] = {}
    for name, spec in sorted((components or {}).items()):
        value = ext.get(name)
        if value is not None and spec.check_extension is not None:
            try:
                spec.check_extension(value)
            except SessionStateError as err:
                raise _bad(f"extensions.{name}", str(err)) from None
        out[name] = value
    style = ext.get("output_style")
    if style is not None:
        _obj(style, "extensions.output_style", {"id", "sha256"}, {"id", "sha256"})
        _str(style["id"], "extensions.output_style.id")
        _hex(style["sha256"], "extensions.output_style.sha256")
    out["output_style"] = style
    wfs = ext.get("workflows", [])
    if not isinstance(wfs, list):
        raise _bad("extensions.workflows", "must be an array")
    for i, wf in enumerate(wfs):
        w = f"extensions.workflows[{i}]"
        _obj(wf, w, {"skill", "sha256", "allowed_tools"}, {"skill", "sha256"})
        _str(wf["skill"], f"{w}.skill")
        _hex(wf["sha256"], f"{w}.sha256")
        tools = wf.get("allowed_tools")
        if tools is not None and (not isinstance(tools, list) or not all(isinstance(t, str) for t in tools)):
            raise _bad(f"{w}.allowed_tools", "must be null or an array of strings")
    out["workflows"] = [dict(w) for w in wfs]
    mon = ext.get("repetition_monitor")
    out["repetition_monitor"] = (RepetitionMonitor.from_state(mon) if mon is not None else RepetitionMonitor()).state()
    ht = ext.get("hook_trust", {"digest": None})
    _obj(ht, "extensions.hook_trust", {"digest"}, {"digest"})
    if ht["digest"] is not None and (not isinstance(ht["digest"], str) or not _TRUST_DIGEST.match(ht["digest"])):
        raise _bad("extensions.hook_trust.digest", "must be null or 'sha256:' and 64 lowercase hex digits")
    out["hook_trust"] = {"digest": ht["digest"]}
    return out
