"""Skill discovery: ``<root>/<slug>/SKILL.md`` skills of one source (design §5).

The engine behind the built-in plugin ``skills`` (:mod:`wskit.builtin_plugins.skills`),
kept apart so the plugin module stays import-light (a workspace without
skills does not import PyYAML or build the ``Skill`` model). Discovery reads only the
frontmatter of each ``SKILL.md`` (never the body), through safe file access below
the held skills-folder descriptor. Identity is the folder name; a bad
skill becomes a diagnostic and is not registered, so a lower-precedence skill of the
same name stays active.
"""


from __future__ import annotations

import os
import re
from typing import Any

from wskit import changes, fs
from wskit.builtin_plugins.skills import fast as skillfast
from wskit.builtin_plugins.skills.lint import ADMIN_FILE_LIMIT, SPEC_NAME, _check, _err, _text, _text_keys, tools_of
from wskit.builtin_plugins.skills.spec import MAX_COMPATIBILITY as _MAX_COMPATIBILITY
from wskit.builtin_plugins.skills.spec import MAX_DESCRIPTION as _MAX_DESCRIPTION
from wskit.builtin_plugins.skills.spec import SPEC_FIELDS as _SPEC_FIELDS
from wskit.builtin_plugins.skills.tools import SelectorError, split_value
from wskit.formats.frontmatter import MAX_FRONTMATTER_BYTES, flat_head, frontmatter_of_head, head_done, read_frontmatter
from wskit.formats.mdwalk import body_description, bool_field
from wskit.fs.fdwalk import read_head_bytes_in
from wskit.fs.names import _is_drive_or_url, not_utf8, shown_path
from wskit.fs.text import _HIDDEN
from wskit.models import Diagnostic, Provenance, ResourceSource, Scope, construct_valid, sha256_hex
from wskit.resources.skill import Skill
from wskit.util.gcpause import gc_paused

KIND = "skill"
_KNOWN = {
    "name", "description", "license", "compatibility", "metadata", "allowed-tools", "allowed_tools",
    "argument-hint", "arguments", "user-invocable", "disable-model-invocation", "model",
    "when_to_use", "when-to-use", "version", "argument_hint", "user_invocable", "disable_model_invocation",
}
#: Characters refused in a skill's folder name (see ``skill-name-invalid``).
_UNSAFE_NAME = re.compile("[:\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]")


