"""Built-in plugin ``skills``: discovers ``<root>/<slug>/SKILL.md`` skills.

Discovery reads only the frontmatter of each ``SKILL.md`` (never the body),
through safe file access. Identity is the folder name (design §5); a bad
skill becomes a diagnostic and is not registered, so a lower-precedence skill
of the same name stays active.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from wskit import safefs
from wskit.kinds import ResourceKind
from wskit.mdscan import bool_field, component_dirs, text_field
from wskit.models import Diagnostic, LoadResult, Provenance, ResourceSource, Scope, sha256_hex
from wskit.plugin import hookimpl

if TYPE_CHECKING:
    from wskit.resources.skill import Skill

_DEPS: tuple | None = None


def _deps() -> tuple:
    """``(read_frontmatter, Skill, SelectorError, parse_selectors, split_value)``, imported by
    the first SKILL.md read and kept: a workspace without skills never imports PyYAML, the
    Skill model or the tool-selector grammar (issue 8, B7). A cached tuple, not a
    function-level import, which costs ~2 µs per call in the per-skill loop."""
    global _DEPS
    if _DEPS is None:
        from wskit.markdown import read_frontmatter
        from wskit.resources.skill import Skill
        from wskit.toolpolicy import SelectorError, parse_selectors, split_value
        _DEPS = (read_frontmatter, Skill, SelectorError, parse_selectors, split_value)
    return _DEPS


KIND = "skill"
#: Agent Skills name rule: 1-64 of lowercase letters, digits, single hyphens.
SPEC_NAME = re.compile(r"^(?=.{1,64}$)[a-z0-9]+(-[a-z0-9]+)*$")
_KNOWN = {
    "name", "description", "license", "compatibility", "metadata", "allowed-tools", "allowed_tools",
    "argument-hint", "arguments", "user-invocable", "disable-model-invocation", "model",
    "when_to_use", "when-to-use", "version", "argument_hint", "user_invocable", "disable_model_invocation",
}
#: Characters refused in a skill's folder name (see ``skill-name-invalid``).
_UNSAFE_NAME = re.compile("[:\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]")


@hookimpl
def wskit_resource_kinds():
    from wskit.skillruntime import skills_filter

    return [ResourceKind(name=KIND, hook="wskit_load_skills", default_dir="skills", filter=skills_filter)]


@hookimpl
def wskit_load_skills(source: ResourceSource) -> LoadResult:
    resources: list[Skill] = []
    diags: list[Diagnostic] = []
    root_rel = os.path.relpath(source.root, source.base).replace(os.sep, "/")
    for sub in component_dirs(source, KIND, "skills"):
        try:
            # a component folder is a path-naming field (manifests set it): it
            # must be relative and contained, checked before it is joined
            if sub not in ("", "."):  # "." is the source root itself
                safefs.split_relative(sub)
        except safefs.SafeFsError as err:
            diags.append(err.diagnostic(plugin=source.plugin).model_copy(
                update={"path": os.path.join(source.root, err.path)}))
            continue
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
ADMIN_FILE_LIMIT = 512 * 1024
_LENIENT_FATAL = {"skill-missing-description"}


def check_skill(fm, slug: str, path: str, has_bom: bool = False, plugin: str | None = None) -> list[Diagnostic]:
    """Lenient checks of a parsed ``<slug>/SKILL.md`` (design §5).

    :returns: diagnostics; level ``error`` means the skill is not loaded
        (no frontmatter, unparseable YAML, no description); every violation of
        the specification (:func:`wskit.skillcheck.spec_findings`) is a
        ``warning`` with the code strict validation uses as an error.
    """
    from wskit.skillcheck import spec_findings

    _, _, SelectorError, parse_selectors, _ = _deps()

    diags: list[Diagnostic] = [d.model_copy(update={"plugin": plugin}) for d in fm.diagnostics]
    if has_bom:
        diags.append(_warn(path, plugin, "skill-bom", 1, "SKILL.md starts with a byte-order mark (stripped)"))
    if not fm.present:
        diags.append(_err(path, plugin, "skill-no-frontmatter", 1,
                          "SKILL.md must start with a '---' YAML frontmatter block"))
        return diags
    if not fm.ok:
        return diags
    data: dict[str, Any] = fm.data
    for d in spec_findings(data, slug, fm, path):
        level = "error" if d.code in _LENIENT_FATAL else "warning"
        diags.append(d.model_copy(update={"level": level, "plugin": plugin}))
    display = text_field(data.get("name")) or ""
    description = text_field(data.get("description")) or ""
    if not SPEC_NAME.match(slug):
        diags.append(_warn(path, plugin, "skill-folder-format", None,
                           f"folder name {slug!r} is not 1-64 lowercase letters, digits and single hyphens"))
    for _line_no, cp in safefs.find_hidden_chars(display + "\n" + description):
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
    read_frontmatter, Skill, _, _, _ = _deps()
    diags: list[Diagnostic] = []
    rel = f"{rel_dir}/SKILL.md"
    path = os.path.join(source.base, rel)
    plugin = source.plugin
    limit = ADMIN_FILE_LIMIT if source.scope is Scope.ADMIN else None
    try:
        fm, res = read_frontmatter(source.base, rel, follow_links=source.follow_links)
    except safefs.SafeFsError as err:
        if err.code == "not-found":
            return None, []  # a folder without SKILL.md is not a skill
        return None, [err.diagnostic(plugin=plugin)]
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
    if any(d.level == "error" for d in found) or not fm.present or not fm.ok:
        return None, diags
    data: dict[str, Any] = _canonical_keys(fm.data)
    description = text_field(data.get("description")) or ""
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


_SNAKE_ALIASES = ("argument-hint", "user-invocable", "disable-model-invocation", "when-to-use")


def _canonical_keys(data: dict[str, Any]) -> dict[str, Any]:
    """Kebab-case keys are canonical; a snake_case spelling is used only when the
    kebab one is absent (``allowed_tools`` is the exception: it wins, Sakura B2)."""
    out = dict(data)
    for key in _SNAKE_ALIASES:
        snake = key.replace("-", "_")
        if key not in out and snake in out:
            out[key] = out[snake]
    return out



def _tools(v: Any) -> tuple[str, ...] | None:
    """The raw selectors of an ``allowed-tools`` value (None: absent; ``()``: deny all).
    Values the grammar cannot even split are kept as one item, so they fail closed."""
    _, _, SelectorError, _, split_value = _deps()
    try:
        items = split_value(v)
    except SelectorError:
        return (str(v),)
    if items is None:
        return None
    return tuple(str(x).strip() if isinstance(x, str) else f"<not a string: {x!r}>" for x in items)



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
