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

from .catalog import RuleCatalog, apply_budget
from .model import (
    RuleFile, RuleProvenanceMismatch, RuleQueryError, RuleSelection, RuleSettings, SkippedRule,
)
from .render import render_json, render_text
from .session import Proceed, RulesRequired, SessionRules
from .tracker import ScopeTracker

__all__ = [
    "Proceed", "RuleCatalog", "RuleFile", "RuleProvenanceMismatch", "RuleQueryError", "RuleSelection",
    "RuleSettings", "RulesRequired", "ScopeTracker", "SessionRules", "SkippedRule", "apply_budget",
    "render_json", "render_text",
]