def load_folder(
    source: ResourceSource, rel_dir: str, fd: int, shown_dir: str, resources: list[Skill], diags: list[Diagnostic]
) -> None:
    """Load every ``<slug>/SKILL.md`` of the skills folder open as ``fd`` (listed as
    :func:`wskit.fs.scan_dir` lists it). Without ``follow_links`` each file is
    opened relative to ``fd`` (two ``openat`` per skill instead of one
    per path component from the base), and a clean skill is built in one pass by
    :func:`wskit.builtin_plugins.skills.fast.one`; a followed link is resolved from its path.

    :param rel_dir: the folder relative to ``source.base`` (``/`` separators).
    :param shown_dir: its absolute path, as diagnostics and change notes name it.
    :param resources: receives the skills, in listing order (appended).
    :param diags: receives every diagnostic (appended); nothing is raised for bad
        content. ``fd`` stays open (the caller closes it).
    """
    folder = _Folder(source, None if source.follow_links else fd, _prefix(shown_dir), rel_dir)
    names = source.names
    fast = skillfast.lane(folder, rel_dir)
    offered = changes.reuse_offered()
    notes = changes.Notes() if offered else None  # the reuse context, read once per folder
    # the lane first, then reuse around what it hands back, unless a previous load is
    # offered (a reload: reuse first, so an unchanged file is not read at all)
    direct = fast is not None and (notes is None or not notes.reloading)
    if notes is not None and not source.follow_links:
        # an unchanged folder signature means the same names and types: the listing of
        # the previous load is taken, as the rule walk does per folder
        entries = notes.reuse(shown_dir, _LISTING)
        if entries is None:
            entries = tuple(fs.scan_fd_tuples(fd, shown_dir))
            notes.remember(shown_dir, entries, _LISTING)
    else:
        entries = fs.scan_fd_tuples(fd, shown_dir, follow_links=source.follow_links)
    one = skillfast.one
    keep = None if notes is None else notes.remember  # a cold load under a cache: kept for its reloads
    memo_pre = f"{folder.base_pre}{_join(rel_dir, '')}"  # + "<slug>/SKILL.md": the path _load_one keys
    follow = folder.follow
    # the objects built below hold no reference cycle: a collection during the loop
    # would only scan them (a fifth of a 10,000-skill load), so none runs until it ends
    with gc_paused():
        for name, kind, link_target in entries:
            if kind == "link":
                if names is None or name in names:
                    _linked_skill(source, rel_dir, name, resources, diags)
                continue
            if kind != "dir":
                continue
            if names is not None and name not in names:
                continue
            try:
                if direct:  # the common case in one pass, nothing to reuse
                    got = one(fast, name)
                    if got.__class__ is Skill:
                        resources.append(got)
                        if keep is not None:
                            keep(f"{memo_pre}{name}/SKILL.md", ((*folder.key, link_target), got, ()), follow=follow)
                        continue
                    skill, found = _read_one(folder, _join(rel_dir, name), name, link_target, got)
                    if keep is not None:
                        keep(f"{memo_pre}{name}/SKILL.md", ((*folder.key, link_target), skill, tuple(found)),
                             follow=follow)
                else:
                    skill, found = _load_one(folder, _join(rel_dir, name), name, link_target, fast, notes)
            except (ValueError, TypeError) as err:  # one skill's surprise must not take its siblings down
                skill, found = None, [_err(f"{shown_dir}/{name}/SKILL.md", source.plugin, "skill-invalid", None,
                                           f"{type(err).__name__}: {str(err).splitlines()[0]}")]
            if found:
                diags.extend(found)
            if skill is not None:
                resources.append(skill)


def _linked_skill(source: ResourceSource, rel_dir: str, slug: str, resources: list[Skill],
                  diags: list[Diagnostic]) -> None:
    """A skill folder that is a link (``.claude/skills/x -> ../../shared/x``): loaded from
    its resolved folder when that stays inside the source (:func:`wskit.fs.inside_target`),
    under the link's name, as every host does; else a ``symlink`` warning naming the target.
    The target is read through the no-follow reads, so a later swap is still refused."""
    rel = _join(rel_dir, slug)
    target, named, why = fs.inside_target(source.base, rel, want="dir")
    if target is None:
        diags.append(Diagnostic(level="warning", code="symlink", plugin=source.plugin,
                                path=os.path.join(source.base, rel),
                                message=f"skill folder is a symbolic link to {named!r}, which {why}; not followed"))
        return
    folder = _Folder(source, None, _prefix(os.path.join(source.base, target)), target)
    try:
        skill, found = _read_one(folder, target, slug, target)
    except (ValueError, TypeError) as err:
        skill, found = None, [_err(os.path.join(source.base, rel, "SKILL.md"), source.plugin, "skill-invalid", None,
                                   f"{type(err).__name__}: {str(err).splitlines()[0]}")]
    diags.extend(found)
    if skill is not None:
        resources.append(skill)


#: GitHub Copilot CLI's longest skill description, in characters
_COPILOT_MAX_DESCRIPTION = 1024


def _linked_file(folder: "_Folder", rel: str):
    """``(frontmatter, read result)`` of a ``SKILL.md`` that is a link to a regular file inside
    the source (:func:`wskit.fs.inside_target`), read from its resolved path (Claude Code
    2.1.337 loads such a skill: recorded case ``skill-file-link-inside``); None when the
    link leads elsewhere (the caller reports the refusal)."""
    if folder.follow:
        return None
    target, _named, _why = fs.inside_target(folder.base, rel, want="file")
    if target is None:
        return None
    try:
        fm, res = read_frontmatter(folder.base, target, follow_links=False)
    except fs.SafeFsError:
        return None
    return fm, fs.ReadResult(res.raw, res.size, res.complete, res.path, link_target=target)


