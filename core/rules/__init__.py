"""The project rule catalog (issue 3): which instruction files and rules apply
to a path, in which order, and whether the model has seen them.

Modules: :mod:`.model` (values, settings, errors), :mod:`.patterns` (``paths``
globs), :mod:`.imports` (``@path``), :mod:`.discovery` (finding and loading
files), :mod:`.catalog` (index and queries), :mod:`.render` (text and JSON),
:mod:`.session` (barrier, delivery, resume), :mod:`.tracker` (Sakura scope
snapshot), :mod:`.build` (catalog of a workspace), :mod:`.explain`
(``wsctl rules explain``). See docs/rules.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

#: public name -> submodule; imported on first access (PEP 562), so building a catalog
#: does not import the session, tracker and render modules (issue 8, B7: start-up)
_EXPORTS = {
    "RuleCatalog": "catalog", "apply_budget": "catalog",
    "RuleFile": "model", "RuleProvenanceMismatch": "model", "RuleQueryError": "model",
    "RuleSelection": "model", "RuleSettings": "model", "SkippedRule": "model",
    "render_json": "render", "render_text": "render",
    "Proceed": "session", "RulesRequired": "session", "SessionRules": "session",
    "ScopeTracker": "tracker",
}

if TYPE_CHECKING:
    from wskit.rules.catalog import RuleCatalog, apply_budget
    from wskit.rules.model import (
        RuleFile, RuleProvenanceMismatch, RuleQueryError, RuleSelection, RuleSettings, SkippedRule,
    )
    from wskit.rules.render import render_json, render_text
    from wskit.rules.session import Proceed, RulesRequired, SessionRules
    from wskit.rules.tracker import ScopeTracker


def __getattr__(name: str):
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module 'wskit.rules' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{mod}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "Proceed", "RuleCatalog", "RuleFile", "RuleProvenanceMismatch", "RuleQueryError", "RuleSelection",
    "RuleSettings", "RulesRequired", "ScopeTracker", "SessionRules", "SkippedRule", "apply_budget",
    "render_json", "render_text",
]
