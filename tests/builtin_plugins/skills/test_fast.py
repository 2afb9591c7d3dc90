"""The one-pass skill lane (:mod:`wskit.builtin_plugins.skills.fast`) equals the general path.

- :func:`~wskit.builtin_plugins.skills.fast.flat_fields` (one regular expression over the block)
  builds what :func:`wskit.formats.flatyaml.load_flat_lines` and the YAML safe loader
  build, on the blocks the lane hands it;
- :func:`~wskit.builtin_plugins.skills.fast.one` on real files: a skill it builds equals the one
  :func:`wskit.builtin_plugins.skills.discovery._read_one` builds reading the file itself (no
  diagnostic), the head it hands back equals what
  :func:`wskit.fs.fdwalk.read_head_bytes_in` reads (frontmatter closes that cross
  the 256-byte first read and later chunks, ``---`` inside values, files shorter
  than a read), and it never opens what the general path refuses.

The whole discovery against the frozen straightforward loader is
``tests/builtin_plugins/skills/test_discovery_reference.py``.
"""

from __future__ import annotations

import os

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.builtin_plugins.skills.test_discovery_reference import _shape
from tests.core.formats.test_flatyaml import TRICKY_KEYS, TRICKY_VALUES, _loads_with_repeats
from wskit import changes
from wskit.builtin_plugins.skills import discovery as skillscan
from wskit.builtin_plugins.skills import fast as skillfast
from wskit.formats.flatyaml import block_precheck, load_flat_lines
from wskit.formats.frontmatter import MAX_FRONTMATTER_BYTES, head_done, parse_frontmatter
from wskit.fs.fdwalk import read_head_bytes_in
from wskit.models import ResourceSource, Scope
from wskit.resources.skill import Skill

LOADER = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader

# -- flat_fields against load_flat_lines and the YAML loader -----------------------

_ASCII_VALUES = [v for v in TRICKY_VALUES if v.isascii()] + ["Read Grep", "a  ", "x: y ", "ends:  ", "a - b"]
_key = st.one_of(st.sampled_from([k for k in TRICKY_KEYS if k.isascii()] + ["allowed-tools", "license"]),
                 st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,12}", fullmatch=True))
_value = st.one_of(st.sampled_from(_ASCII_VALUES), st.text(alphabet="ab -:#,.'\"!&*?~01x", min_size=1, max_size=10))
_line = st.one_of(st.builds(lambda k, s, v: f"{k}{s}{v}", _key, st.sampled_from([": ", ":  ", ":", " : "]), _value),
                  st.sampled_from(["", "", "  indented: x", "# c", "- a", "list:", "  - item", " ", "k: a: b"]))


def _lane_block(text: str) -> bool:
    """The precondition :func:`wskit.builtin_plugins.skills.fast.one` checks before calling flat_fields."""
    return text.isascii() and not text.encode().translate(None, skillfast._KEEP)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_line, min_size=0, max_size=7).map(lambda lines: "\n".join(lines) + "\n"))
@example("name: pdf\ndescription: Extract text from PDFs\n")
@example("a: x\n\nb: y\na: z\n")
@example("name: a  \ndescription: b:\n")
@example("name: yes\n")
def test_flat_fields_equals_load_flat_lines_and_the_yaml_loader(text: str) -> None:
    if not _lane_block(text):
        return
    got = skillfast.flat_fields(text)
    lines = text.split("\n")
    slow = load_flat_lines(lines)
    if got is None:
        # declining is allowed only where the precheck or the flat reader declines
        assert slow is None or not block_precheck(text.encode(), len(lines) - lines.count(""))
        return
    assert slow is not None and got == slow[0] and list(got) == list(slow[0])
    assert got == yaml.load(text, Loader=LOADER)  # noqa: S506 - safe loader


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["name", "description", "license", "a", "yes", "1"]), _value),
                min_size=2, max_size=6))
