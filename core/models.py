"""Immutable value types shared by every layer: provenance, resources,
diagnostics, load results and resource sources (design §4).

All models are frozen pydantic v2 models. Because resources are immutable, a
session snapshot can share them with the workspace it came from.
"""

# No ``from __future__ import annotations`` here: pydantic would compile and evaluate
# every field's annotation string when the model classes are made, a cost paid at start-up.

import hashlib
from enum import Enum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from wskit.util.sharedkeys import shared_keys_copy

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


class Frozen(BaseModel):
    """Base of every wskit value: frozen, no extra fields, arbitrary types allowed."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True, defer_build=True)

    def __init__(self, /, **data: Any) -> None:
        """Validate ``data`` and build the instance, as :class:`pydantic.BaseModel` does.

        Values that already have exactly their field's type (a ``str`` for ``str``, a
        :class:`Scope` member for :class:`Scope`, a ``tuple`` of ``str`` for
        ``tuple[str, ...]``, a model instance for a model field…) are checked here by
        :mod:`wskit.util.fastinit`, and the instance is the one pydantic would build
        from them (same ``__dict__``, same fields set, defaults copied as pydantic
        copies them). Anything else — a value to coerce, a missing or unknown field, a
        field validator that refuses it — is handed to pydantic's own validation, which
        builds the model's schema on first use and raises its
        :class:`pydantic.ValidationError`. So a process whose values are all of the
        right type (every built-in loader's) never builds a validator. After
        256 instances of one class (``_FAST_INIT_LIMIT``) the class is validated by
        pydantic only (its compiled validator is ≈ 1.3× faster per instance, once
        built: a bulk load pays for the build).
        """
        cls = type(self)
        plan = _PLANS.get(cls, _NO_PLAN)
        if plan is _NO_PLAN:
            plan = _plan_for(cls)
        if plan is not None:
            made = plan(data)
            if made is not None:
                values, fields_set = made
                left = _FAST_LEFT[cls] = _FAST_LEFT.get(cls, _FAST_INIT_LIMIT) - 1
                if left <= 0:
                    _PLANS[cls] = None  # a bulk of them: pydantic's compiled validator is faster
                _setattr(self, "__dict__", values)
                _setattr(self, "__pydantic_fields_set__", fields_set)
                _setattr(self, "__pydantic_extra__", None)
                _setattr(self, "__pydantic_private__", None)
                self.model_post_init(None)
                return
        super().__init__(**data)

    # pydantic treats this __init__ as its own (it builds the same instance): the class
    # signature lists the fields, and nested models are validated without calling it
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    def model_post_init(self, context: Any, /) -> None:
        """Share one ``__pydantic_fields_set__`` set between instances that set the same
        fields (a 5+-element set is 728 bytes, on every model instance).

        Safe for frozen models: pydantic only mutates that set on attribute
        assignment (refused here) and copies it before ``model_copy(update=…)``
        changes it. Subclasses overriding this must call ``super()``.

        The instance ``__dict__`` is replaced by an equal one that shares its key
        table with the other instances (:func:`wskit.util.sharedkeys.shared_keys_copy`;
        464 → 192 bytes for a 15-field model).
        """
        object.__setattr__(self, "__dict__", shared_keys_copy(self.__dict__))
        if not self.model_config.get("frozen"):
            return  # a subclass that unfroze itself may add to its set on assignment
        fields = self.__pydantic_fields_set__
        shared = _FIELDS_SETS.get(frozenset(fields))
        if shared is None:
            shared = _FIELDS_SETS.setdefault(frozenset(fields), set(fields))
        object.__setattr__(self, "__pydantic_fields_set__", shared)


#: canonical ``__pydantic_fields_set__`` per distinct set of field names (few: one per
#: model shape), see :meth:`Frozen.model_post_init`
_FIELDS_SETS: dict[frozenset[str], set[str]] = {}
#: per class accepted by :func:`construct_valid`: its field names in declaration order
_CONSTRUCTIBLE: dict[type, tuple[str, ...]] = {}


def construct_valid(cls: type[Frozen], values: dict[str, Any], unset: frozenset[str] = frozenset()) -> Any:
    """An instance of the :class:`Frozen` model ``cls`` holding ``values`` as given,
    without validation (validating a :class:`~wskit.resources.skill.Skill` and its
    :class:`Provenance` is ~18 µs of the ~40 µs a skill may take).

    The caller guarantees what validation would otherwise check: ``values`` holds
    every field of ``cls``, in declaration order, each already exactly the value
    validating it would store (a ``str`` for ``str``, a ``Scope`` member for
    :class:`Scope`, a ``tuple`` of ``str`` for ``tuple[str, ...]``, a fresh ``dict``
    with ``str`` keys for ``dict[str, Any]``, a model instance for a model field).
    ``unset`` names the fields that hold their default and were not passed
    (``model_fields_set`` leaves them out). The result then equals
    ``cls(**{k: v for k, v in values.items() if k not in unset})``: same
    ``__dict__``, same fields set (the shared set :meth:`Frozen.model_post_init`
    uses), no extra or private values. ``model_construct`` does the same in general and is slower
    than validating (defaults, aliases, a Python loop per field).

    :raises TypeError: for a class with private attributes, extra fields allowed,
        a ``model_post_init`` or ``__new__`` of its own, or ``values`` whose keys are not exactly
        its fields in order (checked by key order, not by value).
    """
    names = _CONSTRUCTIBLE.get(cls) or valid_shape(cls, unset)[0]
    if len(values) != len(names) or tuple(values) != names:
        raise TypeError(f"construct_valid({cls.__name__}) needs exactly its fields, in order")
    obj = _new(cls)
    _setattr(obj, "__dict__", values)
    _setattr(obj, "__pydantic_fields_set__", _fields_set(cls, names, unset))
    _setattr(obj, "__pydantic_extra__", None)
    _setattr(obj, "__pydantic_private__", None)
    return obj


def valid_shape(cls: type[Frozen], unset: frozenset[str] = frozenset()) -> tuple[tuple[str, ...], set[str]]:
    """What :func:`construct_valid` needs to build ``cls``: its field names in
    declaration order and the shared ``__pydantic_fields_set__`` of an instance
    whose ``unset`` fields hold their defaults. For a caller that builds many
    instances of one shape itself (:mod:`wskit.builtin_plugins.skills.fast` checks its
    ``__dict__`` template against the names once per folder and sets the four
    slots :func:`construct_valid` sets, in the same way).

    :raises TypeError: for a class :func:`construct_valid` refuses.
    """
    names = _CONSTRUCTIBLE.get(cls)
    if names is None:
        if (cls.__private_attributes__ or cls.model_config.get("extra") != "forbid"
                or cls.model_post_init is not Frozen.model_post_init or not cls.model_config.get("frozen")
                or cls.__new__ is not object.__new__):
            raise TypeError(f"{cls.__name__} cannot be built by construct_valid")
        names = _CONSTRUCTIBLE.setdefault(cls, tuple(cls.model_fields))
    return names, _fields_set(cls, names, unset)


_setattr = object.__setattr__
_NO_PLAN = object()
#: instances of one class built by the fast path before pydantic takes over (see ``Frozen.__init__``)
_FAST_INIT_LIMIT = 256
_FAST_LEFT: dict[type, int] = {}
#: per model class: its :func:`wskit.util.fastinit.plan` (None: always validated by pydantic)
_PLANS: dict[type, Any] = {}


def _plan_for(cls: type) -> Any:
    from wskit.util.fastinit import plan

    made = plan(cls)
    _PLANS[cls] = made
    return made
#: ``object.__new__``: what ``cls.__new__`` resolves to for a model, without the
#: attribute lookup through pydantic's metaclass (≈ 3× faster)
_new = object.__new__


def _fields_set(cls: type, names: tuple[str, ...], unset: frozenset[str]) -> set[str]:
    shared = _SETS.get((cls, unset))
    if shared is None:
        key = frozenset(names) - unset
        shared = _FIELDS_SETS.setdefault(key, set(key))
        _SETS[(cls, unset)] = shared
    return shared


_SETS: dict[tuple[type, frozenset[str]], set[str]] = {}


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

    def dirs_for(self, kind: str, default: str) -> tuple[str, ...]:
        """Sub-folders of ``root`` holding resources of ``kind`` (relative)."""
        return self.components.get(kind, (default,))

    def wants(self, kind: str) -> bool:
        """Whether resources of ``kind`` are loaded from this source."""
        return self.kinds is None or kind in self.kinds


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of ``data``.

    Copies a ready hasher instead of constructing one: construction looks the
    digest up by name in OpenSSL each time (a third of hashing a 300-byte
    frontmatter)."""
    h = _SHA256.copy()
    h.update(data)
    return h.hexdigest()


_SHA256 = hashlib.sha256()


def display_path(path: str | Path, relative_to: str | Path) -> str:
    """``path`` relative to ``relative_to`` with ``/`` separators, or absolute
    when it lies outside (the wsctl rule of design §7)."""
    p, base = Path(path), Path(relative_to)
    try:
        return p.relative_to(base).as_posix()
    except ValueError:
        return str(p)
