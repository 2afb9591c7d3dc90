"""The value types of the start-up path are plain ``__slots__`` classes
(:mod:`wskit.values`) with the public API their dataclasses had: constructor
(positional order, keywords, defaults, default factories), attributes, ``==``, hash,
frozenness, ``repr``, and :meth:`copy_with` where :func:`dataclasses.replace` was used.

One table drives the checks: per class, example values for every field in constructor
order, the defaults of the optional fields, and the kind of comparison the dataclass had.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from pathlib import Path
from types import MappingProxyType
from typing import ClassVar  # noqa: F401  (dataclasses resolves the bodies' "ClassVar[...]" strings here)

import pytest

from wskit.binding import Binding
from wskit.builtin_plugins.permissions.policy import PermissionDecision, PermissionPolicy
from wskit.builtin_plugins.rules.conventions import ConfigDir, Conventions, FolderFile
from wskit.builtin_plugins.rules.discovery import Discovery
from wskit.builtin_plugins.rules.imports import ImportResult
from wskit.builtin_plugins.rules.model import RuleSelection, SkippedRule
from wskit.builtin_plugins.rules.patterns import PatternProblem
from wskit.builtin_plugins.rules.rulefiles import Candidate as RuleCandidate
from wskit.builtin_plugins.styles.loader import BLADE_LIMITS, StyleLimits
from wskit.formats.definitions import ConfigBlock
from wskit.formats.frontmatter import Frontmatter
from wskit.formats.mdwalk import MdEntry
from wskit.fs.read import DirEntry, ReadResult
from wskit.host import HostProfile
from wskit.models import Scope
from wskit.plugin.manager import PluginInfo
from wskit.registry import Candidate
from wskit.trust import TrustDecision
from wskit.values import FrozenValue, Value
from wskit.workspace import WorkspaceResources
from wskit_gemini.extensions import Extension

#: eq: "frozen" (== by fields, hash of the fields, assignment refused), "mutable" (== by
#: fields, unhashable, assignable) or "identity" (== and hash by identity, assignable)
FROZEN, MUTABLE, IDENTITY = "frozen", "mutable", "identity"

_FF = FolderFile("CLAUDE.md", "CLAUDE.md")
_BINDING = Binding(source_root=Path("/w"), execution_root=Path("/w"), cwd=Path("/w"))

#: (class, every field's example value in constructor order, defaults of the optional fields, eq)
CASES: list[tuple[type, dict, dict, str]] = [
    (ReadResult, {"raw": b"abc", "size": 3, "complete": True, "path": "/p/a", "link_target": "/q/a"},
     {"link_target": None}, FROZEN),
    (DirEntry, {"name": "a.md", "type": "file", "link_target": "/t"}, {"link_target": None}, FROZEN),
    (MdEntry, {"rel": "commands/a.md", "segments": ("a",), "depth": 1, "type": "file", "link_target": "/t"},
     {"link_target": None}, FROZEN),
    (Candidate, {"resource": "res", "rank": 20, "order": 3}, {"order": 0}, FROZEN),
    (StyleLimits, {"max_styles": 1, "max_file_bytes": 2, "max_prompt_bytes": 3, "max_total_bytes": 4,
                   "max_depth": 5, "max_name": 6, "max_description": 7},
     {"max_styles": 32, "max_file_bytes": 24 * 1024, "max_prompt_bytes": 16 * 1024,
      "max_total_bytes": 128 * 1024, "max_depth": 4, "max_name": 80, "max_description": 256}, FROZEN),
    (PermissionDecision, {"decision": "deny", "rule": None, "by": "mode", "reason": "why", "layer": "user",
                          "hook_decision": "ask"}, {"layer": None, "hook_decision": None}, FROZEN),
    (PermissionPolicy, {"rules": ("r",), "ignored": (("r", "why"),), "default_mode": "plan", "mode_layer": "user",
                        "additional_directories": ("/x",), "project": "/p", "home": "/h",
                        "managed_error": "bad", "diagnostics": ("d",)},
     {"rules": (), "ignored": (), "default_mode": "default", "mode_layer": None, "additional_directories": (),
      "project": "/", "home": "/", "managed_error": None, "diagnostics": ()}, FROZEN),
    (FolderFile, {"name": "CLAUDE.local.md", "slot": "CLAUDE.local.md", "source": "local", "gitignore": False,
                  "root_only": True},
     {"source": "project", "gitignore": True, "root_only": False}, FROZEN),
    (ConfigDir, {"name": ".claude", "files": (_FF,), "rules_slot": ".claude/rules", "rules_dir": "instructions",
                 "rules_suffixes": (".mdc",)}, {"rules_dir": "rules", "rules_suffixes": (".md",)}, FROZEN),
    (Conventions, {"before": (_FF,), "agents": True, "fallbacks": ("X.md",), "after": (), "config_dirs": (),
                   "user_files": (_FF,), "user_group": (_FF, _FF), "user_rules": ((".claude", "s"),),
                   "gitignore": False, "casefold": True},
     {"user_files": (), "user_group": None, "user_rules": (), "gitignore": True, "casefold": False}, FROZEN),
    (SkippedRule, {"rule": "rule", "reason": "over-budget", "detail": "12 bytes"}, {"detail": ""}, FROZEN),
    (RuleSelection, {"kind": "contextual", "files": ("f",), "skipped": ("s",), "trigger_paths": ("a.py",),
                     "budget": 10, "diagnostics": ("d",)},
     {"files": (), "skipped": (), "trigger_paths": (), "budget": None, "diagnostics": ()}, FROZEN),
    (PatternProblem, {"pattern": "[a", "code": "rule-pattern-invalid", "message": "why"}, {}, FROZEN),
    (RuleCandidate, {"rel": "a/AGENTS.md", "source": "project", "scope_dir": "a", "priority": 2,
                     "file_kind": "instruction", "target": "b/AGENTS.md"}, {"target": None}, MUTABLE),
    (ConfigBlock, {"data": {"s": {}}, "rel": ".mcp.json", "scope": Scope.PROJECT, "file_level": True}, {},
     MUTABLE),
    (PluginInfo, {"name": "p", "distribution": "d", "version": "1", "builtin": True, "seconds": 0.5,
                  "import_seconds": 0.25, "register_seconds": 0.25},
     {"distribution": None, "version": None, "builtin": False, "seconds": 0.0, "import_seconds": 0.0,
      "register_seconds": 0.0}, MUTABLE),
    (Discovery, {"rules": ["r"], "diagnostics": ["d"]}, {"rules": [], "diagnostics": []}, MUTABLE),
    (ImportResult, {"text": "t", "imported": ["a.md"], "diagnostics": ["d"]}, {"imported": [], "diagnostics": []},
     MUTABLE),
    (Frontmatter, {"present": True, "data": {"a": 1}, "body": "b", "ok": False, "diagnostics": ["d"],
                   "key_lines": {"a": 2}, "block": "a: 1"},
     {"data": {}, "body": "", "ok": True, "diagnostics": [], "key_lines": {}, "block": ""}, MUTABLE),
    (Extension, {"name": "e", "root": "/e", "scope": "user", "base": "/h", "manifest": {"name": "e"},
                 "version": "1", "description": "d", "context_files": ("GEMINI.md",),
                 "mcp_servers": {"s": {}}, "exclude_tools": ("x",)},
     {"version": "", "description": "", "context_files": (), "mcp_servers": {}, "exclude_tools": ()}, MUTABLE),
    (WorkspaceResources, {"binding": _BINDING, "profile": HostProfile(name="wskit", home=Path("/h")),
                          "trust": TrustDecision(path="/w", state="unknown"), "sources": (),
                          "kinds": MappingProxyType({}), "registries": MappingProxyType({}), "diagnostics": (),
                          "generation": 7, "hooks": "hooks", "closed": True,
                          "catalogs": MappingProxyType({"rules": "cat"})},
     {"hooks": None, "closed": False}, IDENTITY),
]

_IDS = [c[0].__qualname__ + "@" + c[0].__module__ for c in CASES]


def _other(value):
    """A value unequal to ``value`` (of a kind a field of that value accepts)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "!"
    if isinstance(value, bytes):
        return value + b"!"
    if isinstance(value, tuple):
        return value + ("more",)
    if isinstance(value, list):
        return [*value, "more"]
    if isinstance(value, dict):
        return {**value, "more": 1}
    if isinstance(value, MappingProxyType):
        return MappingProxyType({**value, "more": 1})
    if value is None:
        return "set"
    return object()


