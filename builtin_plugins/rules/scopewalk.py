"""The scope walk of a contextual rule query (reference/blade.md §4.8, design §5):
for each target, the rules of its ancestor scope folders that apply to it.

:meth:`wskit.builtin_plugins.rules.catalog.RuleCatalog.contextual_rules` answers a one-target query
from a cached plan (:mod:`wskit.builtin_plugins.rules.plans`) and every other query (several targets,
or a target that is itself a scope folder) with :func:`walk_scopes`; the plans are
property-tested to equal this walk (tests/builtin_plugins/rules/test_query_plan.py).
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from typing import TYPE_CHECKING

from wskit.builtin_plugins.rules.scopes import is_ancestor

if TYPE_CHECKING:
    from wskit.resources.rule import RuleFile


def walk_scopes(query_user: tuple, query_scopes: Mapping[str, tuple], trig: tuple[str, ...],
                cwd_rel: str, loaded: Container[str]) -> dict[str, RuleFile]:
    """The rules newly applicable to the targets ``trig``, by id, in the order found.

    For each target (catalog-relative, normalised, non-empty): the conditional user
    rules whose patterns match it (user rules count as the root scope; unconditional
    ones are static), then, for each of its ancestor scope folders (the root ``""``,
    each prefix folder, the target itself), the unconditional rules of scopes that do
    not contain ``cwd_rel`` (those are static rules of the query's cwd) and the
    conditional rules whose patterns match the target relative to the scope. Ids in
    ``loaded`` are left out.

    :param query_user: the catalog's ``(id, rule, matcher or None)`` of its user rules.
    :param query_scopes: scope folder → ``(id, rule, matcher or None, prefix, suffix)``
        of its rules (:func:`wskit.builtin_plugins.rules.plans.query_entry`; prefix/suffix: the matcher's
        one-pattern literal pre-filter, or None).
    :param trig: the targets, relative to the catalog root.
    :param cwd_rel: the query's cwd, relative to the catalog root.
    :param loaded: ids already delivered.
    :returns: id → rule; the caller sorts them in definition order.
    """
    chosen: dict[str, RuleFile] = {}
    for rel in trig:
        # user rules count as root scope; a project rule found under an ancestor scope
        # is in scope by construction, so only its patterns are left to test
        for rid, r, m in query_user:
            if rid in loaded or rid in chosen or m is None:
                continue  # unconditional user rules are static
            if m.match(rel):
                chosen[rid] = r
        n = len(rel)
        end = -1  # -1: the root scope ""; then each "/" of rel; then rel itself (== ancestors(rel))
        while True:
            scope = rel[:end] if end >= 0 else ""
            entries = query_scopes.get(scope)
            if entries is not None:
                sub = rel[end + 1:] if end >= 0 else rel
            if end == n:
                end = n + 1
            else:
                nxt = rel.find("/", end + 1)
                end = n if nxt == -1 else nxt
            if entries is None:
                if end > n:
                    break
                continue
            static = is_ancestor(scope, cwd_rel)
            for rid, r, m, pre, suf in entries:
                if rid in loaded or rid in chosen:
                    continue
                if m is None:
                    if not static:
                        chosen[rid] = r
                elif pre is not None and not (sub.startswith(pre) and (sub.endswith(suf) or sub[-1:] == "/")):
                    continue  # the matcher's own one-pattern pre-filter, inlined
                elif m.match(sub):
                    chosen[rid] = r
            if end > n:
                break
    return chosen
