"""One-target query plans of the rule catalog.

A contextual query for one target walks the target's ancestor folders and tests
the rules of each scope found there. What it must test depends only on the
target's folder and the query's cwd, so :class:`~wskit.builtin_plugins.rules.catalog.RuleCatalog`
keeps, per ``(cwd, folder)``, a *plan*: the candidate rules in definition order,
with what can be decided from the folder alone decided once. The catalog never
changes, so a plan never goes stale; at most :data:`PLANS_MAX` are kept per
catalog (the oldest is dropped first).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from wskit.builtin_plugins.rules.model import RuleSelection
from wskit.util.lazyre import lazy_pattern

if TYPE_CHECKING:
    from wskit.builtin_plugins.rules.patterns import PathMatcher
    from wskit.resources.rule import RuleFile


#: at most this many one-target plans per catalog (the oldest goes first)
PLANS_MAX = 4096

_new = object.__new__

#: stands for the matcher of a rule whose one pattern is ``**/*<literal>`` in a plan entry: on the
#: normalised targets of a query (no empty, ``.`` or ``..`` segment, no trailing ``/``) it
#: matches exactly the paths ending with the literal, which the suffix test already checked
#: (property-tested against wcmatch, tests/builtin_plugins/rules/test_query_plan.py)
BY_SUFFIX = object()
_ANY_FILE_ENDING = lazy_pattern(globals(), "_ANY_FILE_ENDING", r"\*\*/\*([^*?\[\]{}\\!/]+)")


def _decided_by_suffix(m: PathMatcher, suffix: str) -> bool:
    """Whether ``m`` is one usable pattern ``**/*<suffix>`` (a literal without glob characters)."""
    if len(m.patterns) != 1:
        return False
    found = _ANY_FILE_ENDING.fullmatch(m.patterns[0])
    return found is not None and found.group(1) == suffix


def query_entry(r: RuleFile, m: PathMatcher | None) -> tuple:
    """``(id, rule, matcher, prefix, suffix)``: prefix/suffix are the matcher's pre-filter
    when it has exactly one pattern (else None), tested inline by contextual queries."""
    filters = getattr(m, "_filters", None) if m is not None else None
    if filters is not None and len(filters) == 1:
        return (r.id, r, m, filters[0][0], filters[0][1])
    return (r.id, r, m, None, None)


def selection(files: tuple, skipped: tuple, trig: tuple, budget: int | None) -> RuleSelection:
    """``RuleSelection("contextual", files, skipped, trig, budget)`` storing each field through
    its slot descriptor, without the constructor's call and per-field ``object.__setattr__``
    (an equal object of the same class, tested against the constructor)."""
    sel = _new(RuleSelection)
    _set_kind(sel, "contextual")
    _set_files(sel, files)
    _set_skipped(sel, skipped)
    _set_trigger_paths(sel, trig)
    _set_budget(sel, budget)
    _set_diagnostics(sel, ())
    return sel


#: the slot descriptors' setters of :class:`RuleSelection`'s fields, for :func:`selection`
_set_kind, _set_files, _set_skipped, _set_trigger_paths, _set_budget, _set_diagnostics = (
    RuleSelection.__dict__[name].__set__ for name in RuleSelection._fields)


def build_plan(query_user: tuple, query_scopes: Mapping[str, tuple], order: Mapping[str, int],
               cwd_rel: str, folder: str) -> tuple:
    """What a one-target query must test for any target directly inside ``folder`` (the
    target itself not being a scope folder), given the query's ``cwd_rel``.

    :param query_user: the catalog's ``(id, rule, matcher or None)`` of user rules.
    :param query_scopes: scope folder → :func:`query_entry` tuples of its rules.
    :param order: rule id → definition order.
    :returns: ``(fixed, suffixes, entries)``. ``entries``: ``(id, rule, matcher, offset,
        prefix, suffix)`` in definition order for the conditional user rules and every
        rule of ``folder``'s ancestor scopes (``folder`` included) but the static ones of
        ``cwd_rel``. ``matcher`` is None for an unconditional rule (it applies); a
        conditional one applies to ``rel`` when ``rel[offset:]`` (the target relative to
        the rule's scope) starts with ``prefix``, ends with ``suffix`` (the one-pattern
        literal pre-filter, or ``""``) and the matcher matches it (:data:`BY_SUFFIX`: the
        suffix test decides; the target must then be normalised). A prefix lying inside
        ``folder`` is decided here: a rule it refuses is left out. ``fixed``: the
        unconditional rules of ``entries`` (the answer when no conditional one matches);
        ``suffixes``: the conditional ones' distinct suffixes — a target ending with none
        of them gets ``fixed`` (``""`` ends every target). The answers equal the scope walk
        of :func:`wskit.builtin_plugins.rules.scopewalk.walk_scopes` (property-tested, tests/builtin_plugins/rules/test_query_plan.py).
    """
    entries = []
    for rid, r, m in query_user:
        if m is not None:  # unconditional user rules are static
            _, _, _, pre, suf = query_entry(r, m)
            pre, suf = pre or "", suf or ""
            entries.append((rid, r, BY_SUFFIX if pre == "" and _decided_by_suffix(m, suf) else m, 0, pre, suf))
    n = len(folder)
    scopes = [""]  # the root, each ancestor of folder, folder itself
    if folder:
        i = folder.find("/")
        while i != -1:
            scopes.append(folder[:i])
            i = folder.find("/", i + 1)
        scopes.append(folder)
    for scope in scopes:
        scoped = query_scopes.get(scope)
        if scoped is None:
            continue
        static = scope == "" or cwd_rel == scope or cwd_rel.startswith(scope + "/")
        off = len(scope) + 1 if scope else 0
        for rid, r, m, pre, suf in scoped:
            if m is None:
                if not static:
                    entries.append((rid, r, None, 0, "", ""))
                continue
            if pre is None:
                pre = suf = ""
            elif off + len(pre) <= n and not folder.startswith(pre, off):
                continue  # the target's part under the scope cannot start with the prefix
            entries.append((rid, r, BY_SUFFIX if pre == "" and _decided_by_suffix(m, suf) else m, off, pre, suf))
    entries.sort(key=lambda e: order[e[0]])
    fixed = tuple(e[1] for e in entries if e[2] is None)
    return (fixed, tuple({e[5] for e in entries if e[2] is not None}), tuple(entries))


def keep_plan(plans: dict, key: object, plan: tuple) -> None:
    """Store ``plan`` under ``key``, dropping the oldest plan first when :data:`PLANS_MAX` are kept."""
    if len(plans) >= PLANS_MAX:
        try:
            del plans[next(iter(plans))]
        except (KeyError, RuntimeError, StopIteration):  # another thread got there first
            pass
    plans[key] = plan
