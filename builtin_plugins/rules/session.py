"""Session integration of the rule catalog: path mapping, the invocation barrier,
delivery bookkeeping, provenance and resume (reference/blade.md §6, holon-sakura.md B1).

One :class:`SessionRules` belongs to one :class:`~wskit.session.SessionResources`
(``session.rules``); it is the session's only mutable rule state.

- Paths given in the execution root (a worktree) are mapped to the source
  project with :meth:`Binding.to_source` before matching; paths outside both
  are dropped (Blade §6.3).
- :meth:`check_invocation` returns :class:`Proceed` or :class:`RulesRequired`.
  Policy ``writes`` (default, Blade): only write-kind tools (``write``,
  ``edit``, ``delete``, ``shell``, ``execute``) are held back until the new
  rules are delivered; a read proceeds and carries the rules to deliver with
  its result. Policy ``batch`` (Sakura): any call with undelivered rules is
  held back; :meth:`check_batch` holds back the whole batch.
- A ``shell`` call without paths uses :meth:`RuleCatalog.shell_rules`.
- The static rules count as delivered from the start (they are in the system prompt),
  except those the host's prompt left out (:meth:`SessionRules.mark_omitted`, which
  ``wskit.session.prompt.static_rules`` calls for what its budget cut): an omitted
  rule is undelivered, so the barrier (this component) offers it again with the first
  call touching a file in its scope, as a contextual rule, until the host delivers it
  and calls :meth:`SessionRules.mark_delivered`. Re-offering is the barrier's job;
  delivering what it returns is the host's.
- :meth:`to_extension` is what :meth:`SessionResources.state` stores under
  ``extensions["rules"]``: the static provenance digest and references (id,
  path, source, sha256), never bodies, and the ids of the ``omitted`` static rules;
  :meth:`resume` checks and rebuilds them (a resumed session still owes the omitted ones).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from wskit.builtin_plugins.rules.catalog import RuleCatalog
from wskit.builtin_plugins.rules.model import RuleFile, RuleProvenanceMismatch, RuleSelection
from wskit.builtin_plugins.rules.tracker import ScopeTracker
from wskit.errors import SessionStateError
from wskit.models import ToolKind
from wskit.values import FrozenValue, Value, field

InvocationPolicy = Literal["writes", "batch"]
#: The kinds the ``writes`` policy holds back (:attr:`wskit.models.ToolKind.is_write`).
WRITE_KINDS = frozenset(k for k in ToolKind if k.is_write)
_HEX64 = re.compile(r"^[0-9a-f]{64}\Z")


class Proceed(FrozenValue):
    """The call may run. ``rules``: newly applicable rules to deliver with its result (may be empty)."""

    rules: RuleSelection
    proceed: bool = True


class RulesRequired(FrozenValue):
    """The call must not run yet: deliver ``rules`` (then :meth:`SessionRules.mark_delivered`) and retry.

    Blade's message: "Applicable project instructions were loaded before this
    write. Review the newly supplied rules, then retry the write."
    """

    rules: RuleSelection
    tool_name: str = ""
    proceed: bool = False
    message: str = ("Applicable project instructions were loaded before this call. "
                    "Review the newly supplied rules, then retry.")


class ResumeResult(Value):
    """What :meth:`SessionRules.resume` rebuilt: static and delivered rules, and every drift found."""

    static: RuleSelection
    contextual: RuleSelection
    drift: list[dict[str, Any]] = field(default_factory=list)


class SessionRules:
    """The rule state of one session.

    :param catalog: the session's (frozen) :class:`RuleCatalog`.
    :param binding: the session's :class:`~wskit.binding.Binding`.
    :param policy: ``writes`` (default) or ``batch``.
    :param static_budget: byte budget of the static rules (default: the catalog settings').
    :param contextual_budget: byte budget of each contextual answer (default: the settings').
    :raises ValueError: for an unknown policy.
    """

    def __init__(self, catalog: RuleCatalog, binding, *, policy: InvocationPolicy = "writes",
                 static_budget: int | None = None, contextual_budget: int | None = None) -> None:
        if policy not in ("writes", "batch"):
            raise ValueError(f"unknown invocation policy {policy!r}; use 'writes' or 'batch'")
        self.catalog = catalog
        self.binding = binding
        self.policy: InvocationPolicy = policy
        self.static_budget = static_budget if static_budget is not None else catalog.settings.static_budget
        self.contextual_budget = (contextual_budget if contextual_budget is not None
                                  else catalog.settings.contextual_budget)
        self._lock = threading.RLock()
        #: rules delivered by the host (contextual answers, resumed references); the static
        #: rules count as delivered besides, less those in _omitted
        self._delivered: dict[str, dict[str, Any]] = {}
        #: static rules the host's prompt left out, by id: undelivered until delivered explicitly
        self._omitted: dict[str, RuleFile] = {}
        self._static: RuleSelection | None = None
        self._tracker: ScopeTracker | None = None

    # -- paths -------------------------------------------------------------

    @property
    def cwd(self) -> str:
        """The session's working folder, mapped to the source project (the catalog
        root when it lies outside, e.g. a binding for another checkout)."""
        cwd = str(self.binding.to_source(self.binding.cwd))
        return cwd if self.catalog.relative(cwd) is not None else self.catalog.root

    def map_paths(self, paths: Iterable[str | os.PathLike[str]]) -> list[str]:
        """Tool paths (relative to the session cwd, or absolute, in the execution
        root or the source project) mapped into the source project; others dropped."""
        out = []
        for p in paths:
            mapped = str(self.binding.to_source(os.fspath(p)))
            if self.catalog.relative(mapped) is not None:
                out.append(mapped)
        return out

    # -- queries -------------------------------------------------------------

    def static(self) -> RuleSelection:
        """The static rules of the session cwd (computed once; they count as delivered
        unless :meth:`mark_omitted` says the prompt left them out)."""
        with self._lock:
            if self._static is None:
                self._static = self.catalog.static_rules(self.cwd, self.static_budget)
            return self._static

    @property
    def delivered_ids(self) -> frozenset[str]:
        """Ids of every rule the model has seen (static ones included, omitted ones not)."""
        static = self.static()
        with self._lock:
            return frozenset(self._delivered).union(i for i in static.ids if i not in self._omitted)

    @property
    def omitted_ids(self) -> frozenset[str]:
        """Ids of the static rules the prompt left out and nobody delivered since."""
        with self._lock:
            return frozenset(self._omitted)

    def mark_omitted(self, refs: RuleSelection | Iterable[RuleFile | dict[str, Any] | str]) -> None:
        """Record static rules the host left out of what the model saw (a prompt budget
        cut them; ``prompt.static_rules`` calls this with its ``omitted`` items).

        They count as undelivered from now on: :meth:`rules_for` and
        :meth:`check_invocation` offer each with the first call touching a file it
        applies to (a ``shell`` call without paths: at once), :meth:`to_extension`
        lists them, and :meth:`mark_delivered` clears the mark. A rule the host already
        delivered through the barrier stays delivered.

        :param refs: a selection, rule files, ref mappings (``{"id": …}``, as
            ``PromptPart.omitted`` holds them) or ids.
        :raises ValueError: an id that is not a static rule of this session (only static
            rules count as delivered unasked; a contextual rule the host did not show is
            simply never marked delivered).
        """
        items = refs.files if isinstance(refs, RuleSelection) else refs
        static = {r.id: r for r in self.static().files}
        ids = [item.id if isinstance(item, RuleFile) else str(item.get("id")) if isinstance(item, dict)
               else str(item) for item in items]
        unknown = [i for i in ids if i not in static]
        if unknown:
            raise ValueError(f"not static rules of this session, so not delivered unasked: {', '.join(unknown)}")
        with self._lock:
            for i in ids:
                if i not in self._delivered:
                    self._omitted[i] = static[i]

    def _owed(self, paths: list[str], kind: ToolKind) -> list[RuleFile]:
        """Omitted static rules that apply to one of ``paths`` (source-project paths;
        a shell call without paths: all of them)."""
        with self._lock:
            owed = list(self._omitted.values())
        if not owed or (kind is ToolKind.SHELL and not paths):
            return owed
        rels = [r for r in (self.catalog.relative(p) for p in paths) if r is not None]
        return [r for r in owed if any(self.catalog.applies(r, rel) for rel in rels)]

    def rules_for(self, paths: Iterable[str | os.PathLike[str]] = (), tool_kind: ToolKind | str = ToolKind.READ
                  ) -> RuleSelection:
        """Undelivered rules a call touching ``paths`` needs (a ``shell`` call without paths: every rule).

        :raises ValueError: ``tool_kind`` is not a :class:`~wskit.models.ToolKind` nor one's value.
        """
        kind = ToolKind.coerce(tool_kind)
        paths = list(paths)
        loaded = self.delivered_ids
        if kind is ToolKind.SHELL and not paths:
            sel = self.catalog.shell_rules(self.cwd, loaded, self.contextual_budget)
            owed = self._owed([], kind)
        else:
            mapped = self.map_paths(paths)
            sel = self.catalog.contextual_rules(self.cwd, mapped, loaded, self.contextual_budget)
            owed = self._owed(mapped, kind)
        if not owed:
            return sel
        # omitted static rules join the answer, under the same byte budget (whole files)
        from wskit.builtin_plugins.rules.scopes import apply_budget

        skipped_ids = {k.rule.id for k in sel.skipped}
        kept, skipped = apply_budget(self.catalog.order([*sel.files, *(r for r in owed if r.id not in skipped_ids)]),
                                     self.contextual_budget)
        return RuleSelection("contextual", tuple(kept), (*sel.skipped, *skipped), sel.trigger_paths,
                             self.contextual_budget, sel.diagnostics)

    def check_invocation(self, tool_name: str, tool_kind: ToolKind | str,
                         paths: Iterable[str | os.PathLike[str]] = ()) -> Proceed | RulesRequired:
        """Decide whether a tool call may run before new rules are delivered.

        :param tool_name: the tool (for messages).
        :param tool_kind: a :class:`~wskit.models.ToolKind` or its value
            (``read``, ``write``, ``edit``, ``delete``, ``shell``, ``execute``).
        :param paths: the paths the call touches (execution-root or source paths).
        :raises ValueError: an unknown ``tool_kind``: a typo must never turn a
            write into "not a write" and switch the barrier off.
        """
        kind = ToolKind.coerce(tool_kind)
        sel = self.rules_for(paths, kind)
        if sel.files and (self.policy == "batch" or kind.is_write):
            return RulesRequired(sel, tool_name)
        return Proceed(sel)

    def check_batch(self, calls: Sequence[tuple[str, str, Iterable[str]]]) -> list[Proceed | RulesRequired]:
        """Check a batch of ``(tool_name, tool_kind, paths)`` calls.

        Under ``batch`` any undelivered rule holds back *every* call, each
        carrying the union of the rules; under ``writes`` each call is checked alone.
        """
        if self.policy == "writes":
            return [self.check_invocation(*c) for c in calls]
        kinds = [ToolKind.coerce(kind) for _name, kind, _paths in calls]  # all checked before any is decided
        sels = [self.rules_for(paths, kind) for (_name, _k, paths), kind in zip(calls, kinds)]
        union = self.catalog.order(r for s in sels for r in s.files)
        if not union:
            return [Proceed(s) for s in sels]
        trig = tuple(sorted({t for s in sels for t in s.trigger_paths}))
        merged = RuleSelection("contextual", tuple(union), tuple(k for s in sels for k in s.skipped), trig,
                               self.contextual_budget)
        return [RulesRequired(merged, name) for name, _k, _p in calls]

    def mark_delivered(self, refs: RuleSelection | Iterable[RuleFile | dict[str, Any] | str]) -> None:
        """Record rules as delivered: a selection, rule files, ref mappings or ids."""
        items = refs.files if isinstance(refs, RuleSelection) else refs
        self.static()
        with self._lock:
            for item in items:
                if isinstance(item, RuleFile):
                    rid, ref = item.id, item.rule_ref()
                elif isinstance(item, dict):
                    rule = self.catalog.get(item.get("id", ""))
                    rid, ref = item["id"], rule.rule_ref() if rule else dict(item)
                else:
                    rule = self.catalog.get(str(item))
                    rid, ref = str(item), rule.rule_ref() if rule else {"id": str(item)}
                self._delivered[rid] = ref
                self._omitted.pop(rid, None)

    @property
    def tracker(self) -> ScopeTracker:
        """The Sakura :class:`ScopeTracker` of this session (paths mapped to the source project)."""
        with self._lock:
            if self._tracker is None:
                self._tracker = ScopeTracker(self.catalog, self.binding.to_source)
            return self._tracker

    # -- provenance ------------------------------------------------------------

    def to_extension(self) -> dict[str, Any]:
        """``{"static_digest", "static": [ref], "delivered": [ref], "omitted": [id], "policy"}``:
        refs only, never bodies. ``omitted``: static rules the prompt left out that are
        still owed (present only when there are some)."""
        static = self.static()
        sids = set(static.ids)
        with self._lock:
            delivered = [ref for rid, ref in self._delivered.items() if rid not in sids]
            omitted = sorted(self._omitted)
        out = {"static_digest": static.provenance_sha256, "static": static.refs(), "delivered": delivered,
               "policy": self.policy}
        if omitted:
            out["omitted"] = omitted
        return out

    def hydrate(self, refs: Iterable[dict[str, Any]], policy: str = "strict") -> tuple[RuleSelection, list[dict]]:
        """Rebuild persisted references from this session's catalog (see :meth:`RuleCatalog.hydrate`)."""
        return self.catalog.hydrate(refs, policy)  # type: ignore[arg-type]

    def resume(self, extension: dict[str, Any] | None, policy: str = "strict") -> ResumeResult:
        """Check and restore what a previous session persisted (``SessionState.extensions["rules"]``).

        The static digest must match the current static rules; delivered
        references are hydrated and marked delivered.

        :param policy: ``strict`` (default): any drift raises; ``refresh``: the
            current content is used and the drift reported.
        :raises RuleProvenanceMismatch: under ``strict`` when anything drifted.
        :raises SessionStateError: when the extension is malformed.
        """
        static = self.static()
        if not extension:
            return ResumeResult(static, RuleSelection("contextual"))
        _validate(extension)
        drift: list[dict[str, Any]] = []
        if extension["static_digest"] != static.provenance_sha256:
            drift = self.catalog.drift(extension.get("static", []))
            old = {r["id"] for r in extension.get("static", [])}
            drift += [{"id": r.id, "path": r.path, "source": r.source, "change": "added"}
                      for r in static.files if r.id not in old]
            drift = drift or [{"id": None, "path": "(static rules)", "source": None, "change": "changed"}]
            if policy == "strict":
                raise RuleProvenanceMismatch(drift, "instruction")
        sel, more = self.catalog.hydrate(extension.get("delivered", []), policy)  # type: ignore[arg-type]
        self.mark_delivered(sel)
        owed = [i for i in extension.get("omitted", []) if i in set(static.ids)]
        if owed:
            self.mark_omitted(owed)  # still owed after the resume: the barrier offers them again
        return ResumeResult(static, sel, drift + more)


def validate_extension(ext: dict[str, Any]) -> None:
    """Check the shape of ``SessionState.extensions["rules"]`` (as written by
    :meth:`SessionRules.to_extension`).

    :raises SessionStateError: naming what is malformed.
    """
    _validate(ext)


def _validate(ext: dict[str, Any]) -> None:
    if not isinstance(ext, dict) or not isinstance(ext.get("static_digest"), str) or not _HEX64.match(ext["static_digest"]):
        raise SessionStateError("invalid session rule state: 'static_digest' must be 64 lowercase hex digits")
    omitted = ext.get("omitted", [])
    if not isinstance(omitted, list) or not all(isinstance(i, str) for i in omitted):
        raise SessionStateError("invalid session rule state: 'omitted' must be a list of rule ids")
    for key in ("static", "delivered"):
        items = ext.get(key, [])
        if not isinstance(items, list):
            raise SessionStateError(f"invalid session rule state: {key!r} must be a list")
        for ref in items:
            if not (isinstance(ref, dict) and isinstance(ref.get("id"), str) and isinstance(ref.get("path"), str)
                    and ref.get("source") in ("user", "project", "local")
                    and isinstance(ref.get("sha256"), str) and _HEX64.match(ref["sha256"])):
                raise SessionStateError(f"invalid session rule reference in {key!r}: {ref!r}")
