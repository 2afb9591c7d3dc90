"""The few exception classes of wskit.

Exceptions are for failures of an *operation* (capacity, provenance mismatch,
an unsafe path asked for explicitly, a corrupted trust store). Bad *content*
never raises: it becomes a :class:`wskit.models.Diagnostic` (design §4).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wskit.models import Diagnostic

__all__ = [
    "AmbiguousNameError", "drift_subject", "nearest", "PluginContributionError", "PluginLoadError", "ProvenanceMismatchError",
    "SafeFsError", "SessionStateError", "TrustStoreError", "UnknownResourceError", "UnsafePathError",
    "WorkspaceCapacityError", "WskitError"
]


class WskitError(Exception):
    """Base class of every error wskit raises on purpose.

    ``wsctl`` prints these as ``error: <message>`` on stderr and exits 1,
    never with a traceback.
    """


class PluginLoadError(WskitError):
    """An entry point of group ``wskit`` could not be imported or registered.

    Raised only under ``WSKIT_STRICT_PLUGINS=1``; otherwise the failure is
    recorded as a :class:`wskit.plugin.manager.PluginLoadFailure`.
    """


class PluginContributionError(WskitError):
    """A plugin returned something that is not what its hookspec promises."""


class UnknownResourceError(WskitError, LookupError):
    """No resource of that kind answers to the name.

    :ivar kind: resource kind asked for (``"skill"``, …).
    :ivar name: the name or id asked for.
    :ivar candidates: the ids that exist, sorted, to help the user.
    """

    #: wsctl adds the folder searched and its trust to the message
    searched_hint = True

    def __init__(self, kind: str, name: str, candidates: Iterable[str] = ()) -> None:
        self.kind = kind
        self.name = name
        self.candidates = sorted(candidates)
        #: the nearest names (difflib), best first: what "did you mean" offers
        self.suggestions = nearest(name, self.candidates)
        listing = ", ".join(self.candidates[:20]) or "none"
        more = "" if len(self.candidates) <= 20 else f" (+{len(self.candidates) - 20} more)"
        hint = f"; did you mean {' or '.join(repr(s) for s in self.suggestions)}?" if self.suggestions else ""
        super().__init__(f"unknown {kind} {name!r}{hint} available: {listing}{more}"
                         if hint else f"unknown {kind} {name!r}; available: {listing}{more}")


def nearest(name: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """The names of ``candidates`` closest to ``name`` (:func:`difflib.get_close_matches`,
    cutoff 0.6), best first. A qualified id (``project:pdf``, ``plugin:p:pdf``) also
    matches by its last part, and is then offered by that part (``pdf``)."""
    import difflib

    by_short: dict[str, str] = {}
    for c in candidates:
        by_short.setdefault(c, c)
        by_short.setdefault(c.rsplit(":", 1)[-1], c)
    out: list[str] = []
    seen: set[str] = set()
    for hit in difflib.get_close_matches(name, list(by_short), n=n * 2, cutoff=0.6):
        full = by_short[hit]
        if full not in seen and full != name:
            seen.add(full)
            out.append(hit)  # as it matched: the bare name when that is what is close
    return out[:n]


class AmbiguousNameError(WskitError, LookupError):
    """A bare name matches several resources and none of them is native.

    :ivar candidates: the qualified ids that match, sorted; ask again with one.
    """

    searched_hint = True

    def __init__(self, kind: str, name: str, candidates: Iterable[str]) -> None:
        self.kind = kind
        self.name = name
        self.candidates = sorted(candidates)
        super().__init__(
            f"{kind} name {name!r} is ambiguous; use one of: {', '.join(self.candidates)}"
        )


class WorkspaceCapacityError(WskitError):
    """The workspace cache already holds its hard maximum of entries.

    Matches Blade's ``WorkspaceAgentResourceCapacityError`` (message
    ``Workspace agent resource capacity is full (64)``); raised before any
    loading starts.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        super().__init__(f"Workspace resource capacity is full ({capacity})")


class TrustStoreError(WskitError):
    """The trust store exists but cannot be used (corrupt, unreadable, wrong mode).

    Callers fail closed: project sources stay hidden.
    """


class UnsafePathError(WskitError):
    """A path asked for explicitly was refused by safe file access.

    :ivar code: the stable diagnostic code (``path-escape``, ``symlink``, …).
    :ivar path: the path as asked for.
    """

    def __init__(self, code: str, path: str, message: str) -> None:
        self.code = code
        self.path = path
        #: the reason alone (``args[0]`` is ``"<path>: <reason> [<code>]"``)
        self.reason = message
        super().__init__(f"{path}: {message} [{code}]")

    def message_for(self, path: str | None) -> str:
        """The message of a diagnostic about ``path`` that carries this refusal's code:
        the reason, prefixed with the refused path only when that is another path
        (a link component, an imported file)."""
        return self.reason if path == self.path else f"{self.path}: {self.reason}"


class SafeFsError(UnsafePathError):
    """A refusal by safe file access; ``code`` is one of the codes of :mod:`wskit.fs`
    (defined here, below both :mod:`wskit.fs.paths` and :mod:`wskit.fs`, which raise it;
    also importable from :mod:`wskit.fs`)."""

    def diagnostic(self, level: str = "error", plugin: str | None = None) -> Diagnostic:
        """This refusal as a :class:`~wskit.models.Diagnostic` (level ``error`` by default)."""
        global _Diagnostic
        if _Diagnostic is None:  # imported here, once: errors stays free of pydantic
            from wskit.models import Diagnostic as _Diagnostic
        # the path and code are fields of the diagnostic: the message is the reason alone
        # (printing both would give "<path>: <path>: … [symlink] [symlink]")
        return _Diagnostic(
            level=level, code=self.code, path=self.path, message=self.reason, plugin=plugin
        )


#: :class:`wskit.models.Diagnostic`, once :meth:`SafeFsError.diagnostic` has imported it
_Diagnostic: type[Diagnostic] | None = None


class SessionStateError(WskitError):
    """A serialised :class:`wskit.session.SessionState` is malformed or from a newer format."""


class ProvenanceMismatchError(WskitError):
    """Recorded provenance differs from the workspace: the one exception family of a resume
    that fails closed (Blade's fail-closed resume, reference/blade.md §4.11, §6.2).
    :func:`wskit.session.resume.restore` raises it under the ``strict`` policy; the rules'
    ``resume`` raises its subclass ``RuleProvenanceMismatch`` and a style's restore
    ``StyleProvenanceError``, so ``except ProvenanceMismatchError`` catches every drift.

    :ivar drift: the drift entries, ``{"field", "id", "path", "change", ...}`` (see
        :func:`wskit.session.resume.restore`).
    :ivar paths: the file of each entry (its id where no file is known), in order; the
        message names them.
    """

    def __init__(self, drift: list[dict[str, Any]], message: str | None = None) -> None:
        self.drift = list(drift)
        self.paths = [d.get("path") or d.get("id") for d in self.drift]
        if message is None:
            what = ", ".join(f"{drift_subject(d)} ({d.get('change')})" for d in self.drift)
            message = f"session provenance mismatch: {what}"
        super().__init__(message)


def drift_subject(entry: dict[str, Any]) -> str:
    """What a drift entry is about, as messages name it: its file path when known, else
    its field and id (``hook_trust.digest``, ``trust``)."""
    path = entry.get("path")
    if path:
        return str(path)
    return f"{entry.get('field') or ''} {entry.get('id') or ''}".strip()
