"""A hostile or corrupt persistent index (wskit.fs.index, wskit.builtin_plugins.rules.persist)
never makes a load crash and never yields what a fresh load would not; where it is refused,
an ``index-refused`` warning names the file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.core.test_persistent_index import age, answer, index_file, lazy_answer, make


def fresh(root: Path, home: Path):
    return answer(root, home, index=False)[:2]


def refused_names(got, f: Path) -> None:
    assert got[2], "the refusal is reported"
    assert all(d.path == str(f) for d in got[2])


def prepared(tmp_path):
    root, home = make(tmp_path)
    answer(root, home)
    f = index_file(root, home)
    assert f.is_file()
    return root, home, f


def rewrite(f: Path, change) -> None:
    doc = json.loads(f.read_bytes())
    change(doc)
    f.write_text(json.dumps(doc))
    os.chmod(f, 0o600)


CORRUPT = {
    "truncated": lambda f: f.write_bytes(f.read_bytes()[: len(f.read_bytes()) // 2]),
    "empty": lambda f: f.write_bytes(b""),
    "not-json": lambda f: f.write_bytes(b"\xff\xfe garbage"),
    "array": lambda f: f.write_text("[]"),
    "deep": lambda f: f.write_text("[" * 100000 + "]" * 100000),
    "wrong-version": lambda f: rewrite(f, lambda d: d.update(version=999)),
    "wrong-format": lambda f: rewrite(f, lambda d: d.update(format="other")),
    "other-root": lambda f: rewrite(f, lambda d: d.update(root="/elsewhere")),
    "other-settings": lambda f: rewrite(f, lambda d: d.update(key="0" * 64)),
    "sig-outside": lambda f: rewrite(f, lambda d: (d["walk"]["paths"].append("/etc/passwd"),
                                                   d["walk"].update(sigs=d["walk"]["sigs"] + "00" * 41))),
    "sig-dotdot": lambda f: rewrite(f, lambda d: (d["walk"]["paths"].append("src/../../x"),
                                                  d["walk"].update(sigs=d["walk"]["sigs"] + "00" * 41))),
    "sigs-short": lambda f: rewrite(f, lambda d: d["walk"].update(sigs=d["walk"]["sigs"][:-2])),
    "follow-out-of-range": lambda f: rewrite(f, lambda d: d["walk"]["follow"].append(10**6)),
    "odd-bad": lambda f: rewrite(f, lambda d: d["walk"]["odd"].append([0, [1, 2, 3]])),
    "folder-outside": lambda f: rewrite(f, lambda d: (d["walk"]["folders"].append("../elsewhere"),
                                                      d["walk"]["files"].append(""), d["walk"]["dirs"].append(""),
                                                      d["walk"].update(git=d["walk"]["git"] + "0"))),
    "folder-columns-differ": lambda f: rewrite(f, lambda d: d["walk"]["files"].append("x")),
    "folder-git-not-a-flag": lambda f: rewrite(f, lambda d: d["walk"].update(git="x" * len(d["walk"]["git"]))),
    "folder-names-not-strings": lambda f: rewrite(f, lambda d: d["walk"]["dirs"].__setitem__(0, ["a"])),
    "candidate-dotdot": lambda f: rewrite(f, lambda d: d["walk"]["found"].append(
        ["../outside.md", "project", "", 1, "instruction", None])),
    "rule-absolute": lambda f: rewrite(f, lambda d: d["rules"].append(
        ["/etc/passwd", None, "project", "", 1, "instruction", [], "x", []])),
    "bad-types": lambda f: rewrite(f, lambda d: d["rules"].append([1, 2, 3, 4, 5, 6, 7, 8, 9])),
    "bad-sig": lambda f: rewrite(f, lambda d: d["walk"].update(sigs="zz" + d["walk"]["sigs"][2:])),
    "bad-diag": lambda f: rewrite(f, lambda d: d["walk"]["diags"].append(["fatal", 1, 2, 3, 4, 5, 6])),
}


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_corrupt_index_refused(tmp_path, name):
    root, home, f = prepared(tmp_path)
    CORRUPT[name](f)
    if f.exists():
        os.chmod(f, 0o600)
    got = answer(root, home)
    assert got[:2] == fresh(root, home)
    refused_names(got, f)


def test_huge_index_refused(tmp_path):
    root, home, f = prepared(tmp_path)
    with open(f, "wb") as fh:
        fh.truncate(17 * 1024 * 1024)
    got = answer(root, home)
    assert got[:2] == fresh(root, home)
    refused_names(got, f)


def test_symlink_in_place_of_the_index(tmp_path):
    root, home, f = prepared(tmp_path)
    elsewhere = tmp_path / "forged.json"
    elsewhere.write_bytes(f.read_bytes())
    os.chmod(elsewhere, 0o600)
    f.unlink()
    os.symlink(elsewhere, f)
    got = answer(root, home)
    assert got[:2] == fresh(root, home)
    refused_names(got, f)
    assert f.is_symlink()  # never written through the link either


@pytest.mark.parametrize("mode", [0o644, 0o660, 0o666])
def test_wrong_mode_refused(tmp_path, mode):
    root, home, f = prepared(tmp_path)
    os.chmod(f, mode)
    got = answer(root, home)
    assert got[:2] == fresh(root, home)
    refused_names(got, f)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_wrong_owner_refused(tmp_path):
    root, home, f = prepared(tmp_path)
    os.chown(f, 12345, 12345)
    got = answer(root, home)
    assert got[:2] == fresh(root, home)
    refused_names(got, f)


def test_claimed_file_that_does_not_exist(tmp_path):
    """A rule entry (with a plausible signature) for a file that is not there is not served."""
    root, home, f = prepared(tmp_path)

    def forge(d):
        sig = d["rules"][0][1]
        d["rules"].append(["src/a/AGENTS.md", sig, "project", "src/a", 3, "instruction", [], "forged", []])
    rewrite(f, forge)
    got = answer(root, home)
    assert got[:2] == fresh(root, home)
    assert all("forged" not in r[5] for r in got[0])


def test_claimed_metadata_of_a_file_changed_since(tmp_path):
    """The index says what a rule held; the file changed since: the file's text wins."""
    root, home, f = prepared(tmp_path)
    rewrite(f, lambda d: [r.__setitem__(7, "stale claim") for r in d["rules"]
                          if r[0] in ("AGENTS.md", "src/AGENTS.md")])
    (root / "AGENTS.md").write_text("changed since\n")
    (root / "src" / "AGENTS.md").write_text("changed too\n")
    got = answer(root, home)
    assert got[:2] == fresh(root, home)
    bodies = {r[0]: r[5] for r in got[0]}
    assert bodies["AGENTS.md"] == "changed since" and bodies["src/AGENTS.md"] == "changed too"


