"""Folder trust: the decision store and its semantics (design §4).

States are ``trusted``, ``untrusted`` and ``unknown``. Only ``trusted``
unlocks project and local sources; user, builtin, admin and cli sources load
regardless. A decision on a folder covers its descendants unless a nearer
decision exists. A linked git worktree inherits the decision of its main
checkout because callers pass the *source project* (see
:class:`wskit.binding.Binding`).

The store is ``<home>/.wskit/trust.toml``::

    version = 1
    [[folder]]
    path = "/abs/real/path"
    state = "trusted"
    decided_at = "2026-11-29T21:00:00+00:00"

written atomically (temp file + ``rename``, fsync) under a file lock
(``trust.toml.lock``), mode 0600, through :mod:`wskit.fs.atomic` (no link
followed below the home). A store that cannot be parsed, is not a regular
file, is reached through a link (``~/.wskit`` linked elsewhere), or is
readable or writable by others raises :class:`~wskit.errors.TrustStoreError`;
the trust gate then fails closed.
"""


import os
import stat
import time
from pathlib import Path
from typing import Any, Literal

from wskit import changes, fs
from wskit.errors import TrustStoreError
from wskit.fs.atomic import StateFileError, atomic_write, check_no_links, state_lock
from wskit.fs.names import not_utf8, shown_path
from wskit.models import Frozen

__all__ = ["MAX_STORE_BYTES", "STORE_VERSION", "TrustDecision", "TrustState", "TrustStore"]


TrustState = Literal["trusted", "untrusted", "unknown"]
STORE_VERSION = 1
#: Largest trust store read, in bytes (a bigger file is refused unread as corrupt).
MAX_STORE_BYTES = 16 * 1024 * 1024


class TrustDecision(Frozen):
    """The outcome of the trust gate for one source project.

    :ivar path: the source project asked about.
    :ivar state: ``trusted``, ``untrusted`` or ``unknown``.
    :ivar decided_by: the folder whose recorded decision applies (the path
        itself or an ancestor), or None when nothing is recorded.
    :ivar error: set when the store could not be read (state is then ``unknown``).
    :ivar source: who decided (``store`` or a plugin name).
    """

    path: str
    state: TrustState
    decided_by: str | None = None
    error: str | None = None
    source: str = "store"

    @property
    def trusted(self) -> bool:
        return self.state == "trusted"

    def reason(self) -> str:
        """One sentence for users: why project sources are or are not loaded. It names no
        command (a host's users never see ``wsctl``): :meth:`cli_hint` is the CLI's."""
        if self.error:
            return f"trust store unusable ({self.error}); project sources hidden (fail closed)"
        if self.state == "trusted":
            return f"trusted by the decision on {self.decided_by}"
        if self.state == "untrusted":
            return f"untrusted by the decision on {self.decided_by}; project sources hidden"
        return "no trust decision covers this folder; project sources hidden until the user trusts it"

    def cli_hint(self) -> str:
        """What a ``wsctl`` user runs to trust the folder (``""`` once a decision covers it)."""
        if self.state != "unknown" or self.error:
            return ""
        import shlex

        return f"run 'wsctl trust grant {shlex.quote(self.path)}'"


def _canon(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.path.abspath(os.path.expanduser(os.fspath(path))))


#: Parsed stores by path: ``(stat signature, entries)``. A warm process does not parse
#: an unchanged store on every workspace load; a store modified within
#: the racy window is never kept (an edit in the same clock tick could go unseen).
_PARSED: dict[str, tuple[tuple, dict[str, dict[str, str]]]] = {}
_PARSED_MAX = 8


