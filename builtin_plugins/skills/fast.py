"""The common skill in one pass: open, read, parse and build.

Most ``SKILL.md`` files of a skills folder are regular, singly linked files whose
frontmatter is a handful of ``key: value`` lines holding only specification
fields, all clean. For those, :func:`one` does in one function what
:func:`wskit.builtin_plugins.skills.discovery._read_one` does through five layers (the safe read of
:func:`wskit.fs.fdwalk.read_head_bytes_in`, :func:`wskit.formats.frontmatter.flat_head`,
:func:`wskit.formats.flatyaml.load_flat_lines`, :func:`wskit.builtin_plugins.skills.discovery._clean_flat_skill`,
:func:`wskit.models.construct_valid`): the same opens and checks on the same
descriptors with the same refusals, the same bytes read (the general path's reads
taken from one read of the file's first KiB while it lasts), the same change note,
the flat block matched by one regular expression over the block instead of one per
line, and the two models built from per-folder templates
(:func:`wskit.values.frozen.valid_builder`).

The seam: :mod:`wskit.builtin_plugins.skills.discovery` calls :func:`lane` once per
skills folder and :func:`one` per skill; this module uses only the names the general
path's modules give it for that (``head_done``, ``close_end``, ``resolves_to_str``,
``stock_constructors``, ``implicit_resolvers``, ``tools_of``, ``valid_builder``; see
docs/architecture.md, "Fast paths").

Anything else is handed back, never decided here: a refusal or odd file type
(``None``: :func:`wskit.builtin_plugins.skills.discovery._read_one` reads it again and names the
refusal), or a head that is not of that shape (the bytes read: the general build
of :func:`wskit.builtin_plugins.skills.discovery._read_one` parses them, diagnostics included). Reuse
across reloads stays around it (:func:`wskit.builtin_plugins.skills.discovery._load_one`). A
skill built here has no diagnostic, exactly as the general path would build it;
``tests/builtin_plugins/skills/test_discovery_reference.py`` compares the whole discovery with
a reference loader without the fast paths (``skills_reference.py`` beside it),
and ``tests/builtin_plugins/skills/test_fast.py`` this module's
block reading with :func:`wskit.formats.flatyaml.load_flat_lines`.
"""

from __future__ import annotations

import os
import re

from wskit import changes
from wskit.builtin_plugins.skills.lint import SPEC_NAME, tools_of
from wskit.builtin_plugins.skills.spec import MAX_COMPATIBILITY, MAX_DESCRIPTION, SPEC_FIELDS
from wskit.formats.flatyaml import implicit_resolvers, resolves_to_str, stock_constructors
from wskit.formats.frontmatter import MAX_FRONTMATTER_BYTES, close_end, head_done
from wskit.fs import descriptors
from wskit.models import Provenance, Scope
from wskit.resources.skill import Skill
from wskit.util.digest import openssl_sha256
from wskit.values.frozen import valid_builder

_DIR_FLAGS = descriptors.O_BASE | descriptors.O_DIRECTORY | descriptors.O_NOFOLLOW  # as fdwalk.open_child
_FILE_FLAGS = descriptors.O_BASE | descriptors.O_NONBLOCK | descriptors.O_NOFOLLOW  # as descriptors.open_in, no links
_S_IFMT, _S_IFREG = 0o170000, 0o100000
_MAX = MAX_FRONTMATTER_BYTES
_MIN_STEP = descriptors.MIN_HEAD_STEP
#: bytes of a SKILL.md read at once, the general path's reads then taken from them:
#: a frontmatter of up to ~1 KiB (a description at its 1,024-character limit) in one read
_PREFETCH = 1024

