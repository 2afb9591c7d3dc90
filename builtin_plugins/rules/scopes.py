"""Scope-folder arithmetic and the byte budget of rule selections, used by
:class:`wskit.builtin_plugins.rules.catalog.RuleCatalog` and re-exported there."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from wskit.builtin_plugins.rules.model import SkippedRule

if TYPE_CHECKING:
    from wskit.resources.rule import RuleFile

__all__ = ["ancestors", "apply_budget", "is_ancestor", "relative_to_scope"]


def ancestors(rel: str) -> list[str]:
    """``""`` and every prefix folder of ``rel``, ending with ``rel`` itself (``"a/b"`` → ``["", "a", "a/b"]``)."""
    if not rel:
        return [""]
    out = [""]
    i = rel.find("/")
    while i != -1:
        out.append(rel[:i])
        i = rel.find("/", i + 1)
    out.append(rel)
    return out


def is_ancestor(scope: str, rel: str) -> bool:
    """True when folder ``scope`` is ``rel`` or one of its ancestors (``""`` is everyone's)."""
    return scope == "" or rel == scope or rel.startswith(scope + "/")


def relative_to_scope(rel: str, scope: str) -> str:
    """``rel`` made relative to its ancestor folder ``scope``."""
    return rel[len(scope) + 1:] if scope else rel


def apply_budget(rules: Sequence[RuleFile], budget: int | None) -> tuple[list[RuleFile], list[SkippedRule]]:
    """Keep whole files from the most specific end while they fit ``budget`` bytes.

    Iterates from the last rule backwards; a rule whose body (UTF-8 bytes)
    does not fit the remaining budget is skipped with reason ``over-budget``
    and earlier (smaller) ones are still tried (reference/blade.md §4.9).
    Nothing is truncated.
    """
    if budget is None:
        return list(rules), []
    remaining = budget
    kept: list[RuleFile] = []
    skipped: list[SkippedRule] = []
    for r in reversed(rules):
        if r.bytes <= remaining:
            kept.append(r)
            remaining -= r.bytes
        else:
            skipped.append(SkippedRule(r, "over-budget",
                                       f"{r.bytes} bytes do not fit the {remaining} bytes left of a {budget}-byte budget"))
    kept.reverse()
    skipped.reverse()
    return kept, skipped
