"""Internal value types: :class:`Value` (mutable) and :class:`FrozenValue` (immutable).

The one idiom for a value type that no hookspec names (the contracts hookspecs name are
:class:`wskit.models.Frozen` classes; untrusted input is validated by pydantic v2 models).
A value class is declared as a dataclass is, with annotated fields, defaults and
:func:`field` for a default factory or a field left out of ``repr``::

    class Candidate(FrozenValue):
        resource: Resource
        rank: int
        order: int = 0
        notes: list[str] = field(default_factory=list)

and behaves as ``@dataclass(frozen=True, slots=True)`` (:class:`FrozenValue`) or
``@dataclass(slots=True)`` (:class:`Value`) would, at no class-creation cost:

- the fields are the class's annotations (``ClassVar`` ones left out), after those of
  its base; they become ``__slots__`` (list only extra, non-field slots such as
  ``__weakref__`` in ``__slots__``);
- ``__init__(self, <fields in order>)``, calling ``__post_init__()`` when the class has
  one, unless the class writes its own. ``@dataclass`` compiles its methods with
  ``exec`` when the class is created (≈ 0.5–1 ms a class, paid by every ``wsctl``
  start); here nothing is compiled until the first instance is made (≈ 50–130 µs,
  once per class and process). A class on the start-up path writes its ``__init__``
  out (``object.__setattr__`` for a frozen one), so even that is not paid;
- ``__repr__`` (``Name(a=1, b='x')``, fields with ``repr=False`` left out), ``__eq__``
  (same class, fields compared in order), ``__hash__`` (None for :class:`Value`, the
  field tuple's for :class:`FrozenValue`); ``eq=False`` as a class keyword keeps
  identity equality and hashing (``class Handle(Value, eq=False)``);
- :class:`FrozenValue` refuses assignment and deletion with
  :class:`dataclasses.FrozenInstanceError` (an :class:`AttributeError`);
- :meth:`Value.copy_with` for :func:`dataclasses.replace` (also ``__replace__``, for
  :func:`copy.replace`), ``__match_args__``, copying and pickling through the
  constructor.

Type checkers see the fields and the constructor through :func:`typing.dataclass_transform`.
``tests/core/values/test_values.py`` checks the value classes of wskit against the dataclass
it replaces.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, ClassVar, dataclass_transform

__all__ = ["field", "FrozenValue", "Value"]


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


#: no default given
MISSING: Any = _Missing()


class _Field:
    """What :func:`field` returns in a class body (read by the metaclass, then removed)."""

    __slots__ = ("default", "default_factory", "repr", "compare")

    def __init__(self, default: Any, default_factory: Any, repr: bool, compare: bool) -> None:
        self.default, self.default_factory, self.repr, self.compare = default, default_factory, repr, compare


def field(*, default: Any = MISSING, default_factory: Any = MISSING, repr: bool = True, compare: bool = True) -> Any:
    """A field's default, default factory (called once per instance made without the field),
    ``repr=False`` (left out of ``repr``) or ``compare=False`` (left out of ``==`` and the
    hash), as :func:`dataclasses.field` in a value class body.

    :raises ValueError: both a default and a factory.
    """
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return _Field(default, default_factory, repr, compare)


def _frozen_error(message: str) -> AttributeError:
    # dataclasses is imported only when an assignment is refused: importing it costs start-up
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(message)


def _is_classvar(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return annotation.startswith(("ClassVar", "typing.ClassVar", "t.ClassVar"))
    return annotation is ClassVar or getattr(annotation, "__origin__", None) is ClassVar


def _own_annotations(ns: dict[str, Any]) -> dict[str, Any]:
    ann = ns.get("__annotations__")
    if ann is None and "__annotate__" in ns:  # Python 3.14 without `from __future__ import annotations`
        import annotationlib  # type: ignore[import-not-found]

        ann = annotationlib.call_annotate_function(ns["__annotate__"], annotationlib.Format.FORWARDREF)
    return dict(ann or {})


class _ValueMeta(type):
    """Makes a value class from its annotations (see the module docstring)."""

    def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any], *, eq: bool = True,
                **kw: Any) -> _ValueMeta:
        inherited: tuple[str, ...] = ()
        specs: dict[str, tuple[Any, Any, bool, bool]] = {}
        for base in reversed(bases):
            if isinstance(base, _ValueMeta):
                if len(base._fields) > len(inherited):
                    inherited = base._fields
                specs.update(base._specs)
        extra = ns.get("__slots__", ())
        extra = (extra,) if isinstance(extra, str) else tuple(extra)
        own: list[str] = []
        for fname, annotation in _own_annotations(ns).items():
            if _is_classvar(annotation):
                continue
            if fname in inherited:
                raise TypeError(f"{name}.{fname}: a field of a base class cannot be declared again")
            if fname in extra:
                raise TypeError(f"{name}.{fname}: a field is not listed in __slots__ (its annotation makes the slot)")
            value = ns.pop(fname, MISSING)
            if isinstance(value, _Field):
                spec = (value.default, value.default_factory, value.repr, value.compare)
            else:
                spec = (value, MISSING, True, True)
            if type(spec[0]) in (list, dict, set):
                raise ValueError(f"{name}.{fname}: mutable default {type(spec[0]).__name__}: "
                                 "use field(default_factory=...)")
            specs[fname] = spec
            own.append(fname)
        fields = inherited + tuple(own)
        seen_default = False
        for fname in fields:
            has_default = specs[fname][0] is not MISSING or specs[fname][1] is not MISSING
            if seen_default and not has_default:
                raise TypeError(f"{name}.{fname}: a field without a default follows one with a default")
            seen_default = seen_default or has_default
        ns["__slots__"] = tuple(own) + extra
        if not eq:
            ns.setdefault("__eq__", object.__eq__)
            ns.setdefault("__hash__", object.__hash__)
        cls = super().__new__(mcls, name, bases, ns, **kw)
        cls._fields = fields
        cls._specs = specs
        cls.__match_args__ = fields
        cls._repr_fields = tuple(f for f in fields if specs[f][2])
        cls._values = values = _getter(fields)
        compared = tuple(f for f in fields if specs[f][3])
        cls._compared = values if compared == fields else _getter(compared)
        if "__init__" not in ns and (own or ("__post_init__" in ns and getattr(cls.__init__, "_generated", False))):
            cls.__init__ = _lazy_init(cls)  # new fields, or a __post_init__ the base's generated one would miss
        return cls


def _getter(names: tuple[str, ...]) -> Any:
    """``obj -> tuple`` of the named attributes, stored on the class as it is (no binding)."""
    if len(names) > 1:
        return attrgetter(*names)  # not a descriptor: found on the class with no binding step
    if names:
        one = attrgetter(names[0])
        return staticmethod(lambda obj: (one(obj),))
    return staticmethod(lambda obj: ())


def _lazy_init(cls: Any) -> Any:
    """An ``__init__`` that compiles the class's real one on first call and puts it in its place."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        real = _compile_init(cls)
        type.__setattr__(cls, "__init__", real)
        real(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__._generated = True  # type: ignore[attr-defined]
    return __init__


def _compile_init(cls: Any) -> Any:
    frozen = issubclass(cls, FrozenValue)
    params, body = ["self"], []
    env: dict[str, Any] = {"_s": object.__setattr__, "MISSING": MISSING}
    for i, fname in enumerate(cls._fields):
        default, factory, _, _ = cls._specs[fname]
        value = fname
        if factory is not MISSING:
            env[f"_f{i}"] = factory
            params.append(f"{fname}=MISSING")
            value = f"_f{i}() if {fname} is MISSING else {fname}"
        elif default is not MISSING:
            env[f"_d{i}"] = default
            params.append(f"{fname}=_d{i}")
        else:
            params.append(fname)
        body.append(f"    _s(self, {fname!r}, {value})" if frozen else f"    self.{fname} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    src = f"def __init__({', '.join(params)}):\n" + "\n".join(body) + "\n"
    exec(compile(src, f"<{cls.__module__}.{cls.__qualname__}.__init__>", "exec"), env)
    made = env["__init__"]
    made.__qualname__ = f"{cls.__qualname__}.__init__"
    made.__module__ = cls.__module__
    made._generated = True
    return made


class _ValueBase(metaclass=_ValueMeta):
    """What :class:`Value` and :class:`FrozenValue` share (two bases, not one the other's,
    so that a type checker sees one mutable and one frozen dataclass-like family)."""

    __slots__ = ()

    #: the fields, in constructor order
    _fields: ClassVar[tuple[str, ...]] = ()
    #: per field: (default, default factory, shown by repr, compared)
    _specs: ClassVar[dict[str, tuple[Any, Any, bool, bool]]] = {}
    #: the fields ``repr`` shows
    _repr_fields: ClassVar[tuple[str, ...]] = ()
    #: the field values of an instance, as a tuple (``cls._values(obj)``)
    _values: ClassVar[Any] = staticmethod(lambda obj: ())
    #: the compared field values (``==``, hash), as a tuple
    _compared: ClassVar[Any] = staticmethod(lambda obj: ())

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._repr_fields)
        return f"{type(self).__qualname__}({inner})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            values = self._compared
            return values(self) == values(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def copy_with(self, **changes: Any) -> Any:
        """A new instance with the same field values but ``changes`` (what
        :func:`dataclasses.replace` does): made through the constructor, so
        ``__post_init__`` runs again.

        :raises TypeError: a name in ``changes`` is not a field.
        """
        values = dict(zip(self._fields, self._values(self)))
        values.update(changes)
        return self.__class__(**values)

    __replace__ = copy_with

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return self.__class__, self._values(self)


@dataclass_transform(field_specifiers=(field,))
class Value(_ValueBase):
    """A mutable value type (``@dataclass(slots=True)``): see the module docstring;
    unhashable, as a dataclass with ``eq=True``."""

    __slots__ = ()


@dataclass_transform(field_specifiers=(field,), frozen_default=True)
class FrozenValue(_ValueBase):
    """An immutable value type (``@dataclass(frozen=True, slots=True)``): as :class:`Value`,
    but assignment and deletion of any attribute raise
    :class:`dataclasses.FrozenInstanceError`, and the hash is that of the field tuple. A
    hand-written ``__init__`` stores the fields with ``object.__setattr__``."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise _frozen_error(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise _frozen_error(f"cannot delete field {name!r}")

    def __hash__(self) -> int:
        return hash(self._compared(self))

