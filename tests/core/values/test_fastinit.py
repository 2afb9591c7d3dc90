"""wskit's value classes (:class:`wskit.models.Frozen`, plain classes) behave as the
pydantic model of their declaration (:func:`wskit.values.plainmodel.pydantic_model`)
does: same stored values, defaults, fields set, dumps, JSON, copies, equality,
hashing, repr and errors, on every class and generated inputs; and the start-up
paths never import pydantic."""

import copy
import enum
import importlib
import json
import pickle
import subprocess
import sys
import types
import typing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from wskit.models import Diagnostic, Frozen, LoadResult, Provenance, ResourceSource, Scope
from wskit.values.fastinit import plan
from wskit.values.plainmodel import pydantic_model, resolve_hints

#: modules defining the wskit value classes (imported so every subclass is known)
MODULES = ("wskit.models", "wskit.host", "wskit.binding", "wskit.trust", "wskit.kinds",
           "wskit.formats.settings", "wskit.resources.skill", "wskit.resources.rule", "wskit.resources.command",
           "wskit.resources.agent", "wskit.resources.style", "wskit.resources.hooks", "wskit.resources.servers",
           "wskit.resources.markdown", "wskit.builtin_plugins.rules.model", "wskit.builtin_plugins.bundles.discovery",
           "wskit.builtin_plugins.bundles.manifest", "wskit.builtin_plugins.bundles.marketplace",
           "wskit.builtin_plugins.hooks.legacy")


def _all_models() -> list[type]:
    for m in MODULES:
        importlib.import_module(m)
    out, todo = [], [Frozen]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub.__module__.startswith("wskit") and sub not in out:
                out.append(sub)
                todo.append(sub)
    return out


ALL = _all_models()
PROV = Provenance(scope=Scope.PROJECT, source_root="/p", path="a.md", sha256="0" * 64)
DIAG = Diagnostic(level="warning", code="c", message="m")


def _slow(cls: type, data: dict):
    """What pydantic's validation of the class's declaration stores for ``data``."""
    return pydantic_model(cls)(**data)


def _same(cls: type, data: dict):
    """Build ``cls(**data)`` both ways; compare everything; return the plain instance or None."""
    try:
        slow = _slow(cls, data)
    except Exception as err:  # ValidationError, or what a validator itself raised
        with pytest.raises(type(err)) as got:
            cls(**data)
        if isinstance(err, ValidationError):
            assert got.value.errors(include_context=False) == err.errors(include_context=False) and got.value.title == err.title == cls.__name__
        return None
    fast = cls(**data)
    assert type(fast) is cls and isinstance(fast, Frozen)
    assert fast.__dict__ == slow.__dict__
    assert list(fast.__dict__) == list(slow.__dict__) == list(cls.model_fields)
    assert [type(v) for v in fast.__dict__.values()] == [type(v) for v in slow.__dict__.values()]
    assert fast.model_fields_set == slow.model_fields_set
    _same_api(fast, slow)
    return fast


def _same_api(fast, slow) -> None:
    cls = type(fast)
    for kw in ({}, {"mode": "json"}, {"exclude_unset": True}, {"exclude_defaults": True}, {"exclude_none": True},
               {"mode": "json", "exclude_none": True, "exclude_unset": True},
               {"include": {next(iter(cls.model_fields))}}, {"exclude": {next(iter(cls.model_fields))}}):
        try:
            want = slow.model_dump(**kw)
        except Exception as err:
            with pytest.raises(type(err)):
                fast.model_dump(**kw)
            continue
        got = fast.model_dump(**kw)
        assert got == want, kw
        assert _types(got) == _types(want), kw
    try:
        want_json = slow.model_dump_json()
    except Exception as err:
        with pytest.raises(type(err)):
            fast.model_dump_json()
    else:
        assert fast.model_dump_json() == want_json
        assert fast.model_dump_json(indent=2) == slow.model_dump_json(indent=2)
    assert repr(fast) == repr(slow) and str(fast) == str(slow)
    assert list(fast) == list(slow)
    assert fast == cls.model_construct(_fields_set=fast.model_fields_set, **fast.__dict__)
    assert fast != slow  # another class, as two pydantic models of different classes
    try:
        want_hash = hash(slow)
    except TypeError:
        with pytest.raises(TypeError):
            hash(fast)
    else:
        assert isinstance(want_hash, int) and hash(fast) == hash(copy.copy(fast))
    name = next(iter(cls.model_fields))
    with pytest.raises(ValidationError) as a:
        setattr(fast, name, 1)
    with pytest.raises(ValidationError) as b:
        setattr(slow, name, 1)
    assert a.value.errors() == b.value.errors()
    with pytest.raises(ValidationError):
        delattr(fast, name)
    for update in ({}, {name: getattr(fast, name)}, {"unknown": 1}):
        c, d = fast.model_copy(update=update), slow.model_copy(update=update)
        assert c.__dict__ == d.__dict__ and c.model_fields_set == d.model_fields_set
        assert type(c) is cls
    deep = fast.model_copy(deep=True)
    assert deep == fast and deep.model_fields_set == fast.model_fields_set
    assert cls.model_validate(fast) is fast
    try:  # not always fast again: pydantic may store what it would not accept (an enum's value for an int)
        want = pydantic_model(cls).model_validate(dict(fast.__dict__))
    except ValidationError as err:
        with pytest.raises(ValidationError) as got:
            cls.model_validate(dict(fast.__dict__))
        assert got.value.errors(include_context=False) == err.errors(include_context=False)
    else:
        assert cls.model_validate(dict(fast.__dict__)).__dict__ == want.__dict__
    try:
        restored = pickle.loads(pickle.dumps(fast))
    except (pickle.PicklingError, AttributeError, TypeError):
        pass  # a value of its own that cannot be pickled (a loader function)
    else:
        assert restored == fast and restored.model_fields_set == fast.model_fields_set