class TrustStore:
    """The per-user trust store.

    :param path: the TOML file (usually ``HostProfile.state_dir / "trust.toml"``).
    :param anchor: the folder below which no link may lead to the store (default:
        the store's folder; :meth:`for_home` gives the home).
    """

    def __init__(self, path: str | os.PathLike[str], anchor: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path)
        self.anchor = Path(anchor) if anchor is not None else self.path.parent

    @classmethod
    def for_home(cls, home: str | os.PathLike[str]) -> "TrustStore":
        """The store of a user home: ``<home>/.wskit/trust.toml`` (no link below the home)."""
        return cls(Path(home) / ".wskit" / "trust.toml", anchor=home)

    # -- reading ----------------------------------------------------------

    def _read(self) -> dict[str, dict[str, str]]:
        try:
            check_no_links(self.path, self.anchor)
        except StateFileError as err:
            raise TrustStoreError(f"trust store unusable: {err}") from None
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            return {}
        except OSError as err:
            raise TrustStoreError(f"trust store {self.path} unreadable: {err.strerror}") from None
        if not stat.S_ISREG(st.st_mode):
            raise TrustStoreError(f"trust store {self.path} is not a regular file")
        if st.st_mode & 0o077:
            raise TrustStoreError(
                f"trust store {self.path} has mode {stat.S_IMODE(st.st_mode):04o}; it must be 0600"
            )
        sig = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        hit = _PARSED.get(str(self.path))
        if hit is not None and hit[0] == sig:
            changes.note(str(self.path), False, st)  # what the read would have noted
            return {k: dict(v) for k, v in hit[1].items()}
        try:
            # Bounded, link-refusing, non-blocking read: a store swapped for a
            # link, FIFO or huge file is refused, never followed or read whole.
            raw = fs.read_bytes(self.path.parent, self.path.name, max_bytes=MAX_STORE_BYTES).raw
        except fs.SafeFsError as err:
            if err.code == "not-found":
                return {}
            raise TrustStoreError(f"trust store unusable: {err.args[0]}") from None
        try:
            text = raw.decode("utf-8")
            data = _simple_store(text)
            if data is None:
                import tomllib  # not at start-up: the store as wskit writes it is read without it

                data = tomllib.loads(text)
        except (ValueError, RecursionError) as err:  # TOMLDecodeError, UnicodeDecodeError, a 5,000-digit int
            # RecursionError: tomllib recurses per nesting level (a corrupt or
            # hostile store nested thousands deep must fail closed, not crash).
            raise TrustStoreError(f"trust store {self.path} is corrupt: {type(err).__name__}: {err}") from None
        unknown = sorted(set(data) - {"version", "folder"})
        if unknown:  # not ours (or damaged): never overwrite what we do not understand
            raise TrustStoreError(f"trust store {self.path} has unknown keys {unknown}; refusing to use it")
        version = data.get("version", STORE_VERSION)
        if type(version) is not int or version > STORE_VERSION:  # a bool is not a version
            shown = f"an integer of {version.bit_length()} bits" if isinstance(version, int) else repr(version)[:100]
            raise TrustStoreError(f"trust store {self.path} has unsupported version {shown}")
        folders = data.get("folder", [])
        if not isinstance(folders, list):
            raise TrustStoreError(f"trust store {self.path}: 'folder' must be an array of tables")
        out: dict[str, dict[str, str]] = {}
        for i, entry in enumerate(folders):
            if (
                not isinstance(entry, dict)
                or not isinstance(entry.get("path"), str)
                or entry.get("state") not in ("trusted", "untrusted")
            ):
                raise TrustStoreError(f"trust store {self.path}: entry {i + 1} is malformed")
            out[entry["path"]] = {k: str(v) for k, v in entry.items()}
        if time.time_ns() - st.st_mtime_ns > changes.RACY_WINDOW_NS:  # settled: safe to key by stat
            if len(_PARSED) >= _PARSED_MAX:
                _PARSED.pop(next(iter(_PARSED)))
            _PARSED[str(self.path)] = (sig, {k: dict(v) for k, v in out.items()})
        return out

    def entries(self) -> list[dict[str, str]]:
        """All recorded decisions, sorted by path: ``{"path", "state", "decided_at"}``.

        :raises TrustStoreError: when the store is unusable.
        """
        entries = self._read()  # once: re-reading per entry was quadratic (and could mix two states)
        return [entries[p] for p in sorted(entries)]

    def decide(self, path: str | os.PathLike[str]) -> TrustDecision:
        """The decision for ``path``: the nearest recorded ancestor-or-self wins.

        :raises TrustStoreError: when the store is unusable (callers fail closed).
        """
        target = _canon(path)
        entries = self._read()
        cur = target
        while True:
            entry = entries.get(cur)
            if entry is not None:
                return TrustDecision(path=target, state=entry["state"], decided_by=cur)  # type: ignore[arg-type]
            parent = os.path.dirname(cur)
            if parent == cur:
                return TrustDecision(path=target, state="unknown")
            cur = parent

    # -- writing ----------------------------------------------------------

    def set(self, path: str | os.PathLike[str], state: TrustState | None) -> str:
        """Record ``state`` for ``path`` (``None`` forgets the entry).

        The read-modify-write happens under the file lock; the file is
        replaced atomically with mode 0600.

        :returns: the canonical path recorded.
        :raises TrustStoreError: when the existing store is unusable (it is
            never overwritten then), or when ``path`` holds bytes that are not
            UTF-8 (TOML cannot hold them; nothing is written).
        """
        if state not in (None, "trusted", "untrusted"):
            raise ValueError(f"invalid trust state {state!r}")
        target = _canon(path)
        why = not_utf8(target)
        if why is not None:
            raise TrustStoreError(f"cannot record a decision for {shown_path(target)}: the path {why} "
                                  "(the trust store is UTF-8 TOML)")
        try:
            with state_lock(self.path, self.anchor):
                self._write_locked(target, state)
        except StateFileError as err:
            raise TrustStoreError(f"trust store not written: {err}") from None
        return target

    def _write_locked(self, target: str, state: TrustState | None) -> None:
        """The read-modify-write of :meth:`set`; the caller holds the lock."""
        entries = self._read()
        if state is None:
            entries.pop(target, None)
        else:
            entries[target] = {
                "path": target,
                "state": state,
                "decided_at": _utc_now(),
            }
        doc = {"version": STORE_VERSION, "folder": [entries[p] for p in sorted(entries)]}
        import tomli_w

        atomic_write(self.path, tomli_w.dumps(doc).encode("utf-8"), mode=0o600, anchor=self.anchor)

    def grant(self, path: str | os.PathLike[str]) -> str:
        """Trust ``path`` and its descendants. See :meth:`set`."""
        return self.set(path, "trusted")

    def revoke(self, path: str | os.PathLike[str]) -> str:
        """Record ``untrusted`` for ``path`` (overrides a trusted ancestor). See :meth:`set`."""
        return self.set(path, "untrusted")

    def forget(self, path: str | os.PathLike[str]) -> str:
        """Remove the decision recorded for exactly ``path``. See :meth:`set`."""
        return self.set(path, None)


