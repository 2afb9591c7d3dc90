"""Frozen reference: the straightforward skills loader, without the one-pass fast path
(``builtin_plugins/skills.py`` and ``spec_findings`` of ``core/skillcheck.py`` at
commit 79d9d29, copied verbatim; only the hook markers, the CLI hook and the
kind registration are left out). Helpers the fast path does not replace (constants,
``flow_style_line``, ``_canonical_keys``, ``_tools``, diagnostic builders) are
imported from wskit rather than copied.

``tests/builtin_plugins/skills/test_discovery_reference.py`` compares today's discovery with
this one: resources, diagnostics, order, digests and change notes must be
identical. Not imported by wskit itself; do not "fix" it. Changed on purpose once since
(wskit issue 18): a skill without frontmatter, with unreadable frontmatter or without a
description loads (warnings), described by its first body line, as Claude Code does.
"""


from __future__ import annotations

import os
import unicodedata
from typing import Any

from wskit import fs
from wskit.builtin_plugins.skills import SKILL_FOLDERS
from wskit.builtin_plugins.skills.discovery import _KNOWN, _UNSAFE_NAME, _canonical_keys, _tools
from wskit.builtin_plugins.skills.lint import _LENIENT_NOTE, _UNREAD, ADMIN_FILE_LIMIT, SPEC_NAME, _err, _line, _warn

# what the fast path does not replace is imported, not copied: only the code it replaces is frozen here
from wskit.builtin_plugins.skills.spec import (
    CLAUDE_CODE_FIELDS,
    MAX_COMPATIBILITY,
    MAX_DESCRIPTION,
    MAX_NAME,
    SPEC_FIELDS,
    _scalar,
    flow_style_line,
)
from wskit.builtin_plugins.skills.tools import SelectorError, parse_selectors
from wskit.formats.frontmatter import Frontmatter, parse_frontmatter, read_frontmatter
from wskit.formats.mdwalk import body_description, bool_field, component_dirs, text_field
from wskit.models import Diagnostic, LoadResult, Provenance, ResourceSource, Scope, sha256_hex
from wskit.resources.skill import Skill

KIND = "skill"


def wskit_load_skills(source: ResourceSource) -> LoadResult:
    resources: list[Skill] = []
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
        rel_dir = _join(root_rel, sub)
        try:
            entries = fs.scan_dir(source.base, rel_dir, follow_links=source.follow_links)
        except fs.SafeFsError as err:
            if err.code == "symlink":  # a linked skills folder: followed when it stays inside
                target, named, why = fs.inside_target(source.base, rel_dir, want="dir")
                if target is None:
                    diags.append(Diagnostic(level="warning", code="symlink", plugin=source.plugin,
                                            path=os.path.join(source.base, rel_dir),
                                            message=f"skills folder is a symbolic link to {named!r}, which {why}; "
                                            "not followed"))
                    continue
                try:
                    entries = fs.scan_dir(source.base, target)
                except fs.SafeFsError as again:
                    diags.append(again.diagnostic(plugin=source.plugin))
                    continue
                diags.append(Diagnostic(level="info", code="followed-link", path=os.path.join(source.base, rel_dir),
                                        plugin=source.plugin, message=f"followed link to {target!r} inside the project"))
                rel_dir = target
            else:
                if err.code != "not-found":
                    diags.append(err.diagnostic(plugin=source.plugin))
                continue
        for entry in entries:
            if entry.type == "link":
                if source.names is not None and entry.name not in source.names:
                    continue
                rel = _join(rel_dir, entry.name)
                target, named, why = fs.inside_target(source.base, rel, want="dir")
                if target is None:
                    diags.append(Diagnostic(level="warning", code="symlink", plugin=source.plugin,
                                            path=os.path.join(source.base, rel),
                                            message=f"skill folder is a symbolic link to {named!r}, which {why}; "
                                            "not followed"))
                    continue
                skill, found = _load_one(source, target, entry.name, target)
                diags.extend(found)
                if skill is not None:
                    resources.append(skill)
                continue
            if entry.type != "dir":
                continue
            if source.names is not None and entry.name not in source.names:
                continue
            skill, found = _load_one(source, _join(rel_dir, entry.name), entry.name, entry.link_target)
            diags.extend(found)
            if skill is not None:
                resources.append(skill)
    return LoadResult(resources=tuple(resources), diagnostics=tuple(diags))


def _join(a: str, b: str) -> str:
    return b if a in ("", ".") else f"{a}/{b}"


