"""The YAML safe loader behind frontmatter (:mod:`wskit.markdown`).

PyYAML's safe loader (libyaml's ``CSafeLoader`` when PyYAML was built with it,
about 10× faster than the pure-Python one; the same resolver and constructors,
so the same values) that refuses an alias (no alias-expansion bombs) and
nesting deeper than :data:`MAX_DEPTH` (:class:`Refused`, naming a 0-based line
of the text it loads).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

#: Deepest YAML nesting accepted in frontmatter.
MAX_DEPTH = 32

class Refused(yaml.YAMLError):
    """An alias or nesting deeper than :data:`MAX_DEPTH`; ``line`` is 0-based (or None)."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


class SafeLimitedLoader(yaml.SafeLoader):
    """The pure-Python safe loader with the refusals."""

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


#: libyaml's safe loader when PyYAML was built with it (refusals: :func:`check_events`).
_CSAFE = getattr(yaml, "CSafeLoader", None)
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


def load(text: str) -> Any:
    """Load one YAML document with the safe loader and the refusals above.

    :param text: the YAML text (LF line ends).
    :returns: what ``yaml.safe_load`` returns for an accepted text.
    :raises Refused: an alias or nesting deeper than :data:`MAX_DEPTH`.
    :raises yaml.YAMLError: any other YAML error (and whatever PyYAML's
        constructors raise: ``ValueError``, ``RecursionError``…).
    """
    if _CSAFE is not None:
        if needs_event_check(text):
            check_events(text)
        return yaml.load(text, Loader=_CSAFE)  # noqa: S506 - CSafeLoader is the safe loader
    loader = SafeLimitedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def err_line(err: Exception) -> int | None:
    """0-based line inside the loaded text of a YAML error, if known."""
    if isinstance(err, Refused):
        return err.line
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    return None if mark is None else mark.line
