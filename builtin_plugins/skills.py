"""Built-in plugin ``skills``: discovers ``<root>/<slug>/SKILL.md`` skills.

Discovery reads only the frontmatter of each ``SKILL.md`` (never the body),
through safe file access. Identity is the folder name (design §5); a bad
skill becomes a diagnostic and is not registered, so a lower-precedence skill
of the same name stays active.
"""

from __future__ import annotations

import os
import re
from typing import Any

from wskit import safefs
from wskit.kinds import ResourceKind
from wskit.markdown import read_frontmatter
from wskit.models import Diagnostic, LoadResult, Provenance, ResourceSource, Scope, sha256_hex
from wskit.plugin import hookimpl
from wskit.resources.skill import Skill

KIND = "skill"
#: Agent Skills name rule: 1-64 of lowercase letters, digits, single hyphens.
SPEC_NAME = re.compile(r"^(?=.{1,64}$)[a-z0-9]+(-[a-z0-9]+)*$")
_KNOWN = {
    "name", "description", "license", "compatibility", "metadata", "allowed-tools", "allowed_tools",
    "argument-hint", "arguments", "user-invocable", "disable-model-invocation", "model",
    "when_to_use", "when-to-use", "version",
}
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


@hookimpl
def wskit_resource_kinds():
    return [ResourceKind(name=KIND, hook="wskit_load_skills", default_dir="skills")]


@hookimpl
def wskit_load_skills(source: ResourceSource) -> LoadResult:
    resources: list[Skill] = []
    diags: list[Diagnostic] = []
    root_rel = os.path.relpath(source.root, source.base).replace(os.sep, "/")
    for sub in source.dirs_for(KIND, "skills"):
        rel_dir = _join(root_rel, sub)
        try:
            entries = safefs.scan_dir(source.base, rel_dir, follow_links=source.follow_links)
        except safefs.SafeFsError as err:
            if err.code != "not-found":
                diags.append(err.diagnostic(plugin=source.plugin))
            continue
        for entry in entries:
            if entry.type == "link":
                diags.append(
                    Diagnostic(
                        level="warning", code="symlink", plugin=source.plugin,
                        path=os.path.join(source.base, rel_dir, entry.name),
                        message=f"skill folder is a symbolic link; links are not followed in {source.scope.value} sources",
                    )
                )
                continue
            if entry.type != "dir":
                continue
            skill, found = _load_one(source, _join(rel_dir, entry.name), entry.name, entry.link_target)
            diags.extend(found)
            if skill is not None:
                resources.append(skill)
    return LoadResult(resources=tuple(resources), diagnostics=tuple(diags))


def _join(a: str, b: str) -> str:
    return b if a in ("", ".") else f"{a}/{b}"


