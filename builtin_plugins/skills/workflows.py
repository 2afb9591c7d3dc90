"""Skill workflows: ``allowed-tools`` restrictions of active skills, with resume.

Follows reference/holon-sakura.md B4 and B5:

- :meth:`SkillWorkflows.activate` reads the skill (through
  :class:`~wskit.builtin_plugins.skills.runtime.SkillRuntime`, so the ``skills_enabled`` switch
  applies) and narrows the session's tools to its clauses; a skill without
  ``allowed-tools`` adds no restriction;
- :meth:`SkillWorkflows.end_skill` removes exactly that workflow (it works when
  skills are switched off) and leaves the others; with several workflows
  active, every one must allow a call;
- every activation and end is a versioned record ``{"version": 1, "slug", "id",
  "operation": "activate"|"end", "scope": clauses|null}``; with them goes a
  *ceiling* ``{"version": 1, "active": {slug: clauses}}``. Both live in
  ``SessionState.extensions["skill_workflows"]`` (:meth:`to_extension`);
- :meth:`SkillWorkflows.restore` replays the records: an activation gives
  prior ∩ recorded ∩ *current* metadata; an end removes; a missing, corrupt,
  wrong-version or mismatched record denies everything for that skill (for
  the whole session when even the slug is unreadable); then the ceiling is
  intersected into every slug, and a slug missing on either side is denied;
- :meth:`policy` intersects every active workflow with the current metadata
  again, so editing, relaxing or deleting a skill's metadata, or switching
  skills off, can never widen access.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wskit.builtin_plugins.skills.runtime import SkillContent, SkillRuntime
from wskit.builtin_plugins.skills.tools import Decision, ToolPolicy
from wskit.values import Value, field

EXTENSION_KEY = "skill_workflows"
RECORD_VERSION = 1
#: Pseudo-slug that denies everything when a record cannot even name its skill.
CORRUPT = "<corrupt-record>"

Clause = tuple[str, ...] | None  # None: deny everything


def _clauses_from(value: Any) -> list[Clause] | None:
    """Recorded ``scope`` as clauses; None when malformed."""
    if value is None:
        return []
    if not isinstance(value, list):
        return None
    out: list[Clause] = []
    for c in value:
        if c is None:
            out.append(None)
        elif isinstance(c, list) and all(isinstance(s, str) for s in c):
            out.append(tuple(c))
        else:
            return None
    return out


def _narrow(current: list[Clause], scope: list[Clause]) -> list[Clause]:
    """``current`` with the clauses of ``scope`` it lacks: the policy is their
    intersection, so a clause already there changes nothing, and activating one skill
    again and again keeps its list (and every later check) the same size."""
    return current + [c for i, c in enumerate(scope) if c not in current and c not in scope[:i]]


def _dump(clauses: list[Clause]) -> list[list[str] | None]:
    return [None if c is None else list(c) for c in clauses]


class SkillWorkflows(Value):
    """The active skill workflows of one session.

    :ivar runtime: the :class:`~wskit.builtin_plugins.skills.runtime.SkillRuntime` of the session.
    :ivar active: slug -> accumulated clauses (``None`` clause: deny all).
    :ivar records: the activation/end records, in order.
    """

    runtime: SkillRuntime
    active: dict[str, list[Clause]] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)

    def activate(self, name: str, args: str | list[str] | None = None) -> SkillContent:
        """Load the skill's ``SKILL.md`` and start (or narrow) its workflow.

        :raises wskit.builtin_plugins.skills.runtime.SkillError: as :meth:`SkillRuntime.read`
            (disabled, unknown, rejected content or metadata).
        """
        content = self.runtime.read(name, "SKILL.md", args)
        skill = self.runtime.get(name)
        scope = [tuple(c) for c in content.clauses]
        self.records.append({"version": RECORD_VERSION, "slug": content.slug, "id": skill.id,
                             "operation": "activate", "scope": _dump(scope) if scope else None,
                             "sha256": skill.provenance.sha256, "path": str(skill.provenance.absolute_path)})
        self.active[content.slug] = _narrow(self.active.get(content.slug, []), scope)
        self.ids[content.slug] = skill.id
        return content

    def end_skill(self, slug: str) -> dict[str, Any]:
        """End the workflow of ``slug`` (restores exactly the access from before it).

        Works whether or not skills are enabled; ending an inactive slug is a no-op.

        :returns: ``{"slug", "ended": True}``.
        """
        self.records.append({"version": RECORD_VERSION, "slug": slug, "id": self.ids.get(slug),
                             "operation": "end", "scope": None})
        self.active.pop(slug, None)
        self.ids.pop(slug, None)
        return {"slug": slug, "ended": True}

    def _current(self, slug: str) -> list[Clause]:
        """The clause of the skill's current metadata (deny when gone or disabled)."""
        if slug == CORRUPT or not self.runtime.enabled():
            return [None]
        reg = self.runtime.resources.registry("skill")
        try:
            skill = reg.find(self.ids.get(slug) or slug)
        except Exception:
            skill = None
        if skill is None or skill.name != slug:
            return [None]
        return [] if skill.allowed_tools is None else [tuple(skill.allowed_tools)]

    def policy(self) -> ToolPolicy:
        """The intersection of every active workflow, re-intersected with current metadata."""
        clauses: list[tuple[str, Any]] = []
        for slug, cl in sorted(self.active.items()):
            for c in [*cl, *self._current(slug)]:
                clauses.append((f"skill {slug!r}", c))
        return ToolPolicy.from_clauses(clauses)

    def check(self, tool: str, command: str | None = None) -> Decision:
        """Shorthand for ``policy().check(tool, command)``."""
        return self.policy().check(tool, command)

    def to_extension(self) -> dict[str, Any]:
        """The JSON value stored under ``SessionState.extensions["skill_workflows"]``."""
        return {
            "version": RECORD_VERSION,
            "records": [dict(r) for r in self.records],
            "ceiling": {"version": RECORD_VERSION,
                        "active": {s: _dump(c) for s, c in sorted(self.active.items())}},
        }

    @classmethod
    def restore(cls, runtime: SkillRuntime, extensions: Mapping[str, Any] | None) -> "SkillWorkflows":
        """Rebuild the workflows of a resumed session from ``SessionState.extensions``.

        Never widens access: see the module docstring for the replay rules.
        """
        wf = cls(runtime)
        ext = (extensions or {}).get(EXTENSION_KEY)
        if ext is None:
            return wf
        if not isinstance(ext, dict) or ext.get("version") != RECORD_VERSION or not isinstance(ext.get("records"), list):
            wf.active[CORRUPT] = [None]
            return wf
        for rec in ext["records"]:
            slug = rec.get("slug") if isinstance(rec, dict) else None
            if not isinstance(slug, str) or not slug:
                wf.active[CORRUPT] = [None]
                continue
            wf.records.append(rec)
            op = rec.get("operation")
            scope = _clauses_from(rec.get("scope"))
            if rec.get("version") != RECORD_VERSION or op not in ("activate", "end") or scope is None \
                    or (op == "end" and rec.get("scope") is not None):
                wf.active[slug] = [None]
                continue
            if op == "end":
                wf.active.pop(slug, None)
                wf.ids.pop(slug, None)
                continue
            if isinstance(rec.get("id"), str):
                wf.ids[slug] = rec["id"]
            wf.active[slug] = _narrow(wf.active.get(slug, []), scope + wf._current(slug))
        ceiling = ext.get("ceiling")
        snap = ceiling.get("active") if isinstance(ceiling, dict) and ceiling.get("version") == RECORD_VERSION else None
        if not isinstance(snap, dict):
            for slug in list(wf.active) or [CORRUPT]:
                wf.active[slug] = [None]
            return wf
        for slug in set(wf.active) | set(snap):
            clauses = _clauses_from(snap.get(slug)) if slug in snap else None
            if clauses is None or slug not in wf.active:
                wf.active[slug] = [None]
            else:
                wf.active[slug] = wf.active[slug] + clauses
        return wf
