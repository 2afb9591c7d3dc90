"""Building a frozen model from values that already have exactly their fields'
types, without pydantic's validator.

:class:`wskit.models.Frozen` asks :func:`plan` once per class. A plan takes the
keyword arguments of a constructor call and returns the instance ``__dict__``
pydantic would store for them, or ``None`` when any value is not exactly of its
field's type (or a field is missing, unknown, or refused by a field validator);
the caller then lets pydantic validate, which coerces or raises
:class:`pydantic.ValidationError` as before. Only values pydantic's lax mode keeps
as they are (or copies: ``dict``, ``list``, ``set``) are accepted, so the result
is the same model pydantic builds; ``tests/core/values/test_fastinit.py`` compares
both on every wskit model class and on generated values.

A class gets no plan (pydantic always validates) when its configuration, a
field's metadata (aliases, constraints, strictness, discriminators) or a
validator other than a plain ``mode="after"`` field validator or ``mode="before"``
model validator (classmethods of one argument) could make
pydantic's answer differ, or when an annotation is of a form not handled here
(``Annotated``, generics of other classes, forward references).
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any

from wskit.values.plainmodel import resolve_hints


class _Miss(Exception):
    """A value that is not exactly of its field's type: let pydantic decide."""


_PATH_TYPE = type(Path())


def _copy_default(field: Any) -> Any:
    return field.get_default(call_default_factory=True)


def plan(cls: type) -> Callable[[dict[str, Any]], dict[str, Any] | None] | None:
    """The fast constructor of model class ``cls``, or None when it has none.

    :param cls: a :class:`wskit.models.Frozen` subclass.
    :returns: ``f(data) -> (dict, set) | None``: the ``__dict__`` (every field, in
        declaration order) and the fields set for the keyword arguments ``data``
        (after the class's ``mode="before"`` model validators, as pydantic runs
        them), or None to let pydantic validate them.
    """
    try:
        return _plan(cls)
    except Exception:  # anything unexpected about the class: pydantic validates
        return None


def _plan(cls: Any) -> Callable[[dict[str, Any]], dict[str, Any] | None] | None:
    if not cls.__wskit_pure__ or cls.__wskit_pydantic_validators__:
        return None
    before = [bound for _, bound in cls.__wskit_before__]
    after = {name: tuple(bound for _, bound in funcs) for name, funcs in cls.__wskit_after__.items()}
    hints = resolve_hints(cls)
    steps: list[tuple[str, Callable[[Any], Any], Any, tuple[Callable[[Any], Any], ...]]] = []
    for name, field in cls.model_fields.items():
        if field.pydantic is not None:
            return None
        check = _checker(hints[name])
        if check is None:
            return None
        steps.append((name, check, field if not field.is_required() else None, after.get(name, ())))
    names = frozenset(cls.model_fields)

    def build(data: dict[str, Any]) -> tuple[dict[str, Any], set[str]] | None:
        out: dict[str, Any] = {}
        try:
            for func in before:
                data = func(data)
            if type(data) is not dict or not names.issuperset(data):
                return None
            for name, check, default, validators in steps:
                if name in data:
                    value = check(data[name])
                    for func in validators:
                        value = func(value)
                elif default is None:
                    return None
                else:
                    value = _copy_default(default)
                out[name] = value
        except (_Miss, ValueError, AssertionError):
            return None
        return out, set(data)

    return build


def _exact(tp: type) -> Callable[[Any], Any]:
    def check(v: Any) -> Any:
        if type(v) is tp:
            return v
        raise _Miss
    return check


def _enum(tp: type[enum.Enum]) -> Callable[[Any], Any] | None:
    """A member as it is; a ``str`` or ``int`` equal to a member's value (of that
    exact type) becomes the member, as pydantic's lax enum validation does."""
    by_value = {(type(m.value), m.value): m for m in tp}
    if not all(t in (str, int) for t, _ in by_value):
        return None

    def check(v: Any) -> Any:
        if type(v) is tp:
            return v
        member = by_value.get((type(v), v)) if type(v) in (str, int) else None
        if member is None:
            raise _Miss
        return member
    return check


def _ident(v: Any) -> Any:
    return v


def _checker(tp: Any) -> Callable[[Any], Any] | None:
    """A function returning the value pydantic would store for an exactly-typed
    ``v`` (raising :class:`_Miss` otherwise), or None for an annotation not handled."""
    if tp is Any or tp is object:
        return _ident
    if tp is None or tp is type(None):
        def none(v: Any) -> Any:
            if v is None:
                return v
            raise _Miss
        return none
    if tp in (str, int, bool, float, bytes):
        return _exact(tp)
    if tp is Path or tp is _PATH_TYPE:
        def path(v: Any) -> Any:
            if type(v) is _PATH_TYPE:
                return v
            if type(v) is str:  # pydantic's lax mode: Path(text)
                return _PATH_TYPE(v)
            raise _Miss
        return path
    if isinstance(tp, type):
        if issubclass(tp, enum.Enum):
            return _enum(tp)
        if hasattr(tp, "__wskit_pure__") or (hasattr(tp, "__pydantic_validator__") and hasattr(tp, "model_fields")):
            if tp.model_config.get("revalidate_instances", "never") != "never":
                return None

            def model(v: Any) -> Any:
                if isinstance(v, tp):
                    return v
                raise _Miss
            return model
        if tp in (tuple, frozenset, dict, list, set):
            return _container(tp, ())
        if issubclass(tp, PurePath):
            return None
        return None
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Union or origin is types.UnionType:
        arms = [_checker(a) for a in args]
        if any(a is None for a in arms):
            return None

        def union(v: Any) -> Any:
            for arm in arms:
                try:
                    return arm(v)
                except _Miss:
                    continue
            raise _Miss
        return union
    if origin is typing.Literal:
        allowed = tuple((type(a), a) for a in args)
        if not all(t in (str, int, bool) for t, _ in allowed):
            return None

        def literal(v: Any) -> Any:
            for t, a in allowed:
                if type(v) is t and v == a:
                    return v
            raise _Miss
        return literal
    if origin is not None and origin.__module__ == "collections.abc" and origin.__name__ == "Callable":
        def call(v: Any) -> Any:
            if callable(v):
                return v
            raise _Miss
        return call
    if origin in (tuple, frozenset, dict, list, set):
        return _container(origin, args)
    return None


def _container(origin: type, args: tuple[Any, ...]) -> Callable[[Any], Any] | None:
    if origin is tuple:
        if not args or (len(args) == 2 and args[1] is Ellipsis):
            item = _checker(args[0]) if args else _ident
            if item is None:
                return None

            def var_tuple(v: Any) -> Any:
                if type(v) is not tuple:
                    raise _Miss
                return tuple([item(x) for x in v]) if item is not _ident else v
            return var_tuple
        if args == ((),):
            return None
        items = [_checker(a) for a in args]
        if any(i is None for i in items):
            return None

        def fixed(v: Any) -> Any:
            if type(v) is not tuple or len(v) != len(items):
                raise _Miss
            return tuple([f(x) for f, x in zip(items, v)])
        return fixed
    if origin in (frozenset, set, list):
        item = _checker(args[0]) if args else _ident
        if item is None:
            return None

        def seq(v: Any) -> Any:
            if type(v) is not origin:
                raise _Miss
            return origin([item(x) for x in v])
        return seq
    key = _checker(args[0]) if args else _ident
    val = _checker(args[1]) if args else _ident
    if key is None or val is None:
        return None

    def mapping(v: Any) -> Any:
        if type(v) is not dict:
            raise _Miss
        return {key(k): val(x) for k, x in v.items()}
    return mapping