#: :mod:`wskit.changes` namespace of a skills folder's listing kept for the next reload
_LISTING = "wskit.builtin_plugins.skills.discovery.listing"


class _Folder:
    """One skills folder being loaded: the source's fields read once (an attribute
    of a pydantic model costs a ``__getattr__`` hook call), the held descriptor
    (None in follow mode) and the prefix of the paths shown for its files."""

    __slots__ = ("source", "base", "base_pre", "plugin", "scope", "follow", "limit", "trusted", "fd",
                 "shown_pre", "key", "drive")

    def __init__(self, source: ResourceSource, fd: int | None, shown_pre: str, rel_dir: str) -> None:
        self.source = source
        self.base = source.base
        self.base_pre = _prefix(source.base)
        self.plugin = source.plugin
        self.scope = source.scope
        self.follow = source.follow_links
        self.limit = ADMIN_FILE_LIMIT if source.scope is Scope.ADMIN else None
        self.trusted = _trusted_source(source)
        self.fd = fd
        self.shown_pre = shown_pre
        self.key = (source.scope.value, source.base, source.plugin)
        # whether fs.split_relative refuses "<rel_dir>/<slug>/SKILL.md" as absolute-looking
        # ("c:…", "x://…"): decided by the folder part alone unless that part is empty
        self.drive = None if rel_dir in ("", ".") else _is_drive_or_url(f"{rel_dir}/x/SKILL.md")


def _join(a: str, b: str) -> str:
    return b if a in ("", ".") else f"{a}/{b}"


def _prefix(folder: str) -> str:
    """``p`` such that ``p + rel == os.path.join(folder, rel)`` for every relative ``rel``."""
    return folder if not folder or folder.endswith("/") else folder + "/"