#: Per-file byte limit of admin-installed skills (Sakura B3: 524,288 loads, one more is refused).
def check_skill(fm, slug: str, path: str, has_bom: bool = False, plugin: str | None = None) -> list[Diagnostic]:
    """Lenient checks of a parsed ``<slug>/SKILL.md`` (design §5).

    :returns: diagnostics; level ``error`` means the skill is not loaded
        (no frontmatter, unparseable YAML, no description); every violation of
        the specification (:func:`wskit.builtin_plugins.skills.spec.spec_findings`) is a
        ``warning`` with the code strict validation uses as an error.
    """
    diags: list[Diagnostic] = [d.model_copy(update={"plugin": plugin}) for d in fm.diagnostics]
    if has_bom:
        diags.append(_warn(path, plugin, "skill-bom", 1, "SKILL.md starts with a byte-order mark (stripped)"))
    if not fm.present:
        diags.append(_warn(path, plugin, "skill-no-frontmatter", 1,
                           "SKILL.md has no '---' YAML frontmatter block; loaded with no fields, described by "
                           "its first body line, as Claude Code does"))
    elif not fm.ok:
        diags = [d.model_copy(update={"level": "warning", "message": d.message + _LENIENT_NOTE})
                 if d.code in _UNREAD and d.level == "error" else d for d in diags]
    data: dict[str, Any] = fm.data if fm.present and fm.ok else {}
    for d in spec_findings(data, slug, fm, path):
        if d.code == "skill-missing-description":
            d = d.model_copy(update={"message": d.message + "; described by its first body line, as Claude Code does"})
        diags.append(d.model_copy(update={"level": "warning", "plugin": plugin}))
    display = text_field(data.get("name")) or ""
    description = text_field(data.get("description")) or ""
    if not SPEC_NAME.match(slug):
        diags.append(_warn(path, plugin, "skill-folder-format", None,
                           f"folder name {slug!r} is not 1-64 lowercase ASCII letters, digits and single hyphens "
                           "(Anthropic's platform rule; the Agent Skills validator, skills-ref, also accepts "
                           "Unicode letters: strict validation may still pass)"))  # wording of 2026-12-01
    for _line_no, cp in fs.find_hidden_chars(display + "\n" + description):
        diags.append(_warn(path, plugin, "hidden-characters", None,
                           f"name or description contains the hidden character {cp}"))
        break
    key = "allowed_tools" if "allowed_tools" in data else "allowed-tools"
    try:
        parse_selectors(data.get(key))
    except SelectorError as err:
        diags.append(_warn(path, plugin, "invalid-allowed-tools", _line(fm, key),
                           f"{err}; activating this skill denies every tool (fail closed)"))
    for k in ("user-invocable", "disable-model-invocation"):
        if bool_field(data.get(k), False) is None:
            diags.append(_warn(path, plugin, "invalid-boolean", _line(fm, k), f"{k} must be a boolean"))
    return diags


def _load_one(
    source: ResourceSource, rel_dir: str, slug: str, link_target: str | None
) -> tuple[Skill | None, list[Diagnostic]]:
    diags: list[Diagnostic] = []
    rel = f"{rel_dir}/SKILL.md"
    path = os.path.join(source.base, rel)
    plugin = source.plugin
    limit = ADMIN_FILE_LIMIT if source.scope is Scope.ADMIN else None
    try:
        fm, res = read_frontmatter(source.base, rel, follow_links=source.follow_links)
    except fs.SafeFsError as err:
        if err.code == "not-found":
            return None, []  # a folder without SKILL.md is not a skill
        target = None
        if err.code == "symlink" and not source.follow_links:  # a SKILL.md linked inside the source
            target, _shown, _why = fs.inside_target(source.base, rel, want="file")
        if target is None:
            return None, [err.diagnostic(plugin=plugin)]
        try:
            fm, res = read_frontmatter(source.base, target)
        except fs.SafeFsError:
            return None, [err.diagnostic(plugin=plugin)]
        res = fs.ReadResult(res.raw, res.size, res.complete, res.path, link_target=target)
    if limit is not None and res.size > limit:
        return None, [_err(path, plugin, "too-large", None,
                           f"admin skill file is {res.size} bytes, over the limit of {limit} bytes")]
    bad = _UNSAFE_NAME.search(slug)
    if bad:
        # ':' is the namespace separator (a bare name holding it could never
        # resolve, and reads like another plugin's id); control, bidi and
        # zero-width characters would inject text into listings shown to a model.
        diags.append(_err(path, plugin, "skill-name-invalid", None,
                          f"folder name {slug!r} holds the character U+{ord(bad.group()):04X}; "
                          "skill names may not contain ':' or control, bidirectional or invisible characters"))
        return None, diags
    if link_target or res.link_target:
        diags.append(
            Diagnostic(level="info", code="followed-link", path=path, plugin=plugin,
                       message=f"followed link to {link_target or res.link_target}")
        )
    found = check_skill(fm, slug, path, res.raw.startswith(b"\xef\xbb\xbf"), plugin)
    diags.extend(found)
    if any(d.level == "error" for d in found):
        return None, diags
    data: dict[str, Any] = _canonical_keys(fm.data if fm.present and fm.ok else {})
    value = data.get("description")
    description = ("true" if value else "false") if isinstance(value, bool) else text_field(value) or ""
    if not description:
        read_from = res.link_target if res.link_target and not source.follow_links else rel
        whole = fs.read_bytes(source.base, read_from, max_bytes=1 << 20, follow_links=source.follow_links).raw
        text = whole[: 128 * 1024].decode("utf-8", "replace").removeprefix("\ufeff")
        body = parse_frontmatter(text.replace("\r\n", "\n").replace("\r", "\n")).body
        description = body_description(body, "Skill")
    display = text_field(data.get("name")) or ""
    tools_raw = data["allowed_tools"] if "allowed_tools" in data else data.get("allowed-tools")
    allowed = _tools(tools_raw)
    bools: dict[str, bool] = {}
    for key, default in (("user-invocable", True), ("disable-model-invocation", False)):
        value = bool_field(data.get(key), default)
        bools[key] = default if value is None else value
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
        argument_hint=text_field(data.get("argument-hint")),
        user_invocable=bools["user-invocable"],
        disable_model_invocation=bools["disable-model-invocation"],
        model=text_field(data.get("model")),
        license=text_field(data.get("license")),
        compatibility=text_field(data.get("compatibility")),
        when_to_use=text_field(data.get("when-to-use")),
        arguments=arguments,
        metadata=metadata,
        extra={k: v for k, v in data.items() if k not in _KNOWN},
        follow_links=source.follow_links,
        max_file_bytes=limit,
    )
    return skill, diags