@pytest.fixture(params=CASES, ids=_IDS)
def case(request):
    return request.param


def test_is_a_plain_slots_class(case) -> None:
    cls, values, _, eq = case
    assert not dataclasses.is_dataclass(cls)
    assert issubclass(cls, FrozenValue if eq == FROZEN else Value)
    assert cls._fields == tuple(values) and cls.__match_args__ == tuple(values)
    obj = cls(**values)
    assert not hasattr(obj, "__dict__")


def test_constructor_by_position_and_keyword(case) -> None:
    cls, values, _, _ = case
    for obj in (cls(*values.values()), cls(**values)):
        assert {name: getattr(obj, name) for name in values} == values
    with pytest.raises(TypeError):
        cls(**values, not_a_field=1)
    with pytest.raises(TypeError):
        cls(*values.values(), "one too many")


def test_defaults(case) -> None:
    cls, values, defaults, _ = case
    required = {k: v for k, v in values.items() if k not in defaults}
    if cls is WorkspaceResources:  # the default factories: a fresh generation, an empty catalog map
        required.pop("generation"), required.pop("catalogs")
        first, second = cls(**required), cls(*required.values())
        assert second.generation > first.generation and first.catalogs == {} and first.catalogs is not second.catalogs
        assert isinstance(first.catalogs, MappingProxyType)
    obj = cls(**required)
    assert {name: getattr(obj, name) for name in defaults} == defaults
    assert cls(*required.values()) == obj or cls is WorkspaceResources
    # a default list or dict is a new one per instance (a dataclass default factory)
    for name, default in defaults.items():
        if isinstance(default, (list, dict)):
            assert getattr(cls(**required), name) is not getattr(obj, name)
    if required:
        with pytest.raises(TypeError):
            cls()


