"""The machinery behind :class:`wskit.models.Frozen`: plain value classes with the
public API of frozen pydantic v2 models, and pydantic built only when a value needs
validating.

A :class:`~wskit.models.Frozen` subclass is declared as a pydantic model is (annotated
fields, defaults, :func:`Field` for a default factory, :func:`field_validator` and
:func:`model_validator`), but the class made is a plain ``__slots__`` class: making
it imports nothing and compiles nothing. Constructing one checks values that
already have exactly their field's type in Python (:mod:`wskit.values.fastinit`);
anything else — a value to coerce, a missing or unknown field, a value a validator
refuses, ``model_validate`` of a non-dict, ``model_validate_json`` — is validated
by a pydantic model built on first need from the same declaration
(:func:`pydantic_model`), which raises :class:`pydantic.ValidationError` as
pydantic always did and whose result becomes the plain instance. Inside a real
pydantic model a field typed with a :class:`~wskit.models.Frozen` class is
validated and serialised through :meth:`~wskit.models.Frozen.__get_pydantic_core_schema__`.

``tests/core/values/test_fastinit.py`` compares every wskit value class with the
pydantic model of its declaration (defaults, dumps, copies, errors) on generated
inputs.
"""

from __future__ import annotations

import enum
import sys
import types
import typing
from pathlib import PurePath
from typing import Any


