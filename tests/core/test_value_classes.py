"""The value types of the start-up path are plain ``__slots__`` classes
(:mod:`wskit.util.valueclass`) with the public API their dataclasses had: constructor
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
from wskit.util.valueclass import FrozenValue, Value
from wskit.workspace import WorkspaceResources

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
