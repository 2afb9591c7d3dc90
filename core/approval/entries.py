"""What one approval covers: an :class:`ApprovalEntry` (docs/security.md "Per-entry approval").

An entry is one hook handler, one MCP server or one LSP server. It is named by its
**capability** (``hooks``, ``mcp``, ``lsp``), its **source** (the settings file or plugin
that defines it: ``project .claude/settings.json``, ``plugin NAME``) and its **identity**
(for a hook: event, matcher, type, command or URL or prompt, ``if``; for a server: its
name). Its :attr:`ApprovalEntry.key` hashes those three, so adding, removing or editing
another entry never changes it. Its :attr:`ApprovalEntry.digest` covers the identity, the
rest of the definition as written, the bytes and executable bit of every project or plugin
file its command runs (:func:`entry_coverage`) and the words coverage could not follow:
after approval, any change to one of them makes the entry ``modified``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wskit import fs
from wskit.util.lazyre import lazy_pattern

__all__ = [
    "ApprovalEntry", "canonical", "CoveredFile", "entry_coverage", "MAX_COVERED_BYTES", "selection_digest",
    "UnverifiedWord"
]

#: Largest file a command names whose bytes an approval covers (a larger one is an unverified word).
MAX_COVERED_BYTES = 4 << 20
_PROJECT_VAR = lazy_pattern(globals(), "_PROJECT_VAR",
                            r"\$(?:\{[A-Z][A-Z0-9_]*_PROJECT_DIR\}|[A-Z][A-Z0-9_]*_PROJECT_DIR\b)")
_PLUGIN_VAR = lazy_pattern(globals(), "_PLUGIN_VAR",
                           r"\$(?:\{[A-Z][A-Z0-9_]*_PLUGIN_ROOT\}|[A-Z][A-Z0-9_]*_PLUGIN_ROOT\b)")
#: an argument that is one variable (``${TOKEN}``, ``--token=${TOKEN}``): a value, not a path
_WHOLE_VAR = lazy_pattern(globals(), "_WHOLE_VAR", r"^(?:--?[A-Za-z0-9_-]+=)?\$\{?[A-Za-z_][A-Za-z0-9_]*(?::-[^}/]*)?\}?\Z")
_OPERATORS = lazy_pattern(globals(), "_OPERATORS", r"[;&|()<>]+")


#: words after which the command runs something no word names
_RUNS_WHAT_IT_FINDS = {
    "-exec": "runs whatever find finds", "-execdir": "runs whatever find finds", "-ok": "runs whatever find finds",
    "xargs": "runs what it reads from its input", "eval": "runs text built when it runs",
}


def canonical(value: Any) -> str:
    """The canonical JSON of ``value`` (sorted keys, no spaces, non-ASCII kept): what digests hash."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CoveredFile:
    """A file an entry's command runs or reads, whose state the entry's digest covers.

    :ivar path: relative to its base (``project`` or ``plugin``), ``/`` separators.
    :ivar base: ``project`` (the execution root) or ``plugin`` (the plugin's root).
    :ivar digest: ``sha256:<hex>`` of its bytes; None when it does not exist (creating
        it then changes the entry's digest).
    :ivar executable: its executable bit (``chmod +x`` changes the digest).
    """

    path: str
    base: str
    digest: str | None
    executable: bool = False

    @property
    def token(self) -> str:
        """What the entry's digest records for the file: its digest (or ``missing``) and ``+x``."""
        return (self.digest or "missing") + ("+x" if self.executable else "")

    @property
    def shown(self) -> str:
        """``path`` for a project file, ``<plugin>/path`` for a plugin file."""
        return self.path if self.base == "project" else f"<{self.base}>/{self.path}"


@dataclass(frozen=True)
class UnverifiedWord:
    """A word of a command that coverage could not follow (a variable, a glob, ``cd``, a link,
    a file too large to hash…): a change behind it does not change the digest, so approving
    the entry needs ``--accept-unverified``.

    :ivar word: the word as written. :ivar reason: why it could not be followed.
    """

    word: str
    reason: str


