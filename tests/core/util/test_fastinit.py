"""The fast constructor of frozen models (:mod:`wskit.util.fastinit`) builds exactly
the model pydantic builds, and hands everything else to pydantic."""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from wskit import models
from wskit.models import Diagnostic, Frozen, LoadResult, Provenance, ResourceSource, Scope
from wskit.util.fastinit import plan

#: modules defining the wskit models (imported so every subclass is known)
MODULES = ("wskit.models", "wskit.host", "wskit.binding", "wskit.trust", "wskit.kinds",
           "wskit.formats.settings", "wskit.resources.skill", "wskit.resources.rule", "wskit.resources.command",
           "wskit.resources.agent", "wskit.resources.style", "wskit.resources.hooks", "wskit.resources.servers",
           "wskit.builtin_plugins.rules.model", "wskit.builtin_plugins.bundles.discovery",
           "wskit.builtin_plugins.bundles.manifest", "wskit.builtin_plugins.bundles.marketplace",
           "wskit.builtin_plugins.hooks.trust")


def _all_models() -> list[type]:
    for m in MODULES:
        importlib.import_module(m)
    out, todo = [], [Frozen]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            out.append(sub)
            todo.append(sub)
    return out


def _slow(cls: type, data: dict):
    """What pydantic's own validation builds from ``data``."""
    obj = cls.__new__(cls)
    BaseModel.__init__(obj, **data)
    return obj


def _same(cls: type, data: dict) -> None:
    models._FAST_LEFT.pop(cls, None)  # the fast path, not the bulk fallback (see the last test)
    models._PLANS.pop(cls, None)
    try:
        slow = _slow(cls, data)
    except Exception as err:  # ValidationError, or what a validator itself raised
        with pytest.raises(type(err)):
            cls(**data)
        return
    fast = cls(**data)
    assert type(fast) is type(slow)
    assert fast.__dict__ == slow.__dict__
    assert list(fast.__dict__) == list(slow.__dict__)
    assert [type(v) for v in fast.__dict__.values()] == [type(v) for v in slow.__dict__.values()]
    assert fast.model_fields_set == slow.model_fields_set
    assert fast == slow


def test_the_hot_path_models_have_a_plan():
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


def test_every_model_builds_its_defaults_like_pydantic():
    for cls in _all_models():
        required = {n for n, f in cls.model_fields.items() if f.is_required()}
        if not required:
            _same(cls, {})


PROV = Provenance(scope=Scope.PROJECT, source_root="/p", path="a.md", sha256="0" * 64)
values = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, width=16), st.text(max_size=4),
    st.sampled_from(["user", "project", "error", "warning", "info", "bad", "wskit", "BAD", "trusted", "claude", "codex"]),
    st.sampled_from(list(Scope)), st.just(Path("/x")), st.just(PROV),
    st.lists(st.text(max_size=2), max_size=2), st.tuples(st.text(max_size=2)),
    st.frozensets(st.text(max_size=2), max_size=2),
    st.dictionaries(st.text(max_size=2), st.tuples(st.text(max_size=2)), max_size=2),
)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_generated_values_give_what_pydantic_gives(data):
    import wskit.host
    import wskit.trust

    cls = data.draw(st.sampled_from([Diagnostic, ResourceSource, Provenance, wskit.host.HostProfile,
                                     wskit.trust.TrustDecision, LoadResult]))
    names = list(cls.model_fields) + ["unknown"]
    chosen = data.draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
    kwargs = {n: data.draw(values) for n in chosen}
    _same(cls, kwargs)


def test_a_shared_dict_is_copied_and_a_refused_value_raises_pydantics_error():
    settings_ = {"a": 1}
    import wskit.host

    h = wskit.host.HostProfile(settings=settings_)
    assert h.settings == settings_ and h.settings is not settings_
    for name in ("claude", "codex", "gemini", "opencode"):  # the presets' before-validator
        _same(wskit.host.HostProfile, {"name": name})
        _same(wskit.host.HostProfile, {"name": name, "claude_conventions": True})
    with pytest.raises(ValidationError, match="invalid host name"):
        wskit.host.HostProfile(name="Not Valid")
    r = ResourceSource(scope="user", root="/r", base="/b", kinds=frozenset({"skill"}))
    assert r.scope is Scope.USER and r == _slow(ResourceSource, dict(scope="user", root="/r", base="/b",
                                                                     kinds=frozenset({"skill"})))


@pytest.mark.parametrize("argv", [["--json", "inspect", "{empty}"], ["--json", "rules", "--for", "{file}", "{proj}"],
                                  ["--json", "inspect", "{proj}"]])
def test_wsctl_builds_no_validator(tmp_path, argv):
    """No model's pydantic validator is built by these commands (their values are all
    exactly typed); run as a real process so nothing earlier built one."""
    home, empty, proj = tmp_path / "home", tmp_path / "empty", tmp_path / "proj"
    for d in (home, empty, proj / ".git", proj / "a" / "b", proj / ".claude" / "rules"):
        d.mkdir(parents=True)
    (proj / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (proj / "AGENTS.md").write_text("# root\n")
    (proj / "a" / "b" / "AGENTS.md").write_text("# b\n")
    (proj / ".claude" / "rules" / "py.md").write_text('---\npaths: ["a/**/*.py"]\n---\nrule\n')
    (proj / "a" / "b" / "f.py").write_text("")
    subprocess.run([sys.executable, "-m", "wskit", "--home", str(home), "trust", "grant", str(proj)],
                   check=True, capture_output=True)
    args = [a.format(empty=empty, proj=proj, file=proj / "a" / "b" / "f.py") for a in argv]
    code = (
        "import sys\nfrom wskit.cli import main\n"
        f"sys.argv = ['wsctl', '--home', {str(home)!r}] + {args!r}\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "import pydantic\n"
        "built = sorted({c.__name__ for m in list(sys.modules.values()) for c in vars(m).values()\n"
        "               if isinstance(c, type) and issubclass(c, pydantic.BaseModel) and c is not pydantic.BaseModel\n"
        "               and c.__module__.startswith('wskit') and c.__pydantic_complete__})\n"
        "print('BUILT', built, file=sys.stderr)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    line = [x for x in res.stderr.splitlines() if x.startswith("BUILT")]
    assert line == ["BUILT []"], res.stderr[-2000:]


def test_a_bulk_of_one_class_goes_to_pydantic_with_the_same_result():
    models._FAST_LEFT.pop(Diagnostic, None)
    models._PLANS.pop(Diagnostic, None)
    made = [Diagnostic(level="info", code="c", message=str(i)) for i in range(models._FAST_INIT_LIMIT + 5)]
    assert models._PLANS[Diagnostic] is None
    late = Diagnostic(level="info", code="c", message="late")  # validated by pydantic
    assert late == _slow(Diagnostic, dict(level="info", code="c", message="late"))
    assert made[-1] == _slow(Diagnostic, dict(level="info", code="c", message=str(len(made) - 1)))
