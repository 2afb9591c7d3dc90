"""Skill bodies and files at use time, the skills_enabled switch (docs/skills.md)."""

import os

import pytest

from tests.markdown_helpers import load, skill_md
from wskit.builtin_plugins.skills.runtime import SkillError, SkillRuntime, skills_enabled, substitute
from wskit.host import HostProfile
from wskit.session import snapshot


@pytest.mark.parametrize("value,expected", [
    (True, True), (False, False), ("true", True), ("FALSE", False), ("1", True), ("0", False), (1, True),
    (0, False), (2, False), ("yes", False), ("on", False), (None, False), ([], False), (1.0, False),
])
def test_switch_values(value, expected):
    assert skills_enabled(HostProfile(settings={"skills_enabled": value})) is expected


def test_switch_default_on():
    assert skills_enabled(HostProfile()) is True


@pytest.fixture
def ws(make_tree, wskit_home):
    tree = make_tree({
        ".claude/skills/greet/SKILL.md": skill_md(
            "greet", extra="arguments: [who, mood]\nallowed-tools: Read\n",
            body="Hello $who, ${mood} $unknown; all: $ARGUMENTS; ${who}!\n"),
        ".claude/skills/greet/scripts/run.sh": "echo hi\n",
        ".claude/skills/greet/references/a.md": "A\n",
        ".claude/skills/greet/.hidden": "h",
        ".claude/skills/greet/node_modules/x.js": "x",
        ".claude/skills/greet/bin.dat": b"\xff\xfe\x00",
        "outside.txt": "secret-ish",
    })
    return load(tree, wskit_home)


def test_substitution(ws):
    rt = SkillRuntime(ws, ws.profile)
    c = rt.read("greet", args="Ann happy extra")
    assert c.content == "Hello Ann, happy $unknown; all: Ann happy extra; Ann!\n"
    assert rt.read("greet").content == "Hello ,  $unknown; all: ; !\n"
    assert substitute("{{ x }} $ARGUMENTS", "a b") == "{{ x }} a b"  # text only, no templating


def test_list_files_reads_nothing(ws):
    skill_dir = os.path.join(ws.binding.source_root, ".claude/skills/greet")
    os.mkfifo(os.path.join(skill_dir, "pipe"))  # a read would block; listing must not touch it
    os.symlink("/etc/hostname", os.path.join(skill_dir, "scripts", "host"))  # project scope: never followed
    out = SkillRuntime(ws, ws.profile).list_files("greet")
    assert out["files"] == ["SKILL.md", "bin.dat", "references/a.md", "scripts/run.sh"]
    assert out["file_count"] == 4 and out["has_attachments"] is True
    assert set(out) == {"slug", "name", "files", "file_count", "has_attachments", "skipped"}
    # left out, but said: a listing that drops them without a word hides that they are there
    assert out["skipped"] == [{"path": "pipe", "reason": "special-file"},
                              {"path": "scripts/host", "reason": "symlink"}]


@pytest.mark.parametrize("file,fragment", [
    ("/etc/passwd", "path-absolute"), ("../../../outside.txt", "path-escape"), (".hidden", "dot-components"),
    ("scripts/../../x", "path-escape"), ("bin.dat", "text only"), ("missing.md", "not-found"),
])
def test_read_refusals(ws, file, fragment):
    with pytest.raises(SkillError, match=fragment) as err:
        SkillRuntime(ws, ws.profile).read("greet", file)
    assert err.value.code == "SKILL_CONTENT_REJECTED"


def test_read_refuses_links_and_fifos(ws):
    d = os.path.join(ws.binding.source_root, ".claude/skills/greet")
    os.symlink(os.path.join(ws.binding.source_root, "outside.txt"), os.path.join(d, "link.md"))
    os.mkfifo(os.path.join(d, "fifo.md"))
    rt = SkillRuntime(ws, ws.profile)
    with pytest.raises(SkillError, match="symlink"):
        rt.read("greet", "link.md")
    with pytest.raises(SkillError, match="special-file"):
        rt.read("greet", "fifo.md")