def _read_one(
    folder: _Folder, rel_dir: str, slug: str, link_target: str | None, head: tuple | None = None
) -> tuple[Skill | None, list[Diagnostic]]:
    """The skill in ``<base>/<rel_dir>/SKILL.md`` and its diagnostics; ``head`` is
    ``(raw, size, complete)`` already read below the held folder by
    :func:`wskit.builtin_plugins.skills.fast.one` (then not read again), or None (read here)."""
    diags: list[Diagnostic] = []
    rel = f"{rel_dir}/SKILL.md"
    source = folder.source
    base = folder.base
    base_pre = folder.base_pre
    path = base_pre + rel  # os.path.join(base, rel): rel is relative
    plugin = folder.plugin
    limit = folder.limit
    flat = None
    via_fd = False
    try:
        drive = folder.drive
        if head is None and (folder.fd is None or "\\" in slug
                             or (_is_drive_or_url(rel) if drive is None else drive)):
            # no held folder, or a name the path checks of read_frontmatter refuse
            fm, res = read_frontmatter(base, rel, follow_links=folder.follow)
        else:
            # rel_dir passed those checks when its folder was opened, and the
            # listing hid secret names: <slug>/SKILL.md below the held folder
            shown = f"{folder.shown_pre}{slug}/SKILL.md"
            via_fd = True
            raw, size, complete = head or read_head_bytes_in(folder.fd, (slug, "SKILL.md"), shown,
                                                             done=head_done, max_bytes=MAX_FRONTMATTER_BYTES)
            flat = flat_head(raw, complete)
            res = fs.ReadResult(raw, size, complete, shown) if flat is None else None
            if res is not None:
                fm, res = frontmatter_of_head(res, MAX_FRONTMATTER_BYTES)
    except fs.SafeFsError as err:
        if err.code == "not-found":
            return None, []  # a folder without SKILL.md is not a skill
        linked = _linked_file(folder, rel) if err.code == "symlink" else None
        if linked is None:
            return None, [err.diagnostic(plugin=plugin)]
        (fm, res), link_target, flat, via_fd = linked, linked[1].link_target, None, False
    res_size = size if flat is not None else res.size
    if limit is not None and res_size > limit:
        return None, [_err(path, plugin, "too-large", None,
                           f"admin skill file is {res_size} bytes, over the limit of {limit} bytes")]
    why = not_utf8(slug)
    if why is not None:  # not UTF-8: no id, listing or session file can hold the name
        diags.append(_err(shown_path(path), plugin, "skill-name-invalid", None,
                          f"folder name {why}; not loaded"))
        return None, diags
    bad = _UNSAFE_NAME.search(slug)
    if bad:
        # ':' is the namespace separator (a bare name holding it could never
        # resolve, and reads like another plugin's id); control, bidi and
        # zero-width characters would inject text into listings shown to a model.
        diags.append(_err(path, plugin, "skill-name-invalid", None,
                          f"folder name {slug!r} holds the character U+{ord(bad.group()):04X}; "
                          "skill names may not contain ':' or control, bidirectional or invisible characters"))
        return None, diags
    if flat is not None:
        skill = _clean_flat_skill(folder, slug, rel_dir, rel, *flat)
        if skill is not None:
            return skill, diags
        fm, res = frontmatter_of_head(fs.ReadResult(raw, size, complete, shown),
                                      MAX_FRONTMATTER_BYTES)  # same bytes: cannot raise
    if link_target or res.link_target:
        diags.append(
            Diagnostic(level="info", code="followed-link", path=path, plugin=plugin,
                       message=f"followed link to {link_target or res.link_target}")
        )
    found, allowed = _check(fm, slug, path, res.raw.startswith(b"\xef\xbb\xbf"), plugin)
    if found:
        diags.extend(found)
        if any(d.level == "error" for d in found):
            return None, diags
    # no frontmatter, or one that does not parse: loaded with no fields (Claude Code 2.1.332)
    data: dict[str, Any] = fm.data if fm.present and fm.ok else {}
    if not _SNAKE_KEYS.isdisjoint(data):
        data = _canonical_keys(data)
    get = data.get
    description = _description(get("description"))
    if not description:
        description = body_description(_body_of(folder, slug, res.link_target if res is not None and res.link_target
                                                and not folder.follow else rel, via_fd), "Skill")
    if len(description) > _COPILOT_MAX_DESCRIPTION and source.host == "copilot":
        # GitHub Copilot CLI 1.0.102 refuses such a skill ("Skill description must be at most
        # 1024 characters"): under --host copilot it does not load either
        diags.append(_err(path, plugin, "skill-description-too-long", None,
                          f"description is {len(description)} characters, over GitHub Copilot CLI's limit of "
                          f"{_COPILOT_MAX_DESCRIPTION}; not loaded under --host copilot"))
        return None, diags
    display = _text(get("name")) or ""
    user_invocable = bool_field(get("user-invocable"), True)
    disable_model = bool_field(get("disable-model-invocation"), False)
    sid = f"plugin:{plugin}:{slug}" if plugin else f"{source.scope.value}:{slug}"
    metadata = get("metadata")
    if metadata.__class__ is not dict:
        metadata = {} if not isinstance(metadata, dict) else metadata
    if not all(k.__class__ is str for k in metadata):
        metadata = _text_keys(metadata, path, plugin, diags)
    args = get("arguments")
    arguments = tuple(str(a) for a in args) if isinstance(args, list) else tuple(str(args or "").split())
    fields = {
        "id": sid,
        "name": slug,
        "kind": "skill",
        "description": description,
        "provenance": None,
        "display_name": display or slug,
        "directory": base_pre + rel_dir,
        "allowed_tools": allowed,
        "argument_hint": _text(get("argument-hint")),
        "user_invocable": True if user_invocable is None else user_invocable,
        "disable_model_invocation": False if disable_model is None else disable_model,
        "model": _text(get("model")),
        "license": _text(get("license")),
        "compatibility": _text(get("compatibility")),
        "when_to_use": _text(get("when-to-use")),
        "arguments": arguments,
        "metadata": metadata,
        "extra": {k: v for k, v in data.items() if k not in _KNOWN},
        "follow_links": source.follow_links,
        "max_file_bytes": limit,
    }
    prov = {"scope": source.scope, "source_root": base, "path": rel, "plugin": plugin, "sha256": sha256_hex(res.raw)}
    if folder.trusted and (metadata.__class__ is dict and all(k.__class__ is str for k in metadata)):
        # every value above is already what validation stores (tests/builtin_plugins/skills/test_discovery_reference.py)
        fields["metadata"] = dict(metadata)
        fields["provenance"] = construct_valid(Provenance, prov)
        return construct_valid(Skill, fields, _UNSET), diags
    fields["provenance"] = Provenance(**prov)
    del fields["kind"]  # left to its default, as on the fast path (_UNSET)
    return Skill(**fields), diags


