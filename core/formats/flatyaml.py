"""A restricted fast reader for *flat* YAML frontmatter, so the common ``SKILL.md`` skips the YAML loader.

Most ``SKILL.md`` frontmatter is a handful of top-level ``key: value`` lines
whose values are plain strings (``name: pdf``, ``description: Extract text…``).
Parsing those with libyaml costs ≈ 80 µs per file, almost all of it PyYAML's
Python constructor walking the node graph. :func:`load_flat` recognises that
shape with one regular expression per line and builds the same ``dict`` the
YAML safe loader builds — or returns ``None`` and the caller uses the full
loader (:func:`wskit.formats.frontmatter._load`) with all its refusals and diagnostics.

What is accepted (everything else returns ``None``):

- every line is either empty or ``key: value`` starting in column 0;
- ``key`` is ``[A-Za-z_][A-Za-z0-9_-]*`` (at most 128 characters) and resolves
  to a string under the loader's implicit resolvers (``yes:``/``null:`` do not);
- one or more spaces after the colon, then a value that starts with a
  character that cannot open any other YAML construct (no indicator
  ``-?:,[]{}#&*!|>'"%@`` and no backquote), does not end in ``:`` (trailing
  spaces are dropped, as YAML drops them), and
  contains no ``": "``, no ``" #"`` (a comment), no tab and no character YAML
  treats as a line break or refuses as non-printable;
- the value resolves to ``str`` under the same implicit resolvers PyYAML uses
  (so ``true``, ``1.0``, ``2024-01-01``, ``~`` fall back to the full loader);
- the block is not empty;
- a key may instead stand alone (``paths:``) and hold a block sequence of
  strings on the lines below, all at one indent: plain items as above, or
  quoted items without escapes (``"src/**"``, ``'a b'``), as rule files write
  their ``paths``.

A repeated key is declined (``None``): the full loader reads its last value with
a ``yaml-duplicate-key`` warning (:mod:`wskit.formats.frontmatter`). There are no aliases, anchors, tags, flow
collections, block scalars, nesting or multi-line scalars in an accepted block,
so the loader's refusals (aliases, depth) cannot apply. Equality with
``yaml.load(block, Loader=CSafeLoader)`` on generated flat and non-flat blocks
is property-tested in ``tests/core/formats/test_flatyaml.py``.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from wskit.util.lazyre import lazy_pattern

__all__ = ["block_precheck", "implicit_resolvers", "load_flat", "load_flat_lines"]


_LINE = lazy_pattern(globals(), "_LINE", r"([A-Za-z_][A-Za-z0-9_-]{0,127}):( +)([^\s\-?:,\[\]{}#&*!|>'\"%@`].*)")
#: characters YAML treats as a line break or refuses (outside the printable set)
_PRINTABLE = r"\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff"
#: the character class above compiled (≈ 10 ms: the engine optimises its wide ranges), on first need:
#: only a value with a character outside ASCII, or a quoted item, is tested with it
_bad_char: re.Pattern[str] | None = None


def _bad_char_search(text: str) -> re.Match[str] | None:
    global _bad_char
    if _bad_char is None:
        _bad_char = re.compile(f"[^{_PRINTABLE}]")
    return _bad_char.search(text)


def _has_bad_char(text: str) -> bool:
    """``_bad_char_search(text) is not None``; an ASCII text holds a refused character
    exactly when it is not printable (``\\x00-\\x1f``, ``\\x7f``), tested without the class."""
    if text.isascii():
        return not text.isprintable()
    return _bad_char_search(text) is not None


def __getattr__(name: str) -> Any:  # PEP 562: what is costly to build, built when asked for
    if name == "_BAD_VALUE":
        # characters that end a plain value early, make it a comment, a nested mapping, or a
        # refused character: what :func:`_bad` tests with substring tests (kept for the tests)
        return re.compile(f": |:$| #|[^{_PRINTABLE}]")
    if name == "_BAD_CHAR":
        _bad_char_search("")
        return _bad_char
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _bad(value: str) -> bool:
    """``_BAD_VALUE.search(value) is not None`` for a value without ``"\\n"`` (a
    line's), with substring tests: the regex engine tries the alternation at every
    position. An ASCII text holds a refused character exactly when it is
    not printable (``\\x00-\\x1f``, ``\\x7f``)."""
    if ": " in value or " #" in value or value.endswith(":"):
        return True
    return _has_bad_char(value)


_STR_TAG = "tag:yaml.org,2002:str"


def _yaml() -> Any:
    import yaml

    return yaml


def _loader(yaml: Any) -> Any:
    """The loader the fast path stands in for: libyaml's safe loader when built, else PyYAML's."""
    return getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader


#: PyYAML's implicit resolvers of the safe loader as it ships them (``yaml/resolver.py``:
#: tag, expression, flags, first characters), in its order; ``tests/core/formats/test_flatyaml.py``
#: compares this copy with the installed PyYAML's table
_SHIPPED_RESOLVERS: tuple[tuple[str, str, int, str], ...] = (
    ("tag:yaml.org,2002:bool", r"""^(?:yes|Yes|YES|no|No|NO
                    |true|True|TRUE|false|False|FALSE
                    |on|On|ON|off|Off|OFF)$""", re.X, "yYnNtTfFoO"),
    ("tag:yaml.org,2002:float", r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
                    |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
                    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
                    |[-+]?\.(?:inf|Inf|INF)
                    |\.(?:nan|NaN|NAN))$""", re.X, "-+0123456789."),
    ("tag:yaml.org,2002:int", r"""^(?:[-+]?0b[0-1_]+
                    |[-+]?0[0-7_]+
                    |[-+]?(?:0|[1-9][0-9_]*)
                    |[-+]?0x[0-9a-fA-F_]+
                    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$""", re.X, "-+0123456789"),
    ("tag:yaml.org,2002:merge", r"^(?:<<)$", 0, "<"),
    ("tag:yaml.org,2002:null", r"""^(?: ~
                    |null|Null|NULL
                    | )$""", re.X, "~nN"),
    ("tag:yaml.org,2002:timestamp", r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
                    |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
                     (?:[Tt]|[ \t]+)[0-9][0-9]?
                     :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
                     (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""", re.X, "0123456789"),
    ("tag:yaml.org,2002:value", r"^(?:=)$", 0, "="),
    ("tag:yaml.org,2002:yaml", r"^(?:!|&|\*)$", 0, "!&*"),
)
#: the null resolver is also registered under the empty first character (an empty scalar)
_EMPTY_FIRST = ("tag:yaml.org,2002:null",)
_shipped: "_ShippedTable | None" = None


class _ShippedTable(dict):
    """:data:`_SHIPPED_RESOLVERS` by first character, each expression compiled when a value
    starting with one of its characters is first tested (a rule's ``paths: src/**`` tests
    none: a cold ``wsctl rules --for`` compiled all eight, ≈ 1 ms). A character's rows, once
    built, are plain dict items, so later lookups cost what a dict's ``get`` does (a lazy
    proxy per expression would slow down every value tested after). :meth:`items` and
    iteration build the whole table first (the one PyYAML ships, as
    ``tests/core/formats/test_flatyaml.py`` compares)."""

    def __init__(self) -> None:
        super().__init__()
        self._compiled: dict[int, re.Pattern[str]] = {}
        self._none: set[str] = set()  # characters no resolver starts with, asked already
        self._whole = False

    def get(self, ch: str, default=None):  # type: ignore[override]
        rows = dict.get(self, ch)
        if rows is not None or ch in self._none:
            return default if rows is None else rows
        rows = self._rows(ch)
        if not rows:
            self._none.add(ch)
            return default
        self[ch] = rows
        return rows

    def _rows(self, ch: str) -> list[tuple[str, re.Pattern[str]]]:
        rows = []
        for i, (tag, expr, flags, first) in enumerate(_SHIPPED_RESOLVERS):
            if ch in first if ch else tag in _EMPTY_FIRST:
                regexp = self._compiled.get(i)
                if regexp is None:
                    regexp = self._compiled[i] = re.compile(expr, flags)
                rows.append((tag, regexp))
        return rows

    def _fill(self) -> None:
        if not self._whole:
            for ch in sorted({c for *_r, first in _SHIPPED_RESOLVERS for c in first} | {""}):
                self.get(ch)
            self._whole = True

    def items(self):  # type: ignore[override]
        self._fill()
        return super().items()

    def __iter__(self):
        self._fill()
        return super().__iter__()


def _shipped_table() -> "_ShippedTable":
    """:data:`_SHIPPED_RESOLVERS` by first character (:class:`_ShippedTable`: each
    expression compiled when first needed)."""
    global _shipped
    if _shipped is None:
        _shipped = _ShippedTable()
    return _shipped


def implicit_resolvers() -> dict[str, list[tuple[str, re.Pattern[str]]]]:
    """The safe loader's implicit resolvers (first character -> ``[(tag, regexp)]``),
    which decide whether a plain value is a string.

    While PyYAML is not imported nothing can have changed them, so this is the table
    PyYAML ships (:data:`_SHIPPED_RESOLVERS`) and the flat path never imports PyYAML
    (≈ 40–50 ms, most of a cold ``wsctl rules --for``). Once it is imported, the
    loader's live table is read, so a resolver added with ``yaml.add_implicit_resolver``
    is seen exactly as before.
    """
    yaml = sys.modules.get("yaml")
    if yaml is None:
        return _shipped_table()
    return _loader(yaml).yaml_implicit_resolvers


#: ``key:`` alone on its line (the head of a block sequence)
_SEQ_HEAD = lazy_pattern(globals(), "_SEQ_HEAD", r"([A-Za-z_][A-Za-z0-9_-]{0,127}): *")
#: one sequence item: ``<indent>- value`` (plain as above, or quoted without escapes)
_ITEM = lazy_pattern(globals(), "_ITEM", r"( *)- +(?:\"([^\"\\]*)\"|'([^']*)'|([^\s\-?:,\[\]{}#&*!|>'\"%@`].*?)) *")
_SEQ_TAG = "tag:yaml.org,2002:seq"


def stock_constructors() -> bool:
    """Whether flat reading may stand in for the loader (here and in
    :mod:`wskit.builtin_plugins.skills.fast`). The fast path is only equal to the loader while ``str`` and sequences are
    constructed by PyYAML's own constructors (no one re-registered them; while
    PyYAML is not imported, no one could have)."""
    yaml = sys.modules.get("yaml")
    if yaml is None:
        return True
    loader = _loader(yaml)
    ctor = loader.yaml_constructors.get(_STR_TAG)
    seq = loader.yaml_constructors.get(_SEQ_TAG)
    return ctor is yaml.constructor.SafeConstructor.construct_yaml_str and \
        seq is yaml.constructor.SafeConstructor.construct_yaml_seq


def resolves_to_str(value: str) -> bool:
    """Whether the plain scalar ``value`` (non-empty) is a string under the safe loader's
    implicit resolvers (:func:`implicit_resolvers`): no resolver of its first character
    matches it (``yes``, ``1.5``, ``null``, ``2026-01-01`` are not strings). Also used by
    :mod:`wskit.builtin_plugins.skills.fast`, whose flat reading must agree with this module's."""
    for _tag, regexp in implicit_resolvers().get(value[0], ()):
        if regexp.match(value):
            return False
    return True