# -- reuse across reloads: an unchanged SKILL.md is not read again -------------
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


# -- spec_findings, frozen (the helpers it calls are imported) -----------------


def spec_findings(data: dict[str, Any], slug: str, fm: Frontmatter, path: str) -> list[Diagnostic]:
    """Every way ``data`` (a parsed frontmatter of ``<slug>/SKILL.md``) breaks the
    specification, as ``error`` diagnostics with codes and lines."""
    out: list[Diagnostic] = []

    def err(code: str, key: str | None, msg: str) -> None:
        out.append(Diagnostic(level="error", code=code, path=path,
                              line=fm.line_of(key) if key else None, message=msg))

    # the one change since it was frozen: fields Claude Code reads are no warning (issue 18 item 6)
    extra = sorted(set(data) - SPEC_FIELDS - CLAUDE_CODE_FIELDS)
    for key in extra:
        err("skill-unknown-field", key, f"field {key!r} is not part of the Agent Skills specification "
            f"(allowed: {', '.join(sorted(SPEC_FIELDS))})")
    if "name" not in data:
        err("skill-missing-name", None, "required field 'name' is missing")
    else:
        name = _scalar(data["name"])
        if not isinstance(name, str) or not name.strip():
            err("skill-missing-name", "name", "field 'name' must be a non-empty string")
        else:
            name = unicodedata.normalize("NFKC", name.strip())
            if len(name) > MAX_NAME:
                err("skill-name-too-long", "name", f"name {name!r} is {len(name)} characters (limit {MAX_NAME})")
            if name != name.lower():
                err("skill-name-format", "name", f"name {name!r} must be lowercase")
            if name.startswith("-") or name.endswith("-"):
                err("skill-name-format", "name", f"name {name!r} starts or ends with a hyphen")
            if "--" in name:
                err("skill-name-format", "name", f"name {name!r} contains consecutive hyphens")
            if not all(c.isalnum() or c == "-" for c in name):
                err("skill-name-format", "name", f"name {name!r} may only hold letters, digits and hyphens")
            if unicodedata.normalize("NFKC", slug) != name:
                err("skill-name-mismatch", "name", f"name {name!r} differs from its folder {slug!r}")
    if "description" not in data:
        err("skill-missing-description", None, "required field 'description' is missing")
    else:
        desc = _scalar(data["description"])
        if not isinstance(desc, str) or not desc.strip():
            err("skill-missing-description", "description", "field 'description' must be a non-empty string")
        elif len(desc) > MAX_DESCRIPTION:
            err("skill-description-too-long", "description",
                f"description is {len(desc)} characters (limit {MAX_DESCRIPTION})")
    flow = flow_style_line(fm.block)
    if flow is not None:
        out.append(Diagnostic(level="error", code="skill-yaml-flow-style", path=path, line=flow + 1,
                              message="frontmatter uses a YAML flow collection ([...] or {...}); "
                              "the specification's reference validator (strictyaml) refuses it"))
    if "compatibility" in data:
        comp = _scalar(data["compatibility"])
        if not isinstance(comp, str):
            err("skill-compatibility-invalid", "compatibility", "field 'compatibility' must be a string")
        elif len(comp) > MAX_COMPATIBILITY:
            err("skill-compatibility-too-long", "compatibility",
                f"compatibility is {len(comp)} characters (limit {MAX_COMPATIBILITY})")
    return out
