"""The fast skills discovery equals the straightforward loader it stands in for.

``skills_reference.py`` is that loader, frozen verbatim. Both run on
the same trees (random and odd ones from hypothesis, the benchmark-like tree,
``../shared/corpus``) under a change recording; resources, diagnostics, their
order, digests, fields sets, value types and the recorded change notes must be
identical. The fast paths' building blocks are compared with what they replace.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.builtin_plugins.skills import skills_reference as ref
from wskit import changes, fs
from wskit.builtin_plugins import skills as new
from wskit.formats import frontmatter as markdown
from wskit.formats.flatyaml import _BAD_VALUE, _bad, block_precheck, load_flat_lines
from wskit.models import Provenance, ResourceSource, Scope, construct_valid
from wskit.resources.skill import Skill
from wskit.testing import write_tree


def _shape(model) -> tuple:
    return (type(model).__name__, repr(model), model.model_dump(), sorted(model.model_fields_set),
            [(k, type(v).__name__) for k, v in model.__dict__.items()])


def _run(load, source: ResourceSource) -> tuple:
    try:
        with changes.recording() as deps:
            result = load(source)
    except Exception as err:  # noqa: BLE001 - both must fail the same way
        return ("raised", type(err).__name__, str(err))
    notes = [(p, deps.signature_of(p), deps.signature_of(p, True)) for p in deps.paths()]
    return ([_shape(r) for r in result.resources], [_shape(d) for d in result.diagnostics], notes)


def assert_same(source: ResourceSource) -> tuple:
    old, fast = _run(ref.wskit_load_skills, source), _run(new.wskit_load_skills, source)
    assert fast == old
    return fast


def _sources(root: Path, base: Path | None = None) -> list[ResourceSource]:
    base = base or root
    out = []
    for scope in (Scope.PROJECT, Scope.ADMIN, Scope.USER, Scope.PLUGIN):
        out.append(ResourceSource(scope=scope, root=str(root), base=str(base), plugin="p" if scope is Scope.PLUGIN else None,
                                  follow_links=scope is Scope.USER))
    out.append(ResourceSource(scope=Scope.PROJECT, root=str(root), base=str(base), names=frozenset({"a", "b-c"})))
    out.append(ResourceSource(scope=Scope.PROJECT, root=str(root), base=str(base),
                              components={"skill": ("skills", "./skills/", "other", "../x", "c:")}))
    return out


# -- the frontmatter texts hypothesis draws from --------------------------------

_KEYS = ["name", "description", "license", "compatibility", "metadata", "allowed-tools", "allowed_tools",
         "user-invocable", "user_invocable", "disable-model-invocation", "arguments", "argument-hint",
         "model", "when_to_use", "version", "x-other", "true", "1"]
_VALUES = ["a", "b-c", "s", "Does things. Use when testing.", " padded ", "Read Grep", "Read, Bash(git log:*)",
           "Bash(rm -rf /)", "[Read, Grep]", '["Read", 1]', "true", "maybe", "1.0", "2024-01-01", "~", "",
           "x: y", "a #b", "ends:", "A", "--a", "x" * 70, "d" * 1030, "\u200bhidden", "caf\u00e9", "\u202eevil",
           "{a: 1}", "|\n  block", "- one\n- two", "\n  k: v", "\"quoted\"", "'single'", "*alias", "&anchor v",
           "tab\there", "c" * 501, "Apache-2.0", "null", "yes", "nbsp\u00a0", "\u3000wide"]


@st.composite
def skill_texts(draw) -> bytes:
    lines = [f"{draw(st.sampled_from(_KEYS))}:{draw(st.sampled_from([' ', '  ', '']))}{draw(st.sampled_from(_VALUES))}"
             for _ in range(draw(st.integers(0, 7)))]
    if draw(st.booleans()):
        lines.insert(0, f"name: {draw(st.sampled_from(['a', 'b-c', 's', 'A', 'a--b']))}")
    head = draw(st.sampled_from(["---\n", "---\n", "---\n", "--- \n", "\ufeff---\n", "---\r\n", "", "----\n"]))
    close = draw(st.sampled_from(["---\n", "---\n", "---", "--- \t\n", "", "----\n", "---\r\n"]))
    eol = draw(st.sampled_from(["\n", "\n", "\n", "\r\n", "\r"]))
    body = draw(st.sampled_from(["", "# Title\n", "body " * 80, "---\nmore\n"]))
    text = head + eol.join(lines) + (eol if lines else "") + close + body
    raw = text.encode("utf-8")
    if draw(st.integers(0, 15)) == 0:
        raw = raw[:10] + b"\xff" + raw[10:]  # invalid UTF-8
    return raw


_SLUGS = ["a", "b-c", "s", "skill-0001", "A", "a--b", "x:y", "with space", "caf\u00e9", "back\\slash", "c:d",
          ".hidden", ".env", "id_rsa", "\u200bzw", "-lead"]


@st.composite
def clean_texts(draw, slug: str) -> bytes:
    """Mostly specification-clean frontmatter (the fast lane's case), with odd values."""
    fields = {"name": slug, "description": draw(st.sampled_from(["Does things.", *_VALUES]))}
    for key in draw(st.lists(st.sampled_from(["license", "compatibility", "allowed-tools", "metadata"]),
                             unique=True)):
        fields[key] = draw(st.sampled_from(_VALUES))
    keys = draw(st.permutations(list(fields)))
    text = "---\n" + "".join(f"{k}: {fields[k]}\n" for k in keys) + "---\n# body\n" + "b" * draw(st.integers(0, 400))
    return text.encode("utf-8")


@st.composite
def skill_trees(draw) -> dict:
    tree = {}
    for slug in draw(st.lists(st.sampled_from(_SLUGS), unique=True, max_size=6)):
        kind = draw(st.sampled_from(["file", "file", "file", "none", "dir", "link", "hardlink", "fifo", "dirlink"]))
        tree[slug] = (kind, draw(clean_texts(slug) if draw(st.booleans()) else skill_texts()))
    return tree


def _materialise(root: Path, tree: dict) -> None:
    skills = root / "skills"
    skills.mkdir(parents=True)
    (root / "elsewhere").mkdir()
    (skills / "plain-file").write_text("not a folder")
    for slug, (kind, raw) in tree.items():
        d = skills / slug
        if kind == "dirlink":
            (root / "elsewhere" / slug).mkdir()
            (root / "elsewhere" / slug / "SKILL.md").write_bytes(raw)
            os.symlink(root / "elsewhere" / slug, d)
            continue
        d.mkdir()
        f = d / "SKILL.md"
        if kind == "file":
            f.write_bytes(raw)
        elif kind == "dir":
            f.mkdir()
        elif kind == "link":
            (root / "elsewhere" / f"{slug}.md").write_bytes(raw)
            os.symlink(root / "elsewhere" / f"{slug}.md", f)
        elif kind == "hardlink":
            f.write_bytes(raw)
            os.link(f, root / "elsewhere" / f"{slug}-hard.md")
        elif kind == "fifo":
            os.mkfifo(f)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tree=skill_trees())