def test_equality(case) -> None:
    cls, values, _, eq = case
    a, b = cls(**values), cls(**values)
    assert a == a
    if eq == IDENTITY:
        assert a != b and not (a == b)
    else:
        assert a == b and not (a != b)
        for name, value in values.items():  # every field takes part, in order
            assert a != cls(**{**values, name: _other(value)}), name
    assert a != tuple(values.values()) and a != values
    # only the same class compares equal: a subclass with the same fields does not
    sub = type("Sub", (cls,), {"__slots__": ()})
    assert sub(**values) != a and a != sub(**values)


def test_hash(case) -> None:
    cls, values, _, eq = case
    a, b = cls(**values), cls(**values)
    if eq == FROZEN:
        assert hash(a) == hash(b) == hash(tuple(values.values()))
        assert len({a, b}) == 1
    elif eq == MUTABLE:
        with pytest.raises(TypeError):
            hash(a)
    else:
        assert hash(a) == object.__hash__(a) and len({a, b}) == 2


def test_assignment(case) -> None:
    cls, values, _, eq = case
    obj = cls(**values)
    name, value = next(iter(values.items()))
    if eq == FROZEN:
        for attempt in (lambda: setattr(obj, name, _other(value)), lambda: delattr(obj, name),
                        lambda: setattr(obj, "not_a_field", 1)):
            with pytest.raises(dataclasses.FrozenInstanceError):
                attempt()
        with pytest.raises(AttributeError):
            setattr(obj, name, _other(value))
        assert getattr(obj, name) == value
    else:
        new = _other(value)
        setattr(obj, name, new)
        assert getattr(obj, name) is new
        with pytest.raises(AttributeError):  # no __dict__: only the fields exist
            setattr(obj, "not_a_field", 1)


def test_repr(case) -> None:
    cls, values, _, _ = case
    inner = ", ".join(f"{k}={v!r}" for k, v in values.items())
    assert repr(cls(**values)) == f"{cls.__qualname__}({inner})"