def _types(v):
    if isinstance(v, dict):
        return {k: _types(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, set, frozenset)):
        return (type(v).__name__, [_types(x) for x in v] if not isinstance(v, (set, frozenset)) else len(v))
    return type(v).__name__


def test_the_hot_path_classes_have_a_plan():
    import wskit.binding
    import wskit.host
    import wskit.kinds
    import wskit.resources.rule
    import wskit.resources.skill
    import wskit.trust

    for cls in (wskit.host.HostProfile, wskit.binding.Binding, wskit.trust.TrustDecision, ResourceSource,
                wskit.kinds.ResourceKind, LoadResult, Diagnostic, Provenance, wskit.resources.rule.RuleFile,
                wskit.resources.skill.Skill):
        assert plan(cls) is not None, cls


def test_no_value_class_is_a_pydantic_model_and_every_one_is_found():
    assert len(ALL) >= 24  # hook approval's status is a dataclass of per-entry states now, not a value class
    for cls in ALL:
        assert not issubclass(cls, BaseModel), cls
        assert issubclass(pydantic_model(cls), BaseModel)
        assert list(pydantic_model(cls).model_fields) == list(cls.model_fields)


def test_every_class_builds_its_defaults_like_pydantic():
    built = 0
    for cls in ALL:
        for name, f in cls.model_fields.items():
            p = pydantic_model(cls).model_fields[name]
            assert f.is_required() == p.is_required(), (cls, name)
            assert f.annotation == p.annotation, (cls, name)
            if not f.is_required():
                assert f.get_default(call_default_factory=True) == p.get_default(call_default_factory=True)
        if not any(f.is_required() for f in cls.model_fields.values()):
            assert _same(cls, {}) is not None
            built += 1
    assert built >= 3


class _E(enum.Enum):
    X = "x"


def _strategy(tp):
    """Values of the annotation ``tp`` (valid ones, mostly), for generated arguments."""
    if tp is str:
        return st.text(max_size=3)
    if tp is bool:
        return st.booleans()
    if tp is int:
        return st.integers(-2, 2)
    if tp is float:
        return st.floats(allow_nan=False, width=16)
    if tp is type(None) or tp is None:
        return st.none()
    if tp is Path:
        return st.just(Path("/x"))
    if tp in (typing.Any, object):
        return VALUES
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return st.sampled_from(list(tp) + [m.value for m in tp])
    if isinstance(tp, type) and issubclass(tp, Frozen):
        return st.sampled_from([v for v in (PROV, DIAG) if isinstance(v, tp)] or [None])
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        return st.sampled_from(args)
    if origin in (typing.Union, types.UnionType):
        return st.one_of([_strategy(a) for a in args])
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return st.lists(_strategy(args[0]), max_size=2).map(tuple)
        return st.tuples(*[_strategy(a) for a in args])
    if origin in (frozenset, set, list):
        return st.lists(_strategy(args[0]), max_size=2).map(origin) if args else VALUES
    if origin is dict:
        if not args:
            return VALUES
        return st.dictionaries(_strategy(args[0]) if args[0] is str else st.text(max_size=2),
                               _strategy(args[1]), max_size=2)
    if origin is not None and getattr(origin, "__name__", "") == "Callable":
        return st.just(len)
    return VALUES


VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, width=16), st.text(max_size=4),
    st.sampled_from(["user", "project", "error", "warning", "info", "bad", "wskit", "BAD", "trusted", "claude"]),
    st.sampled_from(list(Scope)), st.just(Path("/x")), st.just(_E.X), st.just(b"ab"),
    st.lists(st.text(max_size=2), max_size=2), st.tuples(st.text(max_size=2)),
    st.frozensets(st.text(max_size=2), max_size=2),
    st.dictionaries(st.text(max_size=2), st.tuples(st.text(max_size=2)), max_size=2),
    st.dictionaries(st.integers(0, 2), st.text(max_size=2), max_size=2),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_generated_arguments_give_what_pydantic_gives(data):
    cls = data.draw(st.sampled_from(ALL))
    hints = resolve_hints(cls)
    kwargs = {}
    for name in cls.model_fields:
        how = data.draw(st.sampled_from(["typed", "typed", "typed", "generic", "left out"]))
        if how == "typed":
            kwargs[name] = data.draw(_strategy(hints[name]))
        elif how == "generic":
            kwargs[name] = data.draw(VALUES)
    if data.draw(st.integers(0, 9)) == 0:
        kwargs["unknown"] = 1
    _same(cls, kwargs)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_model_validate_and_json_round_trips_match_pydantic(data):
    cls = data.draw(st.sampled_from([Diagnostic, ResourceSource, Provenance, LoadResult]))
    hints = resolve_hints(cls)
    raw = {n: data.draw(_strategy(hints[n])) for n in cls.model_fields}
    for value in (raw, json.dumps(raw, default=str)):
        method = "model_validate" if isinstance(value, dict) else "model_validate_json"
        try:
            want = getattr(pydantic_model(cls), method)(value)
        except ValidationError as err:
            with pytest.raises(ValidationError) as got:
                getattr(cls, method)(value)
            assert got.value.errors(include_context=False) == err.errors(include_context=False)
            continue
        got = getattr(cls, method)(value)
        assert type(got) is cls and got.__dict__ == want.__dict__ and got.model_fields_set == want.model_fields_set


def test_a_frozen_field_inside_a_pydantic_model_is_validated_and_dumped():
    class Outer(BaseModel):
        prov: Provenance
        diags: tuple[Diagnostic, ...] = ()

    o = Outer(prov={"scope": "user", "source_root": "/h", "path": "x", "sha256": "s"}, diags=(DIAG,))
    assert type(o.prov) is Provenance and o.prov.scope is Scope.USER and o.diags[0] is DIAG
    assert o.model_dump(mode="json")["prov"] == {"scope": "user", "source_root": "/h", "path": "x",
                                                  "plugin": None, "sha256": "s"}
    assert Outer.model_validate_json(o.model_dump_json()) == o
    with pytest.raises(ValidationError, match="prov.scope"):
        Outer(prov={"scope": "nowhere", "source_root": "/h", "path": "x", "sha256": "s"})


def test_a_value_class_in_an_any_field_dumps_as_a_model_did():
    """pydantic keeps an object it does not know as it is in an ``Any`` field; a value
    class is dumped as a pydantic model was (its fields), in both modes."""
    from wskit.host import HostProfile

    h = HostProfile(settings={"p": PROV})
    assert h.model_dump()["settings"]["p"] == PROV.model_dump()
    assert h.model_dump(mode="json")["settings"]["p"]["scope"] == "project"
    assert json.loads(h.model_dump_json())["settings"]["p"]["path"] == "a.md"


def test_a_subclass_in_a_base_typed_field_dumps_the_base_fields_as_pydantic():
    from wskit.resources.rule import RuleFile

    rule = RuleFile.model_construct(id="r", name="r", provenance=PROV, body="b")
    lr = LoadResult(resources=(rule,))
    want = pydantic_model(LoadResult).model_construct(resources=(rule,), diagnostics=())
    assert lr.model_dump()["resources"][0].keys() == {"id", "name", "kind", "description", "provenance"}
    assert lr.model_dump() == want.model_dump()


def test_a_shared_dict_is_copied_and_a_refused_value_raises_pydantics_error():
    import wskit.host

    settings_ = {"a": 1}
    h = wskit.host.HostProfile(settings=settings_)
    assert h.settings == settings_ and h.settings is not settings_
    for name in ("claude", "codex", "gemini", "opencode"):  # the presets' before-validator
        _same(wskit.host.HostProfile, {"name": name})
        _same(wskit.host.HostProfile, {"name": name, "claude_conventions": True})
    with pytest.raises(ValidationError, match="invalid host name"):
        wskit.host.HostProfile(name="Not Valid")
    r = ResourceSource(scope="user", root="/r", base="/b", kinds=frozenset({"skill"}))
    assert r.scope is Scope.USER and r.__dict__ == _slow(ResourceSource, dict(scope="user", root="/r", base="/b",
                                                                               kinds=frozenset({"skill"}))).__dict__
    with pytest.raises(AttributeError):
        Provenance.path  # noqa: B018 - a field is no class attribute, as in pydantic


