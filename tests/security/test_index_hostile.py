"""A hostile or corrupt persistent index (wskit.fs.index, wskit.builtin_plugins.rules.persist)
never makes a load crash and never yields what a fresh load would not; where it is refused,
an ``index-refused`` warning names the file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.core.test_persistent_index import age, answer, index_file, lazy_answer, make, read_doc, write_doc


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


def rewrite(f: Path, change=None, head_change=None, **header) -> None:
    """Rewrite the index ``f`` with its document changed by ``change`` (rows, columns), in
    this version's layout with a correct length and checksum: what reaches the row checks
    is the forgery itself, not a checksum mismatch. ``header``: header members to set;
    ``head_change``: a change of the packed header (its rows as stored, body lengths in
    place of bodies), the payload's length and checksum kept right."""
    doc = read_doc(f)[1]
    if change is not None:
        change(doc)
    write_doc(f, doc, **header)
    if head_change is not None:
        raw = f.read_bytes()
        cut = raw.index(b"\n")
        head = json.loads(raw[:cut])
        head_change(head)
        f.write_bytes(json.dumps(head).encode("ascii") + raw[cut:])
        os.chmod(f, 0o600)


def rewrite_raw(f: Path, section: str, change, fix_lengths: bool = True, fix_checksum: bool = True) -> None:
    """Change the bytes of one payload section of the index ``f`` (``change(bytes) ->
    bytes``), the header's section lengths, payload length and checksum made right again
    unless told otherwise: a forged section, not a damaged file."""
    import zlib

    from wskit.builtin_plugins.rules import persist

    raw = f.read_bytes()
    cut = raw.index(b"\n")
    head = json.loads(raw[:cut])
    payload = raw[cut + 1:]
    chunks, at = [], 0
    for size in head["sections"]:
        chunks.append(payload[at:at + size])
        at += size
    i = persist._SECTIONS.index(section)
    chunks[i] = change(chunks[i])
    payload = b"".join(chunks)
    if fix_lengths:
        head["sections"] = [len(c) for c in chunks]
        head["payload"][0] = len(payload)
    if fix_checksum:
        head["payload"][1] = zlib.crc32(payload)
    f.write_bytes(json.dumps(head).encode("ascii") + b"\n" + payload)
    os.chmod(f, 0o600)


def damage(f: Path, change) -> None:
    """Change the payload bytes of ``f`` (``change(bytes) -> bytes``), header untouched."""
    raw = f.read_bytes()
    cut = raw.index(b"\n")
    f.write_bytes(raw[:cut + 1] + change(raw[cut + 1:]))
    os.chmod(f, 0o600)


def _flip(b: bytes) -> bytes:
    mid = len(b) // 2
    return b[:mid] + bytes([b[mid] ^ 0x20]) + b[mid + 1:]


def _negative(head: dict) -> None:
    sizes = head["sections"]
    sizes[1] += sizes[0] + 1
    sizes[0] = -1  # the same total, one length below zero


def _shift(head: dict) -> None:
    head["sections"][0] -= 1
    head["sections"][1] += 1  # the same total: the paths lose their last byte to the signatures