def _description(value: Any) -> str:
    """A written description as Claude Code 2.1.332 reads it: text stripped, a
    number or boolean as its JavaScript text; "" for none, a list or a map."""
    if value.__class__ is bool:
        return "true" if value else "false"
    return _text(value) or ""


#: bytes of a ``SKILL.md`` read for the first body line of a skill without a description
_BODY_BYTES = MAX_FRONTMATTER_BYTES + 64 * 1024


def _body_of(folder: _Folder, slug: str, rel: str, via_fd: bool) -> str:
    """The body of ``<slug>/SKILL.md`` (the whole text when it has no closed
    frontmatter), from its first :data:`_BODY_BYTES` bytes read as the head was
    (below the held folder when ``via_fd``); "" when it cannot be read. Only a
    skill without a written description pays this second read."""
    try:
        if via_fd:
            raw = read_head_bytes_in(folder.fd, (slug, "SKILL.md"), f"{folder.shown_pre}{slug}/SKILL.md",
                                     done=_never, max_bytes=_BODY_BYTES)[0]
        else:
            raw = fs.read_head(folder.base, rel, done=_never, max_bytes=_BODY_BYTES,
                               follow_links=folder.follow).raw
    except fs.SafeFsError:
        return ""
    from wskit.formats.frontmatter import parse_frontmatter

    text = raw.decode("utf-8", "replace").removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return parse_frontmatter(text).body


def _never(_head: bytes) -> bool:
    return False


_UNSET = frozenset({"kind"})  # the one field left to its default (not in model_fields_set)


def _clean_flat_skill(
    folder: _Folder, slug: str, rel_dir: str, rel: str, raw: bytes, block: str, data: dict[str, str],
) -> Skill | None:
    """The skill :func:`_read_one` builds from a flat frontmatter
    (:func:`wskit.formats.frontmatter.flat_head`: every value a string) that has no
    diagnostic at all, built directly (:func:`~wskit.models.construct_valid`); None when any check of
    :func:`_check` could report something (the general path then runs).

    No diagnostic means: only specification fields (so no alias, extra,
    boolean, ``arguments`` or ``metadata`` map), ``name`` equal to its folder
    name, which matches :data:`SPEC_NAME` (then every name check of
    :func:`wskit.builtin_plugins.skills.spec.spec_findings` passes); a non-blank description of
    at most 1,024 characters without hidden characters; no flow collection;
    ``compatibility`` of at most 500 characters; ``allowed-tools`` that parses.
    The link and admin-size checks ran before; a held folder is never read
    following links. ``tests/builtin_plugins/skills/test_discovery_reference.py`` compares the
    result with the loader as it was.
    """
    if not _SPEC_FIELDS.issuperset(data) or not folder.trusted:
        return None
    name = data.get("name")
    desc = data.get("description")
    if name is None or desc is None or name.strip() != slug or not SPEC_NAME.match(slug):
        return None
    description = desc.strip()
    if not description or len(desc) > _MAX_DESCRIPTION or "[" in block or "{" in block:
        return None
    # flat values passed flatyaml's character check: ASCII ones are printable
    if not description.isascii() and _HIDDEN.search(description):
        return None
    comp = data.get("compatibility")
    if comp is not None and len(comp) > _MAX_COMPATIBILITY:
        return None
    allowed, problem = tools_of(data.get("allowed-tools"))
    if problem is not None:
        return None
    lic = data.get("license")
    prov = {"scope": folder.scope, "source_root": folder.base, "path": rel, "plugin": folder.plugin,
            "sha256": sha256_hex(raw)}
    plugin = folder.plugin
    return construct_valid(Skill, {
        "id": f"plugin:{plugin}:{slug}" if plugin else f"{folder.key[0]}:{slug}",
        "name": slug,
        "kind": "skill",
        "description": description,
        "provenance": construct_valid(Provenance, prov),
        "display_name": slug,
        "directory": folder.base_pre + rel_dir,
        "allowed_tools": allowed,
        "argument_hint": None,
        "user_invocable": True,
        "disable_model_invocation": False,
        "model": None,
        "license": None if lic is None else lic.strip(),
        "compatibility": None if comp is None else comp.strip(),
        "when_to_use": None,
        "arguments": (),
        "metadata": {},
        "extra": {},
        "follow_links": folder.follow,
        "max_file_bytes": folder.limit,
    }, _UNSET)