class _Required:
    """The default of a required field (``repr``: ``PydanticUndefined``, as pydantic shows it)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "PydanticUndefined"

    def __copy__(self) -> _Required:
        return self

    def __deepcopy__(self, memo: Any) -> _Required:
        return self


#: :attr:`FieldInfo.default` of a field without a default
REQUIRED: Any = _Required()

#: the types pydantic's ``smart_deepcopy`` returns as they are
_IMMUTABLE = frozenset({int, float, complex, str, bool, bytes, type, type(None), types.FunctionType,
                        types.BuiltinFunctionType, types.CodeType, types.ModuleType, type(Ellipsis),
                        type(NotImplemented)})
_BUILTIN_COLLECTIONS = frozenset({list, set, tuple, frozenset, dict})
#: scalar types ``copy.deepcopy`` returns as they are
_SCALARS = frozenset({int, float, complex, str, bool, bytes, type(None)})


def _smart_deepcopy(obj: Any) -> Any:
    """A copy of a default as pydantic's ``FieldInfo.get_default`` makes it
    (immutable scalars as they are, empty builtin collections shallow-copied,
    the rest deep-copied)."""
    t = type(obj)
    if t in _IMMUTABLE:
        return obj
    if t in _BUILTIN_COLLECTIONS and not obj:
        return obj if t is tuple else obj.copy()
    if t is tuple and all(type(item) in _SCALARS for item in obj):
        return obj  # what deepcopy gives a tuple of scalars (``copy``'s atomic types): the tuple itself
    import copy as _copy  # a mutable default that is not empty: rare, not imported at start-up

    return _copy.deepcopy(obj)


class FieldInfo:
    """One field of a :class:`~wskit.models.Frozen` class, as ``cls.model_fields[name]``
    shows it: the attributes and methods of :class:`pydantic.fields.FieldInfo` that a
    plain field has (``annotation``, ``default``, ``default_factory``,
    ``is_required()``, ``get_default()``, ``repr``; aliases, constraints and the other
    metadata are ``None``/empty).

    ``annotation`` is resolved on first access (``typing.get_type_hints`` of the
    class), so a class whose module uses ``from __future__ import annotations``
    costs nothing more to make.
    """

    __slots__ = ("_raw", "_owner", "_fname", "_resolved", "default", "default_factory", "repr", "pydantic")

    alias = validation_alias = serialization_alias = description = title = examples = None
    discriminator = json_schema_extra = exclude = deprecated = frozen = init = init_var = kw_only = None
    validate_default = None
    metadata: list[Any] = []

    def __init__(self, default: Any = REQUIRED, default_factory: Any = None, repr: bool = True) -> None:
        self._raw: Any = None
        self._owner: Any = None
        self._fname = ""
        self._resolved = False
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        #: a :class:`pydantic.fields.FieldInfo` given in the class body (kept for the validator)
        self.pydantic: Any = None

    @property
    def annotation(self) -> Any:
        """The field's type (resolved from the class's annotations on first use)."""
        if not self._resolved:
            self._raw = resolve_hints(self._owner)[self._fname]
            self._resolved = True
        return self._raw

    def is_required(self) -> bool:
        """Whether the field has neither a default nor a default factory."""
        return self.default is REQUIRED and self.default_factory is None

    def get_default(self, *, call_default_factory: bool = False, validated_data: Any = None) -> Any:
        """The default (copied as pydantic copies it), the factory's result when
        ``call_default_factory``, or :data:`REQUIRED` for a required field."""
        if self.default_factory is None:
            return _smart_deepcopy(self.default)
        if call_default_factory:
            return self.default_factory()
        return None

    def __repr__(self) -> str:
        parts = [f"annotation={_type_repr(self.annotation)}", f"required={self.is_required()}"]
        if self.default is not REQUIRED:
            parts.append(f"default={self.default!r}")
        if self.default_factory is not None:
            parts.append(f"default_factory={getattr(self.default_factory, '__name__', self.default_factory)}")
        return f"FieldInfo({', '.join(parts)})"


def _type_repr(tp: Any) -> str:
    return tp.__name__ if isinstance(tp, type) else repr(tp).replace("typing.", "")


def Field(default: Any = REQUIRED, *, default_factory: Any = None, repr: bool = True) -> Any:  # noqa: N802
    """A field's default or default factory, as ``pydantic.Field(default=…,
    default_factory=…)`` in a :class:`~wskit.models.Frozen` class body.

    :raises TypeError: both a default and a factory.
    """
    if default is not REQUIRED and default_factory is not None:
        raise TypeError("cannot specify both default and default_factory")
    return FieldInfo(default, default_factory, repr)


class _Decorated:
    """A validator declared in a class body; :func:`setup` collects it."""

    __slots__ = ("func", "mode", "fields")

    def __init__(self, func: Any, mode: str, fields: tuple[str, ...]) -> None:
        self.func, self.mode, self.fields = func, mode, fields


def field_validator(*fields: str, mode: str = "after") -> Any:
    """``pydantic.field_validator(*fields)`` for a :class:`~wskit.models.Frozen`
    class: a classmethod ``(cls, value) -> value`` run after the field's own type
    check, raising :class:`ValueError` (or ``AssertionError``) to refuse the value;
    the refusal is reported as :class:`pydantic.ValidationError`. Only ``mode="after"``.

    :raises TypeError: another mode, or no field named.
    """
    if mode != "after" or not fields or not all(isinstance(f, str) for f in fields):
        raise TypeError("wskit field_validator: name the fields; mode='after' only")

    def deco(func: Any) -> Any:
        return _Decorated(func if isinstance(func, classmethod) else classmethod(func), "field", fields)
    return deco


def model_validator(*, mode: str) -> Any:
    """``pydantic.model_validator(mode="before")`` for a :class:`~wskit.models.Frozen`
    class: a classmethod ``(cls, data) -> data`` run on the constructor's keyword
    arguments (or the value given to ``model_validate``) before the fields are checked.

    :raises TypeError: another mode.
    """
    if mode != "before":
        raise TypeError("wskit model_validator: mode='before' only")

    def deco(func: Any) -> Any:
        return _Decorated(func if isinstance(func, classmethod) else classmethod(func), "before", ())
    return deco


#: configuration keys a plain class honours as pydantic would (others: pydantic validates every value)
_PLAIN_CONFIG = {"frozen", "extra", "arbitrary_types_allowed", "defer_build", "title",
                 "json_schema_extra", "use_attribute_docstrings", "protected_namespaces"}


def _is_classvar(ann: Any) -> bool:
    if isinstance(ann, str):
        return ann.startswith(("ClassVar", "typing.ClassVar", "t.ClassVar"))
    return ann is typing.ClassVar or typing.get_origin(ann) is typing.ClassVar


def _is_pydantic(obj: Any, name: str) -> bool:
    t = type(obj)
    return t.__name__ == name and t.__module__.startswith("pydantic")


def setup(cls: Any) -> None:
    """Collect the fields, validators and configuration of the new class ``cls``
    (called by ``Frozen.__init_subclass__``): ``cls.model_fields`` in pydantic's order
    (inherited fields first, in their place when redeclared), the field defaults
    removed from the class as pydantic removes them, validators kept for both the
    fast path and the pydantic model."""
    ns = cls.__dict__
    raw_ann = ns.get("__annotations__", {})
    fields: dict[str, FieldInfo] = {}
    base_fields: dict[str, FieldInfo] = {}
    for base in reversed(cls.__mro__[1:]):
        base_fields.update(base.__dict__.get("model_fields", {}))
    config: dict[str, Any] = {}
    for base in reversed(cls.__mro__[1:]):
        config.update(base.__dict__.get("model_config", {}))
    if "model_config" in ns:
        config.update(ns["model_config"])
    pure = set(config) <= _PLAIN_CONFIG and config.get("frozen") is True
    own: dict[str, FieldInfo] = {}
    for name, ann in raw_ann.items():
        if name.startswith("_") or name == "model_config" or _is_classvar(ann):
            continue
        default = ns.get(name, REQUIRED)
        if isinstance(default, FieldInfo):
            info = FieldInfo(default.default, default.default_factory, default.repr)
        elif _is_pydantic(default, "FieldInfo"):
            from pydantic_core import PydanticUndefined

            d = default.default
            info = FieldInfo(REQUIRED if d is PydanticUndefined else d, default.default_factory, default.repr)
            info.pydantic = default
            if (default.alias or default.validation_alias or default.metadata or default.discriminator is not None
                    or default.validate_default or default.init is False or default.exclude or default.strict):
                pure = False
        elif isinstance(default, (property, types.FunctionType, classmethod, staticmethod)):
            raise TypeError(f"{cls.__name__}.{name}: a field cannot default to a {type(default).__name__}")
        else:
            info = FieldInfo(default)
        if name in ns:
            delattr(cls, name)
        own[name] = info
    for name, f in base_fields.items():
        fields[name] = own.pop(name, None) or _inherit(f)
    fields.update(own)
    for name, f in fields.items():
        f._owner, f._fname = cls, name
    before: list[Any] = [v for b in reversed(cls.__mro__[1:]) for v in b.__dict__.get("__wskit_before__", ())]
    after: dict[str, list[Any]] = {}
    for b in reversed(cls.__mro__[1:]):
        for k, v in b.__dict__.get("__wskit_after__", {}).items():
            after.setdefault(k, []).extend(v)
    foreign: dict[str, Any] = {}
    for b in reversed(cls.__mro__[1:]):
        foreign.update(b.__dict__.get("__wskit_pydantic_validators__", {}))
    for name, value in list(ns.items()):
        if isinstance(value, _Decorated):
            setattr(cls, name, value.func)
            bound = value.func.__get__(None, cls)
            if value.mode == "before":
                before.append((name, bound))
            else:
                for f in value.fields:
                    if f not in fields:
                        raise TypeError(f"{cls.__name__}.{name}: validator of unknown field {f!r}")
                    after.setdefault(f, []).append((name, bound))
        elif _is_pydantic(value, "PydanticDescriptorProxy"):
            foreign[name] = value
            setattr(cls, name, value.wrapped)
            pure = False
    cls.model_fields = fields
    cls.__pydantic_fields__ = fields
    cls.model_config = config
    cls.__wskit_before__ = tuple(before)
    cls.__wskit_after__ = {k: tuple(v) for k, v in after.items()}
    cls.__wskit_pydantic_validators__ = foreign
    cls.__wskit_pure__ = pure
    cls.__wskit_pydantic__ = None
    cls.__wskit_hints__ = None
    cls.__wskit_plan__ = _UNPLANNED
    cls.__wskit_dumpers__ = None


_UNPLANNED: Any = object()


def _inherit(f: FieldInfo) -> FieldInfo:
    out = FieldInfo(f.default, f.default_factory, f.repr)
    out.pydantic = f.pydantic
    return out


def resolve_hints(cls: Any) -> dict[str, Any]:
    """The resolved annotations of ``cls``'s fields (``typing.get_type_hints``, once per class).

    :raises NameError: an annotation names something its module does not define.
    """
    hints = cls.__dict__.get("__wskit_hints__")
    if hints is None:
        ns: dict[str, Any] = {}
        for base in reversed(cls.__mro__):
            mod = sys.modules.get(base.__module__)
            if mod is not None:
                ns.update(vars(mod))
        all_hints = typing.get_type_hints(cls, globalns=ns)
        hints = {name: all_hints[name] for name in cls.model_fields}
        cls.__wskit_hints__ = hints
    return hints


# --- pydantic, built on first need ---------------------------------------------------------


def pydantic_model(cls: Any) -> Any:
    """The pydantic model validating ``cls``'s declaration (made once per class,
    named as the class so its :class:`pydantic.ValidationError` names it): same
    fields, defaults, validators and configuration. Its instances are turned into
    ``cls`` instances by :func:`from_pydantic`."""
    made = cls.__dict__.get("__wskit_pydantic__")
    if made is not None:
        return made
    import pydantic

    hints = resolve_hints(cls)
    definitions: dict[str, Any] = {}
    for name, f in cls.model_fields.items():
        if f.pydantic is not None:
            info = f.pydantic
        elif f.default_factory is not None:
            info = pydantic.Field(default_factory=f.default_factory, repr=f.repr)
        elif f.default is REQUIRED:
            info = pydantic.Field(repr=f.repr)
        else:
            info = pydantic.Field(default=f.default, repr=f.repr)
        definitions[name] = (hints[name], info)
    validators: dict[str, Any] = dict(cls.__wskit_pydantic_validators__)
    for i, (name, bound) in enumerate(cls.__wskit_before__):
        validators[f"_wskit_before_{i}_{name}"] = pydantic.model_validator(mode="before")(_forward(bound))
    for field, funcs in cls.__wskit_after__.items():
        for i, (name, bound) in enumerate(funcs):
            validators[f"_wskit_after_{field}_{i}_{name}"] = pydantic.field_validator(field)(_forward(bound))
    config = {k: v for k, v in cls.model_config.items() if k != "defer_build"}
    config.setdefault("title", cls.__name__)
    made = pydantic.create_model(cls.__name__, __config__=pydantic.ConfigDict(**config),
                                 __validators__=validators, __module__=cls.__module__, **definitions)
    made.__qualname__ = cls.__qualname__
    made.__doc__ = cls.__doc__
    cls.__wskit_pydantic__ = made
    return made


def _forward(bound: Any) -> Any:
    def run(cls: Any, value: Any) -> Any:
        return bound(value)
    return classmethod(run)


def from_pydantic(cls: Any, made: Any) -> Any:
    """The ``cls`` instance holding what the pydantic model instance ``made`` holds
    (its fields already plain values: nested ones were made by their own class)."""
    obj = object.__new__(cls)
    set_ = object.__setattr__
    set_(obj, "__dict__", dict(made.__dict__))
    set_(obj, "__pydantic_fields_set__", set(made.model_fields_set))
    set_(obj, "__pydantic_extra__", None)
    set_(obj, "__pydantic_private__", None)
    obj.model_post_init(None)
    return obj


def validate(cls: Any, method: str, value: Any, **kw: Any) -> Any:
    """``cls`` validated by its pydantic model (``method``: ``model_validate``,
    ``model_validate_json`` or ``model_validate_strings``).

    :raises pydantic.ValidationError: as pydantic raises it.
    """
    model = pydantic_model(cls)
    return from_pydantic(cls, getattr(model, method)(value, **kw))


def core_schema(cls: Any, handler: Any) -> Any:
    """The pydantic-core schema of a field typed ``cls`` in a pydantic model: an
    instance of ``cls`` is kept as it is (pydantic's ``revalidate_instances='never'``),
    anything else is validated by :func:`pydantic_model` and made a ``cls``; dumped by
    :func:`dump` with ``cls``'s fields."""
    from pydantic_core import core_schema as cs

    inner = handler.generate_schema(pydantic_model(cls))

    def check(value: Any, nxt: Any) -> Any:
        if isinstance(value, cls):
            return value
        return from_pydantic(cls, nxt(value))

    def ser(value: Any, info: Any) -> Any:
        if not isinstance(value, cls):
            return value
        return dump(value, cls, info.mode == "json", info.exclude_unset, info.exclude_defaults,
                    info.exclude_none, None, None)

    return cs.no_info_wrap_validator_function(
        check, inner, serialization=cs.plain_serializer_function_ser_schema(ser, info_arg=True))


def frozen_error(cls: Any, name: str, value: Any) -> Exception:
    """The :class:`pydantic.ValidationError` pydantic raises on assignment to a frozen instance."""
    from pydantic_core import ValidationError

    return ValidationError.from_exception_data(cls.__name__, [{"type": "frozen_instance", "loc": (name,),
                                                               "input": value}])


# --- dumping --------------------------------------------------------------------------------


def dump(obj: Any, cls: Any, json: bool, unset: bool, defaults: bool, none: bool,
         include: Any, exclude: Any) -> dict[str, Any]:
    """``obj.model_dump()`` with the fields of ``cls`` (the declared type: a subclass
    instance in a field typed with its base dumps the base's fields, as pydantic does).

    :param json: ``mode="json"`` (enums by value, tuples and sets as lists, paths as text).
    :param unset: ``exclude_unset``; ``defaults``: ``exclude_defaults``; ``none``: ``exclude_none``.
    :param include: field names to keep (None: all); ``exclude``: names to leave out.
    """
    dumpers = cls.__dict__.get("__wskit_dumpers__")
    if dumpers is None:
        dumpers = _dumpers(cls)
    d = obj.__dict__
    fields_set = obj.__pydantic_fields_set__ if unset else None
    out: dict[str, Any] = {}
    for name, f, dumper in dumpers:
        if name not in d:
            continue
        if include is not None and name not in include:
            continue
        if exclude is not None and name in exclude:
            continue
        if fields_set is not None and name not in fields_set:
            continue
        v = d[name]
        if none and v is None:
            continue
        if defaults and not f.is_required() and _eq_default(v, f):
            continue
        out[name] = dumper(v, json, unset, defaults, none)
    return out


def _eq_default(v: Any, f: FieldInfo) -> bool:
    try:
        return bool(v == f.get_default(call_default_factory=True))
    except Exception:
        return False


def _dumpers(cls: Any) -> list[tuple[str, FieldInfo, Any]]:
    try:
        hints = resolve_hints(cls)
    except Exception:
        hints = {}
    made = [(name, f, _dumper_for(hints.get(name, Any))) for name, f in cls.model_fields.items()]
    cls.__wskit_dumpers__ = made
    return made


def _is_plain_model(tp: Any) -> bool:
    return isinstance(tp, type) and hasattr(tp, "__wskit_pure__")


def _dumper_for(tp: Any) -> Any:
    """A function ``(value, json, unset, defaults, none)`` dumping a value of the
    declared type ``tp`` as pydantic's serializer for that type does."""
    if _is_plain_model(tp):
        def model(v: Any, json: bool, u: bool, d: bool, n: bool) -> Any:
            if isinstance(v, tp):
                return dump(v, tp, json, u, d, n, None, None)
            return infer(v, json, u, d, n)
        return model
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Union or origin is types.UnionType:
        arms = [a for a in args if a is not type(None)]
        if len(arms) == 1:
            arm = _dumper_for(arms[0])

            def optional(v: Any, json: bool, u: bool, d: bool, n: bool) -> Any:
                return None if v is None else arm(v, json, u, d, n)
            return optional
        return infer
    if origin in (tuple, list, set, frozenset) and args:
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            items = [_dumper_for(a) for a in args]

            def fixed(v: Any, json: bool, u: bool, d: bool, n: bool) -> Any:
                if type(v) is not tuple or len(v) != len(items):
                    return infer(v, json, u, d, n)
                made = [f(x, json, u, d, n) for f, x in zip(items, v)]
                return made if json else tuple(made)
            return fixed
        item = _dumper_for(args[0])
        if item is infer:
            return infer

        def seq(v: Any, json: bool, u: bool, d: bool, n: bool) -> Any:
            made = [item(x, json, u, d, n) for x in v]
            return made if json else type(v)(made) if type(v) in (tuple, list, set, frozenset) else made
        return seq
    if origin is dict and len(args) == 2:
        val = _dumper_for(args[1])
        if val is infer:
            return infer

        def mapping(v: Any, json: bool, u: bool, d: bool, n: bool) -> Any:
            return {(_json_key(k) if json else k): val(x, json, u, d, n) for k, x in v.items()}
        return mapping
    return infer


def _json_key(k: Any) -> Any:
    if type(k) is str:
        return k
    if isinstance(k, enum.Enum):
        return _json_key(k.value)
    if k is None:
        return "None"
    if isinstance(k, bool):
        return "true" if k else "false"
    if isinstance(k, (int, float)):
        return str(k)
    if isinstance(k, PurePath):
        return str(k)
    if isinstance(k, tuple):
        return ",".join(str(_json_key(x)) for x in k)
    return str(k)


def infer(v: Any, json: bool, u: bool = False, d: bool = False, n: bool = False) -> Any:
    """A value dumped by its own type, as pydantic does for ``Any`` (models as dicts
    of their fields; in JSON mode enums by value, tuples and sets as lists, paths
    and bytes as text; other types by :func:`pydantic_core.to_jsonable_python`)."""
    t = type(v)
    if t is str or t is int or t is bool or v is None or t is float:
        return v
    if t is dict:
        if json:
            return {_json_key(k): infer(x, json, u, d, n) for k, x in v.items()}
        return {k: infer(x, json, u, d, n) for k, x in v.items()}
    if t in (tuple, list, set, frozenset):
        made = [infer(x, json, u, d, n) for x in v]
        return made if json else t(made)
    if _is_plain_model(t):
        return dump(v, t, json, u, d, n, None, None)
    if isinstance(v, enum.Enum):
        return infer(v.value, json) if json else v
    if not json:
        if hasattr(t, "__pydantic_serializer__"):
            return v.model_dump(exclude_unset=u, exclude_defaults=d, exclude_none=n)
        return v
    if isinstance(v, PurePath):
        return str(v)
    from pydantic_core import to_jsonable_python

    return to_jsonable_python(v, exclude_none=n)
