"""Module-level regular expressions compiled on first use, so start-up does not pay for them.

``re.compile`` runs the pure-Python ``re._parser``/``re._compiler``: 0.1–1 ms a
pattern, paid at import by every process that imports the module, even when
nothing is matched (``wsctl inspect`` of an empty workspace). ::

    _TOKEN = lazy_pattern(globals(), "_TOKEN", r"@(\\w+)", re.M)

``_TOKEN.match(...)`` compiles on the first call and puts the compiled pattern in
the module's namespace under that name, so later lookups get the
:class:`re.Pattern` itself. For private names (a module that copied the object
keeps the proxy, which forwards every attribute).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_pattern", "LazyPattern"]


class LazyPattern:
    """``re.compile(pattern, flags)``, made by the first attribute access.

    :ivar flags: the ``re`` flags given. :attr:`pattern` is the source text; it may
    be given as a function returning it, called once when first needed (for a
    source that is itself costly to build, e.g. joined ``fnmatch.translate`` texts).
    """

    __slots__ = ("_source", "flags", "_namespace", "_name", "_compiled")

    def __init__(self, namespace: dict[str, Any], name: str, pattern: str | Callable[[], str],
                 flags: int = 0) -> None:
        self._source, self.flags = pattern, flags
        self._namespace, self._name = namespace, name
        self._compiled: re.Pattern[str] | None = None

    @property
    def pattern(self) -> str:
        """The source text (built now when it was given as a function)."""
        if callable(self._source):
            self._source = self._source()
        return self._source

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled once; then bound to the module name)."""
        c = self._compiled
        if c is None:
            c = self._compiled = re.compile(self.pattern, self.flags)
            if self._namespace.get(self._name) is self:
                self._namespace[self._name] = c
        return c

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.compiled(), attr)

    def __repr__(self) -> str:
        return f"LazyPattern({self._source!r}, {self.flags!r})"


def lazy_pattern(namespace: dict[str, Any], name: str, pattern: str | Callable[[], str],
                 flags: int = 0) -> LazyPattern:
    """A :class:`LazyPattern` that replaces ``namespace[name]`` when compiled.

    :param namespace: the module's ``globals()``.
    :param name: the module-level name it is assigned to.
    :param pattern: the source text, or a function returning it (called once, when needed).
    """
    return LazyPattern(namespace, name, pattern, flags)