#: every non-empty line of a flat block: what ``flatyaml._LINE.fullmatch`` accepts,
#: found for the whole block at once (``re.M``: a match is one whole line)
PAIR = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]{0,127}): +([^\s\-?:,\[\]{}#&*!|>'\"%@`].*)$", re.M)
#: bytes a clean block may hold: printable ASCII but "[" and "{", and the line feed
_KEEP = bytes(b for b in range(0x20, 0x7F) if b not in b"[{") + b"\n"
_UNSET = frozenset({"kind"})  # as skillscan: the field left to its default
#: the specification's fields :func:`one` builds (a ``metadata`` text takes the general path)
_FAST_KEYS = SPEC_FIELDS - {"metadata"}
#: keys that resolve to strings under PyYAML's implicit resolvers (checked by :func:`lane`)
_STR_KEYS = SPEC_FIELDS


class Lane:
    """One skills folder's constants for :func:`one` (built by :func:`lane`)."""

    __slots__ = ("fd", "shown_pre", "rel_pre", "dir_pre", "id_pre", "note", "prov", "skill",
                 "make_prov", "make_skill")


def lane(folder, rel_dir: str) -> Lane | None:
    """The constants :func:`one` needs for the folder being loaded, or None when
    this folder's skills must all take the general path: no held descriptor
    (links followed), an admin source (size limit), source fields of unusual
    types, a folder path ``read_frontmatter`` would refuse, or PyYAML's
    constructors or resolvers changed. A lane notes what it reads to the
    recordings active when it was made (through one :class:`wskit.changes.Notes`,
    the recordings read once per folder instead of once per file).

    :param folder: the :class:`wskit.builtin_plugins.skills.discovery._Folder` being loaded.
    :param rel_dir: its path relative to ``source.base`` (``/`` separators).
    """
    if (folder.fd is None or folder.limit is not None or not folder.trusted or folder.drive
            or not stock_constructors() or not all(resolves_to_str(k) for k in _STR_KEYS)):
        return None
    out = Lane()
    out.fd = folder.fd
    out.shown_pre = folder.shown_pre
    out.rel_pre = "" if rel_dir in ("", ".") else rel_dir + "/"
    out.dir_pre = folder.base_pre + out.rel_pre
    plugin = folder.plugin
    out.id_pre = f"plugin:{plugin}:" if plugin else f"{folder.scope.value}:"
    out.note = changes.Notes() if changes.recording_active() else None
    out.prov = {"scope": folder.scope, "source_root": folder.base, "path": "", "plugin": plugin, "sha256": ""}
    out.skill = {
        "id": "", "name": "", "kind": "skill", "description": "", "provenance": None, "display_name": "",
        "directory": "", "allowed_tools": None, "argument_hint": None, "user_invocable": True,
        "disable_model_invocation": False, "model": None, "license": None, "compatibility": None,
        "when_to_use": None, "arguments": (), "metadata": None, "extra": None, "follow_links": False,
        "max_file_bytes": None,
    }
    prov = valid_builder(Provenance)
    skill = valid_builder(Skill, _UNSET)
    if prov is None or skill is None or tuple(out.prov) != prov[0] or tuple(out.skill) != skill[0] \
            or folder.scope.__class__ is not Scope:
        return None  # the models changed shape: construct_valid's contract no longer holds here
    out.make_prov, out.make_skill = prov[1], skill[1]
    return out


_open, _close, _stat, _fstat, _read = os.open, os.close, os.stat, os.fstat, os.read
_spec_name = SPEC_NAME.match
_pairs = PAIR.findall


def one(lane: Lane, slug: str):
    """Load ``<slug>/SKILL.md`` below the lane's folder when it is the common case.

    :returns: the :class:`~wskit.resources.skill.Skill` (no diagnostic); or the
        head read, ``(raw, size, complete)`` as :func:`wskit.fs.fdwalk.read_head_bytes_in`
        returns it, for :func:`wskit.builtin_plugins.skills.discovery._read_one` to build (the change
        note is made); or None before anything is noted or read (a name that is
        not a specification name, a missing file, a link, a FIFO, a device, a
        folder, a hard link, a file swapped while opening): the general path then
        opens it again and names the refusal.
    :raises OSError: a failing ``read``, as ``read_head_bytes_in`` lets it through.
    """
    if _spec_name(slug) is None:  # also: no ':', no control or hidden character, no '\\'
        return None
    try:
        d = _open(slug, _DIR_FLAGS, dir_fd=lane.fd)
    except OSError:
        return None
    try:
        # stat first: a FIFO or device node is never opened (descriptors.open_in)
        pre = _stat("SKILL.md", dir_fd=d, follow_symlinks=False)
        if pre.st_mode & _S_IFMT != _S_IFREG:
            return None
        f = _open("SKILL.md", _FILE_FLAGS, dir_fd=d)
    except OSError:
        return None
    finally:
        _close(d)
    try:
        st = _fstat(f)
        if (st.st_mode & _S_IFMT != _S_IFREG or st.st_ino != pre.st_ino or st.st_dev != pre.st_dev
                or st.st_nlink > 1):
            return None
        if lane.note is not None:
            lane.note.stat(f"{lane.shown_pre}{slug}/SKILL.md", st)
        # the reads of descriptors.read_head_raw with markdown.head_done, the close
        # found inline for a head that starts with "---\n"; those reads are taken from
        # one read of the file's first _PREFETCH bytes while it lasts (one system call
        # instead of two for a common frontmatter; the same bytes for a file that does
        # not change meanwhile, which the general path's reads assume as well)
        size = st.st_size
        complete = None
        end = None
        q = -1
        pre = _read(f, _PREFETCH)
        avail = len(pre)
        eof = avail < _PREFETCH  # a short read of a regular file: its end
        buf = pre[:256]
        pos = len(buf)
        if not buf:
            complete = True
        else:
            start = 4  # no "---" starts before it (a head that starts with "---\n")
            while True:
                if buf[:4] == b"---\n":
                    q = buf.find(b"---", start)
                    if q >= 0:
                        if buf[q - 1] == 10 and buf[q + 3:q + 4] == b"\n":
                            end = q + 4
                            break
                        end = close_end(buf)
                        if end is not None:
                            q = buf.rfind(b"---", 0, end)  # the close: only blanks and its line end follow
                            break
                    else:
                        start = len(buf) - 2 if len(buf) > 6 else 4
                elif head_done(buf):
                    break
                n = len(buf)
                if n >= _MAX:
                    break
                step = n >> 3 if n >> 3 > _MIN_STEP else _MIN_STEP
                want = step if step < _MAX - n else _MAX - n
                if pos < avail or eof:
                    chunk = pre[pos:pos + want]
                    if len(chunk) < want and not eof:
                        chunk += _read(f, want - len(chunk))
                else:
                    chunk = _read(f, want)
                pos += len(chunk)
                if not chunk:
                    complete = True
                    break
                buf += chunk
        if complete is None:
            complete = len(buf) >= size
    finally:
        _close(f)
    if end is None:
        return buf, size, complete
    # markdown.flat_head: the head cut after its closing line unless the whole file was read
    raw = buf if complete else buf[:end]
    if 13 in raw or (complete and not raw.isascii()):  # a carriage return, or a body not ASCII
        return buf, size, complete
    # flatyaml.block_precheck (printable ASCII, one ": " per non-empty line, no " #")
    # and skillscan._clean_flat_skill's "no flow collection" ("[", "{")
    block = raw[4:q]
    if block.translate(None, _KEEP):
        return buf, size, complete
    fields = flat_fields(block.decode("ascii"))
    if fields is None or not _FAST_KEYS.issuperset(fields):
        return buf, size, complete
    get = fields.get
    name = get("name")
    desc = get("description")
    comp = get("compatibility")
    lic = get("license")
    tools = get("allowed-tools")
    # skillscan._clean_flat_skill's checks (ASCII values: no hidden character)
    if name is None or desc is None or name.strip() != slug:
        return buf, size, complete
    description = desc.strip()
    if not description or len(desc) > MAX_DESCRIPTION or (comp is not None and len(comp) > MAX_COMPATIBILITY):
        return buf, size, complete
    allowed = None
    if tools is not None:
        allowed, problem = tools_of(tools)
        if problem is not None:
            return buf, size, complete
    h = openssl_sha256().copy()
    h.update(raw)
    values = lane.prov.copy()
    values["path"] = f"{lane.rel_pre}{slug}/SKILL.md"
    values["sha256"] = h.hexdigest()
    prov = lane.make_prov(values)  # construct_valid without its key check (the template's, checked in lane)
    values = lane.skill.copy()
    values["id"] = lane.id_pre + slug
    values["name"] = slug
    values["description"] = description
    values["provenance"] = prov
    values["display_name"] = slug
    values["directory"] = lane.dir_pre + slug
    values["allowed_tools"] = allowed
    if lic is not None:
        values["license"] = lic.strip()
    if comp is not None:
        values["compatibility"] = comp.strip()
    values["metadata"] = {}
    values["extra"] = {}
    return lane.make_skill(values)


def flat_fields(text: str) -> dict[str, str] | None:
    """The mapping :func:`wskit.formats.flatyaml.load_flat_lines` reads from the block
    ``text`` when its precheck holds (:func:`wskit.formats.flatyaml.block_precheck`):
    every non-empty line ``key: value`` with one ``": "``, no ``" #"``; or None.

    :param text: the block between the ``---`` lines; the caller checked it holds
        only printable ASCII and line feeds.
    :returns: key → plain string value, or None: not of that shape, or a key
        repeated (nothing is known then; the general path names a repeated key).
    """
    n = text.count(": ")
    pairs = _pairs(text)
    if not pairs or len(pairs) != n or " #" in text or (n != text.count("\n") and n != _nonempty(text)):
        return None
    out = {}
    resolvers = implicit_resolvers().get  # read now: adding a resolver replaces the dict
    for key, value in pairs:
        if value[-1] == " ":
            value = value.rstrip(" ")  # not part of a plain scalar
        # a value ending in ':' is not flat; key and value must resolve to strings
        if (value[-1] == ":" or (resolvers(value[0]) and not resolves_to_str(value))
                or (key not in _STR_KEYS and resolvers(key[0]) and not resolves_to_str(key))):
            return None
        out[key] = value
    if len(out) != len(pairs):
        return None  # a repeated key (yaml-duplicate-key on the general path)
    return out


def _nonempty(block: str) -> int:
    """The number of non-empty lines of ``block``."""
    lines = block.split("\n")
    return len(lines) - lines.count("")
