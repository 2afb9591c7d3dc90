"""The rule catalog's persistent index: the project walk and the parsed rule files of a
project, kept across processes (:mod:`wskit.fs.index`; docs/performance.md, "The
persistent index").

What is kept is exactly what a load already remembers for a reload inside one process
(:func:`wskit.changes.remember`): the whole walk's result with the signature of every
folder and file it depended on (:func:`~wskit.builtin_plugins.rules.projectwalk.project_walk`),
and each rule file's :class:`~wskit.resources.rule.RuleFile` with its signature. A new
process offers it to its first load as the previous load's memo
(:func:`wskit.changes.offering`), so the checks are the in-process reload's: the walk is
taken whole only when every recorded folder and file has its recorded ``stat``
signature (one ``stat`` each, no listing), a rule only when its file has; anything else
is read again. Racy entries (modified less than 2 s before they were recorded) are
never remembered, so never written.

Untrusted on read: besides :func:`wskit.fs.index.read_index`'s checks, every entry is
type-checked, every path must lie inside the project (no ``..``, no absolute rule path),
and the settings fingerprint must match; any failure refuses the whole index (an
``index-refused`` warning naming the file) and the load reads the project afresh.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
from collections.abc import Iterator

from wskit import changes
from wskit.fs import index as _index
from wskit.models import Diagnostic

#: Format version of the rule index (bump on any change of what is stored).
VERSION = 4  # 4: header line + raw columns (3: one JSON document; the walk answers a ".gitignore" "*/" line as git does)
_KIND = "rules"
_SCRATCH = "wskit.builtin_plugins.rules.persist"
#: the last index decoded by this process: ``(path, key) -> (file signature, doc, memo)``
_DECODED: dict = {}
_LEVELS = frozenset({"error", "warning", "info"})
_HEX = "0123456789abcdef"


def fingerprint(key: tuple) -> str:
    """A digest of the walk key (conventions, host folder, :class:`RuleSettings`): an index
    made under other settings is not used (a ``repr`` that differs between processes only
    makes a miss)."""
    from wskit.util.digest import sha256_hex

    return sha256_hex(repr(key).encode("utf-8", "surrogateescape"))


class _Bad(Exception):
    pass


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection in this block (restored as it was after it).

    Decoding and restoring an index makes tens of thousands of long-lived containers and
    no reference cycle: every automatic collection on the way only traverses them again
    (≈ 10 ms of a 2 MB index's ≈ 15 ms decode). Another thread that turns the collector
    on or off meanwhile is overridden at the end of the block; that changes timing only."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _sig_out(sig):
    if sig is None:
        return None
    return sig.hex() if type(sig) is bytes else list(sig)


def _sig_in(v):
    if v is None:
        return None
    if type(v) is str and len(v) == 82:
        try:
            return bytes.fromhex(v)
        except ValueError:
            raise _Bad("bad signature") from None
    if type(v) is list and len(v) == 6 and all(type(x) is int for x in v):
        return tuple(v)
    raise _Bad("bad signature")


def _diag_out(d: Diagnostic) -> list:
    return [d.level, d.code, d.message, d.path, d.line, d.plugin, d.hook]


def _s(v, none: bool = False):
    if type(v) is str or (none and v is None):
        return v
    raise _Bad("not a string")


def _diag_in(v) -> Diagnostic:
    if type(v) is not list or len(v) != 7 or v[0] not in _LEVELS:
        raise _Bad("bad diagnostic")
    line = v[4]
    if line is not None and (type(line) is not int or line < 0):
        raise _Bad("bad diagnostic line")
    return Diagnostic(level=v[0], code=_s(v[1]), message=_s(v[2]), path=_s(v[3], True), line=line,
                      plugin=_s(v[5], True), hook=_s(v[6], True))


def _rels_ok(rels: list) -> None:
    """Every one of ``rels`` a relative path inside the project ("" is the root): a string,
    not absolute, no NUL, no empty, ``.`` or ``..`` component (any other character, a
    newline included, is a name's own). Four passes in C over the NUL-separated join of
    all of them instead of a call per path (an index holds a path per folder and several
    per rule file). :raises _Bad: otherwise."""
    nonempty = list(filter(None, rels))
    if len(nonempty) + rels.count("") != len(rels):
        raise _Bad("bad path")  # a false value that is not "" (None, 0, [])
    if not nonempty:
        return  # nothing, or only the root
    try:
        joined = "\0" + "\0".join(nonempty) + "\0"  # a TypeError for anything but strings
    except TypeError:
        raise _Bad("bad path") from None
    if joined.count("\0") != len(nonempty) + 1:
        raise _Bad("bad path")  # a NUL inside a path
    # every component now lies between two NULs: an empty one (absolute path, "//",
    # trailing "/") shows as two NULs in a row, "." and ".." as themselves
    parts = joined.replace("/", "\0")
    if "\0\0" in parts or "\0.\0" in parts or "\0..\0" in parts:
        raise _Bad("path outside the project")


def _names(v) -> tuple[str, ...]:
    if type(v) is not str:
        raise _Bad("bad names")
    return tuple(v.split("/")) if v else ()


class _Items(dict):
    """Memo items restored from an index whose values are built on first ask.

    Everything in the document is checked when it is read (a bad entry refuses the whole
    index); what only costs time to build — each rule's :class:`RuleFile`, the walk's
    folder memos — is built by :meth:`get` for the keys a load asks about (a lazy
    catalog's chain asks for a few rule files, ``inspect`` for all). The previous memo is
    only read through ``get`` (:mod:`wskit.changes`). A builder that fails is a miss: the
    load reads that file afresh."""

    __slots__ = ("pending", "rules")

    def __init__(self) -> None:
        super().__init__()
        #: key -> zero-argument function returning the item ``(signature, value)``
        self.pending: dict = {}
        #: how many rule items the index holds (built or not)
        self.rules = 0

    def keys(self):
        """Every key held, built or pending (a set): :func:`wskit.changes.adopt` intersects
        it with the walk's 4,500 paths in C instead of asking :meth:`get` about each."""
        return dict.keys(self) | self.pending.keys()

    def get(self, key, default=None):
        """The item of ``key``, built now when pending; ``default`` when there is none."""
        got = dict.get(self, key, _NONE)
        if got is not _NONE:
            return got
        # popped before building: a second thread asking meanwhile gets a miss (it reads the
        # file itself), never a half-built item
        build = self.pending.pop(key, None)
        if build is None:
            return default
        try:
            got = build()
        except Exception:  # checked on read already; a value a model refuses is a miss, never a failure
            return default
        self[key] = got
        return got


_NONE = object()


def _restore(doc: dict, root: str, key: tuple, settings) -> _Items:
    """The memo items ``doc`` holds, checked now (:class:`_Bad` on anything unexpected) and
    built on first ask (:class:`_Items`)."""
    from wskit.builtin_plugins.rules.rulefiles import Candidate
    from wskit.builtin_plugins.rules.walk import _WHOLE_NAMESPACE

    if doc.get("key") != fingerprint(key):
        raise _Bad("made under other settings")
    prefix = root if root.endswith(os.sep) else root + os.sep
    items = _Items()
    walk = doc.get("walk")
    if walk is not None:
        if type(walk) is not dict:
            raise _Bad("bad walk")
        sigs = _sigs_in(walk, root, prefix)
        found = {}
        rels: list = []  # every path of the candidates, checked at once below
        for e in walk.get("found", ()):
            if type(e) is not list or len(e) != 6 or type(e[3]) is not int:
                raise _Bad("bad candidate")
            c = Candidate(e[0], _s(e[1]), e[2], e[3], _s(e[4]), e[5])
            if c.source not in ("project", "local") or c.file_kind not in ("instruction", "rule"):
                raise _Bad("bad candidate")
            rels += (c.rel, c.scope_dir) if c.target is None else (c.rel, c.scope_dir, c.target)
            found[c.rel] = c
        _rels_ok(rels)
        diags = tuple(_diag_in(d) for d in walk.get("diags", ()))
        columns = _folders_in(walk)
        root_sig = sigs.get((root, False))
        if root_sig is None:
            raise _Bad("walk without its root")
        items.pending[(root, False, _WHOLE_NAMESPACE)] = (
            lambda: (root_sig, (key, sigs, found, diags, _folders(*columns))))
    rels = []  # every path of the rules, checked at once below
    for e in doc.get("rules", ()):
        if type(e) is not list or len(e) != 10:
            raise _Bad("bad rule")
        rel, sig, source, scope_dir, priority, kind, patterns, body, rdiags, digest = e
        rels += (rel, scope_dir)
        if not rel or source not in ("project", "local") or kind not in ("instruction", "rule"):
            raise _Bad("bad rule")
        if type(priority) is not int or type(patterns) is not list or type(body) is not str or not body:
            raise _Bad("bad rule")
        pats = tuple(_s(p) for p in patterns)
        if type(rdiags) is not list or type(digest) is not str or len(digest) != 64 or digest.strip(_HEX):
            raise _Bad("bad rule")
        fdiags = tuple(_diag_in(d) for d in rdiags)
        items.pending[(prefix + rel, False)] = functools.partial(  # rel: a non-empty relative path, checked below
            _rule_item, root, settings, rel, _sig_in(sig), source, scope_dir, priority, kind, pats, body, fdiags,
            digest)
        items.rules += 1
    _rels_ok(rels)
    return items


_SIG_BYTES = 41  # a packed signature (wskit.changes): one byte of type, five 8-byte fields
_SIG_HEX = 2 * _SIG_BYTES


def _sigs_out(sigs: dict, root: str, cut: int) -> dict:
    """The walk's signatures as columns: ``paths`` (relative, ``""`` the root), ``sigs``
    (every packed signature, :data:`_SIG_BYTES` each, as one ``bytes``), ``follow`` (the
    indices of paths compared following links) and ``odd`` (``[index, None or six ints]``
    for an absent path or a signature that did not pack; its slot is zeros). One byte
    string and a list of strings decode far faster than a small list per path."""
    paths, packed, follow, odd = [], [], [], []
    zero = bytes(_SIG_BYTES)
    for i, ((p, f), sig) in enumerate(sigs.items()):
        paths.append(p[cut:] if p != root else "")
        if f:
            follow.append(i)
        if type(sig) is bytes and len(sig) == _SIG_BYTES:
            packed.append(sig)
        else:
            packed.append(zero)
            odd.append([i, None if sig is None else list(sig)])
    return {"paths": paths, "sigs": b"".join(packed), "follow": follow, "odd": odd}


def _sigs_in(walk: dict, root: str, prefix: str) -> dict:
    """The checked ``(path, follow) -> signature`` of :func:`_sigs_out`'s columns."""
    paths, blob, follow, odd = walk.get("paths"), walk.get("sigs"), walk.get("follow"), walk.get("odd")
    if type(paths) is not list or type(blob) is not bytes or type(follow) is not list or type(odd) is not list:
        raise _Bad("bad walk signatures")
    n = len(paths)
    if len(blob) != _SIG_BYTES * n:
        raise _Bad("bad walk signatures")
    _rels_ok(paths)
    step = _SIG_BYTES
    vals: list = [blob[i:i + step] for i in range(0, len(blob), step)]
    follows = [False] * n
    for i in follow:
        if type(i) is not int or not 0 <= i < n:
            raise _Bad("bad walk signatures")
        follows[i] = True
    for e in odd:
        if type(e) is not list or len(e) != 2 or type(e[0]) is not int or not 0 <= e[0] < n:
            raise _Bad("bad walk signatures")
        vals[e[0]] = _sig_in(e[1])
    full = list(map(prefix.__add__, paths))  # in C; the root ("") is mostly the first path
    if "" in paths:
        for i, p in enumerate(paths):
            if not p:
                full[i] = root
    return dict(zip(zip(full, follows), vals))


def _folders_out(folders: list) -> dict:
    """The walk's folders as columns: ``folders`` (relative paths, walk order), ``files``
    and ``dirs`` (each folder's names joined by ``/``), ``git`` (``"1"`` per folder holding
    a ``.git`` entry, else ``"0"``)."""
    return {"folders": [rel for rel, _m in folders], "files": ["/".join(m[6]) for _r, m in folders],
            "dirs": ["/".join(m[2]) for _r, m in folders], "git": "".join("1" if m[7] else "0" for _r, m in folders)}


def _folders_in(walk: dict) -> tuple:
    """:func:`_folders_out`'s columns, checked: four columns of one length, strings only
    (:func:`_unpack` makes every column of a section's text), every folder a path inside
    the project (most are among the checked signature paths)."""
    rels, files, dirs, git = walk.get("folders"), walk.get("files"), walk.get("dirs"), walk.get("git")
    if type(rels) is not list or type(files) is not list or type(dirs) is not list or type(git) is not str:
        raise _Bad("bad folder")
    if not len(rels) == len(files) == len(dirs) == len(git) or git.strip("01"):
        raise _Bad("bad folder")
    known = set(walk["paths"])  # checked by _sigs_in
    if not known.issuperset(rels):  # in C; a folder is normally among the signature paths
        _rels_ok([r for r in rels if r not in known])
    return rels, files, dirs, git


def _folders(rels: list, files: list, dirs: list, git: str) -> list:
    """The walk's folder memos from their checked columns: the memo's shape (walk.py
    ``_list``) as a tuple sharing one empty ``by``; only :meth:`ProjectWalker.listing` and
    :func:`save` read a restored memo (items 2, 6 and 7)."""
    from wskit.builtin_plugins.rules.walk import _MEMO_TAG, _NO_ENTRIES

    tag, none = _MEMO_TAG, _NO_ENTRIES
    with _collector_paused():
        return [(rel, (tag, none, tuple(d.split("/")) if d else (), False, None, (),
                       tuple(f.split("/")) if f else (), g == "1")) for rel, f, d, g in zip(rels, files, dirs, git)]


#: the payload's sections, in file order: the walk's columns (:func:`_sigs_out`,
#: :func:`_folders_out`) and the rule bodies
_SECTIONS = ("paths", "sigs", "folders", "files", "dirs", "git", "bodies")
#: text sections are UTF-8 with lone surrogates passed through (an undecodable name is a
#: surrogate-escaped ``str``): every ``str`` round-trips
_TEXT = "surrogatepass"


def _pack(doc: dict) -> tuple[dict, bytes]:
    """The index file's header and payload of the document ``doc`` (what :func:`save`
    builds: ``key``, ``walk`` columns, ``rules`` rows with their bodies).

    The header (JSON) keeps the small parts: ``key``; of the walk, ``n`` and ``nf`` (how
    many paths and folders), ``follow``, ``odd``, ``found`` and ``diags``; each rule row
    with its body's length in characters in place of the body; ``sections``, the byte
    length of each of :data:`_SECTIONS`. The payload is those sections one after the
    other: the walk's paths, folders and each folder's ``files`` and ``dirs`` joined by
    NUL (no name holds one), the packed signatures as they are, ``git`` as ASCII, and
    every rule body joined. :func:`_unpack` is its inverse."""
    walk = doc.get("walk")
    texts: list[bytes]
    if walk is None:
        head_walk = None
        texts = [b""] * 6
    else:
        head_walk = {"n": len(walk["paths"]), "nf": len(walk["folders"]), "follow": walk["follow"],
                     "odd": walk["odd"], "found": walk["found"], "diags": walk["diags"]}
        texts = ["\0".join(walk["paths"]).encode("utf-8", _TEXT), walk["sigs"],
                 "\0".join(walk["folders"]).encode("utf-8", _TEXT), "\0".join(walk["files"]).encode("utf-8", _TEXT),
                 "\0".join(walk["dirs"]).encode("utf-8", _TEXT), walk["git"].encode("ascii")]
    rules = doc["rules"]
    texts.append("".join(r[7] for r in rules).encode("utf-8", _TEXT))
    head = {"key": doc["key"], "walk": head_walk, "rules": [[*r[:7], len(r[7]), *r[8:]] for r in rules],
            "sections": [len(t) for t in texts]}
    return head, b"".join(texts)


def _column(raw: bytes, n, what: str) -> list[str]:
    """The ``n`` strings of one NUL-joined text section. :raises _Bad: not UTF-8, or not
    exactly ``n`` of them."""
    if type(n) is not int or n < 0:
        raise _Bad(f"bad {what} count")
    if not n:
        if raw:
            raise _Bad(f"bad {what}")
        return []
    try:
        got = raw.decode("utf-8", _TEXT).split("\0")
    except UnicodeDecodeError:
        raise _Bad(f"{what} not UTF-8") from None
    if len(got) != n:
        raise _Bad(f"bad {what}: {len(got)}, not {n}")
    return got


def _unpack(head: dict, payload: bytes) -> dict:
    """The document of an index file's ``head`` and ``payload`` (:func:`_pack`'s
    inverse), its layout checked: section lengths that add up to the payload, text
    sections of valid UTF-8 holding as many entries as the header counts, rule bodies whose
    lengths add up to their section. The entries themselves are checked by :func:`_restore`.
    One decode and one split per section: no object per row beyond its string.
    :raises _Bad: otherwise."""
    sizes = head.get("sections")
    if (type(sizes) is not list or len(sizes) != len(_SECTIONS) or not all(type(x) is int and x >= 0 for x in sizes)
            or sum(sizes) != len(payload)):
        raise _Bad("bad sections")
    chunks, at = [], 0
    for size in sizes:
        chunks.append(payload[at:at + size])
        at += size
    hw = head.get("walk")
    walk = None
    if hw is not None:
        if type(hw) is not dict:
            raise _Bad("bad walk")
        nf = hw.get("nf")
        try:
            git = chunks[5].decode("ascii")
        except UnicodeDecodeError:
            raise _Bad("bad folder") from None
        walk = {"paths": _column(chunks[0], hw.get("n"), "paths"), "sigs": chunks[1],
                "follow": hw.get("follow"), "odd": hw.get("odd"), "found": hw.get("found", []),
                "diags": hw.get("diags", []), "folders": _column(chunks[2], nf, "folders"),
                "files": _column(chunks[3], nf, "files"), "dirs": _column(chunks[4], nf, "dirs"), "git": git}
    elif any(chunks[:6]):
        raise _Bad("walk columns without a walk")
    rows = head.get("rules")
    if type(rows) is not list:
        raise _Bad("bad rules")
    try:
        text = chunks[6].decode("utf-8", _TEXT)
    except UnicodeDecodeError:
        raise _Bad("rule bodies not UTF-8") from None
    rules, at = [], 0
    for e in rows:
        if type(e) is not list or len(e) != 10 or type(e[7]) is not int or e[7] < 0:
            raise _Bad("bad rule")
        end = at + e[7]
        if end > len(text):
            raise _Bad("bad rule body length")
        rules.append([*e[:7], text[at:end], *e[8:]])
        at = end
    if at != len(text):
        raise _Bad("bad rule body length")
    return {"key": head.get("key"), "walk": walk, "rules": rules}


def _rule_item(root, settings, rel, sig, source, scope_dir, priority, kind, pats, body, diags, digest) -> tuple:
    """The memo item of one checked rule entry: ``(signature, (tag, load key, RuleFile, diagnostics))``.

    The :class:`RuleFile` and its :class:`Provenance` are built without validation
    (:func:`wskit.models.construct_valid`, through the per-class builders of
    :func:`wskit.values.frozen.valid_builder`: the keys are this function's, in
    :data:`_PROV_KEYS` / :data:`_RULE_KEYS` order, checked against the models once per
    process instead of once per row): :func:`_restore` checked every value to be exactly
    what validating it would store (strings, an int, a tuple of strings, a source and kind
    of the allowed ones), and the result equals ``RuleFile(...)`` with the same arguments
    (``tests/core/test_persistent_index.py``, the restored objects against a fresh load's).
    ``digest`` is the rule digest the index stored with the row (64 hex digits, checked),
    taken as stored like the body it was computed from when the row was written: the file
    is the user's own state, its payload checksummed; a forger able to write it can write a
    matching digest as well. Not recomputed: 350 digests of ≈ 1 KiB were ≈ 2 ms and the
    loading of OpenSSL's ``libcrypto`` (:mod:`wskit.util.digest`) of a second ``inspect``.
    """
    m = _MADE or _make_names()
    prov = m["make_prov"]({
        "scope": m["LOCAL"] if source == "local" else m["PROJECT"], "source_root": root, "path": rel,
        "plugin": None, "sha256": digest})
    rule = m["make_rule"]({
        "id": m["rule_id"](source, rel), "name": rel, "kind": m["KIND"], "description": "", "provenance": prov,
        "source": source, "scope_dir": scope_dir, "priority": priority, "patterns": pats, "body": body,
        "bytes": len(body.encode("utf-8", "surrogatepass")), "imports": (), "file_kind": kind,
        "follow_links": False, "activation": ""})
    rkey = (root, rel, source, scope_dir, priority, kind, False, settings, None)
    return sig, (m["_RULE_TAG"], rkey, rule, diags)


#: what :func:`_rule_item` builds with, imported on its first call (an index of 350 rules
#: calls it 350 times; the rule model is imported only where a rule is built)
_MADE: dict = {}


def _make_names() -> dict:
    from wskit.builtin_plugins.rules.model import rule_id
    from wskit.builtin_plugins.rules.walk import _RULE_TAG
    from wskit.models import Provenance, Scope
    from wskit.resources.rule import KIND, RuleFile
    from wskit.values.frozen import valid_builder

    prov, rule = valid_builder(Provenance, _PROV_UNSET), valid_builder(RuleFile, _RULE_UNSET)
    if prov is None or rule is None or prov[0] != _PROV_KEYS or rule[0] != _RULE_KEYS:
        raise TypeError("the rule models changed shape: construct_valid's contract no longer holds here")
    _MADE.update(rule_id=rule_id, _RULE_TAG=_RULE_TAG, make_prov=prov[1], make_rule=rule[1],
                 LOCAL=Scope.LOCAL, PROJECT=Scope.PROJECT, KIND=KIND)
    return _MADE


#: the fields :func:`_rule_item` leaves at their defaults (not in ``model_fields_set``),
#: as a fresh load's keyword construction leaves them (``discovery.load_rule_file``)
_PROV_UNSET = frozenset({"plugin"})
_RULE_UNSET = frozenset({"kind"})
#: the keys :func:`_rule_item` builds each model from, in its field order
_PROV_KEYS = ("scope", "source_root", "path", "plugin", "sha256")
_RULE_KEYS = ("id", "name", "kind", "description", "provenance", "source", "scope_dir", "priority", "patterns",
              "body", "bytes", "imports", "file_kind", "follow_links", "activation")


def previous(root: str, profile, settings, key: tuple) -> changes.Memo | None:
    """What the persistent index of ``root`` holds, as a memo to offer the current load
    (:func:`wskit.changes.offering`); None when the index is off, absent, refused, or the
    load has a previous memo of its own (an in-process reload). Read once per load. A
    refusal adds an ``index-refused`` warning naming the file to :func:`diagnostics`."""
    scratch = changes.scratch()
    if scratch is None or not _index.enabled(profile) or changes.Notes().reloading:
        return None  # outside a load, off, or an in-process reload with its own previous memo
    got = scratch.get(_SCRATCH)
    if got is not None:
        return got[0]
    memo = doc = None
    diags: list[Diagnostic] = []
    path = _index.index_path(profile.home, root, _KIND)
    try:
        sig = changes.stat_signature(str(path), False)
        hit = _DECODED.get((str(path), key))
        if hit is not None and sig is not None and hit[0] == sig:
            doc, memo = hit[1], hit[2]  # decoded already by this process (the load, then the whole catalog)
        else:
            with _collector_paused():
                got = _index.read_index(path, profile.home, root=root, version=VERSION)
                if got is not None:
                    doc = _unpack(*got)
                    memo = changes.Memo.of(_restore(doc, root, key, settings))
                if sig is not None and not changes._is_racy(sig):
                    _DECODED.clear()
                    _DECODED[(str(path), key)] = (sig, doc, memo)
    except _index.IndexRefused as err:
        diags.append(Diagnostic(level="warning", code="index-refused", path=str(err.path),
                                message=f"persistent index not used ({err.reason}); the project was read afresh"))
    except Exception as err:  # _Bad, and any value a model refuses: never the loader's failure
        doc = memo = None
        diags.append(Diagnostic(level="warning", code="index-refused", path=str(path),
                                message=f"persistent index not used ({str(err)[:120]}); the project was read afresh"))
    scratch[_SCRATCH] = (memo, doc, diags)
    return memo


def diagnostics() -> list[Diagnostic]:
    """The ``index-refused`` warnings of the current load (see :func:`previous`)."""
    scratch = changes.scratch()
    got = scratch.get(_SCRATCH) if scratch is not None else None
    return list(got[2]) if got is not None else []


def _as_offered(memo: changes.Memo, root: str, whole: tuple, cands) -> bool:
    """Whether the current load kept exactly what the index's ``memo`` offered: its walk
    item and, for every rule file of ``cands``, its rule item (or none on both sides) are
    the very objects restored from the index, and the index holds no other rule. Then the
    document :func:`save` would write is the one read."""
    from wskit.builtin_plugins.rules.walk import _WHOLE_NAMESPACE

    items = memo._items
    if items.get((root, False, _WHOLE_NAMESPACE)) is not whole:
        return False
    kept = 0
    for c in cands:
        path = os.path.join(root, c.rel)
        item = changes.remembered(path, False)
        if item is not items.get((path, False)):
            return False
        kept += item is not None
    return kept == items.rules if type(items) is _Items else kept == sum(1 for k in items if len(k) == 2)


def save(root: str, profile, settings, key: tuple, cands) -> bool:
    """Write what the current load remembered of the walk of ``root`` and of the rule files
    ``cands`` (:class:`Candidate` objects) as the persistent index, when it differs from
    what the index held. Nothing is written outside a load, for a racy walk (nothing
    remembered), or when the index is off.

    :returns: True when the file was written."""

    from wskit.builtin_plugins.rules.walk import _RULE_TAG, _WHOLE_NAMESPACE

    scratch = changes.scratch()
    if scratch is None or not _index.enabled(profile):
        return False
    whole = changes.remembered(root, False, namespace=_WHOLE_NAMESPACE)
    if whole is None or type(whole[1]) is not tuple or len(whole[1]) != 5:
        return False
    got = scratch.get(_SCRATCH)
    if got is not None and got[0] is not None and _as_offered(got[0], root, whole, cands):
        return False  # what the index holds, unchanged: not encoded again to find that out
    _key, sigs, found, wdiags, folders = whole[1]
    prefix = root if root.endswith(os.sep) else root + os.sep
    cut = len(prefix)
    if not all(p == root or p.startswith(prefix) for p, _f in sigs):
        return False  # the walk depended on something outside the project: not kept
    walk = {
        **_sigs_out(sigs, root, cut),
        "found": [[c.rel, c.source, c.scope_dir, c.priority, c.file_kind, c.target] for c in found.values()],
        "diags": [_diag_out(d) for d in wdiags],
        **_folders_out(folders),
    }
    rules = []
    for c in cands:
        item = changes.remembered(os.path.join(root, c.rel), False)
        if item is None or type(item[1]) is not tuple or len(item[1]) != 4 or item[1][0] != _RULE_TAG:
            continue
        rule, rdiags = item[1][2], item[1][3]
        rules.append([c.rel, _sig_out(item[0]), rule.source, rule.scope_dir, rule.priority, rule.file_kind,
                      list(rule.patterns), rule.body, [_diag_out(d) for d in rdiags], rule.sha256])
    doc = {"key": fingerprint(key), "walk": walk, "rules": rules}
    old = got[1] if got is not None else None
    if old is not None and all(old.get(k) == v for k, v in doc.items()):
        return False
    scratch[_SCRATCH] = (None, {**doc}, [])
    return _index.write_index(_index.index_path(profile.home, root, _KIND), profile.home, *_pack(doc),
                              root=root, version=VERSION)