def _trusted_source(source: ResourceSource) -> bool:
    """The source's fields are the types :func:`construct_valid` may store as they are."""
    return (source.scope.__class__ is Scope and source.base.__class__ is str
            and (source.plugin is None or source.plugin.__class__ is str) and source.follow_links.__class__ is bool)


_SNAKE_ALIASES = ("argument-hint", "user-invocable", "disable-model-invocation", "when-to-use")
_SNAKE_KEYS = frozenset(k.replace("-", "_") for k in _SNAKE_ALIASES)


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
    try:
        items = split_value(v)
    except SelectorError:
        return (str(v),)
    if items is None:
        return None
    return tuple(str(x).strip() if isinstance(x, str) else f"<not a string: {x!r}>" for x in items)


# -- reuse across reloads ------------------------------------------------------


def _load_one(
    folder: _Folder, rel_dir: str, slug: str, link_target: str | None, lane: skillfast.Lane | None = None,
    notes: changes.Notes | None = None,
) -> tuple[Skill | None, list[Diagnostic]]:
    """:func:`_read_lane`, reusing what the previous load built from an
    unchanged ``SKILL.md`` when :class:`~wskit.cache.WorkspaceCache` reloads
    (:func:`wskit.changes.reuse`; the file is then not read). Safe because the
    folder chain was just re-opened without following links by ``scan_dir`` and
    the entry was seen as a real folder; a changed signature (edit, replace,
    new link count) means a fresh read. ``notes``: the folder's reuse context
    (:class:`wskit.changes.Notes`, made once per folder by :func:`load_folder`),
    None when no reuse is offered (nothing reused or remembered)."""
    if notes is None:
        return _read_lane(folder, rel_dir, slug, link_target, lane)
    path = f"{folder.base_pre}{rel_dir}/SKILL.md"
    key = (*folder.key, link_target)
    hit = notes.reuse(path, follow=folder.follow)
    if hit is not None and hit[0] == key:
        return hit[1], list(hit[2]) if hit[2] else []
    skill, diags = _read_lane(folder, rel_dir, slug, link_target, lane)
    notes.remember(path, (key, skill, tuple(diags)), follow=folder.follow)
    return skill, diags


def _read_lane(
    folder: _Folder, rel_dir: str, slug: str, link_target: str | None, lane: skillfast.Lane | None
) -> tuple[Skill | None, list[Diagnostic]]:
    """:func:`_read_one`, the common case in one pass when the folder has a
    lane (:func:`wskit.builtin_plugins.skills.fast.one`): its skill, or the head it
    read built here from the same bytes, or (refused or odd) read again here."""
    if lane is not None:
        got = skillfast.one(lane, slug)
        if got.__class__ is Skill:
            return got, []
        return _read_one(folder, rel_dir, slug, link_target, got)
    return _read_one(folder, rel_dir, slug, link_target)
