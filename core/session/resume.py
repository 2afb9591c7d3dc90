"""Resume: what the runtime records in ``SessionState.extensions`` and
:func:`restore`, which verifies all of it against the workspace and fails
closed (reference/blade.md §4.11, §6.2, §6.4; design §5 "rule drift on resume").

Extension keys written by the runtime (a public contract, docs/runtime.md):

=======================  ================================================================
key                      value
=======================  ================================================================
``rules``                ``{"static_digest": <64 hex>|null, "delivered": [{"id", "path",
                         "source", "sha256"}], "omitted": [id]}`` — static rule provenance
                         digest, the contextual rules already delivered (references only)
                         and the static rules the prompt left out (still owed); written,
                         checked and resumed by the ``rules`` built-in's session component
``output_style``         ``{"id", "sha256"}`` or null — the selected output style
``workflows``            ``[{"skill", "sha256", "allowed_tools": [..]|null}]`` — skill
                         workflow records
``repetition_monitor``   :meth:`RepetitionMonitor.state`
``hook_trust``           ``{"digest": "sha256:<64 hex>"|null}`` — seen at start
=======================  ================================================================

Other capabilities keep their own keys through session components
(:mod:`wskit.session.components`); :func:`restore` leaves keys no component claims alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from wskit.errors import ProvenanceMismatchError
from wskit.session import STATE_FORMAT, SessionResources, SessionState, snapshot
from wskit.session.components import component_specs
from wskit.session.extensions import STRICT_FIELDS, _bad, verify_extensions
from wskit.session.monitor import RepetitionMonitor
from wskit.values import Value, field

if TYPE_CHECKING:  # pragma: no cover
    from wskit.binding import Binding
    from wskit.workspace import WorkspaceResources

__all__ = ["ProvenanceMismatchError", "Restored", "restore", "verify_extensions"]


class Restored(Value):
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

#: extension keys this module checks itself
_CORE_KEYS = frozenset({"output_style", "workflows", "repetition_monitor", "hook_trust"})


def _compare(session: SessionResources, kind: str, rid: str, sha: str, where: str) -> dict[str, Any] | None:
    res = session.registry(kind).find(rid)
    if res is None:
        return {"field": where, "id": rid, "path": None, "change": "missing"}
    if res.content_digest() != sha:
        return {"field": where, "id": rid, "change": "changed", "path": str(res.provenance.absolute_path)}
    return None


def _compare_builtin_style(session: SessionResources, sid: str, sha: str) -> Any:
    """A built-in style (``wskit_builtin_styles``; never in the ``style`` registry):
    ``"same"``, a ``changed`` drift entry, or None when no built-in has the id."""
    hooks = session.hooks
    if hooks is None or not hasattr(hooks, "builtin_styles"):
        return None
    styles, _ = hooks.builtin_styles()
    for style in styles:
        if style.id == sid:
            return "same" if style.content_digest() == sha else {"field": "output_style", "id": sid,
                                                                  "change": "changed"}
    return None


def restore(
    state: SessionState | str | bytes,
    workspace: "WorkspaceResources | SessionResources",
    *,
    binding: "Binding | None" = None,
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
    :class:`~wskit.builtin_plugins.hooks.runner.ScopeHookTrust`); the recorded host
    against the workspace's host profile (a ``host`` drift entry with ``recorded`` and
    ``current``: load the workspace under ``state.workspace.host`` to compare like for
    like); the recorded workspace trust against the current one (a ``trust`` drift entry
    with ``recorded`` and ``current``); and the recorded resources (:meth:`SessionState.drift`).

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
    specs = component_specs(workspace.hooks)
    ext = verify_extensions(dict(state.extensions), specs)
    session = snapshot(workspace, binding=binding).copy_with(session_id=state.session_id,
                                  parent_id=state.parent_id, created_at=state.created_at)
    drift: list[dict[str, Any]] = []
    for name, spec in sorted(specs.items()):
        # each component checks its own provenance (the rules: static digest, delivered refs)
        if ext.get(name) is not None and spec.resume is not None:
            drift.extend(spec.resume(session, ext[name], policy))
    for name in sorted(set(STRICT_FIELDS) & set(state.extensions) - set(specs) - _CORE_KEYS):
        # a record no plugin can check (its plugin is blocked) is not taken on trust
        drift.append({"field": name, "id": None, "change": "unverified"})
    if static_rules_digest is not None and ext.get("rules") is not None:
        now = static_rules_digest(session)
        if now != ext["rules"].get("static_digest"):
            drift.append({"field": "rules.static_digest", "id": None, "change": "changed"})
    if ext["output_style"] is not None:
        d = _compare(session, "style", ext["output_style"]["id"], ext["output_style"]["sha256"], "output_style")
        if d is not None and d["change"] == "missing":
            d = _compare_builtin_style(session, ext["output_style"]["id"], ext["output_style"]["sha256"]) or d
            d = None if d == "same" else d
        if d:
            drift.append(d)
    for wf in ext["workflows"]:
        d = _compare(session, "skill", wf["skill"], wf["sha256"], "workflows")
        if d:
            drift.append(d)
    if hook_trust_digest is None and "hook_trust" in state.extensions:
        from wskit.session.runtime import SessionRuntime  # the runtime imports this module's callers only

        def hook_trust_digest(s: SessionResources) -> str | None:
            return SessionRuntime(s).hook_trust_digest  # the trust the runtime would use now

    if hook_trust_digest is not None:
        now = hook_trust_digest(session)
        if now != ext["hook_trust"]["digest"]:
            drift.append({"field": "hook_trust.digest", "id": None, "change": "changed"})
    strict = [d for d in drift if d["field"] in STRICT_FIELDS]
    if strict and policy == "strict":
        raise ProvenanceMismatchError(strict)
    if state.workspace.host != session.host:
        # the host decides which files are resources (CLAUDE.md or AGENTS.md, .claude/ or
        # .gemini/): compared under another host, the rest of the drift is not like for like
        drift.insert(0, {"field": "host", "id": None, "change": "changed",
                         "recorded": state.workspace.host, "current": session.host})
    if state.trust != session.trust.state:
        # the trust that decided which project resources loaded; reported like resource
        # drift (otherwise a state recorded "untrusted" verifies clean on a trusted workspace)
        drift.append({"field": "trust", "id": None, "change": "changed",
                      "recorded": state.trust, "current": session.trust.state})
    for d in state.drift(session):
        drift.append({"field": "resources", "id": d["id"], "kind": d["kind"], "change": d["change"],
                      "path": d["path"]})
    monitor = RepetitionMonitor.from_state(ext["repetition_monitor"])
    return Restored(session=session, state=state, monitor=monitor, drift=drift, extensions=ext)
