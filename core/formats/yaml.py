"""The YAML safe loader behind frontmatter (:mod:`wskit.formats.frontmatter`).

PyYAML's safe loader (libyaml's ``CSafeLoader`` when PyYAML was built with it,
about 10× faster than the pure-Python one; the same resolver and constructors,
so the same values) with three refusals added, each naming a 0-based line of
the text it loads:

- an alias (no alias-expansion bombs) and nesting deeper than
  :data:`MAX_DEPTH`: :class:`Refused`;
- a mapping that repeats a key: :class:`DuplicateKey` (unless ``duplicates``
  is asked for: then the last value, as PyYAML and Claude Code 2.1.332's
  ``Bun.YAML.parse`` keep it). The YAML specification requires keys to be
  unique and the Agent Skills reference validator (strictyaml) raises
  ``DuplicateKeysDisallowed``; the frontmatter layer reads the last value with
  a warning, and strict validation refuses it. A merge key (``<<``) is not a repeated key,
  nor are the keys it merges (a key written next to a merge overrides the merged
  one, as YAML says); a key written in two different mappings is not repeated.
  Keys are compared as the values they construct to (``1`` and ``1.0`` are one
  Python key); the top-level mapping's keys also as text, since
  :func:`wskit.formats.frontmatter.parse_frontmatter` keeps them as ``str(key)`` (``1`` and
  ``"1"`` would collide there).

The check runs in the constructor, which is Python code for both loaders (the C
loader only parses in C): a subclass whose ``construct_mapping`` compares the
mapping's size with its number of keys and looks for the repeated key only when
they differ (or when the mapping merges another).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

__all__ = [
    "check_events", "DuplicateKey", "err_line", "load", "MAX_DEPTH", "needs_event_check", "Refused",
    "SafeLimitedLoader"
]


#: Deepest YAML nesting accepted in frontmatter.
MAX_DEPTH = 32

_MERGE = "tag:yaml.org,2002:merge"
_VALUE = "tag:yaml.org,2002:value"


class Refused(yaml.YAMLError):
    """An alias or nesting deeper than :data:`MAX_DEPTH`; ``line`` is 0-based (or None)."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


class DuplicateKey(yaml.YAMLError):
    """A mapping repeats a key.

    :ivar key: the key as read (``str`` for the top-level mapping, else the constructed value).
    :ivar line: 0-based line of the repeated key.
    :ivar first_line: 0-based line of its first occurrence in the same mapping.
    """

    def __init__(self, key: Any, line: int, first_line: int) -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key = key
        self.line = line
        self.first_line = first_line


class _UniqueKeys:
    """Constructor mixin for a PyYAML safe loader: a mapping that repeats a key
    raises :class:`DuplicateKey` (rules in the module docstring)."""

    _root: yaml.Node | None = None
    #: keep the last value of a repeated key instead of raising (Claude Code's reading)
    allow_duplicates = False

    def construct_document(self, node):  # type: ignore[no-untyped-def]
        self._root = node
        return super().construct_document(node)  # type: ignore[misc]

    def construct_mapping(self, node, deep=False):  # type: ignore[no-untyped-def]
        if self.allow_duplicates or not isinstance(node, yaml.MappingNode):
            return super().construct_mapping(node, deep=deep)  # type: ignore[misc]
        pairs = node.value
        as_text = node is self._root
        for key_node, _ in pairs:
            if key_node.tag == _MERGE:
                # before flatten_mapping rewrites this node and the merged ones
                self._check_keys(node, as_text)
                return super().construct_mapping(node, deep=deep)  # type: ignore[misc]
        n = len(pairs)
        data = super().construct_mapping(node, deep=deep)  # type: ignore[misc]
        if len(data) != n or (as_text and len(set(map(str, data))) != n):
            self._check_keys(node, as_text)
        return data

    def _check_keys(self, node: yaml.MappingNode, as_text: bool, deep: bool = False) -> None:
        """Raise :class:`DuplicateKey` at the first key of ``node`` that repeats an
        earlier one. The mappings a merge key brings are checked on their own, with
        every mapping below them (``deep``): a merged value PyYAML overrides is
        never constructed, so the constructor would not see it."""
        seen: dict[Any, yaml.Node] = {}
        seen_text: dict[str, yaml.Node] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                merged = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                for sub in merged:
                    if isinstance(sub, yaml.MappingNode):
                        self._check_keys(sub, False, True)
                continue
            if deep:
                self._check_below(value_node)
            if key_node.tag == _VALUE:  # '=': flatten_mapping makes it the string
                key = key_node.value
            else:
                key = self.construct_object(key_node)  # type: ignore[attr-defined]  # cached: built once
            try:
                hash(key)
            except TypeError:
                continue  # a collection as a key: PyYAML's own "unhashable key" error follows
            first = seen.setdefault(key, key_node)
            if as_text and first is key_node:
                key = str(key)
                first = seen_text.setdefault(key, key_node)
            if first is not key_node:
                raise DuplicateKey(key, key_node.start_mark.line, first.start_mark.line)


    def _check_below(self, node: yaml.Node) -> None:
        """:meth:`_check_keys` (deep) on every mapping at or below ``node`` (nesting
        is bounded: deeper than :data:`MAX_DEPTH` is refused before construction)."""
        if isinstance(node, yaml.MappingNode):
            self._check_keys(node, False, True)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                self._check_below(item)