@example([("name", "pdf"), ("description", "d"), ("name", "pdf")])
@example([("name", "&a"), ("name", "*a")])
def test_flat_fields_declines_a_repeated_key_as_load_flat_lines_does(pairs) -> None:
    """On lane blocks whose keys come from a small set: flat_fields, load_flat_lines and the
    frontmatter parser agree, and a key written twice is never taken by the fast readers: the
    parser keeps its last value with a yaml-duplicate-key warning (Claude Code does the same)."""
    text = "".join(f"{k}: {v}\n" for k, v in pairs)
    if not _lane_block(text):
        return
    got = skillfast.flat_fields(text)
    slow = load_flat_lines(text.split("\n"))
    fm = parse_frontmatter(f"---\n{text}---\n", "f.md")
    if len({k for k, _ in pairs}) != len(pairs):
        assert got is None and slow is None
        if _loads_with_repeats(text):  # (not when a quoted value spans lines, or YAML refuses it)
            assert fm.ok and [d.code for d in fm.diagnostics] == ["yaml-duplicate-key"]
            assert fm.data == {str(k): v for k, v in yaml.load(text, Loader=LOADER).items()}  # noqa: S506 - the last value
    elif got is not None:
        assert slow is not None and got == slow[0] == fm.data


def test_flat_fields_reads_the_common_block():
    block = "name: pdf\nlicense: MIT\nallowed-tools: Read Grep\ndescription: Extract text. Use for PDFs.\n"
    assert skillfast.flat_fields(block) == {"name": "pdf", "license": "MIT", "allowed-tools": "Read Grep",
                                            "description": "Extract text. Use for PDFs."}
    assert skillfast.flat_fields("name: a\n\n\ndescription: b\n") == {"name": "a", "description": "b"}
    for odd in ("name: a #c\n", "name: a: b\n", "name: a\n  x: y\n", "name: true\n", "name: a:\n", "\n"):
        assert skillfast.flat_fields(odd) is None


# -- one() on files against the general path ---------------------------------------------


def _folder(root: str, scope: Scope = Scope.PROJECT):
    src = ResourceSource(scope=scope, root=os.path.join(root, "s"), base=root, plugin="p" if scope is Scope.PLUGIN else None)
    fd = os.open(os.path.join(root, "s", "skills"), os.O_RDONLY | os.O_DIRECTORY)
    folder = skillscan._Folder(src, fd, os.path.join(root, "s", "skills") + "/", "s/skills")
    return folder, fd


def _compare(root: str, slug: str, scope: Scope = Scope.PROJECT):
    """What one() gives, checked against the general path; returns its kind."""
    folder, fd = _folder(root, scope)
    try:
        shown = f"{folder.shown_pre}{slug}/SKILL.md"
        with changes.recording() as fast_deps:
            lane = skillfast.lane(folder, "s/skills")  # notes while a recording is active
            assert lane is not None and lane.note is not None
            got = skillfast.one(lane, slug)
        with changes.recording() as slow_deps:
            want = skillscan._read_one(folder, f"s/skills/{slug}", slug, None)
        if got is None:
            return "none"
        # the same change note either way (one() notes the file it read)
        assert fast_deps.signature_of(shown) == slow_deps.signature_of(shown) is not None
        if got.__class__ is Skill:
            assert want[1] == [] and want[0] is not None
            assert _shape(got) == _shape(want[0]) and got == want[0]
            assert got.model_fields_set is want[0].model_fields_set
            return "skill"
        assert got == read_head_bytes_in(fd, (slug, "SKILL.md"), shown, done=head_done,
                                         max_bytes=MAX_FRONTMATTER_BYTES)
        rebuilt = skillscan._read_one(folder, f"s/skills/{slug}", slug, None, got)
        assert [_shape(d) for d in rebuilt[1]] == [_shape(d) for d in want[1]]
        assert (rebuilt[0] is None) == (want[0] is None)
        if want[0] is not None:
            assert _shape(rebuilt[0]) == _shape(want[0])
        return "head"
    finally:
        os.close(fd)


_desc = st.one_of(st.integers(1, 1100).map(lambda n: ("word " * 230)[:n].strip() or "w"),
                  st.sampled_from(["a --- b", "x---", "Does things.", "caf\u00e9", "a [b]", "a #b", "ends:", "true"]))
_close = st.sampled_from(["---\n", "---\n", "---\n", "--- \t\n", "---", "---\r\n", "----\n", "---x\n"])


