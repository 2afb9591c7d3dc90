"""The persistent index (wskit.fs.index, wskit.builtin_plugins.rules.persist): a load that
uses the index of an earlier "process" (a fresh WorkspaceCache: nothing is shared but the
index file in the home) answers exactly as a fresh load with the index off, whatever was
edited between the two. Real files in tmp_path, the home a tmp parameter."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wskit.cache import WorkspaceCache
from wskit.fs import index as fsindex
from wskit.host import HostProfile
from wskit.trust import TrustStore

OLD = time.time() - 3600  # well outside the racy window


def age(root: Path) -> None:
    """Date every file and folder of ``root`` an hour back (a settled tree)."""
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            os.utime(os.path.join(dirpath, n), (OLD, OLD), follow_symlinks=False)
    os.utime(root, (OLD, OLD))


def answer(root: Path, home: Path, index: bool = True):
    prof = HostProfile(home=home, settings={} if index else {"index": False})
    ws = WorkspaceCache(prof).resolve(root)
    cat = ws.catalog("rules")
    rules = sorted((r.path, r.source, r.scope_dir, r.priority, r.patterns, r.body, r.id, r.sha256)
                   for r in cat.rules())
    diags = sorted((d.level, d.code, d.path or "", d.line or 0, d.message) for d in cat.diagnostics
                   if d.code != "index-refused")
    refused = [d for d in cat.diagnostics if d.code == "index-refused"]
    return rules, diags, refused


def lazy_answer(root: Path, home: Path, index: bool = True):
    """What a new process's lazy catalog answers before anything reads the whole project:
    the static rules of the root and of ``src/a``, the contextual rules of a few files (the
    chain discovery, which reads no persistent index)."""
    prof = HostProfile(home=home, settings={} if index else {"index": False})
    cat = WorkspaceCache(prof).resolve(root).catalog("rules")
    out = []
    for cwd in (root, root / "src" / "a"):
        static = cat.static_rules(str(cwd))
        out.append([(r.path, r.body, r.patterns, r.sha256) for r in static.files])
        for target in ("src/a/x.py", "docs/y.py", "lib/z.py", "pkg/deep/w.md"):
            sel = cat.contextual_rules(str(cwd), [str(root / target)], static.ids)
            out.append([(r.path, r.body, r.patterns, r.sha256) for r in sel.files])
    assert not cat.is_complete
    return out


def check(root: Path, home: Path) -> None:
    assert lazy_answer(root, home) == lazy_answer(root, home, index=False)
    got = answer(root, home)
    fresh = answer(root, home, index=False)
    assert got[:2] == fresh[:2]
    assert not got[2]


def make(tmp_path: Path) -> tuple[Path, Path]:
    root, home = tmp_path / "proj", tmp_path / "home"
    home.mkdir()
    (root / ".git").mkdir(parents=True)
    (root / "AGENTS.md").write_text("root rules\n")
    (root / "src" / "a").mkdir(parents=True)
    (root / "src" / "AGENTS.md").write_text("src rules\n")
    (root / "src" / "a" / "CLAUDE.md").write_text("a rules\n")
    (root / ".claude" / "rules").mkdir(parents=True)
    (root / ".claude" / "rules" / "py.md").write_text("---\npaths: ['**/*.py']\n---\npython rule\n")
    (root / "docs").mkdir()
    (root / "docs" / "AGENTS.md").write_text("docs rules\n")
    (root / "docs" / "notes.txt").write_text("x")
    TrustStore.for_home(home).grant(root)
    age(root)
    return root, home


def index_file(root: Path, home: Path) -> Path:
    return fsindex.index_path(home, str(root), "rules")


def read_doc(f: Path) -> tuple[dict, dict]:
    """The index file ``f`` as ``(header, document)``: the header line's JSON and the
    document its payload holds (``persist._unpack``: ``key``, ``walk`` columns, ``rules``
    rows with their bodies)."""
    import json

    from wskit.builtin_plugins.rules import persist

    raw = f.read_bytes()
    cut = raw.index(b"\n")
    head = json.loads(raw[:cut])
    return head, persist._unpack(head, raw[cut + 1:])


def write_doc(f: Path, doc: dict, **header) -> None:
    """Write ``doc`` (a document as :func:`read_doc` gives it) as the index file ``f``, in
    this version's layout with a correct length and checksum (``persist._pack``), the
    header's ``format``/``version``/``root`` taken from the file there, ``header`` over
    them; mode 0600."""
    import json
    import zlib

    from wskit.builtin_plugins.rules import persist

    old, _doc = read_doc(f)
    head, payload = persist._pack(doc)
    head.update(format=old["format"], version=old["version"], root=old["root"],
                payload=[len(payload), zlib.crc32(payload)])
    head.update(header)
    f.write_bytes(json.dumps(head, separators=(",", ":")).encode("ascii") + b"\n" + payload)
    os.chmod(f, 0o600)


def test_index_written_and_reused(tmp_path):
    root, home = make(tmp_path)
    check(root, home)
    f = index_file(root, home)
    assert f.is_file() and (f.stat().st_mode & 0o777) == 0o600
    before = f.stat().st_mtime_ns
    check(root, home)  # nothing changed: the index is used and not rewritten
    assert f.stat().st_mtime_ns == before
    # what answered is the index: an entry of an unchanged file is taken as stored (the
    # file is the user's own 0600 state, trusted as the trust store is)
    doc = read_doc(f)[1]
    for r in doc["rules"]:
        if r[0] == "docs/AGENTS.md":
            r[7] = "as the index says"
    write_doc(f, doc)
    bodies = {r[0]: r[5] for r in answer(root, home)[0]}
    assert bodies["docs/AGENTS.md"] == "as the index says"


def test_chain_reads_no_index(tmp_path, monkeypatch):
    """A new process's lazy catalog answers the root chain without reading the persistent
    index (decoding it costs in proportion to the project, the chain's files to its depth),
    and reads a file edited since like any other."""
    from wskit.builtin_plugins.rules import persist

    root, home = make(tmp_path)
    check(root, home)
    asked: list[str] = []
    real = persist.previous

    def spy(root_, *a, **kw):
        asked.append(root_)
        return real(root_, *a, **kw)

    monkeypatch.setattr(persist, "previous", spy)
    lazy_answer(root, home)
    assert asked == []
    edited = root / ".claude" / "rules" / "py.md"
    edited.write_text("---\npaths: ['**/*.py']\n---\npython rule, edited\n")
    os.utime(edited, (OLD, OLD))
    got = lazy_answer(root, home)
    assert any("python rule, edited" in r[1] for sel in got for r in sel)
    answer(root, home)  # a whole load still reads it
    assert asked


def test_index_off_writes_nothing(tmp_path, monkeypatch):
    root, home = make(tmp_path)
    monkeypatch.setenv("WSKIT_INDEX", "0")
    answer(root, home)
    assert not index_file(root, home).exists()


def _edit_same_size(root):
    p = root / "src" / "AGENTS.md"
    st = p.stat()
    p.write_text("SRC rules\n")
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime: ctime tells


def _outside_link(root):
    out = root.parent / "outside.md"
    out.write_text("outside\n")
    (root / "docs" / "AGENTS.md").unlink()
    os.symlink(out, root / "docs" / "AGENTS.md")


def _inside_link(root):
    (root / "docs" / "AGENTS.md").unlink()
    os.symlink("../src/AGENTS.md", root / "docs" / "AGENTS.md")


EDITS = {
    "edit": lambda r: (r / "AGENTS.md").write_text("root rules, edited\n"),
    "edit-same-size-mtime": _edit_same_size,
    "add": lambda r: (r / "src" / "a" / "AGENTS.md").write_text("new\n"),
    "add-rule": lambda r: (r / ".claude" / "rules" / "new.md").write_text("new rule\n"),
    "delete": lambda r: (r / "src" / "AGENTS.md").unlink(),
    "rename-file": lambda r: (r / "docs" / "AGENTS.md").rename(r / "docs" / "CLAUDE.md"),
    "rename-folder": lambda r: (r / "src").rename(r / "lib"),
    "delete-folder": lambda r: [p.unlink() for p in (r / "docs").iterdir()] and (r / "docs").rmdir(),
    "chmod-file": lambda r: os.chmod(r / "src" / "AGENTS.md", 0o000),
    "chmod-folder": lambda r: os.chmod(r / "src" / "a", 0o000),
    "link-inside": _inside_link,
    "link-outside": _outside_link,
    "gitignore": lambda r: (r / ".gitignore").write_text("docs/AGENTS.md\n"),
    "gitignore-folder": lambda r: (r / ".gitignore").write_text("src/\n"),
    "new-folder": lambda r: (r / "pkg" / "deep").mkdir(parents=True) or (r / "pkg" / "deep" / "AGENTS.md").write_text("d\n"),
    "venv": lambda r: (r / "docs" / "pyvenv.cfg").write_text("home = /usr\n"),
}


@pytest.mark.parametrize("name", sorted(EDITS))
@pytest.mark.parametrize("settle", [True, False], ids=["settled", "racy"])
def test_edit_between_processes(tmp_path, name, settle):
    if name.startswith("chmod") and hasattr(os, "geteuid") and os.geteuid() == 0:
        pytest.skip("root reads a mode-000 file")
    root, home = make(tmp_path)
    check(root, home)
    assert index_file(root, home).is_file()
    EDITS[name](root)
    if settle:
        age(root)
    try:
        check(root, home)
        check(root, home)  # the index rewritten after the change is right too
    finally:
        for p in (root / "src", root / "src" / "a"):
            if p.exists():
                os.chmod(p, 0o755)


def test_touch_within_the_same_second(tmp_path):
    """Racy: a file rewritten moments after the index recorded it, same size, mtime of the same
    second: the index never kept it (racy entries are not remembered), so it is read again."""
    root, home = make(tmp_path)
    p = root / "AGENTS.md"
    p.write_text("aaaa\n")
    check(root, home)
    p.write_text("bbbb\n")
    os.utime(p, (int(p.stat().st_mtime), int(p.stat().st_mtime)))
    check(root, home)


NAMES = st.sampled_from(["AGENTS.md", "CLAUDE.md", "x.txt", "AGENTS.override.md"])
DIRS = st.sampled_from(["", "a", "b", "a/c", "b/d"])


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(files=st.lists(st.tuples(DIRS, NAMES, st.text("xyz", min_size=1, max_size=6)), max_size=6),
       edits=st.lists(st.tuples(st.sampled_from(["write", "delete", "rename", "ignore", "rule"]), DIRS, NAMES,
                                st.text("pq", min_size=1, max_size=4)), min_size=1, max_size=4))
def test_random_trees_and_edits(tmp_path_factory, files, edits):
    tmp = tmp_path_factory.mktemp("rnd")
    root, home = tmp / "p", tmp / "h"
    home.mkdir()
    (root / ".git").mkdir(parents=True)
    for d in ("a", "b", "a/c", "b/d"):
        (root / d).mkdir(parents=True, exist_ok=True)
    for d, n, text in files:
        (root / d / n).write_text(text + "\n")
    TrustStore.for_home(home).grant(root)
    age(root)
    check(root, home)
    for op, d, n, text in edits:
        p = root / d / n
        if op == "write":
            p.write_text(text + "\n")
        elif op == "delete" and p.exists():
            p.unlink()
        elif op == "rename" and p.exists():
            p.rename(root / d / "CLAUDE.local.md")
        elif op == "ignore":
            (root / ".gitignore").write_text(f"{d}/{n}\n" if d else f"{n}\n")
        elif op == "rule":
            (root / d / ".claude" / "rules").mkdir(parents=True, exist_ok=True)
            (root / d / ".claude" / "rules" / f"{text}.md").write_text(f"---\npaths: ['*.{text}']\n---\nr\n")
    age(root)
    check(root, home)


def test_signature_columns_round_trip():
    """The walk's signatures stored as columns come back as they were: packed ones, an absent
    path (None), one that did not pack (a tuple), paths compared following links."""
    from wskit import changes
    from wskit.builtin_plugins.rules import persist

    root = "/p/root"
    st = os.stat(__file__)
    sigs = {(root, False): changes.signature(st), (root + "/a", False): None,
            (root + "/b", True): (1, 2, 3, 2**70, 5, 6), (root + "/a/.gitignore", False): changes.signature(st)}
    walk = {**persist._sigs_out(sigs, root, len(root) + 1), "found": [], "diags": [], "folders": [],
            "files": [], "dirs": [], "git": ""}
    doc = file_round_trip({"key": "k", "walk": walk, "rules": []})["walk"]
    assert persist._sigs_in(doc, root, root + "/") == sigs
    assert list(persist._sigs_in(doc, root, root + "/")) == list(sigs)  # recording order kept


def file_round_trip(doc):
    """``doc`` through the file's layout: header JSON and payload (``persist._pack``/``_unpack``)."""
    import json

    from wskit.builtin_plugins.rules import persist

    head, payload = persist._pack(doc)
    return persist._unpack(json.loads(json.dumps(head)), payload)


def test_names_with_newlines_are_kept_and_checked(tmp_path):
    """A folder and a rule file whose names hold a newline (legal on POSIX; a rule file
    whose path holds one is refused by every load as ``rule-name-invalid``) do not make the
    index refused: the second load takes it and answers as a fresh load, diagnostics included."""
    root, home = make(tmp_path)
    (root / "odd\nfolder").mkdir()
    (root / "odd\nfolder" / "AGENTS.md").write_text("odd folder rules\n")
    (root / ".claude" / "rules" / "bad\nname.md").write_text("refused by name\n")
    age(root)
    answer(root, home)  # writes the index
    assert index_file(root, home).is_file()
    check(root, home)
    got = answer(root, home)
    assert not got[2]
    refused = sorted(d[2] for d in got[1] if d[1] == "rule-name-invalid")
    assert refused == [str(root / ".claude" / "rules" / "bad\nname.md"), str(root / "odd\nfolder" / "AGENTS.md")]


def test_restored_rule_objects_are_a_fresh_loads(tmp_path):
    """The rule objects a load takes from the index (built without validation,
    ``persist._rule_item``) are the objects a fresh load builds: equal, the same field
    values and types, the same fields set, the same provenance."""
    from wskit.builtin_plugins.rules import persist

    root, home = make(tmp_path)
    answer(root, home)  # writes the index
    assert index_file(root, home).is_file()
    built = []
    real = persist._rule_item
    persist_item = lambda *a: built.append(a[2]) or real(*a)  # noqa: E731
    try:
        persist._rule_item = persist_item
        restored = {r.path: r for r in WorkspaceCache(HostProfile(home=home)).resolve(root).catalog("rules").rules()}
    finally:
        persist._rule_item = real
    assert sorted(built) == sorted(restored)  # every rule came from the index
    fresh = {r.path: r for r in WorkspaceCache(HostProfile(home=home, settings={"index": False}))
             .resolve(root).catalog("rules").rules()}
    assert restored.keys() == fresh.keys() and len(fresh) >= 5
    for path, r in restored.items():
        f = fresh[path]
        assert r == f and type(r) is type(f)
        assert r.model_fields_set == f.model_fields_set
        assert r.provenance == f.provenance and r.provenance.model_fields_set == f.provenance.model_fields_set
        assert {k: (v, type(v)) for k, v in r.__dict__.items() if k != "provenance"} == \
            {k: (v, type(v)) for k, v in f.__dict__.items() if k != "provenance"}
        assert r.provenance.__dict__ == f.provenance.__dict__
        # built without construct_valid's per-call key check: the keys are the fields, in order
        assert list(r.__dict__) == list(f.__dict__) and list(r.provenance.__dict__) == list(f.provenance.__dict__)
        assert r.model_dump() == f.model_dump() and r.model_dump(exclude_unset=True) == f.model_dump(exclude_unset=True)
