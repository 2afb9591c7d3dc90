"""Built-in plugin ``skills``: discovers ``<root>/<slug>/SKILL.md`` skills.

The discovery itself lives in :mod:`wskit.builtin_plugins.skills.discovery` and is imported on first use,
so loading this plugin imports no parser and builds no resource model.
:func:`check_skill` and the other names of that module stay importable from here.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from wskit import fs
from wskit.formats.mdwalk import component_dirs
from wskit.kinds import ResourceKind
from wskit.models import Diagnostic, LoadResult, ResourceSource
from wskit.plugin import hookimpl

__all__ = ["KIND", "wskit_load_skills", "wskit_register_commands", "wskit_resource_kinds",
           "wskit_session_components",
           # the session's skill runtime (``session.skill_workflows``) and what it raises
           "SkillContent", "SkillError", "SkillRuntime", "SkillWorkflows"]


KIND = "skill"
#: The kind's folders: ``skills/`` of a source, plus what a plugin manifest's ``skills`` names.
SKILL_FOLDERS = ResourceKind(name=KIND, default_dir="skills", manifest_keys=("skills",), manifest_adds=True)


@hookimpl
def wskit_resource_kinds():
    from wskit.builtin_plugins.skills.switch import skills_filter

    return [SKILL_FOLDERS.model_copy(update={"hook": "wskit_load_skills", "filter": skills_filter})]


@hookimpl
def wskit_load_skills(source: ResourceSource) -> LoadResult:
    """Every ``<slug>/SKILL.md`` of the source's skills folders (components of a bundle
    may name others). A folder that does not exist costs one noted ``open``; the
    discovery engine (:func:`wskit.builtin_plugins.skills.discovery.load_folder`) is imported only for a
    folder that does."""
    resources: list = []
    diags: list[Diagnostic] = []
    root_rel = os.path.relpath(source.root, source.base).replace(os.sep, "/")
    for sub in component_dirs(source, SKILL_FOLDERS):
        try:
            # a component folder is a path-naming field (manifests set it): it
            # must be relative and contained, checked before it is joined
            if sub not in ("", "."):  # "." is the source root itself
                fs.split_relative(sub)
        except fs.SafeFsError as err:
            diags.append(err.diagnostic(plugin=source.plugin).model_copy(
                update={"path": os.path.join(source.root, err.path)}))
            continue
        rel_dir = sub if root_rel in ("", ".") else f"{root_rel}/{sub}"
        try:
            fd, shown_dir = fs.open_dir(source.base, rel_dir, follow_links=source.follow_links)
        except fs.SafeFsError as err:
            opened = _linked_folder(source, rel_dir, err, diags) if err.code == "symlink" else None
            if opened is None:
                if err.code not in ("not-found", "symlink"):
                    diags.append(err.diagnostic(plugin=source.plugin))
                continue
            rel_dir, fd, shown_dir = opened
        try:
            from wskit.builtin_plugins.skills.discovery import load_folder

            load_folder(source, rel_dir, fd, shown_dir, resources, diags)
        finally:
            os.close(fd)
    return LoadResult(resources=tuple(resources), diagnostics=tuple(diags))


def _linked_folder(source: ResourceSource, rel_dir: str, err: fs.SafeFsError,
                   diags: list[Diagnostic]) -> tuple[str, int, str] | None:
    """A skills folder reached through a link (``.claude/skills -> ../skills``): opened
    at its resolved path when that stays inside the source (:func:`wskit.fs.inside_target`),
    with a ``followed-link`` note; else a ``symlink`` warning naming the target and None.
    Every host follows such a link inside the repository."""
    target, named, why = fs.inside_target(source.base, rel_dir, want="dir")
    path = os.path.join(source.base, rel_dir)
    if target is None:
        diags.append(Diagnostic(level="warning", code="symlink", path=path, plugin=source.plugin,
                                message=f"skills folder is a symbolic link to {named!r}, which {why}; not followed"))
        return None
    try:
        fd, shown = fs.open_dir(source.base, target)
    except fs.SafeFsError as again:
        diags.append(again.diagnostic(plugin=source.plugin))
        return None
    diags.append(Diagnostic(level="info", code="followed-link", path=path, plugin=source.plugin,
                            message=f"followed link to {target!r} inside the project"))
    return target, fd, shown


@hookimpl
def wskit_register_commands(cli):
    """Add ``skills`` to ``wsctl`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "skills", "wskit.builtin_plugins.skills.cli:skills_group",
                     "Skills: <root>/<slug>/SKILL.md folders.")


@hookimpl
def wskit_session_components():
    """The ``skill_workflows`` session component: the session's
    :class:`~wskit.builtin_plugins.skills.workflows.SkillWorkflows` (activate a skill: its
    body through :class:`~wskit.builtin_plugins.skills.runtime.SkillRuntime`, its
    ``allowed-tools`` narrowing the session's tools), recorded under
    ``extensions["skill_workflows"]`` and replayed on resume, never widening access."""
    from wskit.session.components import SessionComponent

    return [SessionComponent(name="skill_workflows", create=_session_workflows, check_extension=_check_workflows,
                             resume=_resume_workflows)]


def _session_workflows(session):
    from wskit.builtin_plugins.skills.runtime import SkillRuntime
    from wskit.builtin_plugins.skills.workflows import SkillWorkflows

    return SkillWorkflows(SkillRuntime(session, session.profile))


def _check_workflows(value) -> None:
    from wskit.errors import SessionStateError

    if not isinstance(value, dict) or not isinstance(value.get("records"), list):
        raise SessionStateError("must be an object with a 'records' array")


def _resume_workflows(session, value, policy: str) -> list:
    """Replay the recorded workflows into ``session`` (never widening access) and report
    activated skills whose ``SKILL.md`` changed or is gone since, naming the file.

    :raises ProvenanceMismatchError: under ``strict``, for any such drift."""
    from wskit.builtin_plugins.skills.runtime import SkillRuntime
    from wskit.builtin_plugins.skills.workflows import EXTENSION_KEY, SkillWorkflows
    from wskit.errors import ProvenanceMismatchError

    wf = SkillWorkflows.restore(SkillRuntime(session, session.profile), {EXTENSION_KEY: value})
    session.components["skill_workflows"] = wf
    drift = []
    seen = set()
    for rec in value.get("records", []):
        if not isinstance(rec, dict) or rec.get("operation") != "activate" or not isinstance(rec.get("sha256"), str):
            continue
        rid = rec.get("id") or rec.get("slug")
        if rid in seen:
            continue
        seen.add(rid)
        current = session.registry("skill").find(rid) if isinstance(rid, str) else None
        if current is None:
            drift.append({"field": "skill_workflows", "id": rid, "path": rec.get("path"), "change": "missing"})
        elif current.provenance.sha256 != rec["sha256"]:
            drift.append({"field": "skill_workflows", "id": rid, "path": str(current.provenance.absolute_path),
                          "change": "changed"})
    if drift and policy == "strict":
        raise ProvenanceMismatchError(drift)
    return drift


#: this package's modules: never looked up in the engine (``from . import fast`` imports the module)
_SUBMODULES = frozenset({"admin", "cli", "discovery", "fast", "lint", "runtime", "spec", "switch", "tools", "validate",
                         "workflows"})


#: the session runtime's public names -> their submodule
_RUNTIME_EXPORTS = {"SkillContent": "runtime", "SkillError": "runtime", "SkillRuntime": "runtime",
                    "SkillWorkflows": "workflows"}

if TYPE_CHECKING:
    from wskit.builtin_plugins.skills.runtime import SkillContent, SkillError, SkillRuntime
    from wskit.builtin_plugins.skills.workflows import SkillWorkflows


def __getattr__(name: str) -> Any:
    """``check_skill``, ``SPEC_NAME``, ``ADMIN_FILE_LIMIT`` (:mod:`wskit.builtin_plugins.skills.lint`) and the
    discovery engine's names (:mod:`wskit.builtin_plugins.skills.discovery`), imported on first use (PEP 562)."""
    if name in _SUBMODULES or name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name in _RUNTIME_EXPORTS:
        import importlib

        return getattr(importlib.import_module(f".{_RUNTIME_EXPORTS[name]}", __name__), name)
    from wskit.builtin_plugins.skills import discovery as scan
    from wskit.builtin_plugins.skills import lint

    for module in (lint, scan):
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