def load_flat(block: str) -> dict[str, str | list[str]] | None:
    """Parse ``block`` when it is flat ``key: plain string`` YAML (a key may hold a
    block sequence of such strings: ``paths:`` then ``  - "src/**"`` lines).

    :param block: the text between the ``---`` lines (LF line ends).
    :returns: the mapping ``yaml.load(block, Loader=CSafeLoader)`` returns, or
        ``None`` when the block is not of the accepted shape or repeats a key
        (then nothing is known about it: use the full loader).
    """
    got = load_flat_lines(block.split("\n"))
    return None if got is None else got[0]


def load_flat_lines(lines: list[str], ascii_ok: bool = False
                    ) -> tuple[dict[str, str | list[str]], dict[str, int]] | None:
    """:func:`load_flat` of the block ``"\\n".join(lines)``, also returning the
    0-based index of the line of each key (a flat block's top-level keys,
    which is what :mod:`wskit.formats.frontmatter` reports lines for).

    :param ascii_ok: the caller checked that the block is ASCII, holds no control
        character but line feeds, no ``": "`` beyond one per non-empty line and
        no ``" #"`` (:func:`block_precheck`); the per-value character tests are then
        skipped.
    :returns: ``(mapping, line index per key)`` or None (not flat, or a key repeated).
    """
    if not stock_constructors():
        return None
    out: dict[str, str | list[str]] = {}
    first: dict[str, int] = {}
    match = _LINE.fullmatch
    bad = _bad
    resolvers = implicit_resolvers()
    seq: list[str] | None = None  # the sequence being read, and its items' indent
    indent = -1
    for i, line in enumerate(lines):
        if not line:
            continue
        if seq is not None:
            item = _ITEM.fullmatch(line)
            if item is not None:
                if indent < 0:
                    indent = len(item[1])
                elif len(item[1]) != indent:
                    return None
                dq, sq, plain = item[2], item[3], item[4]
                if plain is not None:
                    if bad(plain) or not resolves_to_str(plain):
                        return None
                    seq.append(plain)
                else:
                    text = dq if dq is not None else sq
                    if _has_bad_char(text):
                        return None
                    seq.append(text)
                continue
            if indent < 0:
                return None  # "key:" without items is null
            seq = None
        m = match(line)
        if m is None:
            head = _SEQ_HEAD.fullmatch(line)
            if head is None or not resolves_to_str(head[1]):
                return None
            if ascii_ok:  # block_precheck counted ": " per line, which a sequence breaks
                return load_flat_lines(lines, False)
            seq, indent = [], -1
            if head[1] in first:
                return None  # a repeated key: the full loader names it
            first[head[1]] = i
            out[head[1]] = seq
            continue
        key = m[1]
        value = m[3].rstrip(" ")  # trailing blanks are not part of a plain scalar
        if (value[-1] == ":") if ascii_ok else bad(value):
            return None
        # resolves_to_str of key and value, inline: most first characters have no resolver
        if resolvers.get(key[0]) and not resolves_to_str(key):
            return None
        if resolvers.get(value[0]) and not resolves_to_str(value):
            return None
        if key in first:
            return None  # a repeated key: the full loader names it
        first[key] = i
        out[key] = value
    if seq is not None and indent < 0:
        return None
    if not out:
        return None
    return out, first


#: bytes a flat ASCII block may hold: printable ASCII and the line feed
_ASCII_KEEP = bytes(range(0x20, 0x7F)) + b"\n"


def block_precheck(block: bytes, lines: int) -> bool:
    """True when the ASCII ``block`` (its bytes; ``lines`` non-empty lines) passes
    every per-value character test of :func:`load_flat` at once, *provided* each
    non-empty line matches the line pattern (which :func:`load_flat_lines`
    still checks): no byte outside printable ASCII and ``\\n`` (a control
    character is refused in a value and cannot appear in a key or after the
    colon), exactly one ``": "`` per line (the one after the key: another is in
    a value), no ``" #"`` (only a value can hold one). A value ending in ``:``
    is still tested per value."""
    return (not block.translate(None, _ASCII_KEEP) and block.count(b": ") == lines
            and b" #" not in block)
