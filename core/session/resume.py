"""Resume: what the runtime records in ``SessionState.extensions`` and
:func:`restore`, which verifies all of it against the workspace and fails
closed (reference/blade.md §4.11, §6.2, §6.4; design §5 "rule drift on resume").

Extension keys written by the runtime (a public contract, docs/runtime.md):

=======================  ================================================================
key                      value
=======================  ================================================================
``rules``                ``{"static_digest": <64 hex>|null, "delivered": [{"id", "path",
                         "source", "sha256"}]}`` — static rule provenance digest and the
                         contextual rules already delivered (references only)
``output_style``         ``{"id", "sha256"}`` or null — the selected output style
``workflows``            ``[{"skill", "sha256", "allowed_tools": [..]|null}]`` — skill
                         workflow records
``repetition_monitor``   :meth:`RepetitionMonitor.state`
``hook_trust``           ``{"digest": "sha256:<64 hex>"|null}`` — seen at start
=======================  ================================================================

Other capabilities may keep their own keys; :func:`restore` leaves unknown keys alone.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wskit.errors import SessionStateError, WskitError
from wskit.session import STATE_FORMAT, SessionResources, SessionState, snapshot
from wskit.session.monitor import RepetitionMonitor

_HEX64 = re.compile(r"^[0-9a-f]{64}\Z")
_TRUST_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}\Z")
RULE_SOURCES = frozenset({"project", "local", "user", "admin", "builtin", "plugin", "cli"})
#: Drift in these fields makes a ``strict`` restore fail (provenance mismatch).
STRICT_FIELDS = ("rules", "rules.static_digest", "output_style", "workflows")


class ProvenanceMismatchError(WskitError):
    """Recorded rule, style or workflow provenance differs from the workspace (strict policy).

    :ivar drift: the drift entries (see :func:`restore`)."""

    def __init__(self, drift: list[dict[str, Any]]) -> None:
        self.drift = drift
        what = ", ".join(f"{d['field']} {d.get('id') or ''}".strip() + f" ({d['change']})" for d in drift)
        super().__init__(f"session provenance mismatch: {what}")


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


@dataclass
class Restored:
    """The result of :func:`restore`.

    :ivar session: a fresh snapshot of the workspace carrying the recorded session id.
    :ivar state: the verified :class:`~wskit.session.SessionState`.
    :ivar monitor: the restored :class:`RepetitionMonitor`.
    :ivar drift: ``[{"field", "id", "change", ...}]``; change is ``changed``, ``missing`` or ``added``.
    :ivar extensions: the verified extension values (to carry into the next state).
    """

    session: SessionResources
    state: SessionState
    monitor: RepetitionMonitor
    drift: list[dict[str, Any]] = field(default_factory=list)
    extensions: dict[str, Any] = field(default_factory=dict)

    def runtime(self, options: Any = None):
        """Attach a runtime to :attr:`session` that continues the recorded state:
        the monitor (a notice already given is not repeated) and the extensions."""
        from wskit.session.runtime import attach

        rt = attach(self.session, options)
        rt.monitor = self.monitor
        rt.extensions.update({k: v for k, v in self.extensions.items()
                              if k not in ("repetition_monitor", "hook_trust")})
        rt.extensions.update({k: v for k, v in self.state.extensions.items() if k not in self.extensions})
        return rt

    @property
    def ok(self) -> bool:
        return not self.drift

    def to_json(self) -> dict[str, Any]:
        """``wsctl session verify --json``: session_id, ok, drift, monitor, hook_trust_digest."""
        return {"session_id": self.state.session_id, "ok": self.ok, "drift": self.drift,
                "monitor": self.monitor.state(),
                "hook_trust_digest": (self.extensions.get("hook_trust") or {}).get("digest")}


def verify_extensions(ext: dict[str, Any]) -> dict[str, Any]:
    """Check the shape of every runtime key of ``ext`` (see the module table).

    :returns: the normalised values, with defaults for absent keys.
    :raises SessionStateError: naming the first malformed field (``extensions.<key>…``).
    """
    out: dict[str, Any] = {}
    rules = ext.get("rules")
    if rules is not None:
        from wskit.builtin_plugins.rules.session import validate_extension

        try:
            validate_extension(rules)
        except SessionStateError as err:
            raise _bad("extensions.rules", str(err)) from None
    out["rules"] = rules
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


def _compare(session: SessionResources, kind: str, rid: str, sha: str, where: str) -> dict[str, Any] | None:
    res = session.registry(kind).find(rid)
    if res is None:
        return {"field": where, "id": rid, "change": "missing"}
    if res.provenance.sha256 != sha:
        return {"field": where, "id": rid, "change": "changed"}
    return None


def restore(
    state: SessionState | str | bytes,
    workspace: Any,
    *,
    binding: Any = None,
    hook_trust_digest: Callable[[SessionResources], str | None] | None = None,
    static_rules_digest: Callable[[SessionResources], str | None] | None = None,
    policy: str = "strict",
) -> Restored:
    """Restore ``state`` against ``workspace`` (a WorkspaceResources or a SessionResources).

    Verifies: the format version; the source project; the shape of every
    runtime extension (fails closed naming the field); delivered rules, the
    output style and skill workflows against the current registries (``rule``,
    ``style``, ``skill`` kinds) by digest; the static rule digest through the
    callable given (the rule catalog provides it); the hook trust digest
    through the callable given or, when the state recorded one, the digest of
    the trust a runtime would use now (``wskit_hook_trust`` or
    :class:`~wskit.builtin_plugins.hooks.runner.ScopeHookTrust`); the recorded workspace trust
    against the current one (a ``trust`` drift entry with ``recorded`` and
    ``current``); and the recorded resources (:meth:`SessionState.drift`).

    :param binding: the resumed session's binding (default: the recorded
        execution root if it still belongs to the workspace, else the workspace's).
    :param policy: ``strict`` (default) raises on rule/style/workflow drift;
        ``refresh`` only reports it.
    :raises SessionStateError: malformed state (the field named) or a newer format.
    :raises ProvenanceMismatchError: drift under ``strict``.
    """
    if policy not in ("strict", "refresh"):
        raise ValueError(f"policy must be 'strict' or 'refresh', not {policy!r}")
    if not isinstance(state, SessionState):
        state = SessionState.from_json(state)
    elif state.format > STATE_FORMAT:
        raise _bad("format", f"format {state.format} is newer than this wskit understands ({STATE_FORMAT})")
    src = str(workspace.binding.source_root)
    if state.workspace.source_root != src:
        raise _bad("workspace.source_root", f"{state.workspace.source_root} is not this workspace's source project {src}")
    ext = verify_extensions(dict(state.extensions))
    session = dataclasses.replace(snapshot(workspace, binding=binding), session_id=state.session_id,
                                  parent_id=state.parent_id, created_at=state.created_at)
    drift: list[dict[str, Any]] = []
    if ext["rules"] is not None:
        # the rule catalog checks its own provenance: static digest and delivered refs
        from wskit.builtin_plugins.rules.model import RuleProvenanceMismatch

        try:
            resumed = session.rules.resume(ext["rules"], policy)
        except RuleProvenanceMismatch as err:
            raise ProvenanceMismatchError(
                [{"field": "rules", "id": d.get("id"), "path": d.get("path"), "change": d["change"]}
                 for d in err.drift]
            ) from err
        drift.extend({"field": "rules", "id": d.get("id"), "path": d.get("path"), "change": d["change"]}
                     for d in resumed.drift)
    if static_rules_digest is not None and ext["rules"] is not None:
        now = static_rules_digest(session)
        if now != ext["rules"].get("static_digest"):
            drift.append({"field": "rules.static_digest", "id": None, "change": "changed"})
    if ext["output_style"] is not None:
        d = _compare(session, "style", ext["output_style"]["id"], ext["output_style"]["sha256"], "output_style")
        if d:
            drift.append(d)
    for wf in ext["workflows"]:
        d = _compare(session, "skill", wf["skill"], wf["sha256"], "workflows")
        if d:
            drift.append(d)
    if hook_trust_digest is None and "hook_trust" in state.extensions:
        from wskit.session.runtime import SessionRuntime

        def hook_trust_digest(s: SessionResources) -> str | None:
            return SessionRuntime(s).hook_trust_digest  # the trust the runtime would use now

    if hook_trust_digest is not None:
        now = hook_trust_digest(session)
        if now != ext["hook_trust"]["digest"]:
            drift.append({"field": "hook_trust.digest", "id": None, "change": "changed"})
    strict = [d for d in drift if d["field"] in STRICT_FIELDS]
    if strict and policy == "strict":
        raise ProvenanceMismatchError(strict)
    if state.trust != session.trust.state:
        # the trust that decided which project resources loaded; reported like resource
        # drift (newcomer finding: "untrusted" verified clean on a trusted workspace)
        drift.append({"field": "trust", "id": None, "change": "changed",
                      "recorded": state.trust, "current": session.trust.state})
    for d in state.drift(session):
        drift.append({"field": "resources", "id": d["id"], "kind": d["kind"], "change": d["change"]})
    monitor = RepetitionMonitor.from_state(ext["repetition_monitor"])
    return Restored(session=session, state=state, monitor=monitor, drift=drift, extensions=ext)
