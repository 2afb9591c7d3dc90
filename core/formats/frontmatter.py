"""Frontmatter for markdown-borne resources (skills, commands, agents, styles, rules).

Lenient parsing as design §5 and reference/conventions.md §6.1 say:

- one leading BOM stripped, CRLF/CR normalised (by :func:`wskit.fs.decode_text`);
- the first line must be exactly ``---`` (trailing blanks allowed), closed by a
  ``---`` line;
- parsed with a PyYAML *safe* loader (:mod:`wskit.formats.yaml`) that refuses
  aliases (no alias-expansion bombs) and nesting deeper than :data:`MAX_DEPTH`
  (``yaml-refused``), and a mapping that repeats a key (``yaml-duplicate-key``,
  naming the key and both lines: PyYAML would keep the last value silently;
  Claude Code and the Agent Skills reference validator refuse it);
- on a YAML error, one retry with values containing ``": "`` quoted, which
  succeeds with a ``yaml-quoted-retry`` warning; otherwise a ``yaml-error``
  diagnostic with the file's 1-based line.

Every refusal leaves :attr:`Frontmatter.ok` False: the loaders skip the
resource with the diagnostic, whichever of these codes it has.

:func:`read_frontmatter` reads only the head of a file (until the closing
``---``), so discovery never reads bodies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wskit import fs
from wskit.formats import yaml as yamlsafe
from wskit.formats.flatyaml import block_precheck, load_flat, load_flat_lines
from wskit.formats.yaml import MAX_DEPTH, DuplicateKey, Refused, err_line
from wskit.models import Diagnostic

__all__ = ["MAX_DEPTH", "MAX_FRONTMATTER_BYTES", "Frontmatter", "err_line", "flat_head", "frontmatter_of_head",
           "parse_frontmatter", "read_frontmatter"]

#: Largest frontmatter block read during discovery, in bytes.
MAX_FRONTMATTER_BYTES = 64 * 1024

_OPEN = re.compile(r"---[ \t]*\n")
_CLOSE = re.compile(r"^---[ \t]*$", re.M)
#: the closing ``---`` line of a head in bytes, any line end: what follows its ``---``
_CLOSE_TAIL = re.compile(rb"[ \t]*(?:\r\n|\r|\n)")
_TEXT_CLOSE_TAIL = re.compile(r"[ \t]*(?=\n|\Z)")


def _close_end(h: bytes, pos: int = 3) -> int | None:
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
    LF line ends) with ``str.find`` (the expression has no literal prefix, see :func:`_close_end`)."""
    find = text.find
    q = find("---", start)
    while q >= 0:
        if q == 0 or text[q - 1] == "\n":
            m = _TEXT_CLOSE_TAIL.match(text, q + 3)
            if m is not None:
                return q, m.end()
        q = find("---", q + 1)
    return None
_TOP_KEY = re.compile(r"^([A-Za-z0-9_-]+)\s*:")
# the value starts at a non-space: with "\s+(.*" both parts could take the same
# blanks, and a 64 KiB line of blanks would take seconds to fail (quadratic backtracking)
_KEY_VALUE = re.compile(r"^(\s*[A-Za-z0-9_-]+\s*:\s+)(\S.*:\s.*)$")


@dataclass
class Frontmatter:
    """Result of :func:`parse_frontmatter`.

    :ivar present: the text starts with a frontmatter block.
    :ivar data: the mapping (empty when absent or unparseable).
    :ivar body: the text after the closing ``---`` line ("" when only the head was read).
    :ivar ok: False when the block exists but could not be parsed into a mapping.
    :ivar diagnostics: warnings (retry used) and errors (unparseable), with lines.
    :ivar key_lines: 1-based file line of each top-level key.
    :ivar block: the raw YAML text between the ``---`` lines.
    """

    present: bool
    data: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    ok: bool = True
    diagnostics: list[Diagnostic] = field(default_factory=list)
    key_lines: dict[str, int] = field(default_factory=dict)
    block: str = ""

    def line_of(self, key: str) -> int | None:
        """1-based file line of a top-level key, when known."""
        return self.key_lines.get(key)


