"""Base classes of small value types with the behaviour of a dataclass, at no class-creation cost.

``@dataclass`` compiles ``__init__``, ``__repr__``, ``__eq__`` and, frozen,
``__setattr__``/``__delattr__``/``__hash__`` with ``exec`` when the class is created:
≈ 0.5–0.9 ms a class, paid by every ``wsctl`` start for the classes of the hot path.
A subclass of :class:`Value` or :class:`FrozenValue` writes its own ``__init__`` and
lists its fields, in constructor order, as ``__slots__``; these bases derive the rest
from that tuple with ordinary functions, so creating the class compiles nothing:

- ``__repr__``: ``Name(a=1, b='x')``, as a dataclass's;
- ``__eq__``: the fields compared in order, only with an instance of the same class
  (else ``NotImplemented``);
- ``__hash__``: None for :class:`Value` (mutable and comparable: unhashable, as a
  dataclass with ``eq=True``); the hash of the field tuple for :class:`FrozenValue`;
- assignment and deletion refused by :class:`FrozenValue` with
  :class:`dataclasses.FrozenInstanceError` (an :class:`AttributeError`);
- :meth:`Value.copy_with` in place of :func:`dataclasses.replace` (also ``__replace__``,
  for :func:`copy.replace`), ``__match_args__``, and copying and pickling through the
  constructor (``__reduce__``).

A ``__weakref__`` entry of ``__slots__`` is not a field.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any


def _frozen_error(message: str) -> AttributeError:
    # dataclasses is imported only when an assignment is refused: importing it costs start-up
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(message)


class Value:
    """A mutable value type: ``__repr__``, ``__eq__``, ``copy_with`` from ``__slots__``
    (see the module docstring); unhashable, as a dataclass with ``eq=True``."""

    __slots__ = ()

    #: the fields, in constructor order (``__slots__`` without ``__weakref__``)
    _fields: tuple[str, ...] = ()
    #: the field values of an instance, as a tuple (``cls._values(obj)``)
    _values: Any = staticmethod(lambda obj: ())

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        slots = cls.__dict__.get("__slots__", ())
        if isinstance(slots, str):
            slots = (slots,)
        fields = tuple(s for s in slots if s != "__weakref__")
        if not fields:  # a subclass adding no field keeps its base's
            return
        cls._fields = cls.__match_args__ = fields
        if len(fields) == 1:
            one = attrgetter(fields[0])
            cls._values = staticmethod(lambda obj: (one(obj),))
        else:  # not a descriptor: found on the class as it is, with no binding step
            cls._values = attrgetter(*fields)

    def __repr__(self) -> str:
        values = self._values(self)
        inner = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, values))
        return f"{type(self).__qualname__}({inner})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            values = self._values
            return values(self) == values(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def copy_with(self, **changes: Any) -> Any:
        """A new instance with the same field values but ``changes`` (what
        :func:`dataclasses.replace` did): made through the constructor, so a field with a
        default factory keeps its value unless it is changed.

        :raises TypeError: a name in ``changes`` is not a field.
        """
        values = dict(zip(self._fields, self._values(self)))
        values.update(changes)
        return self.__class__(**values)

    __replace__ = copy_with

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return self.__class__, self._values(self)


class FrozenValue(Value):
    """An immutable value type (a frozen dataclass): as :class:`Value`, but assignment and
    deletion of any attribute raise :class:`dataclasses.FrozenInstanceError`, and the
    hash is that of the field tuple. ``__init__`` stores the fields with
    ``object.__setattr__``."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise _frozen_error(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise _frozen_error(f"cannot delete field {name!r}")

    def __hash__(self) -> int:
        return hash(self._values(self))