#: characters of a bare key
_BARE_KEY = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _simple_value(text: str, i: int) -> tuple[Any, int] | None:
    """The basic string (no escape, no control character) or decimal integer at
    ``text[i:]`` and the index after it; None for anything else."""
    if text.startswith('"', i):
        end = text.find('"', i + 1)
        if end < 0:
            return None
        body = text[i + 1:end]
        if "\\" in body or any(c < " " and c != "\t" or c == "\x7f" for c in body):
            return None
        return body, end + 1
    end = i
    while end < len(text) and text[end].isdigit() and text[end].isascii():
        end += 1
    digits = text[i:end]
    if not digits or (digits[0] == "0" and digits != "0") or len(digits) > 18:
        return None
    return int(digits), end


def _simple_pair(text: str, i: int, table: dict[str, Any]) -> int | None:
    """Read ``key = value`` at ``text[i:]`` into ``table``; the index after it, or None."""
    eq = text.find(" = ", i)
    key = text[i:eq]
    if eq < 0 or not key or not _BARE_KEY.issuperset(key) or key in table:
        return None
    got = _simple_value(text, eq + 3)
    if got is None:
        return None
    table[key] = got[0]
    return got[1]


def _simple_inline(text: str) -> dict[str, Any] | None:
    """``{ a = "x", b = 1 }`` (or ``{}``) as ``tomli_w`` writes an inline table; None otherwise."""
    if text == "{}":
        return {}
    if not text.startswith("{ ") or not text.endswith(" }"):
        return None
    table: dict[str, Any] = {}
    i, end = 2, len(text) - 2
    while True:
        i = _simple_pair(text, i, table)
        if i is None:
            return None
        if i == end:
            return table
        if not text.startswith(", ", i):
            return None
        i += 2


def _simple_store(text: str) -> dict[str, Any] | None:
    """``tomllib.loads(text)`` for the store as :meth:`TrustStore._write_locked` writes it
    with ``tomli_w`` — top-level ``key = value`` lines, the folders either as
    ``[[folder]]`` tables of such lines or as ``folder = [`` then one ``{ k = v, … },``
    line each and ``]`` (tomli_w picks by length); values basic strings without escapes
    or decimal integers — without importing :mod:`tomllib` (≈ 2 ms of every start that
    reads the store). None for anything else (another spacing, a comment, an escape, a
    repeated key, a ``\\r``), which tomllib then parses, and refuses as it does. Equal
    to tomllib on everything it accepts (tests/core/test_trust_store_parse.py)."""
    data: dict[str, Any] = {}
    table = data
    lines = text.split("\n")
    n = 0
    while n < len(lines):
        line = lines[n]
        n += 1
        if not line:
            continue
        if line == "[[folder]]":
            if table is data:  # the first header: "folder" may not be a value already (tomllib refuses it)
                if "folder" in data:
                    return None
                data["folder"] = []
            table = {}
            data["folder"].append(table)
            continue
        if line.endswith(" = [") and table is data:
            key = line[:-4]
            if not key or not _BARE_KEY.issuperset(key) or key in data:
                return None
            items = []
            while n < len(lines) and lines[n] != "]":
                item = lines[n]
                n += 1
                if not item.startswith("    ") or not item.endswith(","):
                    return None
                inline = _simple_inline(item[4:-1])
                if inline is None:
                    return None
                items.append(inline)
            if n >= len(lines):
                return None
            n += 1  # the closing "]"
            data[key] = items
            continue
        if line.endswith(" = []"):
            key = line[:-5]
            if not key or not _BARE_KEY.issuperset(key) or key in table:
                return None
            table[key] = []
            continue
        end = _simple_pair(line, 0, table)
        if end is None or end != len(line):
            return None
    return data


def _utc_now() -> str:
    """The current UTC time as ``datetime.now(timezone.utc).isoformat(timespec="seconds")``
    writes it (``2026-12-07T13:05:00+00:00``), without importing :mod:`datetime` on the
    start-up path."""
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