@dataclass(frozen=True)
class ApprovalEntry:
    """One entry that needs (or may need) approval.

    :ivar capability: ``hooks``, ``mcp`` or ``lsp``.
    :ivar source: the settings file or plugin that defines it (``project .mcp.json``, ``plugin NAME``).
    :ivar identity: JSON-able; what names the entry within its source (see the module doc).
    :ivar definition: JSON-able; the rest of the definition as written (placeholders unexpanded).
    :ivar files: :class:`CoveredFile` each, in order.
    :ivar unverified: :class:`UnverifiedWord` each, in order.
    :ivar label: one line for people (``PreToolUse Bash: sh ./guard.sh``).
    :ivar resource_id: the id of the resource it was built from (a hook's or server's id).
    """

    capability: str
    source: str
    identity: Mapping[str, Any]
    definition: Mapping[str, Any] = field(default_factory=dict)
    files: tuple[CoveredFile, ...] = ()
    unverified: tuple[UnverifiedWord, ...] = ()
    label: str = ""
    resource_id: str = ""

    def __hash__(self) -> int:
        return hash((self.capability, self.source, self.digest))

    @property
    def key(self) -> str:
        """``<capability>:<16 hex>``: stable while capability, source and identity are (the
        store's record key; ``wsctl hooks trust --entry KEY`` takes it)."""
        return f"{self.capability}:" + _sha(canonical([self.capability, self.source, self.identity]))[:16]

    @property
    def digest(self) -> str:
        """``sha256:<hex>`` over source, identity, definition, covered files (path, digest,
        executable bit) and unverified words."""
        return "sha256:" + _sha(canonical({
            "capability": self.capability, "source": self.source, "identity": self.identity,
            "definition": self.definition, "files": [[f.base, f.path, f.token] for f in self.files],
            "unverified": [w.word for w in self.unverified]}))

    @property
    def unverified_words(self) -> tuple[str, ...]:
        """The words of :attr:`unverified`, each once, in order."""
        return tuple(dict.fromkeys(w.word for w in self.unverified))


def selection_digest(entries: Sequence[ApprovalEntry]) -> str:
    """The digest of a selection of entries: one entry's own :attr:`ApprovalEntry.digest`, else
    ``sha256:`` over their sorted digests (what ``wsctl hooks trust --digest`` compares)."""
    if len(entries) == 1:
        return entries[0].digest
    return "sha256:" + _sha(canonical(sorted(e.digest for e in entries)))


def _words(command: str, depth: int = 0) -> tuple[list[str], list[UnverifiedWord]]:
    """Shell words of ``command`` split at operators; a quoted word holding spaces (``sh -c "…"``)
    is split once more."""
    try:
        raw = shlex.split(command, comments=False, posix=True)
    except ValueError as err:
        return [], [UnverifiedWord(command[:80], f"not parsable as shell words: {err}")]
    out: list[str] = []
    bad: list[UnverifiedWord] = []
    for w in raw:
        if depth == 0 and any(c.isspace() for c in w):
            out.append(w)  # a path with spaces, or an inner command
            more, why = _words(w, 1)
            out.extend(more)
            bad.extend(why)
        else:
            out.extend(p for p in _OPERATORS.split(w) if p)
    return out, bad


def _base_of(full: str, roots: Sequence[tuple[str, str | None]]) -> tuple[str, str] | None:
    for name, b in roots:
        if b is not None and (full == b or full.startswith(b.rstrip(os.sep) + os.sep)):
            return name, b
    return None


def _cover(word: str, full: str, base_name: str, base: str) -> CoveredFile | UnverifiedWord:
    rel = os.path.relpath(full, base).replace(os.sep, "/")
    try:
        raw = fs.read_bytes(base, rel, max_bytes=MAX_COVERED_BYTES).raw
    except fs.SafeFsError as err:
        if err.code == "not-found" and not os.path.lexists(full):
            return CoveredFile(path=rel, base=base_name, digest=None)
        why = {"too-large": f"over {MAX_COVERED_BYTES >> 20} MiB: not hashed", "symlink": "a link: not followed",
               "link": "a link: not followed"}.get(err.code, f"unreadable ({err.code})")
        return UnverifiedWord(word, why)
    except (OSError, ValueError) as err:
        return UnverifiedWord(word, f"unreadable ({err})")
    try:
        executable = bool(os.lstat(full).st_mode & 0o111)
    except OSError:
        executable = False
    return CoveredFile(path=rel, base=base_name, digest="sha256:" + hashlib.sha256(raw).hexdigest(),
                       executable=executable)