def _load_one(
    source: ResourceSource, rel_dir: str, slug: str, link_target: str | None
) -> tuple[Skill | None, list[Diagnostic]]:
    diags: list[Diagnostic] = []
    rel = f"{rel_dir}/SKILL.md"
    path = os.path.join(source.base, rel)
    plugin = source.plugin
    try:
        fm, res = read_frontmatter(source.base, rel, follow_links=source.follow_links)
    except safefs.SafeFsError as err:
        if err.code == "not-found":
            return None, []  # a folder without SKILL.md is not a skill
        return None, [err.diagnostic(plugin=plugin)]
    if link_target or res.link_target:
        diags.append(
            Diagnostic(level="info", code="followed-link", path=path, plugin=plugin,
                       message=f"followed link to {link_target or res.link_target}")
        )
    for d in fm.diagnostics:
        diags.append(d.model_copy(update={"plugin": plugin}))
    if not fm.present:
        diags.append(_err(path, plugin, "skill-no-frontmatter", 1,
                          "SKILL.md must start with a '---' YAML frontmatter block"))
        return None, diags
    if not fm.ok:
        return None, diags
    data: dict[str, Any] = fm.data
    description = _text(data.get("description"))
    if not description:
        diags.append(_err(path, plugin, "skill-missing-description", _line(fm, "description"),
                          "required field 'description' is missing or empty"))
        return None, diags
    display = _text(data.get("name")) or ""
    if display and display != slug:
        diags.append(_warn(path, plugin, "skill-name-mismatch", _line(fm, "name"),
                           f"frontmatter name {display!r} differs from its folder {slug!r}; the folder name is used"))
    if not SPEC_NAME.match(slug):
        diags.append(_warn(path, plugin, "skill-name-format", None,
                           f"folder name {slug!r} is not 1-64 lowercase letters, digits and single hyphens"))
    if len(description) > 1024:
        diags.append(_warn(path, plugin, "skill-description-too-long", _line(fm, "description"),
                           f"description is {len(description)} characters (the specification allows 1024)"))
    for line, cp in safefs.find_hidden_chars(display + "\n" + description):
        diags.append(_warn(path, plugin, "hidden-characters", None,
                           f"name or description contains the hidden character {cp}"))
        break
    tools_raw = data["allowed_tools"] if "allowed_tools" in data else data.get("allowed-tools")
    allowed = _tools(tools_raw)
    bools: dict[str, bool] = {}
    for key, default in (("user-invocable", True), ("disable-model-invocation", False)):
        value = _bool(data.get(key), default)
        if value is None:
            diags.append(_warn(path, plugin, "invalid-boolean", _line(fm, key),
                               f"{key} must be a boolean; using {default}"))
            value = default
        bools[key] = value
    if plugin:
        sid = f"plugin:{plugin}:{slug}"
    else:
        sid = f"{source.scope.value}:{slug}"
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    args = data.get("arguments")
    arguments = tuple(str(a) for a in args) if isinstance(args, list) else tuple(str(args or "").split())
    skill = Skill(
        id=sid,
        name=slug,
        description=description,
        display_name=display or slug,
        directory=os.path.join(source.base, rel_dir),
        provenance=Provenance(
            scope=source.scope, source_root=source.base, path=rel, plugin=plugin, sha256=sha256_hex(res.raw)
        ),
        allowed_tools=allowed,
        argument_hint=_text(data.get("argument-hint")),
        user_invocable=bools["user-invocable"],
        disable_model_invocation=bools["disable-model-invocation"],
        model=_text(data.get("model")),
        license=_text(data.get("license")),
        compatibility=_text(data.get("compatibility")),
        when_to_use=_text(data.get("when_to_use", data.get("when-to-use"))),
        arguments=arguments,
        metadata=metadata,
        extra={k: v for k, v in data.items() if k not in _KNOWN},
    )
    return skill, diags


def _text(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, (dict, list)):
        return None
    return str(v).strip()


def _tools(v: Any) -> tuple[str, ...] | None:
    if v is None:
        return None
    if isinstance(v, list):
        return tuple(str(x).strip() for x in v if str(x).strip())
    parts = re.split(r"[,\s]+(?![^()]*\))", str(v))
    return tuple(p for p in (x.strip() for x in parts) if p)


def _bool(v: Any, default: bool) -> bool | None:
    if v is None:
        return default
    if isinstance(v, bool):
        return v
    s = str(v).strip().lower()
    if s in _TRUE:
        return True
    if s in _FALSE:
        return False
    return None


def _line(fm, key: str) -> int | None:
    return fm.line_of(key)


def _err(path, plugin, code, line, message) -> Diagnostic:
    return Diagnostic(level="error", code=code, path=path, line=line, message=message, plugin=plugin)


def _warn(path, plugin, code, line, message) -> Diagnostic:
    return Diagnostic(level="warning", code=code, path=path, line=line, message=message, plugin=plugin)


@hookimpl
def wskit_register_commands(cli):
    from wskit.cli.skills import skills_group

    cli.add_command(skills_group)


# -- reuse across reloads (issue 8, B3) ----------------------------------------
# Appended, not woven into _load_one, so the loader above stays as it is: the
# name _load_one is rebound to a wrapper that wskit_load_skills calls.

_load_one_read = _load_one


def _load_one(  # noqa: F811 - deliberate rebinding, see above
    source: ResourceSource, rel_dir: str, slug: str, link_target: str | None
) -> tuple[Skill | None, list[Diagnostic]]:
    """:func:`_load_one_read`, reusing what the previous load built from an
    unchanged ``SKILL.md`` when :class:`~wskit.cache.WorkspaceCache` reloads
    (:func:`wskit.changes.reuse`; the file is then not read). Safe because the
    folder chain was just re-opened without following links by ``scan_dir`` and
    the entry was seen as a real folder; a changed signature (edit, replace,
    new link count) means a fresh read."""
    from wskit import changes

    path = os.path.join(source.base, f"{rel_dir}/SKILL.md")
    key = (source.scope.value, source.base, source.plugin, link_target)
    hit = changes.reuse(path, source.follow_links)
    if hit is not None and hit[0] == key:
        return hit[1], list(hit[2])
    skill, diags = _load_one_read(source, rel_dir, slug, link_target)
    changes.remember(path, source.follow_links, (key, skill, tuple(diags)))
    return skill, diags