@st.composite
def skill_files(draw) -> bytes:
    fields = [("name", draw(st.sampled_from(["sk", "sk", "other", "sk  "]))), ("description", draw(_desc))]
    for key in draw(st.lists(st.sampled_from(["license", "compatibility", "allowed-tools", "metadata", "model"]),
                             unique=True, max_size=3)):
        fields.append((key, draw(st.sampled_from(["MIT", "Read Grep", "Bash(rm:*)", "c" * 501, "x"]))))
    fields = draw(st.permutations(fields))
    if draw(st.integers(0, 5)) == 0:  # a field written twice (yaml-duplicate-key on the general path)
        fields.insert(draw(st.integers(0, len(fields))), (draw(st.sampled_from(fields))[0], draw(_desc)))
    lines = [f"{k}: {v}" for k, v in fields]
    if draw(st.integers(0, 4)) == 0:
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["", "--- not a close", "x---"])))
    body = draw(st.sampled_from(["", "# T\n", "b" * 40, "---\nagain\n", "b" * 3000]))
    return ("---\n" + "\n".join(lines) + "\n" + draw(_close) + body).encode()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=skill_files(), scope=st.sampled_from([Scope.PROJECT, Scope.PLUGIN]))
@example(raw=b"---\nname: sk\ndescription: d\n---\n", scope=Scope.PROJECT)
def test_one_equals_the_general_path(tmp_path_factory, raw, scope):
    root = tmp_path_factory.mktemp("r")
    os.makedirs(root / "s" / "skills" / "sk")
    (root / "s" / "skills" / "sk" / "SKILL.md").write_bytes(raw)
    _compare(str(root), "sk", scope)


@pytest.mark.parametrize("block", [
    "name: sk\ndescription: d\nname: sk\n",
    "name: sk\ndescription: d\ndescription: e\n",
    "description: d\nlicense: MIT\nname: sk\nlicense: MIT\n",
])
def test_one_hands_back_a_repeated_key(tmp_path, block):
    """The lane never builds a skill whose frontmatter repeats a key: it hands the head
    back and the general path names the key (its file line) and loads the skill with the
    last value (Claude Code does the same)."""
    os.makedirs(tmp_path / "s" / "skills" / "sk")
    (tmp_path / "s" / "skills" / "sk" / "SKILL.md").write_text(f"---\n{block}---\nbody\n")
    assert _compare(str(tmp_path), "sk") == "head"
    folder, fd = _folder(str(tmp_path))
    try:
        skill, diags = skillscan._read_one(folder, "s/skills/sk", "sk", None)
    finally:
        os.close(fd)
    assert skill is not None and [d.code for d in diags] == ["yaml-duplicate-key"]
    assert skill.description == ("e" if "description: e" in block else "d")
    assert diags[0].level == "warning" and diags[0].line == block.count("\n") + 1 and diags[0].path.endswith("sk/SKILL.md")


@pytest.mark.parametrize("fm_len", [200, 250, 252, 253, 256, 257, 260, 287, 288, 289, 300, 324, 325, 600,
                                    1000, 1019, 1020, 1021, 1023, 1024, 1025, 1028, 1100, 5000])
@pytest.mark.parametrize("body", [0, 1, 3, 40, 3000])
def test_one_builds_across_read_boundaries(tmp_path, fm_len, body):
    """Closing lines that end just before, at and after each read the general path makes,
    and the end of the lane's first read (1,024 bytes): the same head, the same
    completeness (the digest is of the whole file when it was all read)."""
    head = "---\nname: sk\ndescription: "
    desc = ("d " * fm_len)[: max(1, fm_len - len(head) - 5)].strip()
    raw = f"{head}{desc}\n---\n".encode() + b"b" * body
    os.makedirs(tmp_path / "s" / "skills" / "sk")
    (tmp_path / "s" / "skills" / "sk" / "SKILL.md").write_bytes(raw)
    kind = _compare(str(tmp_path), "sk")
    assert kind == ("skill" if len(desc) <= 1024 else "head")