def entry_coverage(*, command: str | None = None, argv: Sequence[str] | None = None, cwd: str,
                   project_root: str | None, plugin_root: str | None, env: Mapping[str, str] | None = None
                   ) -> tuple[tuple[CoveredFile, ...], tuple[UnverifiedWord, ...]]:
    """The project and plugin files a command (a shell ``command`` string, or an ``argv``
    started without a shell) runs or names, and the words that could not be followed.

    A word with a ``/`` (after ``$<HOST>_PROJECT_DIR`` and ``$<HOST>_PLUGIN_ROOT`` are put
    in), or a later word naming a file that exists in ``cwd`` (``sh guard.sh``), is a file:
    relative to ``cwd``; inside ``plugin_root`` or ``project_root`` it is covered (bytes
    read link-refusing and bounded by :data:`MAX_COVERED_BYTES`, executable bit; a missing
    one is recorded missing), elsewhere it is the user's own system and not covered. Any
    other ``$`` (but an ``argv`` argument that is one variable, ``${TOKEN}``: a value the
    user's environment gives, not a path of the project), a backquote, a glob (``*?[``),
    ``cd``/``pushd``, ``find -exec``, ``xargs``, ``eval``, a link, a file too large or
    unreadable is an :class:`UnverifiedWord` with its reason. Never raises.

    :param env: the variables the command will see (unused by this splitter; the signature
        is the one shared with :mod:`wskit.approval.coverage`).
    """
    del env
    if argv is not None:
        words = [str(a) for a in argv]
        bad: list[UnverifiedWord] = []
        if len(words) >= 3 and os.path.basename(words[0]) in ("sh", "bash", "dash", "zsh") and words[1] == "-c":
            inner, bad = _words(words[2], 1)
            words = words[:2] + inner + words[3:]
    else:
        words, bad = _words(command or "")
    root = os.path.abspath(project_root) if project_root is not None else None
    proot = os.path.abspath(plugin_root) if plugin_root is not None else None
    cwd = os.path.abspath(cwd)
    roots = (("plugin", proot), ("project", root))
    files: list[CoveredFile] = []
    unverified: list[UnverifiedWord] = list(bad)
    seen: set[str] = set()
    first = True
    for word in words:
        was_first, first = first, False
        if "=" in word and word.split("=", 1)[0].isidentifier() and was_first:
            first = True  # VAR=value before the program
            word = word.split("=", 1)[1]
        if word in ("cd", "pushd", "popd"):
            unverified.append(UnverifiedWord(word, "changes the folder the words after it are read from"))
            continue
        if word in _RUNS_WHAT_IT_FINDS:
            unverified.append(UnverifiedWord(word, _RUNS_WHAT_IT_FINDS[word]))
            continue
        text = word
        if proot is not None:
            text = _PLUGIN_VAR.sub(lambda _m: proot, text)
        if root is not None:
            text = _PROJECT_VAR.sub(lambda _m: root, text)
        if any(c.isspace() for c in text) and not os.path.lexists(
                text if os.path.isabs(text) else os.path.join(cwd, text)):
            continue  # an inner command (split above) or inline code (``python -c``, in the definition)
        if argv is not None and _WHOLE_VAR.match(text):
            continue  # without a shell, a whole ${VAR} argument is a value from the user's environment
        if "$" in text or "`" in text:
            unverified.append(UnverifiedWord(word, "a variable or substitution: what it names is known only "
                                                   "when it runs"))
            continue
        if any(c in text for c in "*?["):
            unverified.append(UnverifiedWord(word, "a pattern: the files it matches are known only when it runs"))
            continue
        if text.startswith("-") or "://" in text or not text:
            continue
        if "/" not in text:
            if was_first or any(c.isspace() for c in text) or not os.path.isfile(os.path.join(cwd, text)):
                continue  # the program, looked up in PATH; or a plain argument
        full = os.path.normpath(text if os.path.isabs(text) else os.path.join(cwd, text))
        if full in seen or (any(c.isspace() for c in text) and not os.path.lexists(full)):
            continue  # a word with spaces is a path only when there is one
        seen.add(full)
        where = _base_of(full, roots)
        if where is None:
            continue  # outside the project and the plugin: the user's system
        got = _cover(word, full, *where)
        (files if isinstance(got, CoveredFile) else unverified).append(got)  # type: ignore[arg-type]
    return tuple(files), tuple(unverified)
