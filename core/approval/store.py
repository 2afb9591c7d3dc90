"""The per-user approval store: one record per approved (or denied) entry.

Hooks, MCP servers and LSP servers are approved each on its own
(:class:`~wskit.approval.entries.ApprovalEntry`): a record is keyed by the entry's
:attr:`~wskit.approval.entries.ApprovalEntry.key` (capability, source, identity) under its
project, and holds the digest approved. An entry's state (:class:`EntryStatus`):

- ``approved``: a record with the entry's current digest (``approved (unverified: WORD)``
  when the approval accepted words coverage could not follow);
- ``awaiting``: no record (never approved, or its identity changed: a new entry);
- ``modified``: a record with another digest; :attr:`EntryStatus.reason` says what changed
  (a covered file, its executable bit, the definition, a new unverified word);
- ``denied``: recorded as denied; ``error``: the store is unusable (fail closed).

A capability may also give an entry that needs no record a state of its own:
``not-required`` (runs without approval), ``untrusted-project`` (the user's entry names a
file of a project that is not trusted) and ``switched-off`` (a user's guard that project
settings switched off: it does not run and is not decided).

Adding, removing or editing one entry never changes another's state.

Store ``<home>/.wskit/approvals.json``: ``{"version": 1, "projects": {"<source root>":
{"<key>": {"capability", "source", "label", "state": "approved"|"denied", "digest",
"files": {"<base>:<path>": "<sha256:…|missing>[+x]"}, "unverified": [...], "at"}}}}``, a
regular file of mode 0600 owned by the user, at most 4 MiB, read and written through
:class:`~wskit.fs.store.PrivateJsonFile` (no link below the home, locked, atomic).
Anything else about it is state ``error`` for every entry, and it is never overwritten.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from wskit.approval.entries import ApprovalEntry, selection_digest
from wskit.errors import WskitError
from wskit.fs.atomic import StateFileError
from wskit.fs.store import PrivateJsonFile
from wskit.values import FrozenValue

__all__ = [
    "ApprovalDigestMismatchError", "ApprovalState", "ApprovalStore", "ApprovalStoreError", "EntryStatus",
    "MAX_STORE_BYTES", "STORE_VERSION", "UnverifiedNotAcceptedError"
]

ApprovalState = Literal["approved", "awaiting", "modified", "denied", "not-required", "untrusted-project",
                        "switched-off", "error"]
STORE_VERSION = 1
#: Largest store read or written, bytes.
MAX_STORE_BYTES = 4 << 20
_RECORD_KEYS = {"capability", "source", "label", "state", "digest", "files", "unverified", "at"}


class ApprovalStoreError(WskitError):
    """The approval store is unusable (a link, not a regular file, wrong owner or mode,
    too large, not the schema); nothing it holds is honoured and it is never overwritten."""


class ApprovalDigestMismatchError(ApprovalStoreError):
    """The digest given to :meth:`ApprovalStore.approve` is not the selection's current one
    (something changed since it was shown, or the digest was mistyped).

    :ivar current_digest: the selection's digest as it is now.
    """

    def __init__(self, message: str, *, current_digest: str | None = None) -> None:
        super().__init__(message)
        self.current_digest = current_digest


class UnverifiedNotAcceptedError(ApprovalStoreError):
    """An entry of the selection has words coverage could not follow, and the approval did
    not accept them (``accept_unverified=True``, ``--accept-unverified``)."""


class EntryStatus(FrozenValue):
    """The approval state of one entry.

    :ivar entry: the :class:`~wskit.approval.entries.ApprovalEntry`.
    :ivar state: see the module doc. :ivar reason: why (``not approved``, ``scripts/guard.sh
        changed``…), empty when approved.
    :ivar approved_at: when the record was made (ISO 8601), if any.
    """

    entry: ApprovalEntry
    state: ApprovalState
    reason: str = ""
    approved_at: str | None = None

    @property
    def runs(self) -> bool:
        """True when the entry may run (``approved`` or ``not-required``)."""
        return self.state in ("approved", "not-required")

    @property
    def awaiting_approval(self) -> bool:
        """True when the user can approve it (``awaiting`` or ``modified``)."""
        return self.state in ("awaiting", "modified")

    @property
    def text(self) -> str:
        """``approved``, ``approved (unverified: $X, *.sh)``, ``awaiting (not approved)``,
        ``modified (scripts/guard.sh changed)``…: what ``wsctl hooks status`` prints."""
        if self.state == "approved" and self.entry.unverified:
            return f"approved (unverified: {', '.join(self.entry.unverified_words)})"
        return self.state + (f" ({self.reason})" if self.reason else "")

    def to_json(self) -> dict[str, Any]:
        e = self.entry
        return {"key": e.key, "capability": e.capability, "source": e.source, "label": e.label,
                "resource_id": e.resource_id, "state": self.state, "reason": self.reason, "text": self.text,
                "digest": e.digest, "approved_at": self.approved_at,
                "files": [{"path": f.path, "base": f.base, "digest": f.digest, "executable": f.executable}
                          for f in e.files],
                "unverified": [{"word": w.word, "reason": w.reason} for w in e.unverified]}


def _why_modified(entry: ApprovalEntry, record: dict[str, Any]) -> str:
    """What differs between ``entry`` now and the approved ``record``."""
    old = record.get("files") or {}
    now = {f"{f.base}:{f.path}": f for f in entry.files}
    said: list[str] = []
    for k, f in now.items():
        before = old.get(k)
        if before is None:
            said.append(f"{f.shown} is new")
        elif before != f.token:
            b_digest, _, b_x = before.partition("+")
            if f.digest is None:
                said.append(f"{f.shown} removed")
            elif b_digest == "missing":
                said.append(f"{f.shown} created")
            elif b_digest == (f.digest or "missing"):
                said.append(f"{f.shown} executable bit changed")
            else:
                said.append(f"{f.shown} changed")
    said.extend(f"{k.split(':', 1)[1]} no longer named" for k in old if k not in now)
    new_words = [w for w in entry.unverified_words if w not in (record.get("unverified") or [])]
    if new_words:
        said.append(f"cannot verify {', '.join(new_words)}")
    return "; ".join(said) if said else "definition changed since approved"


class ApprovalStore:
    """The per-user approval store (see the module doc).

    :param path: the JSON file (default ``<home>/.wskit/approvals.json`` via :meth:`for_home`).
    :param anchor: no link may lead from here to the store (default: its folder).
    """

    def __init__(self, path: str | os.PathLike[str], anchor: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path)
        self.anchor = Path(anchor) if anchor is not None else self.path.parent
        self._file = PrivateJsonFile(self.path, self.anchor, what="approval store", max_bytes=MAX_STORE_BYTES)

    @classmethod
    def for_home(cls, home: str | os.PathLike[str]) -> ApprovalStore:
        """``<home>/.wskit/approvals.json``, with no link allowed below the home."""
        return cls(Path(home) / ".wskit" / "approvals.json", anchor=home)

    def _projects(self, data: object) -> dict[str, dict[str, dict[str, Any]]]:
        """The ``projects`` of a parsed store; anything but the schema is refused."""
        if data is None:
            return {}
        if not isinstance(data, dict) or set(data) != {"version", "projects"} or data["version"] != STORE_VERSION \
                or not isinstance(data["projects"], dict):
            raise ApprovalStoreError(f"approval store {self.path} has an unknown format")
        for root, records in data["projects"].items():
            if not isinstance(records, dict):
                raise ApprovalStoreError(f"approval store {self.path}: project {root!r} is malformed")
            for key, r in records.items():
                if not isinstance(r, dict) or set(r) != _RECORD_KEYS or r["state"] not in ("approved", "denied") \
                        or not isinstance(r["digest"], str) or not r["digest"].startswith("sha256:") \
                        or not isinstance(r["files"], dict) or not isinstance(r["unverified"], list):
                    raise ApprovalStoreError(f"approval store {self.path}: record {key!r} of {root!r} is malformed")
        return data["projects"]

    def read(self) -> dict[str, dict[str, dict[str, Any]]]:
        """``{source root: {key: record}}``.

        :raises ApprovalStoreError: the store is unusable (see the module doc).
        """
        try:
            return self._projects(self._file.read())
        except StateFileError as err:
            raise ApprovalStoreError(str(err)) from None

    def records(self, root: str | os.PathLike[str], capability: str | None = None) -> dict[str, dict[str, Any]]:
        """The records of project ``root`` (of one ``capability`` when given).

        :raises ApprovalStoreError: the store is unusable."""
        recs = self.read().get(str(root), {})
        return {k: r for k, r in recs.items() if capability is None or r["capability"] == capability}

    def _change(self, edit: Callable[[dict[str, dict[str, dict[str, Any]]]], bool]) -> bool:
        """Apply ``edit`` to the projects under the store's lock; written when it returns True.

        :raises ApprovalStoreError: the store is unusable (it is never overwritten then)."""
        changed: list[bool] = []

        def step(data: object) -> object:
            projects = {k: dict(v) for k, v in self._projects(data).items()}
            if not edit(projects):
                return None
            changed.append(True)
            return {"version": STORE_VERSION, "projects": {k: projects[k] for k in sorted(projects) if projects[k]}}

        try:
            self._file.update(step)
        except StateFileError as err:
            raise ApprovalStoreError(str(err)) from None
        return bool(changed)

    def status(self, root: str | os.PathLike[str], entries: Iterable[ApprovalEntry]) -> list[EntryStatus]:
        """The state of each of ``entries`` of project ``root``, in order (never raises: an
        unusable store makes every entry ``error``, its reason the store's error)."""
        entries = list(entries)
        try:
            records = self.read().get(str(root), {})
        except ApprovalStoreError as err:
            return [EntryStatus(e, "error", str(err)) for e in entries]
        return [self.state_of(e, records.get(e.key)) for e in entries]

    @staticmethod
    def state_of(entry: ApprovalEntry, record: dict[str, Any] | None) -> EntryStatus:
        """The state of ``entry`` given its ``record`` (None: none)."""
        if record is None:
            return EntryStatus(entry, "awaiting", "not approved")
        at = record.get("at")
        if record["state"] == "denied":
            return EntryStatus(entry, "denied", "denied by the user", at)
        if record["digest"] == entry.digest:
            return EntryStatus(entry, "approved", "", at)
        return EntryStatus(entry, "modified", _why_modified(entry, record), at)

    @staticmethod
    def _record(entry: ApprovalEntry, state: str, at: str) -> dict[str, Any]:
        return {"capability": entry.capability, "source": entry.source, "label": entry.label[:500],
                "state": state, "digest": entry.digest, "at": at,
                "files": {f"{f.base}:{f.path}": f.token for f in entry.files},
                "unverified": list(entry.unverified_words)}

    def approve(self, root: str | os.PathLike[str], entries: Sequence[ApprovalEntry], expected_digest: str, *,
                accept_unverified: bool = False, known: Mapping[str, str] | None = None) -> list[ApprovalEntry]:
        """Record approval of ``entries`` (what the user was shown) as they are now.

        :param expected_digest: the :func:`~wskit.approval.entries.selection_digest` that was
            shown for this selection.
        :param accept_unverified: the user accepted the words coverage could not follow.
        :param known: other digests the caller showed, each with what it is the digest of
            (``{"sha256:…": "all awaiting entries"}``, :func:`wskit.approval.servers.shown_digests`):
            a mismatch with one of them is reported as a digest of another selection or entry,
            not as a change since review (so are the own digests of ``entries``, when several
            are approved, and the digest of another entry recorded in this store).
        :returns: the entries recorded.
        :raises ApprovalStoreError: nothing to approve, or the store is unusable (never
            overwritten then).
        :raises ApprovalDigestMismatchError: ``expected_digest`` is not the selection's current
            digest (changed since shown, or mistyped); nothing is recorded.
        :raises UnverifiedNotAcceptedError: an entry has unverified words and
            ``accept_unverified`` is False; nothing is recorded.
        """
        entries = list(entries)
        if not entries:
            raise ApprovalStoreError("nothing to approve")
        current = selection_digest(entries)
        if current != expected_digest:
            others = dict(known or {})
            if len(entries) > 1:
                others.update({e.digest: f"entry {e.key} alone" for e in entries})
            n = len(entries)
            selection = f"entry {entries[0].key}" if n == 1 else f"these {n} entries together"
            if not re.fullmatch(r"sha256:[0-9a-f]{64}", expected_digest or ""):
                what = f"{expected_digest!r} is not an approval digest (sha256: and 64 hex digits)"
            elif expected_digest in others or self._recorded_as(root, entries, expected_digest):
                owner = others.get(expected_digest) or self._recorded_as(root, entries, expected_digest)
                what = (f"Digest {expected_digest} is the digest of {owner}, not of what is to be "
                        f"approved ({selection}): give the digest of {selection}")
            else:
                what = (f"Digest {expected_digest} is not the current digest of what is to be approved; if it is "
                        "the one you reviewed, it changed after review: review it again")
            raise ApprovalDigestMismatchError(f"{what}. The current digest is {current}; nothing was approved",
                                              current_digest=current)
        words = [f"{e.label or e.key}: {', '.join(e.unverified_words)}" for e in entries if e.unverified]
        if words and not accept_unverified:
            raise UnverifiedNotAcceptedError(
                "coverage cannot verify some words, so a change behind them would not be noticed ("
                + "; ".join(words) + "); approve with --accept-unverified (accept_unverified=True) if you accept "
                "that; nothing was approved")
        self._put(root, entries, "approved")
        return entries

    def _recorded_as(self, root: str | os.PathLike[str], entries: Sequence[ApprovalEntry], digest: str) -> str | None:
        """What the store recorded ``digest`` for, when it is another entry's (an entry of
        ``entries`` that had it when approved is not: that one changed after review), else None."""
        own = {e.key for e in entries}
        try:
            projects = self.read()
        except ApprovalStoreError:
            return None
        for project, records in sorted(projects.items(), key=lambda kv: kv[0] != str(root)):
            for key, r in records.items():
                if r["digest"] == digest and not (project == str(root) and key in own):
                    where = "" if project == str(root) else f" of project {project}"
                    return f"{r['capability']} entry {key}{where} ({r['label'][:120]}), recorded {r['state']}"
        return None

    def deny(self, root: str | os.PathLike[str], entries: Sequence[ApprovalEntry]) -> None:
        """Record ``entries`` as denied (never run in project ``root`` while the record stays).

        :raises ApprovalStoreError: the store is unusable."""
        self._put(root, list(entries), "denied")

    def _put(self, root: str | os.PathLike[str], entries: list[ApprovalEntry], state: str) -> None:
        at = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")

        def put(projects: dict[str, dict[str, dict[str, Any]]]) -> bool:
            recs = projects.setdefault(str(root), {})
            for e in entries:
                recs[e.key] = self._record(e, state, at)
            return True

        self._change(put)

    def revoke(self, root: str | os.PathLike[str], *, capability: str | None = None,
               keys: Iterable[str] | None = None) -> int:
        """Remove records of project ``root``: those of ``keys``, else those of ``capability``,
        else all. :returns: how many were removed.

        :raises ApprovalStoreError: the store is unusable."""
        wanted = set(keys) if keys is not None else None
        removed: list[int] = []

        def drop(projects: dict[str, dict[str, dict[str, Any]]]) -> bool:
            recs = projects.get(str(root), {})
            gone = [k for k, r in recs.items() if (wanted is None or k in wanted)
                    and (capability is None or r["capability"] == capability)]
            for k in gone:
                del recs[k]
            removed.append(len(gone))
            return bool(gone)

        self._change(drop)
        return removed[0] if removed else 0