CHECK = (
    "import sys\n"
    "print('PYDANTIC', sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core')),"
    " file=sys.stderr)\n"
)


def _project(tmp_path):
    home, empty, proj = tmp_path / "home", tmp_path / "empty", tmp_path / "proj"
    for d in (home, empty, proj / ".git", proj / "a" / "b", proj / ".claude" / "rules", proj / ".claude" / "skills" / "s"):
        d.mkdir(parents=True)
    (proj / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (proj / "AGENTS.md").write_text("# root\n")
    (proj / "a" / "b" / "AGENTS.md").write_text("# b\n")
    (proj / ".claude" / "rules" / "py.md").write_text('---\npaths: ["a/**/*.py"]\n---\nrule\n')
    (proj / ".claude" / "skills" / "s" / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\nbody\n")
    (proj / "a" / "b" / "f.py").write_text("")
    subprocess.run([sys.executable, "-m", "wskit", "--home", str(home), "trust", "grant", str(proj)],
                   check=True, capture_output=True)
    return home, empty, proj


@pytest.mark.parametrize("argv", [["--version"], ["--json", "inspect", "{empty}"],
                                  ["--json", "rules", "--for", "{file}", "{proj}"], ["--json", "inspect", "{proj}"]])
def test_wsctl_start_up_paths_import_no_pydantic(tmp_path, argv):
    """Run as a real process so nothing earlier imported pydantic."""
    home, empty, proj = _project(tmp_path)
    args = [a.format(empty=empty, proj=proj, file=proj / "a" / "b" / "f.py") for a in argv]
    code = (
        "import sys\nfrom wskit.cli import main\n"
        f"sys.argv = ['wsctl', '--home', {str(home)!r}] + {args!r}\n"
        "try:\n    main()\n    print('EXIT 0', file=sys.stderr)\nexcept SystemExit as e:\n    print('EXIT', e.code, file=sys.stderr)\n" + CHECK
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "EXIT 0" in res.stderr or "EXIT None" in res.stderr, res.stderr[-2000:]
    assert res.stdout.strip()
    if "--json" in argv:
        json.loads(res.stdout)
    assert [x for x in res.stderr.splitlines() if x.startswith("PYDANTIC")] == ["PYDANTIC []"], res.stderr[-2000:]


def test_resolving_a_workspace_in_process_imports_no_pydantic(tmp_path):
    home, _, proj = _project(tmp_path)
    code = (
        "import sys, wskit\n"
        f"cache = wskit.WorkspaceCache(wskit.HostProfile(home={str(home)!r}))\n"
        f"ws = cache.resolve({str(proj)!r})\n"
        "print('SKILLS', sorted(s.name for s in ws.registry('skill')), file=sys.stderr)\n"
        "cat = ws.catalog('rules')\n"
        f"sel = cat.contextual_rules({str(proj)!r}, [{str(proj / 'a' / 'b' / 'f.py')!r}], cat.static_rules({str(proj)!r}).ids)\n"
        "print('RULES', len(sel.files) > 0, file=sys.stderr)\n"
        + CHECK
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    lines = res.stderr.splitlines()
    assert "SKILLS ['s']" in lines and "RULES True" in lines and "PYDANTIC []" in lines, res.stderr[-2000:]


def test_bad_input_on_those_paths_still_gets_pydantics_error(tmp_path):
    home, _, proj = _project(tmp_path)
    code = (
        "import sys, wskit\n"
        "try:\n"
        f"    wskit.HostProfile(name='Bad Name', home={str(home)!r})\n"
        "except Exception as err:\n"
        "    print('ERR', type(err).__module__, type(err).__name__, file=sys.stderr)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "ERR pydantic_core._pydantic_core ValidationError" in res.stderr, res.stderr[-2000:]


def test_non_finite_floats_are_written_as_pydantic_writes_them():
    """pydantic writes ``inf``/``nan`` as ``null`` in JSON text (``ser_json_inf_nan``); the
    fast dump once wrote ``Infinity`` (found by the generated-arguments test)."""
    from wskit.resources.hooks import HookDefinition

    for value in (float("inf"), float("-inf")):  # nan: never equal to itself, so not comparable here
        kwargs = {"id": "h", "name": "h", "event": "Stop", "type": "command", "command": "x", "timeout": value,
                  "provenance": Provenance(scope=Scope.PROJECT, source_root="/p", path="a.md", sha256="0" * 64)}
        assert _same(HookDefinition, kwargs) is not None