def _load(text: str) -> Any:
    """The mapping of a frontmatter block: :func:`wskit.formats.flatyaml.load_flat` for a flat
    block (the same dict, no YAML parse), else :func:`wskit.formats.yaml.load` (its refusals)."""
    flat = load_flat(text)
    if flat is not None:
        return flat
    return yamlsafe.load(text)


#: ``[a] [b c] [d]``: bracketed words side by side (an argument hint), which YAML rejects.
_BRACKET_WORDS = re.compile(r"^\[[^\[\]]*\](?:\s+\[[^\[\]]*\])+$")
_SIMPLE_KEY = re.compile(r"^([A-Za-z0-9_-]+[ \t]*:[ \t]+)(\S.*)$")


def _quote_colon_values(text: str) -> str:
    """One lenient retry: quote top-level values that contain ``": "`` (the
    classic unquoted description) or that are not valid YAML on their own
    (``argument-hint: [pr-number] [priority]``, as Claude Code's own docs write)."""
    out = []
    for line in text.split("\n"):
        m = _SIMPLE_KEY.match(line)
        if m:
            value = m.group(2).rstrip()
            plain_colon = ": " in value and not value.startswith(("'", '"', "[", "{", "|", ">"))
            if plain_colon or (_BRACKET_WORDS.match(value) and not _parses(value)):
                value = value.replace("\\", "\\\\").replace('"', '\\"')
                line = f'{m.group(1)}"{value}"'
        out.append(line)
    return "\n".join(out)


def _parses(value: str) -> bool:
    try:
        yaml.safe_load(value)
    except yaml.YAMLError:
        return False
    return True


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
        if km and km.group(1) not in fm.key_lines:
            fm.key_lines[km.group(1)] = i + 2
    data, err = _try_load(block)
    if err is not None and not isinstance(err, DuplicateKey):  # that block parsed: quoting cannot help
        retried = _quote_colon_values(block)
        if retried != block:
            data2, err2 = _try_load(retried)
            if isinstance(err2, DuplicateKey):
                err = err2  # parses once quoted, but repeats a key (quoting keeps every line where it is)
            elif err2 is None:
                first_line = _line_of(err_line(err))
                data, err = data2, None
                fm.diagnostics.append(
                    Diagnostic(
                        level="warning",
                        code="yaml-quoted-retry",
                        path=path,
                        line=first_line,
                        message="frontmatter is not valid YAML; loaded after quoting values that contain ': ' "
                        "or are bracketed words like '[a] [b]'",
                    )
                )
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


def _try_load(block: str) -> tuple[Any, Exception | None]:
    try:
        return _load(block), None
    except (yaml.YAMLError, RecursionError, ValueError, TypeError) as err:
        return None, err


def _yaml_diagnostic(err: Exception, path: str | None) -> Diagnostic:
    """The error diagnostic of a block that did not load: ``yaml-duplicate-key``,
    ``yaml-refused`` or ``yaml-error``, with the file's 1-based line."""
    if isinstance(err, DuplicateKey):
        code = "yaml-duplicate-key"
        message = (f"invalid YAML frontmatter: duplicate key {err.key!r} (first at line "
                   f"{_line_of(err.first_line)}); a YAML mapping may not repeat a key")
    else:
        code = "yaml-refused" if isinstance(err, Refused) else "yaml-error"
        message = f"invalid YAML frontmatter: {_first_line(err)}"
    return Diagnostic(level="error", code=code, path=path, line=_line_of(err_line(err)), message=message)


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


def _head_done(head: bytes) -> bool:
    h = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    if len(h) < 4:
        return False
    if not h.startswith(b"---"):
        return True
    return _close_end(h) is not None


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
    res = fs.read_head(base, rel, done=_head_done, max_bytes=max_bytes, follow_links=follow_links)
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
        end = _close_end(raw)
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
    """Parse the head :func:`wskit.fs.read_head` read with :func:`_head_done`
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
        end = _close_end(h) if h.startswith(b"---") else None
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
