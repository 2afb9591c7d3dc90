"""The base of the value types hookspecs name: :class:`Frozen`, a plain immutable class
with the public API of a frozen pydantic v2 model, and :func:`construct_valid`, the
unchecked constructor of the skill reader's fast path (:func:`valid_builder`: the same,
checked once per shape, for the skill reader and the persistent rule index).

:mod:`wskit.models` re-exports both (that is where contracts import them from); the
machinery is here so that ``models.py`` shows the contracts. Declaring: annotated
fields, defaults, :func:`~wskit.values.plainmodel.Field` for a default factory,
:func:`~wskit.values.plainmodel.field_validator` and
:func:`~wskit.values.plainmodel.model_validator` (:mod:`wskit.values.plainmodel`).
Constructing from exactly-typed values goes through :mod:`wskit.values.fastinit` (the fast
path; its differential test is ``tests/core/values/test_fastinit.py``), anything else
through the pydantic model of the same declaration.
"""

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from wskit.util.sharedkeys import shared_keys_copy
from wskit.values import plainmodel as _plainmodel
from wskit.values.plainmodel import FieldInfo


class Frozen:
    """Base of every wskit value: immutable, no extra fields, arbitrary types allowed.

    A plain ``__slots__`` class with the public API of a frozen pydantic v2 model
    (``extra="forbid"``, ``arbitrary_types_allowed=True``): declared as one (annotated
    fields, defaults, :func:`~wskit.values.plainmodel.Field` for a default factory,
    :func:`~wskit.values.plainmodel.field_validator`,
    :func:`~wskit.values.plainmodel.model_validator`), and used as one —
    ``model_fields``, ``model_fields_set``, ``model_dump`` (``mode``, ``include``,
    ``exclude``, ``exclude_unset``, ``exclude_defaults``, ``exclude_none``),
    ``model_dump_json``, ``model_copy(update=, deep=)``, ``model_validate``,
    ``model_validate_json``, ``model_construct``, ``model_json_schema``, equality of
    same-class instances with equal fields, hashing, ``repr``, ``dict(obj)``, pickling,
    and :class:`pydantic.ValidationError` (``frozen_instance``) on assignment.

    Making the classes and building their instances from exactly-typed values imports
    no pydantic (:mod:`wskit.values.fastinit`); anything to coerce or refuse is validated
    by a pydantic model of the same declaration built on first need
    (:func:`wskit.values.plainmodel.pydantic_model`), which raises pydantic's
    :class:`pydantic.ValidationError` for bad input. It is not a
    :class:`pydantic.BaseModel` subclass; a pydantic model may still have fields typed
    with it (:meth:`__get_pydantic_core_schema__`).
    """

    __slots__ = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")

    model_config: ClassVar[dict[str, Any]] = {"frozen": True, "extra": "forbid", "arbitrary_types_allowed": True}
    model_fields: ClassVar[dict[str, FieldInfo]] = {}
    __pydantic_fields__: ClassVar[dict[str, FieldInfo]] = {}
    __private_attributes__: ClassVar[dict[str, Any]] = {}
    __class_vars__: ClassVar[set[str]] = set()
    model_computed_fields: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        _plainmodel.setup(cls)

    def __init__(self, /, **data: Any) -> None:
        """Check ``data`` and build the instance, as :class:`pydantic.BaseModel` does.

        Values that already have exactly their field's type (a ``str`` for ``str``, a
        :class:`Scope` member or its value for :class:`Scope`, a ``tuple`` of ``str`` for
        ``tuple[str, ...]``, a model instance for a model field…) are checked here by
        :mod:`wskit.values.fastinit`, and the instance holds what pydantic would store
        for them (same ``__dict__``, same fields set, defaults copied as pydantic copies
        them). Anything else — a value to coerce, a missing or unknown field, a field
        validator that refuses it — is validated by the pydantic model of the class
        (built on first use), which coerces as pydantic does or raises its
        :class:`pydantic.ValidationError`.
        """
        cls = type(self)
        plan = cls.__wskit_plan__
        if plan is _UNPLANNED:
            plan = _plan_for(cls)
        if plan is not None:
            made = plan(data)
            if made is not None:
                _setattr(self, "__dict__", made[0])
                _setattr(self, "__pydantic_fields_set__", made[1])
                _setattr(self, "__pydantic_extra__", None)
                _setattr(self, "__pydantic_private__", None)
                self.model_post_init(None)
                return
        _validated_into(self, _plainmodel.pydantic_model(cls)(**data))

    def model_post_init(self, context: Any, /) -> None:
        """Share one ``__pydantic_fields_set__`` set between instances that set the same
        fields (a 5+-element set is 728 bytes, on every instance). Subclasses overriding
        this must call ``super()``.

        The instance ``__dict__`` is replaced by an equal one that shares its key
        table with the other instances (:func:`wskit.util.sharedkeys.shared_keys_copy`;
        464 → 192 bytes for a 15-field model).
        """
        object.__setattr__(self, "__dict__", shared_keys_copy(self.__dict__))
        if not self.model_config.get("frozen"):
            return  # a subclass that unfroze itself may add to its set on assignment
        object.__setattr__(self, "__pydantic_fields_set__", _shared_set(self.__pydantic_fields_set__))

    # --- pydantic's model API ---------------------------------------------------------

    @property
    def model_fields_set(self) -> set[str]:
        """The fields given when the instance was made (not defaulted)."""
        return self.__pydantic_fields_set__

    @property
    def model_extra(self) -> None:
        """Always None: extra fields are forbidden."""
        return None

    @classmethod
    def model_validate(cls, obj: Any, *, strict: bool | None = None, from_attributes: bool | None = None,
                       context: Any = None, **kw: Any) -> Any:
        """``obj`` validated as ``cls``: an instance of ``cls`` as it is, a ``dict`` as
        the constructor's keyword arguments, anything else by the pydantic model.

        :raises pydantic.ValidationError: ``obj`` is not valid.
        """
        if strict is None and from_attributes is None and context is None and not kw:
            if isinstance(obj, cls):
                return obj
            if type(obj) is dict and all(type(k) is str for k in obj):
                return cls(**obj)
        return _plainmodel.validate(cls, "model_validate", obj, strict=strict, from_attributes=from_attributes,
                                    context=context, **kw)

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **kw: Any) -> Any:
        """``json_data`` (JSON text) validated as ``cls`` by the pydantic model.

        :raises pydantic.ValidationError: not JSON, or not valid.
        """
        return _plainmodel.validate(cls, "model_validate_json", json_data, **kw)

    @classmethod
    def model_validate_strings(cls, obj: Any, **kw: Any) -> Any:
        """``obj`` (strings) validated as ``cls`` by the pydantic model.

        :raises pydantic.ValidationError: not valid.
        """
        return _plainmodel.validate(cls, "model_validate_strings", obj, **kw)

    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: Any) -> Any:
        """An instance holding ``values`` unchecked, defaults for the other fields
        that have one (a required field left out stays missing), as pydantic's."""
        obj = _new(cls)
        d: dict[str, Any] = {}
        given: set[str] = set()
        for name, f in cls.model_fields.items():
            if name in values:
                d[name] = values.pop(name)
                given.add(name)
            elif not f.is_required():
                d[name] = f.get_default(call_default_factory=True)
        _setattr(obj, "__dict__", d)
        _setattr(obj, "__pydantic_fields_set__", given if _fields_set is None else set(_fields_set))
        _setattr(obj, "__pydantic_extra__", None)
        _setattr(obj, "__pydantic_private__", None)
        if type(obj).model_post_init is not Frozen.model_post_init:
            obj.model_post_init(None)
        return obj

    @classmethod
    def model_json_schema(cls, *args: Any, **kw: Any) -> dict[str, Any]:
        """The JSON schema of the class (pydantic's, of the same declaration)."""
        return _plainmodel.pydantic_model(cls).model_json_schema(*args, **kw)

    @classmethod
    def model_rebuild(cls, **kw: Any) -> None:
        """Nothing to rebuild: annotations are resolved when first needed."""
        return None

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        """A copy, with ``update``'s values (not validated, as pydantic's) in place of
        the fields it names; ``deep``: the other values deep-copied."""
        if deep and update:
            import copy as _copy  # copying is rare: not imported at start-up

            copied = self.__copy__()
            memo: dict[int, Any] = {id(self): copied}
            for k, v in copied.__dict__.items():
                if k not in update:
                    copied.__dict__[k] = _copy.deepcopy(v, memo)
        else:
            copied = self.__deepcopy__() if deep else self.__copy__()
        if update:
            copied.__dict__.update(update)
            _setattr(copied, "__pydantic_fields_set__",
                     _shared_set(copied.__pydantic_fields_set__ | update.keys()))
        return copied

    def model_dump(self, *, mode: str = "python", include: Any = None, exclude: Any = None, context: Any = None,
                   by_alias: bool | None = None, exclude_unset: bool = False, exclude_defaults: bool = False,
                   exclude_none: bool = False, round_trip: bool = False, warnings: Any = True,
                   fallback: Any = None, serialize_as_any: bool = False, **kw: Any) -> dict[str, Any]:
        """The fields as a ``dict``, nested values dumped as pydantic dumps them
        (``mode="json"``: JSON values only). ``include``/``exclude`` as sets of field
        names here; mappings, ``context``, ``fallback``, ``round_trip`` and
        ``serialize_as_any`` are handled by the pydantic model.

        :raises pydantic_core.PydanticSerializationError: a value with no JSON form in JSON mode.
        """
        if mode not in ("python", "json"):
            raise ValueError(f"mode must be 'python' or 'json', not {mode!r}")
        simple = ((include is None or isinstance(include, (set, frozenset)))
                  and (exclude is None or isinstance(exclude, (set, frozenset))))
        if simple and context is None and fallback is None and not round_trip and not serialize_as_any and not kw:
            return _plainmodel.dump(self, type(self), mode == "json", exclude_unset, exclude_defaults, exclude_none,
                                    include, exclude)
        return self._as_pydantic().model_dump(
            mode=mode, include=include, exclude=exclude, context=context, by_alias=by_alias,
            exclude_unset=exclude_unset, exclude_defaults=exclude_defaults, exclude_none=exclude_none,
            round_trip=round_trip, warnings=warnings, fallback=fallback, serialize_as_any=serialize_as_any, **kw)

    def model_dump_json(self, *, indent: int | None = None, include: Any = None, exclude: Any = None,
                        exclude_unset: bool = False, exclude_defaults: bool = False, exclude_none: bool = False,
                        **kw: Any) -> str:
        """The fields as JSON text, as pydantic writes it (compact unless ``indent``).

        :raises pydantic_core.PydanticSerializationError: a value with no JSON form.
        """
        if kw:
            return self._as_pydantic().model_dump_json(indent=indent, include=include, exclude=exclude,
                                                       exclude_unset=exclude_unset,
                                                       exclude_defaults=exclude_defaults,
                                                       exclude_none=exclude_none, **kw)
        from pydantic_core import to_json

        data = self.model_dump(mode="json", include=include, exclude=exclude, exclude_unset=exclude_unset,
                               exclude_defaults=exclude_defaults, exclude_none=exclude_none)
        # non-finite floats as the model's pydantic serializer writes them (``null`` by default)
        inf_nan = type(self).model_config.get("ser_json_inf_nan", "null")
        try:
            return to_json(data, indent=indent, inf_nan_mode=inf_nan).decode()
        except TypeError:  # a pydantic-core without inf_nan_mode: the model's own serializer
            return self._as_pydantic().model_dump_json(indent=indent, include=include, exclude=exclude,
                                                       exclude_unset=exclude_unset,
                                                       exclude_defaults=exclude_defaults, exclude_none=exclude_none)

    def _as_pydantic(self) -> Any:
        model = _plainmodel.pydantic_model(type(self))
        return model.model_construct(_fields_set=set(self.__pydantic_fields_set__), **self.__dict__)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """For a field typed with this class in a pydantic model: instances kept,
        anything else validated by the class's pydantic model (see
        :func:`wskit.values.plainmodel.core_schema`)."""
        return _plainmodel.core_schema(cls, handler)

    # --- object protocol, as pydantic's BaseModel -------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        cls = type(self)
        if name in cls.__class_vars__:
            raise AttributeError(f"{name!r} is a ClassVar of `{cls.__name__}` and cannot be set on an instance. "
                                 f"If you want to set a value on the class, use `{cls.__name__}.{name} = value`.")
        if name.startswith("_"):
            _setattr(self, name, value)
            return
        if cls.model_config.get("frozen"):
            raise _plainmodel.frozen_error(cls, name, value)
        if name not in cls.model_fields:
            raise ValueError(f'"{cls.__name__}" object has no field "{name}"')
        self.__dict__[name] = value
        _setattr(self, "__pydantic_fields_set__", self.__pydantic_fields_set__ | {name})

    def __delattr__(self, name: str) -> None:
        cls = type(self)
        if cls.model_config.get("frozen"):
            raise _plainmodel.frozen_error(cls, name, None)
        try:
            object.__delattr__(self, name)
        except AttributeError:
            raise AttributeError(f"{cls.__name__!r} object has no attribute {name!r}") from None

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, Frozen):
            if type(self) is not type(other):
                return False
            if self.__dict__ == other.__dict__:
                return True
            names = type(self).model_fields
            if self.__dict__.keys() <= names.keys() and other.__dict__.keys() <= names.keys():
                return False
            missing = object()
            return all(self.__dict__.get(n, missing) == other.__dict__.get(n, missing) for n in names)
        return NotImplemented

    def __hash__(self) -> int:
        if not self.model_config.get("frozen"):
            raise TypeError(f"unhashable type: {type(self).__name__!r}")
        d = self.__dict__
        return hash(tuple([d.get(n) for n in type(self).model_fields]))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.__repr_str__(', ')})"

    def __str__(self) -> str:
        return self.__repr_str__(" ")

    def __repr_args__(self) -> Any:
        fields = type(self).model_fields
        for k, v in self.__dict__.items():
            f = fields.get(k)
            if f is not None and f.repr:
                yield k, v

    def __repr_str__(self, join_str: str) -> str:
        return join_str.join(f"{k}={v!r}" if k is not None else repr(v) for k, v in self.__repr_args__())

    def __iter__(self) -> Any:
        """``(name, value)`` pairs, so ``dict(obj)`` works."""
        yield from [(k, v) for k, v in self.__dict__.items() if not k.startswith("_")]

    def __copy__(self) -> Any:
        m = _new(type(self))
        _setattr(m, "__dict__", self.__dict__.copy())  # what copy.copy does for a dict
        _setattr(m, "__pydantic_extra__", None)
        _setattr(m, "__pydantic_fields_set__", self.__pydantic_fields_set__)
        _setattr(m, "__pydantic_private__", None)
        return m

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Any:
        import copy as _copy  # copying is rare: not imported at start-up

        m = _new(type(self))
        _setattr(m, "__dict__", _copy.deepcopy(self.__dict__, memo=memo))
        _setattr(m, "__pydantic_extra__", None)
        _setattr(m, "__pydantic_fields_set__", self.__pydantic_fields_set__)
        _setattr(m, "__pydantic_private__", None)
        return m

    def __replace__(self, **changes: Any) -> Any:
        return self.model_copy(update=changes)

    def __getstate__(self) -> dict[str, Any]:
        return {"__dict__": self.__dict__, "__pydantic_extra__": None,
                "__pydantic_fields_set__": self.__pydantic_fields_set__, "__pydantic_private__": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        _setattr(self, "__pydantic_fields_set__", _shared_set(state.get("__pydantic_fields_set__", set())))
        _setattr(self, "__pydantic_extra__", None)
        _setattr(self, "__pydantic_private__", None)
        _setattr(self, "__dict__", state.get("__dict__", {}))


Frozen.__wskit_plan__ = None  # type: ignore[attr-defined]
Frozen.__wskit_pure__ = True  # type: ignore[attr-defined]
Frozen.__wskit_before__ = ()  # type: ignore[attr-defined]
Frozen.__wskit_after__ = {}  # type: ignore[attr-defined]
Frozen.__wskit_pydantic_validators__ = {}  # type: ignore[attr-defined]


def _validated_into(obj: Any, made: Any) -> None:
    """Fill ``obj`` with what the pydantic model instance ``made`` holds."""
    _setattr(obj, "__dict__", dict(made.__dict__))
    _setattr(obj, "__pydantic_fields_set__", set(made.model_fields_set))
    _setattr(obj, "__pydantic_extra__", None)
    _setattr(obj, "__pydantic_private__", None)
    obj.model_post_init(None)


def _shared_set(fields: Any) -> set[str]:
    key = frozenset(fields)
    shared = _FIELDS_SETS.get(key)
    if shared is None:
        shared = _FIELDS_SETS.setdefault(key, set(key))
    return shared


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


#: the four attributes :func:`construct_valid` sets on an instance
_VALID_SLOTS = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")


def valid_builder(cls: type[Frozen], unset: frozenset[str] = frozenset()
                  ) -> tuple[tuple[str, ...], Callable[[dict[str, Any]], Any]] | None:
    """``(names, build)``: ``build(values)`` is :func:`construct_valid` ``(cls, values,
    unset)`` without its per-call key check, for a caller that builds many instances of
    one shape and checked its ``values`` template against ``names`` (the field names in
    declaration order) once (:mod:`wskit.builtin_plugins.skills.fast`, once per skills
    folder). It sets the same four attributes with the ``__set__`` of the data
    descriptors ``object.__setattr__`` would find along the MRO (calling them directly
    skips that lookup). None when one of them is not a data descriptor.

    :raises TypeError: for a class :func:`construct_valid` refuses.
    """
    names, fields_set = valid_shape(cls, unset)
    setters = []
    for name in _VALID_SLOTS:
        found = next((k.__dict__[name] for k in cls.__mro__ if name in k.__dict__), None)
        if getattr(type(found), "__set__", None) is None:
            return None
        setters.append(found.__set__)
    set_dict, set_fields, set_extra, set_private = setters
    new = _new

    def build(values: dict[str, Any]) -> Any:
        obj = new(cls)
        set_dict(obj, values)
        set_fields(obj, fields_set)
        set_extra(obj, None)
        set_private(obj, None)
        return obj

    return names, build


_setattr = object.__setattr__
_UNPLANNED = _plainmodel._UNPLANNED


def _plan_for(cls: type) -> Any:
    """The class's :func:`wskit.values.fastinit.plan` (None: always validated by pydantic), made once."""
    from wskit.values.fastinit import plan

    made = plan(cls)
    cls.__wskit_plan__ = made  # type: ignore[attr-defined]
    return made
#: ``object.__new__``
_new = object.__new__


def _fields_set(cls: type, names: tuple[str, ...], unset: frozenset[str]) -> set[str]:
    shared = _SETS.get((cls, unset))
    if shared is None:
        key = frozenset(names) - unset
        shared = _FIELDS_SETS.setdefault(key, set(key))
        _SETS[(cls, unset)] = shared
    return shared


_SETS: dict[tuple[type, frozenset[str]], set[str]] = {}
