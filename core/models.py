"""Immutable value types shared by every layer: provenance, resources,
diagnostics, load results and resource sources (design §4).

All are :class:`Frozen` classes (:mod:`wskit.values.frozen`): plain immutable classes
with the public API of frozen pydantic v2 models, pydantic built only when a value needs
validating. Because resources are immutable, a session snapshot can share them with the
workspace it came from.
"""

import os
from enum import Enum
from pathlib import Path
from typing import Any, Literal

from wskit.util import digest as _digest
from wskit.values.frozen import Frozen, construct_valid, valid_shape
from wskit.values.plainmodel import Field

__all__ = [
    "construct_valid", "Diagnostic", "display_path", "Frozen", "Level", "LoadResult", "Provenance",
    "Resource", "ResourceSource", "Scope", "sha256_hex", "ToolKind", "TRUST_GATED_SCOPES", "valid_shape"
]


class Scope(str, Enum):
    """Where a resource comes from, lowest to highest default precedence.

    ``builtin < admin? < user < project < local ; plugin ; cli`` (design §3).
    Kinds may rank differently (skills put enabled ``admin`` above all, design §5).
    """

    BUILTIN = "builtin"
    ADMIN = "admin"
    USER = "user"
    PROJECT = "project"
    LOCAL = "local"
    PLUGIN = "plugin"
    CLI = "cli"


class ToolKind(str, Enum):
    """What a tool call does, as the rule barrier sees it (Blade's invocation
    barrier, reference/blade.md §6): ``WRITE``, ``EDIT``, ``DELETE``, ``SHELL``
    and ``EXECUTE`` are writes, held back until new rules are delivered;
    ``READ`` proceeds and carries them.

    :meth:`coerce` accepts a member or its string value and raises
    :class:`ValueError` for anything else, so a typo (``"wirte"``) can never
    pass as "not a write".
    """

    READ = "read"
    WRITE = "write"
    EDIT = "edit"
    DELETE = "delete"
    SHELL = "shell"
    EXECUTE = "execute"

    @classmethod
    def coerce(cls, value: "ToolKind | str") -> "ToolKind":
        """The member ``value`` names.

        :raises ValueError: ``value`` is not a member nor one's string value
            (case-sensitive, as the values are documented).
        """
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            try:
                return cls(value)
            except ValueError:
                pass
        raise ValueError(f"unknown tool kind {value!r}: expected one of "
                         f"{', '.join(repr(k.value) for k in cls)}")

    @property
    def is_write(self) -> bool:
        """True for the kinds the ``writes`` policy holds back."""
        return self is not ToolKind.READ


#: Scopes whose sources only load when the source project is trusted.
TRUST_GATED_SCOPES = frozenset({Scope.PROJECT, Scope.LOCAL})

Level = Literal["error", "warning", "info"]


class Provenance(Frozen):
    """Where a resource was built from.

    :ivar scope: the :class:`Scope` of the source.
    :ivar source_root: absolute directory the path is relative to (the source
        project for project/local scope, the user home for user scope, the
        plugin root for plugin scope, the package folder for built-ins).
    :ivar path: the file, relative to ``source_root`` with ``/`` separators.
    :ivar plugin: content plugin (or Python plugin) name, if any.
    :ivar sha256: hex SHA-256 of the bytes the resource was built from (for
        skills discovered by metadata only: the bytes of the frontmatter block
        that was read; what a session records is
        :meth:`Resource.content_digest`, the whole file).
    """

    scope: Scope
    source_root: str
    path: str
    plugin: str | None = None
    sha256: str

    @property
    def absolute_path(self) -> Path:
        """The file as an absolute :class:`~pathlib.Path`."""
        return Path(self.source_root) / self.path

    @property
    def absolute_str(self) -> str:
        """The file's absolute path as a string, without building a :class:`~pathlib.Path`
        (``os.path.join`` of the two fields; equal to ``str(absolute_path)`` when both are
        normal, and read through :func:`display_path`, which gives pathlib's answer either way)."""
        return os.path.join(self.source_root, self.path)


class Resource(Frozen):
    """Base of every resource kind.

    :ivar id: qualified id, unique within its kind: ``<scope>:<name>`` for
        native resources, ``plugin:<plugin>:<name>`` for content-plugin ones.
    :ivar name: the short (bare) name.
    :ivar kind: the resource kind (``"skill"``, ``"command"``, …).
    :ivar description: one-line description shown in listings (may be empty).
    :ivar provenance: see :class:`Provenance`.
    """

    id: str
    name: str
    kind: str
    description: str = ""
    provenance: Provenance

    @property
    def scope(self) -> Scope:
        return self.provenance.scope

    @property
    def plugin(self) -> str | None:
        return self.provenance.plugin

    def content_digest(self) -> str:
        """Hex SHA-256 a session records for this resource and compares on resume
        (``ResourceRef.sha256``, drift): of every byte the model may be given from
        its file. Here :attr:`Provenance.sha256` (loaders that read the whole file);
        a kind that reads only part of its file at discovery (skills: the
        frontmatter) computes the whole file's digest on demand."""
        return self.provenance.sha256

    def ref(self) -> dict[str, Any]:
        """A JSON-able reference (no body): kind, id, name, scope, path, plugin,
        sha256 (:meth:`content_digest`)."""
        p = self.provenance
        return {
            "kind": self.kind,
            "id": self.id,
            "name": self.name,
            "scope": p.scope.value,
            "source_root": p.source_root,
            "path": p.path,
            "plugin": p.plugin,
            "sha256": self.content_digest(),
        }