def test_index_state_folder_link_refused(tmp_path):
    """The index folder replaced by a link: nothing read or written through it."""
    root, home, f = prepared(tmp_path)
    folder = f.parent
    target = tmp_path / "elsewhere"
    folder.rename(target)
    os.symlink(target, folder)
    got = answer(root, home)
    assert got[:2] == fresh(root, home)
    assert got[2]


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_corrupt_index_cannot_reach_the_chain_discovery(tmp_path, name):
    """A new process's lazy catalog (the root chain, before anything reads the whole
    project) does not read the index at all: whatever was done to it, the answers are a
    fresh load's and nothing is refused."""
    from wskit.cache import WorkspaceCache
    from wskit.host import HostProfile

    root, home, f = prepared(tmp_path)
    CORRUPT[name](f)
    if f.exists():
        os.chmod(f, 0o600)
    assert lazy_answer(root, home) == lazy_answer(root, home, index=False)
    cat = WorkspaceCache(HostProfile(home=home)).resolve(root).catalog("rules")
    cat.contextual_rules(str(root), [str(root / "src" / "a" / "x.py")])
    assert not [d for d in cat.diagnostics if d.code == "index-refused"]


def test_forged_patterns_of_an_unchanged_file_cost_nothing_until_asked(tmp_path):
    """Patterns an index claims for an unchanged rule file are compiled only when a query
    needs them, with the same checks and budget as a fresh load's: a brace bomb or a
    ``..`` pattern matches nothing, and building the catalog does not expand it."""
    root, home, f = prepared(tmp_path)
    bomb = "{a,b}" * 40 + "/*.py"
    rewrite(f, lambda d: [r.__setitem__(6, [bomb, "../**/*.py", "**/*.py"]) for r in d["rules"]
                          if r[0] == ".claude/rules/py.md"])
    rules = answer(root, home)[0]  # a whole load takes the forged entry: the user's own state, as stored
    hits = [r for r in rules if r[0] == ".claude/rules/py.md"]
    assert hits and all(r[4] == (bomb, "../**/*.py", "**/*.py") for r in hits)
    from wskit.builtin_plugins.rules.patterns import PathMatcher

    m = PathMatcher((bomb, "../**/*.py"))
    assert not m.match("src/a/x.py") and not m.match("../x.py")
    assert sorted(p.code for p in m.problems) == ["rule-pattern-invalid", "rule-pattern-limit"]