def test_copy_with_and_copies(case) -> None:
    cls, values, _, eq = case
    obj = cls(**values)
    name, value = list(values.items())[-1]
    changed = obj.copy_with(**{name: _other(value)})
    assert type(changed) is cls and getattr(changed, name) == _other(value) and getattr(obj, name) == value
    assert all(getattr(changed, k) is getattr(obj, k) for k in values if k != name)
    same = obj.copy_with()
    assert same is not obj and all(getattr(same, k) is getattr(obj, k) for k in values)
    with pytest.raises(TypeError):
        obj.copy_with(not_a_field=1)
    # (a workspace's maps are read-only views, which neither deep-copy nor pickle)
    for dup in (copy.copy(obj),) if eq == IDENTITY else (copy.copy(obj), copy.deepcopy(obj)):
        assert type(dup) is cls and dup is not obj
        assert [getattr(dup, k) for k in values] == [getattr(obj, k) for k in values]
    if eq != IDENTITY:
        assert pickle.loads(pickle.dumps(obj)) == obj


def test_workspace_view_keeps_the_generation() -> None:
    """:class:`wskit.cache.WorkspaceCache` makes a view with ``copy_with(binding=...)``:
    same generation and catalogs (what ``dataclasses.replace`` kept)."""
    values = CASES[-1][1]
    ws = WorkspaceResources(**{**values, "generation": None, "catalogs": None})
    view = ws.copy_with(binding=Binding(source_root=Path("/w"), execution_root=Path("/w"), cwd=Path("/w/a")))
    assert view.generation == ws.generation and view.catalogs is ws.catalogs and view.binding != ws.binding


def test_rule_selection_is_false_when_empty() -> None:
    assert not RuleSelection("static") and len(RuleSelection("static")) == 0
    sel = RuleSelection("static", files=("a", "b"))
    assert sel and len(sel) == 2


def test_blade_limits_are_the_defaults() -> None:
    assert BLADE_LIMITS == StyleLimits() and StyleLimits(max_styles=64) != BLADE_LIMITS
    assert StyleLimits(max_styles=64).max_file_bytes == BLADE_LIMITS.max_file_bytes


# --- the declarative idiom against dataclasses, declaration by declaration ----------------

#: class bodies declared once, made both as a dataclass and as a value class
_BODIES = {
    "plain": "a: int\n    b: str\n",
    "defaults": "a: int\n    b: str = 'x'\n    c: tuple = ()\n    d: 'int | None' = None\n",
    "factories": "a: int\n    items: list = field(default_factory=list)\n    seen: dict = field(default_factory=dict)\n",
    "hidden": "a: int\n    secret: str = field(default='s', repr=False)\n",
    "uncompared": "a: int\n    cache: dict = field(default_factory=dict, compare=False, repr=False)\n",
    "classvar": "LIMIT: ClassVar[int] = 3\n    a: int = 1\n",
    "post_init": ("a: int\n    b: int = 0\n    def __post_init__(self):\n"
                  "        object.__setattr__(self, 'b', self.a * 2) if self.b == 0 else None\n"),
}


def _make(kind: str, body: str, frozen: bool, eq: bool = True):
    import dataclasses as dc
    from typing import ClassVar

    from wskit import values

    ns = {"ClassVar": ClassVar, "__name__": __name__}
    if kind == "dataclass":
        ns.update(field=dc.field, dataclass=dc.dataclass)
        src = f"@dataclass(frozen={frozen}, eq={eq})\nclass C:\n    {body}"
    else:
        ns.update(field=values.field, base=values.FrozenValue if frozen else values.Value)
        src = f"class C(base{'' if eq else ', eq=False'}):\n    {body}"
    exec(src, ns)
    cls = ns["C"]
    # findable by pickle under a name of its own
    name = f"_made_{kind}_{len(_MADE)}"
    cls.__qualname__ = cls.__name__ = name
    _MADE.append(cls)
    globals()[name] = cls
    return cls


_MADE: list[type] = []