class Diagnostic(Frozen):
    """A finding about content: a bad file, a shadowed resource, a refused path.

    :ivar level: ``error`` (the item was not loaded), ``warning`` (loaded, but
        something is off) or ``info``.
    :ivar code: stable, kebab-case code (documented in docs/architecture.md).
    :ivar path: absolute path of the file concerned, if any.
    :ivar line: 1-based line number where known.
    :ivar message: human-readable explanation naming what is wrong.
    :ivar plugin: Python plugin or content plugin involved, if any.
    :ivar hook: hook name when the diagnostic reports a failing hook implementation.
    """

    level: Level
    code: str
    message: str
    path: str | None = None
    line: int | None = None
    plugin: str | None = None
    hook: str | None = None

    def to_json(self, relative_to: str | Path | None = None) -> dict[str, Any]:
        """JSON form used by ``wsctl``: level, code, path, line, message, plugin."""
        path = self.path
        if path is not None and relative_to is not None:
            path = display_path(path, relative_to)
        return {
            "level": self.level,
            "code": self.code,
            "path": path,
            "line": self.line,
            "message": self.message,
            "plugin": self.plugin,
        }


class LoadResult(Frozen):
    """What a loader hook returns: resources found and diagnostics about the rest."""

    resources: tuple[Resource, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()


class ResourceSource(Frozen):
    """A folder that holds resources, as contributed by ``wskit_resource_sources``.

    A source is laid out like a Claude Code config folder or plugin root:
    ``<root>/skills/<slug>/SKILL.md``, ``<root>/commands/…``, and so on.

    :ivar scope: the :class:`Scope`.
    :ivar root: absolute folder (``<project>/.claude``, ``<home>/.agents``, a plugin root…).
    :ivar base: absolute folder that provenance paths are relative to
        (project root, user home, plugin root).
    :ivar rank: precedence among sources of one kind; higher wins. The built-in
        sources follow design §5 (see :mod:`wskit.builtin_plugins.sources`).
    :ivar label: short human name (``project:.claude``).
    :ivar plugin: content plugin name for plugin-scope sources.
    :ivar follow_links: follow file and folder links (user scope only, design §5).
    :ivar components: per-kind override of the sub-folders to read, relative to
        ``root`` (``{"skills": ("skills", "extra-skills")}``); kinds not named
        use their default folder.
    :ivar kinds: if set, only these kinds are loaded from this source.
    :ivar names: if set, only resources with these bare names (skill slugs,
        command names…) are loaded from this source; the admin skills source
        uses it for the skills its manifest enables.
    :ivar inline: inline component definitions by kind (``{"lsp_server": {...}}``)
        from a plugin manifest or a ``strict: false`` marketplace entry.
    :ivar host: host name of the profile that found the source (plugin sources:
        ``${<HOST>_PLUGIN_ROOT}`` expands to the plugin root).
    :ivar switched_off_by: on the source of a user's (or an administrator's) plugin that a
        project or local settings file switched off: that file. Only the kinds that hold
        guards (:attr:`wskit.kinds.ResourceKind.guards`) are loaded from it, and each guard
        is marked so (reported ``switched-off``, never run); docs/hooks.md.
    """

    scope: Scope
    root: str
    base: str
    rank: int = 0
    label: str = ""
    plugin: str | None = None
    follow_links: bool = False
    components: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    kinds: frozenset[str] | None = None
    names: frozenset[str] | None = None
    inline: dict[str, Any] = Field(default_factory=dict)
    host: str | None = None
    switched_off_by: str | None = None

    def dirs_for(self, kind: str, default: str) -> tuple[str, ...]:
        """Sub-folders of ``root`` holding resources of ``kind`` (relative)."""
        return self.components.get(kind, (default,))

    def wants(self, kind: str) -> bool:
        """Whether resources of ``kind`` are loaded from this source."""
        return self.kinds is None or kind in self.kinds


#: Hex SHA-256 of ``data`` (bytes): :func:`wskit.util.digest.sha256_hex` (small inputs without
#: loading OpenSSL, OpenSSL's ready hasher copied otherwise)
sha256_hex = _digest.sha256_hex


def display_path(path: str | Path, relative_to: str | Path) -> str:
    """``path`` relative to ``relative_to`` with ``/`` separators, or absolute
    when it lies outside (the wsctl rule of design §7).

    :param path: the path shown (absolute or relative, as :class:`~pathlib.Path` reads it).
    :param relative_to: the folder it is shown relative to.
    :returns: the same string :meth:`pathlib.PurePath.relative_to` gives, or ``str(Path(path))``.

    Two already-normal absolute strings (the form every loader stores) are
    compared as strings; anything else goes through :mod:`pathlib`, so the
    answer is pathlib's in every case (a listing of 10,000 skills spent a
    third of its time building paths here).
    """
    if os.sep == "/":
        ps = path if type(path) is str else os.fspath(path)
        bs = relative_to if type(relative_to) is str else os.fspath(relative_to)
        if _is_normal_abs(ps) and _is_normal_abs(bs):
            if ps == bs:
                return "."
            base = bs if bs == "/" else bs + "/"
            return ps[len(base):] if ps.startswith(base) else ps
    p, base = Path(path), Path(relative_to)
    try:
        return p.relative_to(base).as_posix()
    except ValueError:
        return str(p)


def _is_normal_abs(s: str) -> bool:
    """True when ``s`` is an absolute POSIX path pathlib would print unchanged:
    one leading ``/`` (pathlib keeps ``//``), no empty, ``.`` part or trailing ``/``."""
    if s == "/":
        return True
    if not s.startswith("/") or s.startswith("//") or s.endswith("/") or "//" in s:
        return False
    return "/./" not in s and not s.endswith("/.")
