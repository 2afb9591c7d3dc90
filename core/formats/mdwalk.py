"""Walking a source's markdown folders (commands, agents, styles, and every kind
whose :attr:`~wskit.kinds.ResourceKind.markdown` is set) through safe file access,
and the frontmatter field helpers the markdown loaders share."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from wskit import fs
from wskit.fs.names import not_utf8, shown_path
from wskit.models import Diagnostic, ResourceSource
from wskit.util.lazyre import lazy_pattern
from wskit.values import FrozenValue

if TYPE_CHECKING:
    from wskit.kinds import ResourceKind

__all__ = [
    "body_description",
    "MdEntry", "bool_field", "component_dirs", "description_too_long", "first_line", "hidden_chars_diag",
    "is_agents_convention", "join", "list_field", "root_rel", "text_field", "walk_markdown",
]


class MdEntry(FrozenValue):
    """One entry met while walking (immutable; a plain class, so start-up compiles nothing:
    see :mod:`wskit.values`).

    :ivar rel: path relative to the source ``base`` (``/`` separators).
    :ivar segments: path below the kind folder, without the ``.md`` suffix on the last one.
    :ivar depth: folder depth of the file (1: directly in the kind folder).
    :ivar type: ``file``, ``link``, ``special`` or ``deep-dir`` (a folder deeper than allowed).
    :ivar link_target: where a followed link led (user scope only).
    """

    rel: str
    segments: tuple[str, ...]
    depth: int
    type: str
    link_target: str | None

    def __init__(self, rel: str, segments: tuple[str, ...], depth: int, type: str,
                 link_target: str | None = None) -> None:
        _set = object.__setattr__
        _set(self, "rel", rel)
        _set(self, "segments", segments)
        _set(self, "depth", depth)
        _set(self, "type", type)
        _set(self, "link_target", link_target)


def join(a: str, b: str) -> str:
    """Join relative paths, treating ``""``/``"."`` as empty."""
    if a in ("", "."):
        return b
    if b in ("", "."):
        return a
    return f"{a}/{b}"


def root_rel(source: ResourceSource) -> str:
    """``source.root`` relative to ``source.base``."""
    return os.path.relpath(source.root, source.base).replace(os.sep, "/")


def is_agents_convention(source: ResourceSource) -> bool:
    """True for a user/project ``.agents`` folder: it holds skills only (commands and
    agents live in ``.claude/`` and ``.<host>/``)."""
    return source.plugin is None and Path(source.root).name == ".agents"


def component_dirs(source: ResourceSource, kind: ResourceKind | str, default_dir: str | None = None
                   ) -> tuple[str, ...]:
    """Sub-folders of ``source`` holding ``kind``.

    The entry of ``source.components`` under the kind's name, else under the
    first of :attr:`~wskit.kinds.ResourceKind.component_keys` present (the
    plural and the manifest keys: ``commands``, ``outputStyles``…), else
    ``default_dir``. The kind says which keys are its own, so a kind a plugin
    registers is found under its keys as the built-in ones are.

    :param kind: the registered kind; a bare name is looked up under that name
        only (no other spelling is known for it).
    :param default_dir: the folder when no entry names one (default: the kind's
        :attr:`~wskit.kinds.ResourceKind.default_dir`).
    """
    if isinstance(kind, str):
        return source.dirs_for(kind, default_dir or "")
    if default_dir is None:
        default_dir = kind.default_dir
    if kind.name not in source.components:
        for key in kind.component_keys:
            if key in source.components:
                return tuple(source.components[key])
    return source.dirs_for(kind.name, default_dir)


def walk_markdown(
    source: ResourceSource, kind: ResourceKind | str, default_dir: str | None = None, *, max_depth: int = 8,
    recursive: bool = True,
) -> tuple[list[MdEntry], list[Diagnostic]]:
    """Every ``*.md`` entry under the source's folders for ``kind`` (sorted by path;
    the folders are :func:`component_dirs`).

    Links are followed only when ``source.follow_links`` (user scope); otherwise
    they come back as type ``link`` for the caller to refuse. Dot-names are skipped.
    A component path ending in ``.md`` names one file (plugin manifests may do
    that); the loader's safe read then refuses it if it is not a regular file.

    :returns: entries and diagnostics for folders safe file access refused.
    """
    entries: list[MdEntry] = []
    diags: list[Diagnostic] = []
    base_rel = root_rel(source)
    for sub in component_dirs(source, kind, default_dir):
        if sub not in ("", "."):
            try:
                # a path-naming field (manifests set it): an absolute '/etc' or
                # 'c:/x' was silently joined under the root instead of refused
                fs.split_relative(sub)
            except fs.SafeFsError as err:
                diags.append(err.diagnostic(plugin=source.plugin).model_copy(
                    update={"path": os.path.join(source.root, err.path)}))
                continue
        top = join(base_rel, sub)
        if sub.lower().endswith(".md"):  # a single file named by a plugin manifest
            stem = sub.rstrip("/").rsplit("/", 1)[-1][:-3]
            entries.append(MdEntry(top, (stem,), 1, "file"))
            continue
        stack: list[tuple[str, tuple[str, ...]]] = [(top, ())]
        while stack:
            rel_dir, segs = stack.pop()
            try:
                found = fs.scan_dir(source.base, rel_dir if rel_dir not in ("", ".") else None,
                                        follow_links=source.follow_links)
            except fs.SafeFsError as err:
                if err.code != "not-found" or segs:
                    diags.append(err.diagnostic(plugin=source.plugin))
                continue
            for e in found:
                if e.name.startswith("."):
                    continue
                rel = join(rel_dir, e.name)
                why = not_utf8(e.name)
                if why is not None:
                    if e.type == "dir" or e.name.lower().endswith(".md"):
                        diags.append(Diagnostic(
                            level="warning", code="name-not-utf8", plugin=source.plugin,
                            path=shown_path(os.path.join(source.base, rel)),
                            message=f"name {why}; not loaded"))
                    continue
                if e.type == "dir":
                    if not recursive:
                        continue
                    if len(segs) + 2 > max_depth:
                        entries.append(MdEntry(rel, (*segs, e.name), len(segs) + 2, "deep-dir"))
                        continue
                    stack.append((rel, (*segs, e.name)))
                    continue
                if not e.name.lower().endswith(".md"):
                    continue
                stem = e.name[:-3]
                kind_of = e.type if e.type in ("file", "link") else "special"
                entries.append(MdEntry(rel, (*segs, stem), len(segs) + 1, kind_of, e.link_target))
    entries.sort(key=lambda m: m.rel)
    return entries, diags


# -- frontmatter field helpers shared by the markdown loaders -----------------

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def text_field(v: object) -> str | None:
    """A scalar frontmatter value as stripped text (None for absent, maps and lists)."""
    if v is None or isinstance(v, (dict, list)):
        return None
    return str(v).strip()


def bool_field(v: object, default: bool) -> bool | None:
    """A boolean (``true/false/yes/no/on/off/1/0`` any case); None when invalid."""
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


def list_field(v: object) -> tuple[str, ...] | None:
    """A comma/whitespace string or a list, as a tuple of strings (None when absent)."""
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return tuple(str(x).strip() for x in v if str(x).strip())

    return tuple(p for p in re.split(r"[,\s]+(?![^()]*\))", str(v)) if p)


def hidden_chars_diag(text: str, path: str, source: ResourceSource, what: str,
                      line_offset: int = 0) -> Diagnostic | None:
    """A ``hidden-characters`` warning for the first hidden control or bidirectional
    character in ``text`` (:func:`wskit.fs.find_hidden_chars`: Blade's set; an
    RTL override or ANSI escape can make a prompt read differently than it runs),
    or None. One warning per file, like the skills loader; the resource still
    loads. ``line_offset`` is added to the line found (for text that starts
    below line 1 of the file)."""
    hit = next(iter(fs.find_hidden_chars(text)), None)
    if hit is None:
        return None
    return Diagnostic(level="warning", code="hidden-characters", path=path, line=hit[0] + line_offset,
                      plugin=source.plugin, message=f"{what} contains the hidden character {hit[1]}")


def description_too_long(description: str, limit: int, code: str, path: str, source: ResourceSource,
                         line: int | None) -> Diagnostic | None:
    """An ``error`` diagnostic ``code`` when ``description`` is over ``limit``
    characters (the resource is then not loaded: a description is shown in every
    listing and tool description, so a 100,000-character one would flood the
    context; truncating it silently is not allowed), else None."""
    if len(description) <= limit:
        return None
    return Diagnostic(level="error", code=code, path=path, line=line, plugin=source.plugin,
                      message=f"description is {len(description)} characters (limit {limit}); not loaded")


_HEADING = lazy_pattern(globals(), "_HEADING", r"^#+\s+(\S.*)$")


def body_description(body: str, fallback: str) -> str:
    """The description Claude Code 2.1.332 gives a skill, command or style whose
    frontmatter has none: the first non-blank line of ``body``, stripped, without
    the ``#`` marks of a Markdown heading (``# Title`` → ``Title``); over 100
    characters it is cut to its first 97 and ``...``. ``fallback`` (``"Skill"``,
    ``"Custom command"``) when every line is blank.

    :param body: the text after the frontmatter (the whole file when it has none).
    :returns: the description (never empty unless ``fallback`` is)."""
    for line in body.split("\n"):
        s = line.strip()
        if s:
            m = _HEADING.match(s)
            s = m.group(1) if m else s
            return s[:97] + "..." if len(s) > 100 else s
    return fallback


def first_line(body: str) -> str:
    """First non-blank line of ``body`` with leading ``#`` marks stripped."""
    for line in body.split("\n"):
        s = line.strip().lstrip("#").strip()
        if s:
            return s
    return ""
