"""Frontmatter for markdown-borne resources (skills, commands, agents, styles, rules).

Lenient parsing as design §5 and reference/conventions.md §6.1 say:

- one leading BOM stripped, CRLF/CR normalised (by :func:`wskit.fs.decode_text`);
- the first line must be exactly ``---`` (trailing blanks allowed), closed by a
  ``---`` line;
- parsed with a PyYAML *safe* loader (:mod:`wskit.formats.yaml`) that refuses
  aliases (no alias-expansion bombs) and nesting deeper than :data:`MAX_DEPTH`
  (``yaml-refused``);
- leniently where Claude Code 2.1.332 is (its ``parseFrontmatter``), each with a
  warning naming the file and line, which strict validation reports as an error:
  a mapping that repeats a key keeps the last value (``yaml-duplicate-key``);
  on a YAML error, one retry after quoting values that hold any of
  ``{}[]*&#!|>%@``` or ``": "`` and turning leading tabs into two spaces each
  (``yaml-quoted-retry``);
- otherwise a ``yaml-error`` diagnostic with the file's 1-based line and
  :attr:`Frontmatter.ok` False; an opening ``---`` never closed is
  ``frontmatter-unterminated`` with the whole text as :attr:`Frontmatter.body`.
  Skills and commands load such a file anyway with no fields, as Claude Code
  does (their loaders lower the diagnostic to a warning); the other loaders
  skip it.

:func:`read_frontmatter` reads only the head of a file (until the closing
``---``), so discovery never reads bodies.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wskit import fs
from wskit.formats.flatyaml import block_precheck, load_flat, load_flat_lines
from wskit.models import Diagnostic
from wskit.util.lazyre import lazy_pattern
from wskit.values import Value

if TYPE_CHECKING:  # re-exported from wskit.formats.yaml, imported on first access (see __getattr__)
    from wskit.formats.yaml import MAX_DEPTH, err_line

__all__ = ["LENIENT_CODES", "MAX_DEPTH", "MAX_FRONTMATTER_BYTES", "Frontmatter", "err_line", "flat_head", "frontmatter_of_head",
           "parse_frontmatter", "read_frontmatter"]

#: Codes of what is read leniently, as Claude Code 2.1.332 reads it: warnings when
#: loading, errors in ``wsctl skills validate --strict`` and ``wsctl plugins validate --strict``.
LENIENT_CODES = frozenset({"yaml-duplicate-key", "yaml-quoted-retry", "yaml-error", "yaml-refused",
                           "frontmatter-unterminated", "frontmatter-not-mapping"})

#: Largest frontmatter block read during discovery, in bytes.
MAX_FRONTMATTER_BYTES = 64 * 1024

def _yamlsafe() -> Any:
    """:mod:`wskit.formats.yaml` (and PyYAML), imported when a block is not flat: the
    common frontmatter is read by :mod:`wskit.formats.flatyaml` without them (≈ 45 ms)."""
    from wskit.formats import yaml as yamlsafe

    return yamlsafe


def __getattr__(name: str) -> Any:  # PEP 562: the names re-exported from wskit.formats.yaml
    if name in ("MAX_DEPTH", "err_line"):
        return getattr(_yamlsafe(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_OPEN = lazy_pattern(globals(), "_OPEN", r"---[ \t]*\n")
_CLOSE = lazy_pattern(globals(), "_CLOSE", r"^---[ \t]*$", re.M)
#: the closing ``---`` line of a head in bytes, any line end: what follows its ``---``
_CLOSE_TAIL = lazy_pattern(globals(), "_CLOSE_TAIL", rb"[ \t]*(?:\r\n|\r|\n)")
_TEXT_CLOSE_TAIL = lazy_pattern(globals(), "_TEXT_CLOSE_TAIL", r"[ \t]*(?=\n|\Z)")


def close_end(h: bytes, pos: int = 3) -> int | None:
    """``end()`` of ``re.search(rb"(\\r\\n|\\r|\\n)---[ \\t]*(\\r\\n|\\r|\\n)", h, pos)``,
    or None: the first ``---`` line after ``pos``, with any line ends.

    Found with ``bytes.find`` of ``---`` instead: that regular expression has no
    literal prefix, so the engine tries it at every position (≈ 9 µs for a 288-byte
    head, twice per skill). The match ends where the ``---`` line's
    blanks and line end end, whichever line-end character starts it, so only the
    ``---`` (a line end just before it, at ``pos`` or later) has to be found.
    """
    find = h.find
    q = find(b"---", pos + 1)
    while q >= 0:
        if h[q - 1] in b"\r\n":
            m = _CLOSE_TAIL.match(h, q + 3)
            if m is not None:
                return m.end()
        q = find(b"---", q + 1)
    return None


def _close_line(text: str, start: int) -> tuple[int, int] | None:
    """``(m.start(), m.end())`` of ``_CLOSE.search(text, start)`` (a ``---`` line,
    LF line ends) with ``str.find`` (the expression has no literal prefix, see :func:`close_end`)."""
    find = text.find
    q = find("---", start)
    while q >= 0:
        if q == 0 or text[q - 1] == "\n":
            m = _TEXT_CLOSE_TAIL.match(text, q + 3)
            if m is not None:
                return q, m.end()
        q = find("---", q + 1)
    return None
_TOP_KEY = lazy_pattern(globals(), "_TOP_KEY", r"^([A-Za-z0-9_-]+)\s*:")
# the value starts at a non-space: with "\s+(.*" both parts could take the same
# blanks, and a 64 KiB line of blanks would take seconds to fail (quadratic backtracking)
_KEY_VALUE = lazy_pattern(globals(), "_KEY_VALUE", r"^(\s*[A-Za-z0-9_-]+\s*:\s+)(\S.*:\s.*)$")


class Frontmatter(Value):
    """Result of :func:`parse_frontmatter` (a plain class, so start-up compiles nothing:
    see :mod:`wskit.values`).

    :ivar present: the text starts with a frontmatter block.
    :ivar data: the mapping (empty when absent or unparseable; a new dict unless given).
    :ivar body: the text after the closing ``---`` line ("" when only the head was read).
    :ivar ok: False when the block exists but could not be parsed into a mapping.
    :ivar diagnostics: warnings (retry used) and errors (unparseable), with lines (a new list unless given).
    :ivar key_lines: 1-based file line of each top-level key (a new dict unless given).
    :ivar block: the raw YAML text between the ``---`` lines.
    """

    __slots__ = ("__weakref__",)
    present: bool
    data: dict[str, Any]
    body: str
    ok: bool
    diagnostics: list[Diagnostic]
    key_lines: dict[str, int]
    block: str

    def __init__(self, present: bool, data: dict[str, Any] | None = None, body: str = "", ok: bool = True,
                 diagnostics: list[Diagnostic] | None = None, key_lines: dict[str, int] | None = None,
                 block: str = "") -> None:
        self.present = present
        self.data = {} if data is None else data
        self.body = body
        self.ok = ok
        self.diagnostics = [] if diagnostics is None else diagnostics
        self.key_lines = {} if key_lines is None else key_lines
        self.block = block

    def line_of(self, key: str) -> int | None:
        """1-based file line of a top-level key, when known."""
        return self.key_lines.get(key)


def _load(text: str) -> Any:
    """The mapping of a frontmatter block: :func:`wskit.formats.flatyaml.load_flat` for a flat
    block (the same dict, no YAML parse), else :func:`wskit.formats.yaml.load` (its refusals)."""
    flat = load_flat(text)
    if flat is not None:
        return flat
    return _yamlsafe().load(text)


#: a ``key: value`` line the retry may quote (Claude Code 2.1.332: letters, ``_`` and ``-`` only)
_RETRY_LINE = lazy_pattern(globals(), "_RETRY_LINE", r"^([a-zA-Z_-]+):\s+(\S.*)$")
#: a value holding one of these is quoted by the retry (Claude Code 2.1.332's set)
_RETRY_SPECIAL = lazy_pattern(globals(), "_RETRY_SPECIAL", r"[{}\[\]*&#!|>%@`]|: ")
_LEADING_TABS = lazy_pattern(globals(), "_LEADING_TABS", r"^\t+", re.M)


def _quote_colon_values(text: str) -> str:
    """The one lenient retry, as Claude Code 2.1.332 makes it: every top-level
    ``key: value`` line whose value holds one of ``{}[]*&#!|>%@`` or ``": "``
    gets the value double-quoted (``\\`` and ``"`` escaped), unless it is quoted
    already or is a ``[...]`` that parses as a list; then leading tabs become two
    spaces each."""
    out = []
    for line in text.split("\n"):
        m = _RETRY_LINE.match(line)
        if m:
            value = m.group(2)
            quoted = len(value) > 1 and value[0] == value[-1] and value[0] in "\"'"
            flow_list = value.startswith("[") and value.endswith("]") and _is_list(value)
            if not quoted and not flow_list and _RETRY_SPECIAL.search(value):
                value = value.replace("\\", "\\\\").replace('"', '\\"')
                line = f'{m.group(1)}: "{value}"'
        out.append(line)
    return _LEADING_TABS.sub(lambda t: "  " * len(t.group()), "\n".join(out))


def _is_list(value: str) -> bool:
    """The value loads as a YAML list, with the same refusals as a block
    (:func:`wskit.formats.yaml.load`: no aliases, bounded depth)."""
    yamlsafe = _yamlsafe()
    try:
        return isinstance(yamlsafe.load(value, duplicates=True), list)
    except (yamlsafe.yaml.YAMLError, RecursionError, ValueError, TypeError):
        return False


def parse_frontmatter(text: str, path: str | None = None) -> Frontmatter:
    """Split and parse the frontmatter of already-decoded ``text``.

    :param text: decoded text (BOM stripped, LF line ends).
    :param path: file named in diagnostics.
    :returns: :class:`Frontmatter`; never raises on any input.
    """
    if not _OPEN.match(text) and text.rstrip(" \t") != "---":
        return Frontmatter(present=False, body=text)
    start = text.index("\n") + 1 if "\n" in text else len(text)
    m = _close_line(text, start)
    if m is None:
        return Frontmatter(
            present=True,
            ok=False,
            body=text,  # Claude Code reads the whole file as body
            diagnostics=[
                Diagnostic(
                    level="error",
                    code="frontmatter-unterminated",
                    path=path,
                    line=1,
                    message="frontmatter opened with '---' is never closed",
                )
            ],
        )
    block = text[start : m[0]]
    body = text[m[1] + 1 :] if m[1] < len(text) else ""
    lines = block.split("\n")
    flat = load_flat_lines(lines)
    if flat is not None:
        # a flat block's keys are its top-level keys, the same _TOP_KEY finds
        return Frontmatter(present=True, data=flat[0], body=body, block=block,
                           key_lines={k: i + 2 for k, i in flat[1].items()})
    fm = Frontmatter(present=True, body=body, block=block)
    for i, line in enumerate(lines):
        km = _TOP_KEY.match(line)
        if km:
            fm.key_lines[km.group(1)] = i + 2  # the last occurrence: its value is the one read
    DuplicateKey = _yamlsafe().DuplicateKey  # noqa: N806 - the class, as its module names it
    data, err = _try_load(block)
    if err is not None and not isinstance(err, DuplicateKey):  # that block parsed: quoting cannot help
        retried = _quote_colon_values(block)
        if retried != block:
            data2, err2 = _try_load(retried)
            if isinstance(err2, DuplicateKey):
                data2, dup = _try_load(retried, duplicates=True)
                if dup is None:
                    fm.diagnostics.append(_duplicate_warning(err2, path))
                err2 = dup
            if err2 is None:
                data, err = data2, _retry_warning(err, path)
                fm.diagnostics.append(err)
                err = None
    elif isinstance(err, DuplicateKey):
        data, dup = _try_load(block, duplicates=True)
        if dup is None:
            fm.diagnostics.append(_duplicate_warning(err, path))
        err = dup
    if err is not None:
        fm.ok = False
        fm.diagnostics.append(_yaml_diagnostic(err, path))
        return fm
    if data is None:
        data = {}
    if not isinstance(data, dict):
        fm.ok = False
        fm.diagnostics.append(
            Diagnostic(
                level="error",
                code="frontmatter-not-mapping",
                path=path,
                line=2,
                message=f"frontmatter must be a YAML mapping, not {type(data).__name__}",
            )
        )
        return fm
    fm.data = {str(k): v for k, v in data.items()}
    return fm


def _try_load(block: str, duplicates: bool = False) -> tuple[Any, Exception | None]:
    yamlsafe = _yamlsafe()
    try:
        return (yamlsafe.load(block, duplicates=True) if duplicates else _load(block)), None
    except (yamlsafe.yaml.YAMLError, RecursionError, ValueError, TypeError) as err:
        return None, err


def _retry_warning(err: Exception, path: str | None) -> Diagnostic:
    """``yaml-quoted-retry``: the block only parsed after :func:`_quote_colon_values`."""
    return Diagnostic(level="warning", code="yaml-quoted-retry", path=path, line=_line_of(_yamlsafe().err_line(err)),
                      message=f"frontmatter is not valid YAML ({_first_line(err)}); read leniently after "
                      "quoting values that hold any of {}[]*&#!|>%@` or ': ' and turning leading tabs into "
                      "spaces, as Claude Code does")


def _duplicate_warning(err: Any, path: str | None) -> Diagnostic:
    """``yaml-duplicate-key`` as a warning: the last value was read (Claude Code does the same)."""
    return Diagnostic(level="warning", code="yaml-duplicate-key", path=path, line=_line_of(err.line),
                      message=f"frontmatter repeats the key {err.key!r} (first at line {_line_of(err.first_line)}); "
                      "the last value is read, as Claude Code does")


def _yaml_diagnostic(err: Exception, path: str | None) -> Diagnostic:
    """The error diagnostic of a block that did not load: ``yaml-duplicate-key``,
    ``yaml-refused`` or ``yaml-error``, with the file's 1-based line."""
    yamlsafe = _yamlsafe()
    if isinstance(err, yamlsafe.DuplicateKey):
        code = "yaml-duplicate-key"
        message = (f"invalid YAML frontmatter: duplicate key {err.key!r} (first at line "
                   f"{_line_of(err.first_line)}); a YAML mapping may not repeat a key")
    else:
        code = "yaml-refused" if isinstance(err, yamlsafe.Refused) else "yaml-error"
        message = f"invalid YAML frontmatter: {_first_line(err)}"
    return Diagnostic(level="error", code=code, path=path, line=_line_of(yamlsafe.err_line(err)), message=message)


def _line_of(block_line: int | None) -> int | None:
    return None if block_line is None else block_line + 2  # '---' line, 1-based


def _first_line(err: Exception) -> str:
    problem = getattr(err, "problem", None)
    if problem:
        context = getattr(err, "context", None)
        cmark = getattr(err, "context_mark", None)
        where = f" (line {_line_of(cmark.line)})" if cmark is not None else ""
        return f"{context}{where}: {problem}" if context else str(problem)
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


def head_done(head: bytes) -> bool:
    """Whether ``head`` (a file's first bytes) is enough to parse its frontmatter: it does
    not start with ``---`` (after a byte-order mark), or its closing ``---`` line is in it
    (:func:`close_end`). The ``done`` test of :func:`wskit.fs.read_head` for every
    frontmatter read; :mod:`wskit.builtin_plugins.skills.fast` reads with the same test."""
    h = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    if len(h) < 4:
        return False
    if not h.startswith(b"---"):
        return True
    return close_end(h) is not None


def read_frontmatter(
    base: str | Path,
    rel: str,
    *,
    follow_links: bool = False,
    max_bytes: int = MAX_FRONTMATTER_BYTES,
) -> tuple[Frontmatter, fs.ReadResult]:
    """Read and parse only the frontmatter of ``base/rel``.

    :returns: the parsed :class:`Frontmatter` (``body`` empty unless the whole
        file was read) and the :class:`~wskit.fs.ReadResult` of the head;
        ``result.raw`` are the bytes the frontmatter was built from.
    :raises wskit.fs.SafeFsError: when safe file access refuses the file,
        or (code ``frontmatter-too-large``) when no closing ``---`` appears
        within ``max_bytes``.
    """
    res = fs.read_head(base, rel, done=head_done, max_bytes=max_bytes, follow_links=follow_links)
    return frontmatter_of_head(res, max_bytes)


def flat_head(raw: bytes, complete: bool) -> tuple[bytes, str, dict[str, str]] | None:
    """The common case of :func:`frontmatter_of_head`, without building its objects
    (so the common skill skips them): a head that starts with ``---`` and a line feed, has no carriage
    return, is valid UTF-8, is closed by a ``---`` line and whose block is flat
    (:func:`wskit.formats.flatyaml.load_flat_lines`).

    :param raw, complete: the head's bytes and whether they are the whole file
        (:class:`~wskit.fs.ReadResult` ``res``'s ``raw`` and ``complete``).
    :returns: ``(raw, block, data)``: the bytes ``frontmatter_of_head(res)``
        keeps in its result (cut after the closing line unless the whole file was
        read) and its frontmatter's ``block`` and ``data``; or None for any other head (``frontmatter_of_head`` then
        answers, diagnostics and refusals included). Never raises.
    """
    if not raw.startswith(b"---\n"):
        return None
    if not complete:
        end = close_end(raw)
        if end is None:
            return None
        raw = raw[:end]
    if b"\r" in raw:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    m = _close_line(text, 4)
    if m is None:
        return None
    block = text[4 : m[0]]
    lines = block.split("\n")
    # an ASCII text's characters are its bytes: the per-value tests on the block at once
    ascii_ok = text.isascii() and block_precheck(raw[4 : m[0]], len(lines) - lines.count(""))
    flat = load_flat_lines(lines, ascii_ok)
    if flat is None:
        return None
    return raw, block, flat[0]


def frontmatter_of_head(res: fs.ReadResult, max_bytes: int) -> tuple[Frontmatter, fs.ReadResult]:
    """Parse the head :func:`wskit.fs.read_head` read with :func:`head_done`
    (the second half of :func:`read_frontmatter`).

    :returns: as :func:`read_frontmatter`.
    :raises wskit.fs.SafeFsError: ``frontmatter-too-large``, ``invalid-utf8``.
    """
    raw = res.raw
    h0 = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    if not h0.startswith(b"---"):
        return Frontmatter(present=False), res
    if not res.complete:
        h = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
        end = close_end(h) if h.startswith(b"---") else None
        if h.startswith(b"---") and end is None:
            raise fs.SafeFsError(
                "frontmatter-too-large",
                res.path,
                f"no closing '---' within the first {max_bytes} bytes",
            )
        if end is not None:
            cut = end + (len(raw) - len(h))
            raw = raw[:cut]
            res = fs.ReadResult(raw, res.size, False, res.path, res.link_target)
    text = fs.decode_text(raw, res.path)
    fm = parse_frontmatter(text, res.path)
    if not res.complete:
        fm.body = ""
    return fm, res
