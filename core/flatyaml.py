"""A restricted fast reader for *flat* YAML frontmatter (issue 8, B6).

Most ``SKILL.md`` frontmatter is a handful of top-level ``key: value`` lines
whose values are plain strings (``name: pdf``, ``description: Extract text…``).
Parsing those with libyaml costs ≈ 80 µs per file, almost all of it PyYAML's
Python constructor walking the node graph. :func:`load_flat` recognises that
shape with one regular expression per line and builds the same ``dict`` the
YAML safe loader builds — or returns ``None`` and the caller uses the full
loader (:func:`wskit.markdown._load`) with all its refusals and diagnostics.

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
- the block is not empty.

A repeated key keeps the last value in the first key's position, as PyYAML's
``construct_mapping`` does. There are no aliases, anchors, tags, flow
collections, block scalars, nesting or multi-line scalars in an accepted block,
so the loader's refusals (aliases, depth) cannot apply. Equality with
``yaml.load(block, Loader=CSafeLoader)`` on generated flat and non-flat blocks
is property-tested in ``tests/core/test_flatyaml.py``.
"""

from __future__ import annotations

import re

import yaml

_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]{0,127}):( +)([^\s\-?:,\[\]{}#&*!|>'\"%@`].*)")
# characters that end a plain value early, make it a comment, a nested mapping,
# or that YAML treats as a line break / refuses (outside the printable set)
_BAD_VALUE = re.compile(
    r": |:$| #|[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
_STR_TAG = "tag:yaml.org,2002:str"
_LOADER = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader


def _usable() -> bool:
    """The fast path is only equal to the loader while ``str`` is constructed
    by PyYAML's own ``construct_yaml_str`` (no one re-registered it)."""
    ctor = _LOADER.yaml_constructors.get(_STR_TAG)
    seq = _LOADER.yaml_constructors.get(_SEQ_TAG)
    return ctor is yaml.constructor.SafeConstructor.construct_yaml_str and \
        seq is yaml.constructor.SafeConstructor.construct_yaml_seq


def _is_str(value: str) -> bool:
    for _tag, regexp in _LOADER.yaml_implicit_resolvers.get(value[0], ()):
        if regexp.match(value):
            return False
    return True


#: ``key:`` alone on its line (the head of a block sequence)
_SEQ_HEAD = re.compile(r"([A-Za-z_][A-Za-z0-9_-]{0,127}): *")
#: one sequence item: ``<indent>- value`` (plain as above, or quoted without escapes)
_ITEM = re.compile(r"( *)- +(?:\"([^\"\\]*)\"|'([^']*)'|([^\s\-?:,\[\]{}#&*!|>'\"%@`].*?)) *")
_NONPRINTABLE = re.compile(
    r"[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
_SEQ_TAG = "tag:yaml.org,2002:seq"


def load_flat(block: str) -> dict[str, str | list[str]] | None:
    """Parse ``block`` when it is flat ``key: plain string`` YAML, where a key may
    also hold a block sequence of such strings (``paths:`` then ``  - "src/**"``
    lines: plain items, or quoted ones without escapes), as rule files write it.

    :param block: the text between the ``---`` lines (LF line ends).
    :returns: the mapping ``yaml.load(block, Loader=CSafeLoader)`` returns, or
        ``None`` when the block is not of the accepted shape (then nothing is
        known about it: use the full loader).
    """
    out: dict[str, str | list[str]] = {}
    match = _LINE.fullmatch
    bad = _BAD_VALUE.search
    seq: list[str] | None = None  # the sequence being read, and its items' indent
    indent = -1
    for line in block.split("\n"):
        if not line:
            continue
        if seq is not None:
            item = _ITEM.fullmatch(line)
            if item is not None:
                if indent < 0:
                    indent = len(item.group(1))
                elif len(item.group(1)) != indent:
                    return None
                dq, sq, plain = item.group(2), item.group(3), item.group(4)
                if plain is not None:
                    if bad(plain) or not _is_str(plain):
                        return None
                    seq.append(plain)
                else:
                    text = dq if dq is not None else sq
                    if _NONPRINTABLE.search(text):
                        return None
                    seq.append(text)
                continue
            if indent < 0:
                return None  # "key:" without items is null
            seq = None
        m = match(line)
        if m is None:
            head = _SEQ_HEAD.fullmatch(line)
            if head is None or not _is_str(head.group(1)):
                return None
            seq, indent = [], -1
            out[head.group(1)] = seq
            continue
        key, value = m.group(1), m.group(3).rstrip(" ")  # trailing blanks are not part of a plain scalar
        if bad(value) or not _is_str(key) or not _is_str(value):
            return None
        out[key] = value
    if seq is not None and indent < 0:
        return None
    if not out or not _usable():
        return None
    return out