def _args(name: str) -> list[dict]:
    """Constructor calls to try: keywords and the required-only form."""
    full = {"plain": {"a": 1, "b": "y"}, "defaults": {"a": 1, "b": "y", "c": (1,), "d": 4},
            "factories": {"a": 1, "items": [1], "seen": {"k": 2}}, "hidden": {"a": 1, "secret": "t"},
            "uncompared": {"a": 1, "cache": {"x": 1}}, "classvar": {"a": 2}, "post_init": {"a": 3, "b": 5}}[name]
    required = {"plain": {"a": 1, "b": "y"}, "defaults": {"a": 1}, "factories": {"a": 1}, "hidden": {"a": 1},
                "uncompared": {"a": 1}, "classvar": {}, "post_init": {"a": 3}}[name]
    return [full, required]


@pytest.mark.parametrize("frozen", [True, False], ids=["frozen", "mutable"])
@pytest.mark.parametrize("name", sorted(_BODIES))
def test_a_value_class_behaves_as_the_dataclass_of_its_declaration(name: str, frozen: bool) -> None:
    import inspect

    if name == "post_init" and not frozen:
        pytest.skip("the body stores with object.__setattr__, as a frozen class must")
    dc_cls, v_cls = _make("dataclass", _BODIES[name], frozen), _make("value", _BODIES[name], frozen)
    # the constructor: same parameters, same defaults (factories show as a marker in both)
    v_cls(**_args(name)[0])  # the generated constructor is compiled at first use
    dc_sig, v_sig = inspect.signature(dc_cls), inspect.signature(v_cls)
    assert list(dc_sig.parameters) == list(v_sig.parameters)
    for p in dc_sig.parameters.values():  # the same defaults (a factory: no plain default in either)
        q = v_sig.parameters[p.name]
        assert (p.default is inspect.Parameter.empty) == (q.default is inspect.Parameter.empty)
        if p.default is not inspect.Parameter.empty and not repr(p.default).startswith("<factory>"):
            assert q.default == p.default
    fields = [f.name for f in dataclasses.fields(dc_cls)]
    assert list(v_cls._fields) == fields and v_cls.__match_args__ == dc_cls.__match_args__
    for kwargs in _args(name):
        d, v = dc_cls(**kwargs), v_cls(**kwargs)
        assert [getattr(v, f) for f in fields] == [getattr(d, f) for f in fields]
        assert repr(v).partition("(")[2] == repr(d).partition("(")[2]
        assert v == v_cls(**kwargs) and d == dc_cls(**kwargs)
        positional = [getattr(d, f) for f in fields]
        assert v_cls(*positional) == v
        if frozen:
            try:
                expected = hash(d)
            except TypeError:  # a list field: neither is hashable
                with pytest.raises(TypeError):
                    hash(v)
            else:
                assert hash(v) == expected
            with pytest.raises(dataclasses.FrozenInstanceError):
                v.a = 9  # type: ignore[misc]
        else:
            with pytest.raises(TypeError):
                hash(v)
            v.a = 9
            assert v.a == 9
        replaced, copied = dataclasses.replace(d, a=7), v.copy_with(a=7)
        assert [getattr(copied, f) for f in fields] == [getattr(replaced, f) for f in fields]
        assert copy.replace(v, a=7) == copied if hasattr(copy, "replace") else True
        assert pickle.loads(pickle.dumps(v_cls(**kwargs))) == v_cls(**kwargs)
        for f in fields:  # a default factory is called once per instance, as a dataclass calls it
            if isinstance(getattr(d, f), (list, dict)) and f not in kwargs:
                assert getattr(v_cls(**_args(name)[1]), f) is not getattr(v_cls(**_args(name)[1]), f)
    with pytest.raises(TypeError):
        v_cls(**_args(name)[0], not_a_field=1)
    assert not hasattr(v_cls(**_args(name)[0]), "__dict__")


def test_eq_false_keeps_identity_as_a_dataclass_with_eq_false() -> None:
    d_cls = _make("dataclass", _BODIES["plain"], True, eq=False)
    v_cls = _make("value", _BODIES["plain"], True, eq=False)
    a, b = v_cls(1, "y"), v_cls(1, "y")
    assert a != b and hash(a) == object.__hash__(a)
    assert (d_cls(1, "y") == d_cls(1, "y")) is False


def test_uncompared_fields_stay_out_of_equality_and_hash() -> None:
    v_cls = _make("value", _BODIES["uncompared"], True)
    a, b = v_cls(1, {"x": 1}), v_cls(1, {"y": 2})
    assert a == b and hash(a) == hash(b) == hash((1,))
    assert "cache" not in repr(a)


