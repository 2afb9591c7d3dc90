import pytest

from wskit.errors import AmbiguousNameError, UnknownResourceError
from wskit.models import Provenance, Resource, Scope
from wskit.registry import Candidate, Registry


def res(name: str, scope: Scope, plugin: str | None = None, path: str | None = None) -> Resource:
    rid = f"plugin:{plugin}:{name}" if plugin else f"{scope.value}:{name}"
    return Resource(
        id=rid, name=name, kind="thing",
        provenance=Provenance(scope=scope, source_root="/r", path=path or f"{scope.value}/{name}",
                              plugin=plugin, sha256="0" * 64),
    )


def test_higher_rank_wins_and_shadowing_is_reported():
    reg = Registry.build("thing", [
        Candidate(res("a", Scope.USER), 10),
        Candidate(res("a", Scope.PROJECT), 20),
        Candidate(res("b", Scope.USER), 10),
    ])
    assert reg.get("a").id == "project:a"
    assert [r.id for r in reg.shadowed()] == ["user:a"]
    (d,) = [d for d in reg.diagnostics if d.code == "shadowed"]
    assert "user:a" in d.message and "project:a" in d.message
    assert reg.ids() == ["project:a", "user:b"]
    # a qualified id still reaches the shadowed one
    assert reg.get("user:a").scope is Scope.USER


def test_rank_order_independent_of_input_order():
    a = Registry.build("thing", [Candidate(res("a", Scope.PROJECT), 20), Candidate(res("a", Scope.USER), 10)])
    assert a.get("a").id == "project:a"


def test_plugin_namespacing():
    reg = Registry.build("thing", [
        Candidate(res("deploy", Scope.PLUGIN, "p1"), 5),
        Candidate(res("deploy", Scope.PLUGIN, "p2"), 5),
        Candidate(res("lint", Scope.PLUGIN, "p1"), 5),
        Candidate(res("fmt", Scope.USER), 10),
        Candidate(res("fmt", Scope.PLUGIN, "p2"), 5),
    ])
    assert reg.get("plugin:p1:deploy").plugin == "p1"
    assert reg.get("p2:deploy").plugin == "p2"        # Claude Code spelling
    assert reg.get("lint").id == "plugin:p1:lint"      # unique bare name
    with pytest.raises(AmbiguousNameError) as info:
        reg.get("deploy")
    assert info.value.candidates == ["plugin:p1:deploy", "plugin:p2:deploy"]
    assert reg.get("fmt").id == "user:fmt"             # native wins the bare name
    assert reg.get("p2:fmt").id == "plugin:p2:fmt"     # plugin one stays reachable
    assert len(reg) == 5


def test_unknown_lists_candidates():
    reg = Registry.build("thing", [Candidate(res("a", Scope.USER), 1)])
    with pytest.raises(UnknownResourceError) as info:
        reg.get("zzz")
    assert info.value.candidates == ["user:a"] and "user:a" in str(info.value)
    with pytest.raises(UnknownResourceError):
        reg.get("nope:zzz")
    assert reg.find("zzz") is None and "a" in reg and "zzz" not in reg


def test_duplicate_plugin_id_is_reported_not_silently_dropped():
    reg = Registry.build("thing", [
        Candidate(res("x", Scope.PLUGIN, "p", path="one"), 5),
        Candidate(res("x", Scope.PLUGIN, "p", path="two"), 5),
    ])
    assert len(reg) == 1
    assert [d.code for d in reg.diagnostics] == ["duplicate-id"]


def test_registry_is_immutable():
    reg = Registry.build("thing", [Candidate(res("a", Scope.USER), 1)])
    with pytest.raises(TypeError):
        reg._by_id["b"] = None  # type: ignore[index]
