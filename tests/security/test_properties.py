"""Property-based tests (hypothesis): containment, namespacing, parsers never crash."""

from __future__ import annotations

import posixpath

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wskit import fs
from wskit.errors import AmbiguousNameError, UnknownResourceError
from wskit.formats import frontmatter as markdown
from wskit.fs import jsonsafe
from wskit.models import Provenance, Resource, Scope
from wskit.registry import Candidate, Registry

SAFEFS_CODES = {"path-absolute", "path-escape", "path-invalid", "secret-path"}
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# path-ish text: heavy on separators, dots, drive letters and odd characters
_path_chars = st.sampled_from(list("ab./\\:\x00 .-_~") + ["..", "../", "/..", "c:", "\u202e", "\n", ".env", ".git"])
path_text = st.one_of(st.lists(_path_chars, max_size=30).map("".join), st.text(max_size=40))


@FAST
@given(path_text)
def test_split_relative_never_yields_an_escaping_path(rel):
    try:
        parts = fs.split_relative(rel)
    except fs.SafeFsError as err:
        assert err.code in SAFEFS_CODES
        return
    assert parts
    for p in parts:
        assert p not in ("", ".", "..")
        assert "/" not in p and "\\" not in p and "\x00" not in p
        assert not fs.is_secret_name(p)
    base = "/base/root"
    joined = posixpath.normpath(posixpath.join(base, *parts))
    assert joined == base or joined.startswith(base + "/")
    assert not rel.startswith("/")


@FAST
@given(st.lists(st.sampled_from(["a", "b", "..", ".", ""]), min_size=1, max_size=8))
def test_split_relative_accepts_exactly_dotdot_free_paths(comps):
    rel = "/".join(comps)
    ok = ".." not in comps and any(c not in ("", ".") for c in comps) and not rel.startswith("/")
    try:
        fs.split_relative(rel)
        assert ok
    except fs.SafeFsError:
        assert not ok


# -- namespacing ---------------------------------------------------------------

_names = st.sampled_from(["alpha", "beta", "gamma"])
_plugins = st.sampled_from(["p1", "p2", "p3"])
_native_scopes = st.sampled_from([Scope.USER, Scope.PROJECT, Scope.LOCAL, Scope.BUILTIN])


def _res(name: str, scope: Scope, plugin: str | None) -> Resource:
    rid = f"plugin:{plugin}:{name}" if scope is Scope.PLUGIN else f"{scope.value}:{name}"
    prov = Provenance(scope=scope, source_root="/r", path=f"{name}.md", plugin=plugin, sha256="0" * 64)
    return Resource(id=rid, name=name, kind="skill", provenance=prov)


_entry = st.one_of(
    st.tuples(_names, _native_scopes, st.none(), st.integers(0, 5)),
    st.tuples(_names, st.just(Scope.PLUGIN), _plugins, st.integers(0, 5)),
)


@FAST
@given(st.lists(_entry, max_size=12))
def test_bare_name_resolves_only_when_native_or_unique(entries):
    cands = [Candidate(_res(n, s, p), rank) for n, s, p, rank in entries]
    reg = Registry.build("skill", cands)
    for name in ["alpha", "beta", "gamma"]:
        natives = [c for c in cands if c.resource.name == name and c.resource.scope is not Scope.PLUGIN]
        plugin_ids = {c.resource.id for c in cands if c.resource.name == name and c.resource.scope is Scope.PLUGIN}
        if natives:
            top = max(c.rank for c in natives)
            winner = reg.get(name)
            assert winner.scope is not Scope.PLUGIN
            assert winner.name == name
            assert any(c.resource is winner and c.rank == top for c in natives)
        elif len(plugin_ids) == 1:
            assert reg.get(name).id in plugin_ids
        elif len(plugin_ids) > 1:
            with pytest.raises(AmbiguousNameError):
                reg.get(name)
        else:
            with pytest.raises(UnknownResourceError):
                reg.get(name)
        for pid in plugin_ids:  # a plugin resource stays reachable qualified, both spellings
            assert reg.get(pid).id == pid
            assert reg.get(pid.removeprefix("plugin:")).id == pid


# -- parsers never raise on any input ----------------------------------------------

_fm_text = st.one_of(
    st.text(max_size=300),
    st.lists(st.sampled_from(["---\n", "---", "a: b\n", "a: &x [1]\n", "b: *x\n", "- [\n", "{", "}",
                              ": : :\n", "key: 'v\n", "\r\n", "\ufeff", "!!python/object:os.system\n",
                              "? [a]\n", "\t", "\x00", "x: " + "[" * 40, "]" * 40]),
             max_size=20).map("".join),
)


@FAST
@given(_fm_text)
def test_parse_frontmatter_never_raises(text):
    fm = markdown.parse_frontmatter(text, "f.md")
    assert isinstance(fm.data, dict)
    if not fm.ok:
        assert fm.diagnostics and all(d.level in ("error", "warning") for d in fm.diagnostics)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.binary(max_size=400), _fm_text.map(lambda t: t.encode("utf-8", "surrogatepass"))))
def test_read_frontmatter_any_bytes_only_safefs_errors(tmp_path, data):
    (tmp_path / "SKILL.md").write_bytes(data)
    try:
        fm, res = markdown.read_frontmatter(tmp_path, "SKILL.md")
    except fs.SafeFsError as err:
        assert err.code in {"invalid-utf8", "frontmatter-too-large"}
        return
    assert isinstance(fm.data, dict)
    assert res.raw == data[: len(res.raw)]


@FAST
@given(st.one_of(st.text(max_size=200),
                 st.lists(st.sampled_from(['[', ']', '{', '}', '"', '\\', ',', ':', '1', 'null', '"a"']),
                          max_size=200).map("".join)))
def test_jsonsafe_raises_only_safefs_errors(text):
    try:
        jsonsafe.loads(text, max_depth=16)
    except fs.SafeFsError as err:
        assert err.code in {"json-error", "json-too-deep", "json-duplicate-key"}