class SafeLimitedLoader(_UniqueKeys, yaml.SafeLoader):
    """The pure-Python safe loader with all three refusals."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent, index):  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise Refused("YAML aliases are not allowed in frontmatter", event.start_mark.line)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                event = self.peek_event()
                raise Refused(f"YAML nested deeper than {MAX_DEPTH} levels", event.start_mark.line)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _SafeLastKeyLoader(SafeLimitedLoader):
    """:class:`SafeLimitedLoader` keeping the last value of a repeated key."""

    allow_duplicates = True


if hasattr(yaml, "CSafeLoader"):
    class CSafeUniqueLoader(_UniqueKeys, yaml.CSafeLoader):  # type: ignore[name-defined,misc]
        """libyaml's safe loader refusing repeated keys (aliases and depth: :func:`check_events`)."""

    class _CSafeLastKeyLoader(CSafeUniqueLoader):
        allow_duplicates = True

    _CSAFE: type | None = CSafeUniqueLoader
    _CSAFE_LAST: type | None = _CSafeLastKeyLoader
else:  # pragma: no cover - PyYAML built without libyaml
    _CSAFE = _CSAFE_LAST = None
_OPENING = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSING = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def check_events(text: str) -> None:
    """Apply :class:`SafeLimitedLoader`'s refusals on libyaml's event stream:
    an alias, or a node nested deeper than :data:`MAX_DEPTH`, raises :class:`Refused`."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_CSAFE):
            if isinstance(event, yaml.AliasEvent):
                raise Refused("YAML aliases are not allowed in frontmatter", event.start_mark.line)
            if isinstance(event, _CLOSING):
                depth -= 1
            elif isinstance(event, (yaml.ScalarEvent, *_OPENING)):
                if depth + 1 > MAX_DEPTH:
                    raise Refused(f"YAML nested deeper than {MAX_DEPTH} levels", event.start_mark.line)
                if isinstance(event, _OPENING):
                    depth += 1
    except Refused:
        raise
    except yaml.YAMLError as err:
        # libyaml's scanner stops very deep flow nesting itself, before our
        # depth check sees the events: report it as the same refusal, so the
        # code does not depend on whether PyYAML was built with libyaml
        if "nesting depth" in str(err):
            mark = getattr(err, "problem_mark", None)
            raise Refused(f"YAML nested deeper than {MAX_DEPTH} levels", mark.line if mark else None) from None
        raise


#: Characters that can open a collection (``[``, ``{``, ``:``, ``?``, and ``-``
#: followed by a blank). Each nesting level needs at least one of its own, so
#: a text with fewer than MAX_DEPTH of them cannot nest too deep.
_NESTERS = re.compile(r"[\[{:?]|-(?=[ \t\r\n]|$)")


def needs_event_check(text: str) -> bool:
    """False when ``text`` provably has no alias (no ``*``) and cannot nest past
    :data:`MAX_DEPTH` (too few collection indicators): then the event scan is skipped."""
    if "*" in text:
        return True
    n = 0
    for _ in _NESTERS.finditer(text):
        n += 1
        if n + 1 > MAX_DEPTH:
            return True
    return False


def load(text: str, *, duplicates: bool = False) -> Any:
    """Load one YAML document with the safe loader and the refusals above.

    :param text: the YAML text (LF line ends).
    :param duplicates: keep the last value of a repeated key instead of raising
        :class:`DuplicateKey` (Claude Code 2.1.332's ``Bun.YAML.parse`` does so);
        aliases and depth are refused either way.
    :returns: what ``yaml.safe_load`` returns for an accepted text.
    :raises Refused: an alias or nesting deeper than :data:`MAX_DEPTH`.
    :raises DuplicateKey: a mapping repeats a key.
    :raises yaml.YAMLError: any other YAML error (and whatever PyYAML's
        constructors raise: ``ValueError``, ``RecursionError``…).
    """
    if _CSAFE is not None:
        if needs_event_check(text):
            check_events(text)
        return yaml.load(text, Loader=_CSAFE_LAST if duplicates else _CSAFE)  # noqa: S506 - a CSafeLoader subclass
    loader = (_SafeLastKeyLoader if duplicates else SafeLimitedLoader)(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def err_line(err: Exception) -> int | None:
    """0-based line inside the loaded text of a YAML error, if known."""
    if isinstance(err, (Refused, DuplicateKey)):
        return err.line
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    return None if mark is None else mark.line
