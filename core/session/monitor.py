"""The loop self-check: :class:`RepetitionMonitor` (Sakura, ../shared/seeds/001;
reference/holon-sakura.md).

Ten consecutive identical tool calls — same tool name, same *normalised*
arguments (canonical JSON: sorted keys, no insignificant whitespace) and same
result — or ten consecutive identical plain-text replies produce exactly one
self-check notice with audit metadata. Anything different (a new call, a new
result, a user message) resets the count. The monitor never stops a task: it
only returns a notice for the host to append. Its state is JSON and is stored
in ``SessionState.extensions["repetition_monitor"]``, so a resumed session
does not repeat a notice already given. It compares only observable, exactly
identical content; it does not claim to detect every semantic loop.
"""

from __future__ import annotations

import json
import re
from typing import Any

from wskit.errors import SessionStateError
from wskit.values import FrozenValue, Value

__all__ = ["canonical", "DEFAULT_THRESHOLD", "RepetitionMonitor", "SelfCheckNotice", "STATE_VERSION"]


#: Consecutive repetitions that trigger the notice (Sakura: 10).
DEFAULT_THRESHOLD = 10
STATE_VERSION = 1
_HEX64 = re.compile(r"^[0-9a-f]{64}\Z")


def canonical(value: Any) -> str:
    """Canonical JSON of ``value``: sorted keys, compact separators, non-JSON values as ``str``."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


class SelfCheckNotice(FrozenValue):
    """The one notice of a repetition streak.

    :ivar message: text for the model (a policy self-check prompt; the task continues).
    :ivar metadata: audit metadata: ``type`` (``repetition_self_check``), ``item``
        (``tool_call`` or ``reply``), ``tool`` (name or None), ``digest`` (SHA-256 hex
        of the repeated item), ``count``, ``first_turn``, ``last_turn``.
    """

    message: str
    metadata: dict[str, Any]


class RepetitionMonitor(Value):
    """Counts consecutive identical tool calls or replies.

    :ivar threshold: repetitions that trigger the notice (10).
    :ivar digest: SHA-256 hex of the current streak's item (None before any).
    :ivar count: length of the current streak. :ivar first_turn, last_turn: its turns.
    :ivar notified: the notice of the current streak was given.
    :ivar turn: the last turn number seen (auto-incremented when callers pass none).
    :ivar notices: notices given over the session's life.
    """

    threshold: int = DEFAULT_THRESHOLD
    digest: str | None = None
    item: str | None = None
    tool: str | None = None
    count: int = 0
    first_turn: int | None = None
    last_turn: int | None = None
    notified: bool = False
    turn: int = 0
    notices: int = 0

    def _observe(self, item: str, tool: str | None, digest: str, turn: int | None) -> SelfCheckNotice | None:
        self.turn = turn if turn is not None else self.turn + 1
        if digest != self.digest:
            self.digest, self.item, self.tool = digest, item, tool
            self.count, self.first_turn, self.notified = 1, self.turn, False
        else:
            self.count += 1
        self.last_turn = self.turn
        if self.count >= self.threshold and not self.notified:
            self.notified = True
            self.notices += 1
            what = f"tool call {tool!r} with the same arguments and result" if item == "tool_call" \
                else "plain-text reply"
            msg = (f"Self-check: the same {what} has now occurred {self.count} times in a row "
                   f"(turns {self.first_turn}–{self.last_turn}). Check whether this approach makes progress "
                   f"and change it if not. This is a notice, not a stop: the task continues.")
            return SelfCheckNotice(msg, {
                "type": "repetition_self_check", "item": item, "tool": tool, "digest": digest,
                "count": self.count, "first_turn": self.first_turn, "last_turn": self.last_turn,
            })
        return None

    def record_tool_call(self, name: str, arguments: Any, result: Any, *, turn: int | None = None) -> SelfCheckNotice | None:
        """Record one tool call and its result.

        :returns: a :class:`SelfCheckNotice` exactly once per streak, when it reaches the threshold.
        """
        import hashlib  # when a call is observed, not at start-up (it loads OpenSSL)

        digest = hashlib.sha256(canonical(["tool_call", name, arguments, result]).encode()).hexdigest()
        return self._observe("tool_call", name, digest, turn)

    def record_reply(self, text: str, *, turn: int | None = None) -> SelfCheckNotice | None:
        """Record one plain-text model reply (same rules as :meth:`record_tool_call`)."""
        import hashlib  # when a call is observed, not at start-up (it loads OpenSSL)

        digest = hashlib.sha256(canonical(["reply", text]).encode()).hexdigest()
        return self._observe("reply", None, digest, turn)

    def record_user_message(self, *, turn: int | None = None) -> None:
        """A real user message (guidance): resets the streak."""
        self.turn = turn if turn is not None else self.turn + 1
        self.digest = self.item = self.tool = None
        self.count, self.first_turn, self.last_turn, self.notified = 0, None, None, False

    # -- persistence -----------------------------------------------------

    def state(self) -> dict[str, Any]:
        """JSON state (``SessionState.extensions["repetition_monitor"]``)."""
        return {
            "version": STATE_VERSION, "threshold": self.threshold, "digest": self.digest, "item": self.item,
            "tool": self.tool, "count": self.count, "first_turn": self.first_turn, "last_turn": self.last_turn,
            "notified": self.notified, "turn": self.turn, "notices": self.notices,
        }

    @classmethod
    def from_state(cls, data: Any, where: str = "extensions.repetition_monitor") -> "RepetitionMonitor":
        """Rebuild a monitor from :meth:`state`, failing closed.

        :raises SessionStateError: a malformed field, named (``<where>.<field>``), or a newer version.
        """
        if not isinstance(data, dict):
            raise SessionStateError(f"session state field {where!r}: must be an object")
        known = {"version", "threshold", "digest", "item", "tool", "count", "first_turn", "last_turn",
                 "notified", "turn", "notices"}
        extra = sorted(set(data) - known)
        if extra:
            raise SessionStateError(f"session state field {where}.{extra[0]!r}: unknown field")

        def bad(name: str, why: str) -> SessionStateError:
            return SessionStateError(f"session state field '{where}.{name}': {why}")

        ver = data.get("version")
        if not isinstance(ver, int) or isinstance(ver, bool):
            raise bad("version", "must be an integer")
        if ver > STATE_VERSION:
            raise bad("version", f"version {ver} is newer than this wskit understands ({STATE_VERSION})")
        ints = {"threshold": 1, "count": 0, "turn": 0, "notices": 0}
        for name, low in ints.items():
            v = data.get(name)
            if not isinstance(v, int) or isinstance(v, bool) or v < low:
                raise bad(name, f"must be an integer ≥ {low}")
        for name in ("first_turn", "last_turn"):
            v = data.get(name)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
                raise bad(name, "must be null or an integer ≥ 0")
        digest = data.get("digest")
        if digest is not None and (not isinstance(digest, str) or not _HEX64.match(digest)):
            raise bad("digest", "must be null or 64 lowercase hex digits")
        if data.get("item") not in (None, "tool_call", "reply"):
            raise bad("item", "must be null, 'tool_call' or 'reply'")
        if data.get("tool") is not None and not isinstance(data.get("tool"), str):
            raise bad("tool", "must be null or a string")
        if not isinstance(data.get("notified"), bool):
            raise bad("notified", "must be a boolean")
        if (digest is None) != (data["count"] == 0):
            raise bad("count", "must be 0 exactly when digest is null")
        return cls(threshold=data["threshold"], digest=digest, item=data.get("item"), tool=data.get("tool"),
                   count=data["count"], first_turn=data.get("first_turn"), last_turn=data.get("last_turn"),
                   notified=data["notified"], turn=data["turn"], notices=data["notices"])