def test_fast_discovery_equals_the_old_loader_on_random_trees(tmp_path_factory, tree):
    root = tmp_path_factory.mktemp("t")
    _materialise(root, tree)
    for source in _sources(root):
        assert_same(source)


@settings(max_examples=150, deadline=None)
@given(raw=skill_texts())
def test_flat_head_equals_frontmatter_of_head(raw):
    for complete in (True, False):
        res = fs.ReadResult(raw, len(raw) + (0 if complete else 100), complete, "/x/SKILL.md")
        fast = markdown.flat_head(res.raw, res.complete)
        if fast is None:
            continue
        fm, res2 = markdown.frontmatter_of_head(res, markdown.MAX_FRONTMATTER_BYTES)
        assert (fast[0], fast[1], fast[2]) == (res2.raw, fm.block, fm.data)
        assert fm.present and fm.ok and not fm.diagnostics


_OLD_CLOSE = re.compile(rb"(\r\n|\r|\n)---[ \t]*(\r\n|\r|\n)")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"-", b"---", b"\r", b"\n", b"\r\n", b" ", b"\t", b"a", b"----"]), max_size=20),
       st.integers(0, 6))
def test_close_search_by_find_equals_the_regex(parts, pos):
    h = b"".join(parts)
    m = _OLD_CLOSE.search(h, pos)
    assert markdown.close_end(h, pos) == (None if m is None else m.end())
    t = h.decode().replace("\r", "x")
    m = markdown._CLOSE.search(t, pos)
    assert markdown._close_line(t, pos) == (None if m is None else (m.start(), m.end()))


_CHARS = st.sampled_from(list("ab :#-\t\x00\x7f\x85\u00e9\u2028\u200b\ufeff\ud800") + [": ", " #"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_CHARS, max_size=12).map("".join))
def test_bad_value_tests_equal_the_regex(value):
    assert _bad(value) == (_BAD_VALUE.search(value) is not None)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["name", "k", "x_y", ""]), st.lists(_CHARS, max_size=8).map("".join)),
                max_size=5))
def test_block_precheck_only_skips_tests_that_pass(pairs):
    lines = [f"{k}: {v}" if k else v for k, v in pairs]
    block = "\n".join(lines)
    if not block.isascii():
        return
    ok = block_precheck(block.encode(), len(lines) - lines.count(""))
    slow = load_flat_lines(lines)
    assert (load_flat_lines(lines, True) if ok else load_flat_lines(lines, False)) == slow


def _skill_values() -> tuple[dict, dict]:
    """A plugin skill's Provenance and Skill fields, exactly typed, in declaration order."""
    prov = {"scope": Scope.PLUGIN, "source_root": "/b", "path": "s/SKILL.md", "plugin": "p", "sha256": "0" * 64}
    fields = {"id": "plugin:p:s", "name": "s", "kind": "skill", "description": "d", "provenance": None,
              "display_name": "s", "directory": "/b/s", "allowed_tools": ("Read",), "argument_hint": None,
              "user_invocable": True, "disable_model_invocation": False, "model": None, "license": "MIT",
              "compatibility": None, "when_to_use": None, "arguments": (), "metadata": {}, "extra": {},
              "follow_links": False, "max_file_bytes": None}
    return prov, fields