@pytest.mark.parametrize("body, error", [
    ("a: int = 1\n    b: int\n", TypeError),                       # no default after a default
    ("a: list = []\n", ValueError),                                 # a mutable default shared by instances
    ("__slots__ = ('a',)\n    a: int\n", TypeError),               # a field is not listed in __slots__
    ("a: int = field(default=1, default_factory=int)\n", ValueError),
])
def test_declarations_a_dataclass_refuses_are_refused(body: str, error: type) -> None:
    with pytest.raises(error):
        _make("value", body, True)


def test_a_field_of_the_base_cannot_be_declared_again_and_subclasses_extend() -> None:
    base = _make("value", _BODIES["defaults"], True)
    with pytest.raises(TypeError):
        type(base)("Sub", (base,), {"__annotations__": {"a": "int"}, "__module__": __name__})
    sub = type(base)("Sub", (base,), {"__annotations__": {"e": "int"}, "e": 5, "__module__": __name__})
    assert sub._fields == ("a", "b", "c", "d", "e") and sub(1).e == 5 and sub.__slots__ == ("e",)


def test_a_subclass_adding_only_a_post_init_gets_a_constructor_that_calls_it() -> None:
    base = _make("value", _BODIES["plain"], False)
    calls = []
    sub = type(base)("Sub", (base,), {"__post_init__": lambda self: calls.append(self.a), "__module__": __name__})
    base(1, "x")  # the base's own constructor compiled first: it has no __post_init__ to call
    sub(2, "y")
    assert calls == [2] and base.__dict__["__init__"] is not sub.__dict__["__init__"]


def test_the_generated_constructor_is_compiled_once_at_first_use() -> None:
    v_cls = _make("value", _BODIES["defaults"], True)
    lazy = v_cls.__dict__["__init__"]
    v_cls(1)
    real = v_cls.__dict__["__init__"]
    assert real is not lazy and real.__qualname__ == f"{v_cls.__qualname__}.__init__"
    v_cls(2)
    assert v_cls.__dict__["__init__"] is real


def _wskit_value_classes() -> list[type]:
    import importlib
    import pkgutil

    import wskit
    import wskit.builtin_plugins

    for pkg in (wskit, wskit.builtin_plugins):
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            if ".integrations." in info.name or info.name.endswith(("__main__", "._console")):
                continue
            importlib.import_module(info.name)
    out, todo = [], [Value, FrozenValue]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("wskit"):
                out.append(sub)
    return out


def test_every_wskit_value_class_has_its_annotations_as_its_fields_and_no_dict() -> None:
    """What a type checker sees (the annotations) is what the class holds (the slots)."""
    import typing

    found = _wskit_value_classes()
    assert len(found) > 60  # every converted dataclass and slot class is found
    for cls in found:
        own = [n for n, a in cls.__dict__.get("__annotations__", {}).items()
               if not (isinstance(a, str) and a.startswith("ClassVar")) and typing.get_origin(a) is not typing.ClassVar]
        assert list(cls._fields[len(cls._fields) - len(own):]) == own, cls
        slots = cls.__dict__["__slots__"]
        assert tuple(slots[:len(own)]) == tuple(own), cls
        assert "__dict__" not in slots, cls


def test_no_source_module_declares_a_dataclass() -> None:
    """One idiom for internal values: ``@dataclass`` is left only where a framework
    requires its own dataclass base (docs/architecture.md, "Value types")."""
    import ast

    repo = Path(__file__).resolve().parents[3]
    allowed = {"core/integrations/pydantic_ai.py"}
    found = []
    for top in ("core", "builtin_plugins", "plugins"):
        for path in (repo / top).rglob("*.py"):
            rel = path.relative_to(repo).as_posix()
            if ".venv" in rel or rel in allowed:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    for dec in node.decorator_list:
                        target = dec.func if isinstance(dec, ast.Call) else dec
                        if getattr(target, "id", getattr(target, "attr", None)) == "dataclass":
                            found.append(f"{rel}:{node.lineno} {node.name}")
    assert found == []
