"""Gemini CLI hierarchical memory (``GEMINI.md``) as rule-catalog entries.

Gemini CLI (reference/conventions.md §3.1–3.2) collects every configured
memory file name (``context.fileName``, default ``GEMINI.md``) in each folder
from the working folder up to the project root, and adds the files of folders
a tool touches just in time; the assembly order is global, extension
context files, then project files root to leaf. wskit's rule catalog already
answers "which instruction files apply to this path, in which order"
(static rules for the cwd, contextual rules for touched paths), so this module
contributes the memory files through the public ``wskit_discover_rules`` hook:

- user source (the home): ``~/.gemini/<name>`` (priority :data:`GLOBAL_PRIORITY`)
  and the context files of user extensions (:data:`EXTENSION_PRIORITY`);
- project source (a trusted catalog root): the context files of project
  extensions, then every ``<folder>/<name>`` of the project
  (:data:`PROJECT_PRIORITY` + the name's position, at most 69: after
  ``<HOST>.md``, before ``.claude/rules``), each covering its folder's subtree.
  Folders holding their own ``.git`` (nested repositories, where Gemini's upward
  walk stops) and wskit's skipped folders (VCS, dependencies, caches) are not
  walked; links are never followed in the project.

Names come from ``context.fileName``: the user's ``~/.gemini/settings.json``
for the global files (the rule hook's user call does not know whether the
project is trusted, and Gemini ignores an untrusted project's settings), the
project's ``.gemini/settings.json`` (else the user's) for project files.

``@path`` imports are inlined by the rule catalog's loader with Gemini's depth
of :data:`IMPORT_DEPTH`, confined to the project root (the home for user files).
Names the built-in rules plugin already reads are left to it: in project
folders ``AGENTS.md``/``AGENTS.override.md`` (agents conventions on),
``CLAUDE.md`` (Claude conventions on) and ``<HOST>.md`` (``GEMINI.md`` for host
``gemini``); in ``~/.gemini/`` for host ``gemini``, ``AGENTS.md``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from wskit import changes, fdwalk, safefs
from wskit.models import Diagnostic, LoadResult, ResourceSource, Scope
from wskit.rules.discovery import SKIP_DIRS, load_rule_file
from wskit.rules.model import RuleSettings

from .config import GEMINI_DIR, memory_file_names
from .extensions import find_extensions

IMPORT_DEPTH = 5
GLOBAL_PRIORITY = 61
EXTENSION_PRIORITY = 62
PROJECT_PRIORITY = 65


def _builtin_names(profile) -> set[str]:
    names = {profile.instruction_file}
    if profile.claude_conventions:
        names |= {"CLAUDE.md", "CLAUDE.local.md"}
    if profile.agents_conventions:
        names |= {"AGENTS.md", "AGENTS.override.md"}
    return names


def discover_memory(source: ResourceSource, profile) -> LoadResult | None:
    """The memory files of a rule source (see the module docstring).

    :param source: the ``user`` (home) or ``project`` (catalog root) rule source.
    :param profile: the host profile (home, conventions, ``settings["rules"]``).
    :returns: a :class:`~wskit.models.LoadResult` of :class:`~wskit.rules.model.RuleFile`
        and diagnostics, or None for other scopes.
    """
    if profile is None or source.scope not in (Scope.USER, Scope.PROJECT):
        return None
    settings, _ = RuleSettings.from_profile(profile)
    home = str(profile.require_home())
    user = source.scope is Scope.USER
    names, diags = memory_file_names(home, None if user else source.root)
    if not user:  # the user's settings.json was reported by the user call already
        user_settings = os.path.join(home, GEMINI_DIR, "settings.json")
        diags = [d for d in diags if d.path != user_settings]
    # names the built-in rules plugin reads itself: in project folders, and in ~/.<host>/ for host gemini
    skip = _builtin_names(profile) if not user else (
        {"AGENTS.md", "AGENTS.override.md"} if profile.host_dir == GEMINI_DIR else set())
    names = tuple(n for n in names if n not in skip)
    found: list = []
    exts, _ = find_extensions(home, None if user else source.root)  # problems: reported by the bundle hook
    for ext in exts:
        if (ext.scope == "user") != user:
            continue
        for name in ext.context_files:
            rel = os.path.relpath(os.path.join(ext.root, name), ext.base).replace(os.sep, "/")
            _load(found, diags, ext.base, rel, "user" if user else "project", "", EXTENSION_PRIORITY,
                  settings, follow=user, home=home if user else None)
    if user:
        for name in names:
            rel = f"{GEMINI_DIR}/{name}"
            if os.path.isfile(os.path.join(home, rel)):
                _load(found, diags, home, rel, "user", "", GLOBAL_PRIORITY, settings, follow=True, home=home)
    else:
        for rel_dir, rel, name in _walk(source.root, names, settings, diags):
            prio = PROJECT_PRIORITY + min(names.index(name), 4)
            _load(found, diags, source.root, rel, "project", rel_dir, prio, settings, follow=False, home=None)
    return LoadResult(resources=tuple(found), diagnostics=tuple(diags))


def _load(found, diags, base, rel, source, scope_dir, priority, settings, *, follow, home) -> None:
    rule, d = load_rule_file(base, rel, source=source, scope_dir=scope_dir, priority=priority,
                             file_kind="instruction", follow_links=follow, settings=settings, home=home,
                             import_depth=IMPORT_DEPTH)
    diags.extend(d)
    if rule is not None:
        found.append(rule)


#: deepest level walked with held descriptors; deeper subtrees are walked with scan_dir
_MAX_HELD = 64


def _walk(root: str, names: tuple[str, ...], settings: RuleSettings, diags: list[Diagnostic]):
    """``(folder, file, name)`` triples (relative to ``root``) of every memory file in the project.

    Pre-order, sorted by name, as :func:`_walk_scan`; each folder is opened once
    from its parent's descriptor (:mod:`wskit.fdwalk`, issue 8 B1: ``scan_dir``
    opened every folder from the root again, ≈ 9 opens per folder of a deep
    monorepo), with the same refusals, hidden names and change notes. On a
    reload, a folder whose stat signature is unchanged is not opened or listed
    again: what its listing said is reused (:func:`wskit.changes.reuse`, in the
    namespace :data:`_MEMO_NAMESPACE`, so the rule walk's memo of the same folder
    stays its own; issue 8, B3), and its descriptor is opened only when a
    changed sub-folder must be listed.
    """
    skip = SKIP_DIRS | set(settings.extra_skip_dirs)
    keep = frozenset({n.split("/", 1)[0] for n in names} | {"pyvenv.cfg", ".git"})
    top = _Folder(None, "", root)
    try:
        yield from _visit(top, root, "", 0, names, keep, skip, settings, diags)
    finally:
        top.close()


#: tags a folder memo of this walk (``changes.reuse`` values are shared with nobody else
#: in :data:`_MEMO_NAMESPACE`, the tag guards against an older memo layout)
_MEMO_TAG = "wskit_gemini.memory.folder.v1"
_MEMO_NAMESPACE = "wskit-gemini.memory"


class _Folder:
    """A folder of the walk whose descriptor is opened on demand (from its parent's)."""

    __slots__ = ("parent", "name", "shown", "fd")

    def __init__(self, parent: "_Folder | None", name: str, shown: str) -> None:
        self.parent, self.name, self.shown, self.fd = parent, name, shown, None

    def open(self) -> int:
        """The folder's descriptor (opened now if needed, parents first).

        :raises wskit.safefs.SafeFsError: as :func:`wskit.fdwalk.open_root`/``open_child``.
        """
        if self.fd is None:
            if self.parent is None:
                self.fd = fdwalk.open_root(self.shown)
            else:
                self.fd = fdwalk.open_child(self.parent.open(), self.name, self.shown)
        return self.fd

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _listing(folder: _Folder, keep: frozenset[str], diags: list[Diagnostic]) -> tuple | None:
    """``(tag, keep, types, dirs, stop)`` for ``folder``: the previous load's when the
    folder is unchanged, else from a fresh listing (None when it cannot be opened).

    ``types``: kept, visible names → ``dir``/``file``/``link``/``special``; ``dirs``:
    sub-folder names, sorted; ``stop``: a ``pyvenv.cfg`` or ``.git`` entry is present.
    """
    prev = changes.reuse(folder.shown, namespace=_MEMO_NAMESPACE)
    if type(prev) is tuple and len(prev) == 5 and prev[0] == _MEMO_TAG and prev[1] == keep:
        return prev
    try:
        fd = folder.open()
    except safefs.SafeFsError as err:
        changes.note(folder.shown, False)
        if err.code != "not-found":
            diags.append(err.diagnostic(level="warning"))
        return None
    listing = fdwalk.list_fd(fd, folder.shown, keep)
    types = {}
    for name in listing.kept():
        e = listing.get(name)
        if e is not None:
            types[name] = e.type
    stop = "pyvenv.cfg" in listing or ".git" in listing.kept()
    memo = _memo(keep, types, tuple(sorted(map(sys.intern, listing.dirs))), stop)
    changes.remember(folder.shown, False, memo, namespace=_MEMO_NAMESPACE)
    return memo


#: one shared memo per ``keep`` for a folder without kept names or sub-folders (most of them)
_LEAVES: dict[frozenset[str], tuple] = {}
_NO_TYPES: Mapping[str, str] = MappingProxyType({})


def _memo(keep: frozenset[str], types: dict[str, str], dirs: tuple[str, ...], stop: bool) -> tuple:
    """The memo tuple of :func:`_listing`, sharing what repeats across folders and cached
    workspaces (issue 8, B8): an empty ``types`` is one read-only mapping, a leaf folder's
    whole memo one tuple per ``keep``, sub-folder names are interned."""
    if types or dirs or stop:
        return (_MEMO_TAG, keep, types or _NO_TYPES, dirs, stop)
    leaf = _LEAVES.get(keep)
    if leaf is None:
        if len(_LEAVES) >= 64:
            _LEAVES.clear()  # bounded: ``keep`` comes from the settings' file names
        leaf = _LEAVES.setdefault(keep, (_MEMO_TAG, keep, _NO_TYPES, (), False))
    return leaf


def _visit(folder, root, rel_dir, depth, names, keep, skip, settings, diags):
    try:
        memo = _listing(folder, keep, diags)
        if memo is None:
            return
        _tag, _keep, types, dirs, stop = memo
        if rel_dir and stop:
            return  # a nested repository (Gemini's walk stops at its .git) or a virtual environment
        for name in names:
            rel = f"{rel_dir}/{name}" if rel_dir else name
            head = name.split("/", 1)[0]
            kind = types.get(head)
            if kind is None:
                continue
            if "/" in name:
                if kind != "dir" or not Path(root, rel).is_file() or Path(root, rel).is_symlink():
                    continue
            elif kind == "link":
                diags.append(Diagnostic(level="warning", code="symlink", path=os.path.join(root, rel),
                                        message="memory file is a symbolic link; links are not followed in projects"))
                continue
            elif kind != "file":
                continue  # Gemini skips a folder named like the context file silently
            yield rel_dir, rel, name
        if settings.max_depth is not None and depth >= settings.max_depth:
            return
        for name in dirs:
            if name in skip or name == GEMINI_DIR:
                continue
            child = f"{rel_dir}/{name}" if rel_dir else name
            if depth + 1 >= _MAX_HELD:
                yield from _walk_scan(root, names, settings, diags, child, depth + 1)
                continue
            yield from _visit(_Folder(folder, name, os.path.join(root, child)), root, child, depth + 1,
                              names, keep, skip, settings, diags)
    finally:
        folder.close()


def _walk_scan(root: str, names: tuple[str, ...], settings: RuleSettings, diags: list[Diagnostic],
               start: str = "", start_depth: int = 0):
    """:func:`_walk` of the subtree ``start`` with :func:`wskit.safefs.scan_dir` (each
    folder opened from ``root``): used below :data:`_MAX_HELD` levels of descriptors."""
    skip = SKIP_DIRS | set(settings.extra_skip_dirs)
    stack: list[tuple[str, int]] = [(start, start_depth)]
    while stack:
        rel_dir, depth = stack.pop()
        try:
            entries = safefs.scan_dir(root, rel_dir or None)
        except safefs.SafeFsError as err:
            if err.code != "not-found":
                diags.append(err.diagnostic(level="warning"))
            continue
        by = {e.name: e for e in entries}
        if rel_dir and ("pyvenv.cfg" in by or os.path.lexists(os.path.join(root, rel_dir, ".git"))):
            continue  # a nested repository (Gemini's walk stops at its .git) or a virtual environment
        for name in names:
            rel = f"{rel_dir}/{name}" if rel_dir else name
            head = name.split("/", 1)[0]
            e = by.get(head)
            if e is None:
                continue
            if "/" in name:
                if e.type != "dir" or not Path(root, rel).is_file() or Path(root, rel).is_symlink():
                    continue
            elif e.type == "link":
                diags.append(Diagnostic(level="warning", code="symlink", path=os.path.join(root, rel),
                                        message="memory file is a symbolic link; links are not followed in projects"))
                continue
            elif e.type != "file":
                continue  # Gemini skips a folder named like the context file silently
            yield rel_dir, rel, name
        if settings.max_depth is not None and depth >= settings.max_depth:
            continue
        for e in reversed(entries):
            if e.type == "dir" and e.name not in skip and e.name != GEMINI_DIR:
                stack.append((f"{rel_dir}/{e.name}" if rel_dir else e.name, depth + 1))