def test_content_cache_keyed_by_digest(ws):
    rt = SkillRuntime(ws, ws.profile)
    path = os.path.join(ws.binding.source_root, ".claude/skills/greet/references/a.md")
    first = rt.read("greet", "references/a.md")
    assert (first.content, first.cached) == ("A\n", False)
    assert rt.read("greet", "references/a.md").cached is True
    st = os.stat(path)
    with open(path, "w") as fh:
        fh.write("B\n")  # same size
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same mtime
    second = rt.read("greet", "references/a.md")
    assert (second.content, second.cached) == ("B\n", False)
    assert second.content_hash != first.content_hash


def test_what_a_runtime_remembers_per_call_is_bounded(ws):
    """The arguments come from the caller (``wsctl serve``'s MCP clients send them): one
    remembered delivery per distinct value, holding the value, grew a served session by
    the arguments' size on every call. Now the most recent MAX_DELIVERIES are kept, by
    digest; an older one reads as not delivered."""
    import gc
    import tracemalloc

    from wskit.builtin_plugins.skills.runtime import MAX_DELIVERIES

    rt = SkillRuntime(ws, ws.profile)
    assert rt.read("greet", args="first").cached is False
    assert rt.read("greet", args="first").cached is True
    for i in range(MAX_DELIVERIES):
        rt.read("greet", args=f"other {i}")
    assert rt.read("greet", args="first").cached is False  # forgotten: delivered again in full
    big = "x" * 4000
    for i in range(MAX_DELIVERIES):  # fill the bound before measuring
        rt.read("greet", args=f"{i} {big}")
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        for i in range(3 * MAX_DELIVERIES):
            rt.read("greet", args=f"{i} more {big}")
        gc.collect()
        grown = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(before, "filename"))
    finally:
        tracemalloc.stop()
    # unbounded it was 3 * 256 * (4 KB of arguments + ~300 bytes) = 3.3 MB
    assert grown < 256 << 10, grown


def test_bodies_read_at_use_time_snapshot_freezes_metadata(ws):
    session = snapshot(ws)
    path = os.path.join(ws.binding.source_root, ".claude/skills/greet/SKILL.md")
    with open(path, "w") as fh:
        fh.write(skill_md("greet", "New description.", extra="allowed-tools: Read\n", body="New body\n"))
    rt = SkillRuntime(session, ws.profile)
    assert rt.get("greet").description == "A test skill."  # metadata frozen
    assert rt.read("greet").content == "New body\n"  # body read now


def test_current_metadata_can_only_narrow(ws):
    path = os.path.join(ws.binding.source_root, ".claude/skills/greet/SKILL.md")
    with open(path, "w") as fh:
        fh.write(skill_md("greet", extra="allowed-tools: Read Bash\n"))
    c = SkillRuntime(ws, ws.profile).read("greet")
    assert c.clauses == (("Read",), ("Read", "Bash"))
    with open(path, "w") as fh:
        fh.write(skill_md("greet", extra="allowed-tools: Read(**)\n"))
    with pytest.raises(SkillError) as err:
        SkillRuntime(ws, ws.profile).read("greet")
    assert err.value.code == "SKILL_METADATA_REJECTED"


def test_switch_off_hides_everything_and_drops_cache(make_tree, wskit_home):
    tree = make_tree({".claude/skills/s/SKILL.md": skill_md("s")})
    settings = {"skills_enabled": True}
    w = load(tree, wskit_home, settings=settings)
    rt = SkillRuntime(w, w.profile)
    rt.read("s")
    assert rt._texts
    w.profile.settings["skills_enabled"] = "nonsense"  # read fresh on each use; invalid means off
    assert rt.list() == []
    assert not rt._texts
    for call in (lambda: rt.read(w.registry("skill").get("s")), lambda: rt.get("s"), lambda: rt.list_files("s")):
        with pytest.raises(SkillError) as err:
            call()
        assert err.value.code == "SKILLS_DISABLED"
    off = load(tree, wskit_home, settings={"skills_enabled": 0})
    assert len(off.registry("skill")) == 0
    assert any(d.code == "skills-disabled" for d in off.diagnostics)