CORRUPT = {
    "truncated": lambda f: f.write_bytes(f.read_bytes()[: len(f.read_bytes()) // 2]),
    "empty": lambda f: f.write_bytes(b""),
    "not-json": lambda f: f.write_bytes(b"\xff\xfe garbage"),
    "array": lambda f: f.write_text("[]"),
    "deep": lambda f: f.write_text("[" * 100000 + "]" * 100000),
    "wrong-version": lambda f: rewrite(f, version=999),
    "wrong-format": lambda f: rewrite(f, format="other"),
    "other-root": lambda f: rewrite(f, root="/elsewhere"),
    "other-settings": lambda f: rewrite(f, lambda d: d.update(key="0" * 64)),
    "sig-outside": lambda f: rewrite(f, lambda d: (d["walk"]["paths"].append("/etc/passwd"),
                                                   d["walk"].update(sigs=d["walk"]["sigs"] + bytes(41)))),
    "sig-dotdot": lambda f: rewrite(f, lambda d: (d["walk"]["paths"].append("src/../../x"),
                                                  d["walk"].update(sigs=d["walk"]["sigs"] + bytes(41)))),
    "sigs-short": lambda f: rewrite(f, lambda d: d["walk"].update(sigs=d["walk"]["sigs"][:-2])),
    "follow-out-of-range": lambda f: rewrite(f, lambda d: d["walk"]["follow"].append(10**6)),
    "odd-bad": lambda f: rewrite(f, lambda d: d["walk"]["odd"].append([0, [1, 2, 3]])),
    "folder-outside": lambda f: rewrite(f, lambda d: (d["walk"]["folders"].append("../elsewhere"),
                                                      d["walk"]["files"].append(""), d["walk"]["dirs"].append(""),
                                                      d["walk"].update(git=d["walk"]["git"] + "0"))),
    "folder-columns-differ": lambda f: rewrite(f, lambda d: d["walk"]["files"].append("x")),
    "folder-git-not-a-flag": lambda f: rewrite(f, lambda d: d["walk"].update(git="x" * len(d["walk"]["git"]))),
    # names are a section's text in this layout: the forgery left is bytes that are not text
    "folder-names-not-strings": lambda f: rewrite_raw(f, "dirs", lambda b: b"\xff\xfe" + b),
    "candidate-dotdot": lambda f: rewrite(f, lambda d: d["walk"]["found"].append(
        ["../outside.md", "project", "", 1, "instruction", None])),
    "rule-absolute": lambda f: rewrite(f, lambda d: d["rules"].append(
        ["/etc/passwd", None, "project", "", 1, "instruction", [], "x", [], "0" * 64])),
    "bad-types": lambda f: rewrite(f, head_change=lambda h: h["rules"].append([1, 2, 3, 4, 5, 6, 7, 0, 9, 10])),
    "rule-row-short": lambda f: rewrite(f, head_change=lambda h: h["rules"][0].pop()),
    "digest-not-hex": lambda f: rewrite(f, lambda d: d["rules"][0].__setitem__(9, "z" * 64)),
    "digest-short": lambda f: rewrite(f, lambda d: d["rules"][0].__setitem__(9, "0" * 63)),
    "digest-not-a-string": lambda f: rewrite(f, lambda d: d["rules"][0].__setitem__(9, 7)),
    "bad-sig": lambda f: rewrite(f, lambda d: d["rules"][0].__setitem__(1, "zz" + d["rules"][0][1][2:])),
    "bad-diag": lambda f: rewrite(f, lambda d: d["walk"]["diags"].append(["fatal", 1, 2, 3, 4, 5, 6])),
    # the layout of this version (a header line, then the payload's sections)
    "payload-truncated": lambda f: damage(f, lambda b: b[:-1]),
    "payload-extended": lambda f: damage(f, lambda b: b + b"\0"),
    "payload-flipped": lambda f: damage(f, _flip),
    "payload-undeclared": lambda f: rewrite(f, head_change=lambda h: h.pop("payload")),
    "payload-length-huge": lambda f: rewrite(f, head_change=lambda h: h["payload"].__setitem__(0, 2**62)),
    "header-only": lambda f: f.write_bytes(f.read_bytes().split(b"\n", 1)[0]),
    "sections-missing": lambda f: rewrite(f, head_change=lambda h: h.pop("sections")),
    "sections-sum-differs": lambda f: rewrite(f, head_change=lambda h: h["sections"].__setitem__(0, 10**9)),
    "sections-negative": lambda f: rewrite(f, head_change=_negative),
    "sections-shifted": lambda f: rewrite(f, head_change=_shift),
    "paths-count-lie": lambda f: rewrite(f, head_change=lambda h: h["walk"].__setitem__("n", h["walk"]["n"] + 1)),
    "paths-count-huge": lambda f: rewrite(f, head_change=lambda h: h["walk"].__setitem__("n", 10**12)),
    "folders-count-lie": lambda f: rewrite(f, head_change=lambda h: h["walk"].__setitem__("nf", 1)),
    "paths-not-utf8": lambda f: rewrite_raw(f, "paths", lambda b: b + b"\0\xc3"),
    "nul-in-a-path": lambda f: rewrite_raw(f, "paths", lambda b: b.replace(b"src", b"s\0c", 1)),
    "git-not-ascii": lambda f: rewrite_raw(f, "git", lambda b: b"\xff" + b[1:]),
    "bodies-not-utf8": lambda f: rewrite_raw(f, "bodies", lambda b: b"\xff" + b),
    "body-length-lie": lambda f: rewrite(f, head_change=lambda h: h["rules"][0].__setitem__(7, h["rules"][0][7] + 1)),
    "body-length-negative": lambda f: rewrite(f, head_change=lambda h: h["rules"][0].__setitem__(7, -1)),
    "body-length-huge": lambda f: rewrite(f, head_change=lambda h: h["rules"][0].__setitem__(7, 2**62)),
    "walk-columns-without-walk": lambda f: rewrite(f, head_change=lambda h: h.update(walk=None)),
    "walk-not-an-object": lambda f: rewrite(f, head_change=lambda h: h.update(walk=[1])),
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
        d["rules"].append(["src/a/AGENTS.md", sig, "project", "src/a", 3, "instruction", [], "forged", [], "0" * 64])
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
    rewrite(f, lambda d: d.update(walk=None, rules=[]), version=persist.VERSION - 1)
    rules, diags, refused = answer(root, home)
    assert not refused and rules == answer(root, home, index=False)[0]
    assert read_doc(f)[0]["version"] == persist.VERSION


def test_a_version_3_index_one_json_document_is_a_miss_and_rewritten(tmp_path):
    """The whole-JSON file of the previous format (no header line, no payload) left by an
    earlier wskit is not used and not reported: the load reads afresh and writes this layout."""
    from wskit.builtin_plugins.rules import persist

    root, home, f = prepared(tmp_path)
    head, doc = read_doc(f)
    old = {"format": head["format"], "version": 3, "root": head["root"], "key": doc["key"],
           "walk": None, "rules": [[r[0], r[1], r[2], r[3], r[4], r[5], r[6], "stale v3 body", r[8]]
                                   for r in doc["rules"]]}
    f.write_text(json.dumps(old, separators=(",", ":")))
    os.chmod(f, 0o600)
    rules, _diags, refused = answer(root, home)
    assert not refused and rules == answer(root, home, index=False)[0]
    assert all(r[5] != "stale v3 body" for r in rules)
    assert read_doc(f)[0]["version"] == persist.VERSION == 4


@pytest.mark.parametrize("name, reason", [
    ("payload-truncated", "truncated or extended"), ("payload-extended", "truncated or extended"),
    ("payload-flipped", "checksum"), ("header-only", "truncated or extended"),
    ("payload-length-huge", "truncated or extended"), ("payload-undeclared", "no payload length"),
    ("sections-sum-differs", "bad sections"), ("sections-negative", "bad sections"),
    ("paths-count-huge", "bad paths"), ("nul-in-a-path", "bad paths"), ("paths-not-utf8", "paths not UTF-8"),
    ("body-length-lie", "bad rule body length"), ("body-length-huge", "bad rule body length"),
    ("walk-columns-without-walk", "walk columns without a walk"),
])
def test_each_layout_check_says_what_it_refused(tmp_path, name, reason):
    """The refusals of this layout name their reason in the warning (and come from the check
    meant: a damaged file from the length and checksum, a forged one from the section and
    row checks)."""
    root, home, f = prepared(tmp_path)
    CORRUPT[name](f)
    got = answer(root, home)
    assert got[:2] == fresh(root, home)
    refused_names(got, f)
    assert any(reason in d.message for d in got[2]), [d.message for d in got[2]]


def test_a_hard_link_to_the_index_is_never_written_through(tmp_path):
    """A hard link to the index made elsewhere keeps the old bytes when the index is
    rewritten (a new file is renamed into place; nothing is written into the linked inode),
    and the link's bytes are never read back as the index."""
    root, home, f = prepared(tmp_path)
    elsewhere = tmp_path / "linked-index"
    os.link(f, elsewhere)
    before = elsewhere.read_bytes()
    (root / "AGENTS.md").write_text("root rules, edited so the index is written again\n")
    age(root)
    got = answer(root, home)
    assert got[:2] == fresh(root, home) and not got[2]
    assert elsewhere.read_bytes() == before
    assert f.read_bytes() != before and os.stat(f).st_ino != os.stat(elsewhere).st_ino
