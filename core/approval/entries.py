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
from collections.abc import Mapping, Sequence
from typing import Any

from wskit.values import FrozenValue, field


def canonical(value: Any) -> str:
    """The canonical JSON of ``value`` (sorted keys, no spaces, non-ASCII kept): what digests hash."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CoveredFile(FrozenValue):
    """A file an entry's command runs or reads, whose state the entry's digest covers.

    :ivar path: relative to its base (``project`` or ``plugin``), ``/`` separators.
    :ivar base: ``project`` (the execution root) or ``plugin`` (the plugin's root).
    :ivar digest: ``sha256:<hex>`` of its bytes; None when it does not exist (creating
        it then changes the entry's digest).
    :ivar executable: its executable bit (``chmod +x`` changes the digest).
    :ivar target: where a link among its components leads (``project:real/x.sh``), else None.
    """

    path: str
    base: str
    digest: str | None
    executable: bool = False
    target: str | None = None

    @property
    def token(self) -> str:
        """What the entry's digest records for the file: its digest (or ``missing``), ``+x``,
        and ``->TARGET`` when a link among its components leads elsewhere."""
        return (self.digest or "missing") + ("+x" if self.executable else "") \
            + (f"->{self.target}" if self.target else "")

    @property
    def shown(self) -> str:
        """``path`` for a project file, ``<plugin>/path`` for a plugin file."""
        return self.path if self.base == "project" else f"<{self.base}>/{self.path}"


class UnverifiedWord(FrozenValue):
    """A word of a command that coverage could not follow (a variable, a glob, ``cd``, a link,
    a file too large to hash…): a change behind it does not change the digest, so approving
    the entry needs ``--accept-unverified``.

    :ivar word: the word as written. :ivar reason: why it could not be followed.
    """

    word: str
    reason: str


class ApprovalEntry(FrozenValue):
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


_BLANKS = None


def shown_command(text: str) -> str:
    """``text`` (a command, a command line, a URL) as every approval screen presents it — the
    whole of it, on one line, nothing cut: a single space is kept; any other run of blanks
    (spaces, tabs, other white space but line breaks) is shown as ``<N blanks>`` (a single
    tab ``<tab>``), so padding cannot push a tail such as ``; rm -rf dir`` off a screen or
    out of a table cell; line breaks and every control, invisible or bidirectional character
    are escaped (:func:`wskit.cli.context.file_text`, as ``\\x0a``…). What ``wsctl hooks
    status``/``hooks trust``, ``mcp list``/``lsp list``/``approve`` and an entry's
    :attr:`ApprovalEntry.label` (which a host shows) carry."""
    global _BLANKS
    if _BLANKS is None:
        import re

        _BLANKS = re.compile(r"[^\S\n\r]+")
    from wskit.cli.context import file_text

    def blanks(m) -> str:
        run = m.group()
        if run == " ":
            return run
        if run == "\t":
            return "<tab>"
        return f"<{len(run)} blanks>"

    return file_text(_BLANKS.sub(blanks, str(text)))


def shown_argv(argv: Sequence[str]) -> str:
    """An argument vector (a server's ``command`` and ``args``) as one :func:`shown_command`
    line, each word quoted as a POSIX shell would need (:func:`shlex.join`): where one
    argument ends and the next begins stays visible (``sh -c 'rm -rf x; exec srv'``)."""
    import shlex

    return shown_command(shlex.join([str(a) for a in argv]))


def selection_digest(entries: Sequence[ApprovalEntry]) -> str:
    """The digest of a selection of entries: one entry's own :attr:`ApprovalEntry.digest`, else
    ``sha256:`` over their sorted digests (what ``wsctl hooks trust --digest`` compares)."""
    if len(entries) == 1:
        return entries[0].digest
    return "sha256:" + _sha(canonical(sorted(e.digest for e in entries)))


def _relative(path: str, roots: Sequence[tuple[str, str | None]]) -> tuple[str, str] | None:
    """``(base name, path relative to it)`` of an absolute ``path`` inside one of ``roots``
    (a folder listing keeps its trailing ``/``)."""
    trail = "/" if path.endswith("/") and len(path) > 1 else ""
    full = path.rstrip("/") or "/"
    for name, b in roots:
        if b is not None and (full == b or full.startswith(b.rstrip(os.sep) + os.sep)):
            rel = os.path.relpath(full, b).replace(os.sep, "/")
            return name, (rel + trail if rel != "." else "." + trail)
    return None


def entry_coverage(*, command: str | None = None, argv: Sequence[str] | None = None, cwd: str,
                   project_root: str | None, plugin_root: str | None, env: Mapping[str, str] | None = None,
                   defined_env: Mapping[str, Any] | None = None
                   ) -> tuple[tuple[CoveredFile, ...], tuple[UnverifiedWord, ...]]:
    """The project and plugin files a command (a shell ``command`` string, or an ``argv``
    started without a shell) executes, and the words that could not be followed: the
    one place approval entries take their coverage from, :func:`wskit.approval.coverage.command_coverage`
    and :func:`~wskit.approval.coverage.argv_coverage` (a real shell parser; ``cd``,
    interpreters, ``find -exec``, links, the executable bit — see that module).

    :param env: the variables the command will see; only ``*_PROJECT_DIR`` and
        ``*_PLUGIN_ROOT`` are expanded (``PATH``: a relative or in-root entry is unverified).
    :param defined_env: a server definition's own ``env`` map (loader variables in it are
        unverified; only with ``argv``). :returns: files as :class:`CoveredFile` (paths
        relative to their root; ``plugin`` when inside ``plugin_root``, else ``project``)
        and words as :class:`UnverifiedWord`. Never raises.
    """
    from wskit.approval.coverage import argv_coverage, command_coverage

    kw = {"cwd": os.path.abspath(cwd), "project_root": project_root, "plugin_root": plugin_root,
          "env": dict(env or {})}
    cov = (argv_coverage(list(argv), defined_env=defined_env, **kw) if argv is not None
           else command_coverage(command or "", **kw))
    roots = (("plugin", os.path.abspath(plugin_root) if plugin_root else None),
             ("project", os.path.abspath(project_root) if project_root else None))
    files: list[CoveredFile] = []
    for f in cov.files:
        where = _relative(f.path, roots)
        if where is None:
            continue  # outside both roots: the user's system (the coverage module covers none)
        target = _relative(f.target, roots) if f.target else None
        files.append(CoveredFile(path=where[1], base=where[0], digest=f"sha256:{f.digest}" if f.digest else None,
                                 executable=f.executable,
                                 target=(f"{target[0]}:{target[1]}" if target else f.target)))
    return tuple(files), tuple(UnverifiedWord(u.word, u.reason) for u in cov.unverified)


def project_files(entry: ApprovalEntry, *, listings: bool = True, written: str = "") -> list[str]:
    """The project files ``entry`` covers, as shown: those ``written`` (the command line as
    written) names first, folder listings (``dir/``, Python's importable names ``*.py``)
    last. Without ``listings``: only files — a listing alone runs nothing of the project yet."""
    def listing(path: str) -> bool:
        return path.endswith("/") or "*" in path

    return sorted((f.shown for f in entry.files if f.base == "project" and (listings or not listing(f.path))),
                  key=lambda p: (listing(p), p.removeprefix("./") not in written))


def untrusted_project_reason(entry: ApprovalEntry, written: str = "") -> str | None:
    """Why an entry that needs no approval of its own (the user's hook or server, an
    administrator's, a user plugin's) must not run in a project that is **not trusted**, or
    None when it reaches nothing of the project: its command runs a project file (the file
    is named), ``written`` (its command line as written) points into the project in a way
    coverage cannot follow (``$…_PROJECT_DIR``), or a word coverage cannot follow (``make``,
    ``npx``, ``uv run``, a program wskit does not know, a variable) may run what the project
    holds or configures — fail closed, as a host not told to trust the folder runs nothing
    of it. The one rule hooks and MCP/LSP servers share (docs/security.md, "Nothing of an
    untrusted repository runs")."""
    inside = project_files(entry, written=written)
    if inside:
        return f"runs {inside[0]} of a project that is not trusted"
    if "_PROJECT_DIR" in written:
        return "works in a project that is not trusted ($…_PROJECT_DIR)"
    if entry.unverified:
        return (f"runs {entry.unverified_words[0]!r} in a project that is not trusted; wskit cannot "
                "verify it reads nothing of the project")
    return None