def test_one_hands_back_what_it_does_not_build(tmp_path):
    skills = tmp_path / "s" / "skills"
    cases = {
        "fifo": None, "dir": None, "link": None, "hard": None, "missing": None, "Upper": None,
        "crlf": b"---\r\nname: crlf\r\ndescription: d\r\n---\r\n",
        "nofm": b"# no frontmatter\n",
        "meta": b"---\nname: meta\ndescription: d\nmetadata: x\n---\n",
        "flow": b"---\nname: flow\ndescription: a [b]\n---\n",
        "ok": b"---\nname: ok\ndescription: d\n---\n",
    }
    for slug, raw in cases.items():
        (skills / slug).mkdir(parents=True)
        if raw is not None:
            (skills / slug / "SKILL.md").write_bytes(raw)
    os.mkfifo(skills / "fifo" / "SKILL.md")
    (skills / "dir" / "SKILL.md").mkdir()
    (tmp_path / "elsewhere.md").write_bytes(cases["ok"])
    os.symlink(tmp_path / "elsewhere.md", skills / "link" / "SKILL.md")
    (skills / "hard" / "SKILL.md").write_bytes(b"---\nname: hard\ndescription: d\n---\n")
    os.link(skills / "hard" / "SKILL.md", tmp_path / "hard-2.md")
    (skills / "Upper" / "SKILL.md").write_bytes(b"---\nname: Upper\ndescription: d\n---\n")
    kinds = {slug: _compare(str(tmp_path), slug) for slug in cases}
    assert kinds == {"fifo": "none", "dir": "none", "link": "none", "hard": "none", "missing": "none",
                     "Upper": "none", "crlf": "head", "nofm": "head", "meta": "head", "flow": "head", "ok": "skill"}


def test_lane_is_off_where_the_general_path_must_run(tmp_path):
    (tmp_path / "s" / "skills").mkdir(parents=True)
    for scope, usable in ((Scope.PROJECT, True), (Scope.PLUGIN, True), (Scope.ADMIN, False)):
        folder, fd = _folder(str(tmp_path), scope)
        try:
            assert (skillfast.lane(folder, "s/skills") is not None) is usable
        finally:
            os.close(fd)
    folder, fd = _folder(str(tmp_path))
    os.close(fd)
    folder.fd = None  # links followed: no held folder
    assert skillfast.lane(folder, "s/skills") is None


def test_reloads_take_the_lane_and_reuse_around_it(tmp_path, monkeypatch):
    """Workspace caches load under :func:`wskit.changes.reusing`: the lane builds
    there too, a reload reuses what did not change and rebuilds the rest."""
    from wskit.builtin_plugins.skills import wskit_load_skills

    skills = tmp_path / "skills"
    for name in ("a", "b"):
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\n")
        os.utime(skills / name / "SKILL.md", ns=(1_000_000_000, 1_000_000_000))
    built = []
    real = skillfast.one
    monkeypatch.setattr(skillfast, "one", lambda lane, slug: built.append(slug) or real(lane, slug))
    src = ResourceSource(scope=Scope.PROJECT, root=str(tmp_path), base=str(tmp_path))
    plain = wskit_load_skills(src)
    with changes.reusing(None) as memo, changes.recording():
        first = wskit_load_skills(src)
    assert built == ["a", "b", "a", "b"] and first == plain
    (skills / "b" / "SKILL.md").write_text("---\nname: b\ndescription: changed\n---\n")
    with changes.reusing(memo), changes.recording():
        second = wskit_load_skills(src)
    assert built[4:] == ["b"]  # a: reused unread
    assert second.resources[0] is first.resources[0] and second.resources[1].description == "changed"


def test_collector_paused_only_while_a_folder_loads(tmp_path, monkeypatch):
    """The loop of a skills folder runs without the cyclic collector and gives it back
    as it found it: enabled after the load (also when a skill raises), still disabled
    when the caller had disabled it."""
    import gc

    from wskit.builtin_plugins.skills import wskit_load_skills

    for name in ("a", "b"):
        (tmp_path / "skills" / name).mkdir(parents=True)
        (tmp_path / "skills" / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\n")
    src = ResourceSource(scope=Scope.PROJECT, root=str(tmp_path), base=str(tmp_path))
    seen = []
    real = skillfast.one

    def spy(lane, slug):
        seen.append(gc.isenabled())
        if slug == "b":
            raise ValueError("surprise")
        return real(lane, slug)

    monkeypatch.setattr(skillfast, "one", spy)
    assert gc.isenabled()
    res = wskit_load_skills(src)
    assert seen == [False, False] and gc.isenabled()
    assert [s.name for s in res.resources] == ["a"] and [d.code for d in res.diagnostics] == ["skill-invalid"]
    gc.disable()
    try:
        wskit_load_skills(src)
        assert not gc.isenabled()
    finally:
        gc.enable()
