"""Built-in plugin ``rules``: the project rule catalog (docs/rules.md).

- ``wskit_discover_rules`` finds the built-in file set (``CLAUDE.md``,
  ``AGENTS.md``, ``AGENTS.override.md``, ``<HOST>.md``, ``.claude/rules``,
  ``.<host>/rules``, ``CLAUDE.local.md`` and the user-level files) in the user
  home and, for a trusted project, the source project;
- ``wskit_workspace_catalogs`` builds the workspace's
  :class:`~wskit.builtin_plugins.rules.catalog.RuleCatalog` (``workspace.catalog("rules")``);
- ``wskit_session_components`` gives each session its
  :class:`~wskit.builtin_plugins.rules.session.SessionRules` (``session.rules``): the
  invocation barrier, delivered rules, and the ``extensions["rules"]`` record;
- ``wskit_register_commands`` adds ``wsctl rules`` and ``wsctl rules explain``.

Blocking this plugin (``WSKIT_DISABLE_PLUGINS=rules``) leaves workspaces without a
catalog and sessions without a barrier (``session.check_invocation`` raises
:class:`~wskit.session.components.UnknownComponentError`).
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING

from wskit import changes
from wskit.models import LoadResult, Scope
from wskit.plugin import hookimpl


@hookimpl
def wskit_discover_rules(source, catalog_root, profile, folders):
    """The built-in rule files of a user (home) or project (catalog root) source
    (for the project, only the folders of ``folders`` when it is a request)."""
    from wskit.builtin_plugins.rules.discovery import discover_project, discover_user
    from wskit.builtin_plugins.rules.model import RuleSettings

    if profile is None:
        return None
    settings, _problem = RuleSettings.from_profile(profile)  # reported once by the catalog build
    if source.scope == Scope.USER:
        found = discover_user(source.root, profile, settings)
        root = str(catalog_root) if catalog_root is not None else None
        if root and (settings.ancestor_files is True or (settings.ancestor_files == "without-repository"
                                                        and not changes.lexists(os.path.join(root, ".git")))):
            # files above the project root are outside it, like the user's own: asked with them
            from wskit.builtin_plugins.rules.ancestors import discover_ancestors

            more, diags = discover_ancestors(root, str(profile.require_home()), profile, settings)
            found.rules.extend(more)
            found.diagnostics.extend(diags)
    elif source.scope == Scope.PROJECT:
        found = discover_project(source.root, profile, settings, folders)
        if getattr(profile, "family", None) == "opencode" and (folders is None or "" in folders.folders):
            from wskit.builtin_plugins.rules.discovery import opencode_instructions

            more, diags = opencode_instructions(str(source.root), settings, {r.path for r in found.rules})
            found.rules.extend(more)
            found.diagnostics.extend(diags)
    else:
        return None
    return LoadResult(resources=tuple(found.rules), diagnostics=tuple(found.diagnostics))


@hookimpl
def wskit_workspace_catalogs(workspace):
    """``{"rules": RuleCatalog}`` for the workspace."""
    from wskit.builtin_plugins.rules.build import build_catalog

    if workspace.hooks is None:
        return None
    return {"rules": build_catalog(workspace.hooks, workspace.binding, workspace.profile, workspace.trust)}


@hookimpl
def wskit_session_components():
    """The ``rules`` session component: a session's
    :class:`~wskit.builtin_plugins.rules.session.SessionRules` (invocation barrier, delivered
    rules), recorded under ``extensions["rules"]`` and resumed by :func:`_resume_rules`."""
    from wskit.session.components import SessionComponent

    return [SessionComponent(name="rules", create=_session_rules, check_extension=_check_rules_extension,
                             resume=_resume_rules, pinned=_has_rule_catalog)]


def _session_rules(session):
    from wskit.builtin_plugins.rules.catalog import RuleCatalog
    from wskit.builtin_plugins.rules.session import SessionRules

    catalog = session.catalogs.get("rules") if session.catalogs else None
    if catalog is None:
        catalog = RuleCatalog.empty(session.binding.source_root, trusted=False)
    return SessionRules(catalog, session.binding, policy=catalog.settings.invocation_policy)


def _check_rules_extension(value) -> None:
    from wskit.builtin_plugins.rules.session import validate_extension

    validate_extension(value)


def _has_rule_catalog(session) -> bool:
    # the state pins the static provenance digest whenever the workspace has a catalog
    return session.catalogs.get("rules") is not None


def _resume_rules(session, value, policy: str) -> list:
    """Resume ``extensions["rules"]`` into ``session``: drift entries ``{"field": "rules", …}``.

    :raises ProvenanceMismatchError: under ``strict``, for any rule drift."""
    from wskit.builtin_plugins.rules.model import RuleProvenanceMismatch
    from wskit.errors import ProvenanceMismatchError

    def entries(drift) -> list:
        return [{"field": "rules", "id": d.get("id"), "path": d.get("path"), "change": d["change"]} for d in drift]

    try:
        resumed = session.component("rules").resume(value, policy)
    except RuleProvenanceMismatch as err:
        raise ProvenanceMismatchError(entries(err.drift)) from err
    return entries(resumed.drift)


@hookimpl
def wskit_register_commands(cli):
    """Add ``rules`` to ``wsctl`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "rules", "wskit.builtin_plugins.rules.cli:rules_group",
                     "Which instruction files and rules apply under PATH (default '.'), in definition order.")


#: public name -> submodule; imported on first access (PEP 562), so building a catalog
#: does not import the session, tracker and render modules (a start-up cost)
_EXPORTS = {
    "RuleCatalog": "catalog", "apply_budget": "catalog", "FolderRequest": "lazy", "LazyRuleCatalog": "lazy",
    "RuleFile": "model", "RuleProvenanceMismatch": "model", "RuleQueryError": "model",
    "RuleSelection": "model", "RuleSettings": "model", "SkippedRule": "model",
    "render_json": "render", "render_text": "render",
    "Proceed": "session", "RulesRequired": "session", "SessionRules": "session",
    "ScopeTracker": "tracker",
    "load_rule_file": "discovery", "chain_walk": "projectwalk", "project_walk": "projectwalk",
    "ProjectWalker": "walk", "ChainWalker": "walk",
    # (submodule, name there): the function is named like its module
    "explain_rules": ("explain", "explain"),
}

if TYPE_CHECKING:
    from wskit.builtin_plugins.rules.catalog import RuleCatalog, apply_budget
    from wskit.builtin_plugins.rules.discovery import load_rule_file
    from wskit.builtin_plugins.rules.explain import explain as explain_rules
    from wskit.builtin_plugins.rules.lazy import FolderRequest, LazyRuleCatalog
    from wskit.builtin_plugins.rules.model import (
        RuleFile,
        RuleProvenanceMismatch,
        RuleQueryError,
        RuleSelection,
        RuleSettings,
        SkippedRule,
    )
    from wskit.builtin_plugins.rules.projectwalk import chain_walk, project_walk
    from wskit.builtin_plugins.rules.render import render_json, render_text
    from wskit.builtin_plugins.rules.session import Proceed, RulesRequired, SessionRules
    from wskit.builtin_plugins.rules.tracker import ScopeTracker
    from wskit.builtin_plugins.rules.walk import ChainWalker, ProjectWalker


def __getattr__(name: str):
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module 'wskit.builtin_plugins.rules' has no attribute {name!r}")
    mod, attr = mod if isinstance(mod, tuple) else (mod, name)
    value = getattr(importlib.import_module(f".{mod}", __name__), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "FolderRequest", "LazyRuleCatalog", "Proceed", "RuleCatalog", "RuleFile", "RuleProvenanceMismatch", "RuleQueryError", "RuleSelection",
    "RuleSettings", "RulesRequired", "ScopeTracker", "SessionRules", "SkippedRule", "apply_budget",
    "render_json", "render_text",
    # the project walk and rule-file reader, for plugins that read their own instruction files
    "ChainWalker", "ProjectWalker", "chain_walk", "explain_rules", "load_rule_file", "project_walk",
]