def test_construct_valid_equals_validation():
    prov, fields = _skill_values()
    fast = construct_valid(Skill, {**fields, "provenance": construct_valid(Provenance, prov)}, frozenset({"kind"}))
    checked = Skill(**{k: v for k, v in fields.items() if k not in ("kind", "provenance")}, provenance=Provenance(**prov))
    assert _shape(fast) == _shape(checked) and fast == checked
    assert fast.model_fields_set is checked.model_fields_set  # the shared set
    with pytest.raises(TypeError):
        construct_valid(Skill, {"id": "x"})


def test_valid_builder_equals_construct_valid():
    """The skill reader's per-folder builders (``wskit.values.frozen.valid_builder``) build
    what :func:`construct_valid` builds, without its per-call key check."""
    from wskit.values.frozen import valid_builder

    prov, fields = _skill_values()
    prov_names, make_prov = valid_builder(Provenance)
    skill_names, make_skill = valid_builder(Skill, frozenset({"kind"}))
    assert prov_names == tuple(prov) and skill_names == tuple(fields)
    built = make_skill({**fields, "provenance": make_prov(dict(prov))})
    ref = construct_valid(Skill, {**fields, "provenance": construct_valid(Provenance, dict(prov))}, frozenset({"kind"}))
    assert _shape(built) == _shape(ref) and built == ref
    assert built.model_fields_set is ref.model_fields_set and built.provenance.model_fields_set is ref.provenance.model_fields_set
    assert built.model_extra is None and built.__pydantic_private__ is None
    with pytest.raises(TypeError):
        valid_builder(type("Open", (), {"__private_attributes__": {"x": 1}}))


def test_bench_like_tree_and_edits(tmp_path):
    skills = tmp_path / ".claude" / "skills"
    for i in range(30):
        body = f"---\nname: skill-{i:04d}\nlicense: Apache-2.0\nallowed-tools: Read Grep\ndescription: does {i}\n---\n# t\n"
        write_tree(skills / f"skill-{i:04d}", {"SKILL.md": body + "x" * 3000})
    (skills / "skill-0003" / "SKILL.md").write_text("---\nname: other\ndescription: d\n---\n")  # mismatch warning
    src = ResourceSource(scope=Scope.PROJECT, root=str(tmp_path / ".claude"), base=str(tmp_path))
    resources, diags, _notes = assert_same(src)
    assert len(resources) == 30 and len(diags) == 1


def test_shared_corpus(shared_dir, tmp_path):
    corpus = shared_dir / "corpus"
    folders = sorted({p.parent.parent for p in corpus.rglob("SKILL.md")})
    assert folders
    for folder in folders:
        for source in _sources(folder.parent):
            assert_same(source.model_copy(update={"components": {"skill": (folder.name,)}}))
    # the same skills copied under one project, and read as a plugin's
    dest = tmp_path / "p"
    for folder in folders:
        shutil.copytree(folder, dest / "skills", dirs_exist_ok=True)
    for source in _sources(dest):
        assert_same(source)


def test_reload_reuses_unchanged_skills(tmp_path):
    skills = tmp_path / "skills"
    for name in ("a", "b"):
        write_tree(skills / name, {"SKILL.md": f"---\nname: {name}\ndescription: d\n---\n"})
    src = ResourceSource(scope=Scope.PROJECT, root=str(tmp_path), base=str(tmp_path))
    for f in skills.rglob("SKILL.md"):
        os.utime(f, ns=(1_000_000_000, 1_000_000_000))
    with changes.reusing(None) as memo, changes.recording():
        first = new.wskit_load_skills(src)
    (skills / "b" / "SKILL.md").write_text("---\nname: b\ndescription: changed\n---\n")
    with changes.reusing(memo), changes.recording():
        second = new.wskit_load_skills(src)
    assert second.resources[0] is first.resources[0]  # a: reused unread
    assert second.resources[1].description == "changed"


@pytest.mark.parametrize("key", ["description", "license", "compatibility", "allowed-tools", "metadata", "name"])
def test_clean_skills_with_every_odd_value(tmp_path, key):
    """The fast lane's own case, each field with every odd value (whitespace a
    plain scalar keeps, hidden characters, limits, flow text, selectors)."""
    for i, value in enumerate(_VALUES):
        fields = {"name": "s", "description": "Does things.", key: value}
        text = "---\n" + "".join(f"{k}: {v}\n" for k, v in fields.items()) + "---\n# body\n"
        root = tmp_path / str(i)
        write_tree(root / "skills" / "s", {"SKILL.md": text})
        for source in _sources(root)[:4]:
            assert_same(source)