def test_index_files_are_capped_and_only_index_files_are_removed(tmp_path, monkeypatch):
    """After a write, the index folder keeps at most MAX_INDEX_FILES index files: the least
    recently written go (with their lock files), the one just written stays, and nothing
    that is not a regular file named like an index is touched (a link named like one
    included: neither it nor what it points to is removed)."""
    from wskit.fs import index as fsindex

    monkeypatch.setattr(fsindex, "MAX_INDEX_FILES", 5)
    root, home, f = prepared(tmp_path)
    folder = f.parent
    outside = tmp_path / "precious.json"
    outside.write_text("keep me")
    (folder / ("rules-" + "f" * 32 + ".json")).symlink_to(outside)
    (folder / "notes.txt").write_text("not an index")
    (folder / ("rules-" + "e" * 32 + ".json")).mkdir()
    old = []
    for i in range(8):
        p = folder / f"rules-{i:032x}.json"
        p.write_text("{}")
        (folder / (p.name + ".lock")).write_text("")
        os.utime(p, (1_000_000 + i, 1_000_000 + i))
        old.append(p)
    (root / "AGENTS.md").write_text("root rules, edited so the index is written again\n")
    age(root)  # settled: a racy walk is not written
    answer(root, home)
    kept = sorted(p.name for p in folder.glob("rules-*.json") if p.is_file() and not p.is_symlink())
    assert len(kept) == 5 and f.name in kept
    assert [p.name for p in old if p.exists()] == [p.name for p in old[-4:]]  # the newest stay
    assert not any((folder / (p.name + ".lock")).exists() for p in old[:-4])
    assert outside.read_text() == "keep me" and (folder / ("rules-" + "f" * 32 + ".json")).is_symlink()
    assert (folder / "notes.txt").exists() and (folder / ("rules-" + "e" * 32 + ".json")).is_dir()


def test_a_brace_bomb_is_counted_not_expanded_by_the_simple_translation():
    """The translation wskit does itself counts a pattern's expansions before making them:
    a flat brace bomb over the budget is handed to wcmatch (which refuses it), never built."""
    from wskit.builtin_plugins.rules.patterns import simple_translate

    assert simple_translate("{a,b}" * 40 + "/*.py", 1000) is None
    assert len(simple_translate("{a,b}" * 9 + "/*.py", 1000)) == 512
    assert simple_translate("{a,b}" * 10 + "/*.py", 1000) is None  # 1,024 > 1,000


@pytest.mark.parametrize("bad", ["", "/abs", "/", "a//b", "a/", "./a", ".", "..", "a/.", "a/..", "a/../../b",
                                 "a\0b", "\0", 7, 0, None, [], ["a"], b"a"])
def test_every_stored_path_is_checked(bad):
    """persist._rels_ok, the one check of every path an index stores (walk paths and folders,
    candidates' paths, scope folders and link targets, rule paths and scope folders), refuses
    anything that is not a relative path inside the project, in any position of the list;
    the root ("") only where a folder may be the root. A newline is a name's own character."""
    from wskit.builtin_plugins.rules import persist

    good = ["", "a", "a/b", ".claude/rules/x.md", "..x", "a/.b", "a/b.", "x..y/z", "new\nline/a", "\n", "a/\n/b"]
    persist._rels_ok(good)
    persist._rels_ok([])
    persist._rels_ok(["", ""])
    if bad == "":
        persist._rels_ok([bad])  # the root
        return
    for at in (0, 3, len(good)):
        with pytest.raises(persist._Bad):
            persist._rels_ok(good[:at] + [bad] + good[at:])


def test_an_index_of_an_earlier_version_is_a_miss_and_rewritten(tmp_path):
    """An index written by an earlier wskit (an upgrade; its walk may have decided otherwise)
    is not used and not reported as refused: the load reads afresh and writes this version."""
    from wskit.builtin_plugins.rules import persist

    root, home, f = prepared(tmp_path)
    rewrite(f, lambda d: d.update(version=persist.VERSION - 1, walk=None, rules=[["forged"]]))
    rules, diags, refused = answer(root, home)
    assert not refused and rules == answer(root, home, index=False)[0]
    assert json.loads(f.read_bytes())["version"] == persist.VERSION
