"""Gemini CLI hierarchical memory (``GEMINI.md``) as rule-catalog entries.

Gemini CLI (reference/conventions.md §3.1–3.2) collects every configured
memory file name (``context.fileName``, default ``GEMINI.md``) in each folder
from the working folder up to the project root, and adds the files of folders
a tool touches just in time; the assembly order is global, extension
context files, then project files root to leaf. wskit's rule catalog already
answers "which instruction files apply to this path, in which order"
(static rules for the cwd, contextual rules for touched paths), so this module
contributes the memory files through the public ``wskit_discover_rules`` hook:

- user source (the home): ``~/.gemini/<name>`` (priority :data:`GLOBAL_PRIORITY` + the name's position)
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
import stat
from pathlib import Path

from wskit import fs
from wskit.binding import is_submodule
from wskit.builtin_plugins.rules import RuleSettings, chain_walk, load_rule_file, project_walk
from wskit.models import Diagnostic, LoadResult, ResourceSource, Scope

from . import extensions_present
from .config import GEMINI_DIR, memory_file_names

IMPORT_DEPTH = 5
#: ``~/.gemini/<name>``: this plus the name's position in ``context.fileName`` (at most
#: 59), so global files come in their configured order, as Gemini CLI reads them
GLOBAL_PRIORITY = 56
EXTENSION_PRIORITY = 62
PROJECT_PRIORITY = 65


def _builtin_names(profile) -> set[str]:
    if getattr(profile, "family", None) == "gemini":
        return set()  # the built-in table of host gemini reads no memory file: all are read here
    names = {profile.instruction_file}
    if profile.claude_conventions:
        names |= {"CLAUDE.md", "CLAUDE.local.md"}
    if profile.agents_conventions:
        names |= {"AGENTS.md", "AGENTS.override.md"}
    return names


def discover_memory(source: ResourceSource, profile, folders=None) -> LoadResult | None:
    """The memory files of a rule source (see the module docstring).

    :param source: the ``user`` (home) or ``project`` (catalog root) rule source.
    :param profile: the host profile (home, conventions, ``settings["rules"]``).
    :param folders: None (every folder), or a lazy rule catalog's
        :class:`~wskit.builtin_plugins.rules.lazy.FolderRequest`: only the memory files
        whose folder it asks for (project extensions' files belong to the root folder).
    :returns: a :class:`~wskit.models.LoadResult` of :class:`~wskit.builtin_plugins.rules.model.RuleFile`
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
        {"AGENTS.md", "AGENTS.override.md"}
        if profile.host_dir == GEMINI_DIR and getattr(profile, "family", None) != "gemini" else set())
    names = tuple(n for n in names if n not in skip)
    found: list = []
    exts: list = []
    if extensions_present(home, None if user else source.root):  # else there is none (nothing imported)
        from .extensions import find_extensions

        exts, _ = find_extensions(home, None if user else source.root)  # problems: reported by the bundle hook
    for ext in exts:
        if (ext.scope == "user") != user or (folders is not None and "" not in folders.folders):
            continue
        for name in ext.context_files:
            rel = os.path.relpath(os.path.join(ext.root, name), ext.base).replace(os.sep, "/")
            _load(found, diags, ext.base, rel, "user" if user else "project", "", EXTENSION_PRIORITY,
                  settings, follow=user, home=home if user else None)
    if user:
        for i, name in enumerate(names):
            rel = f"{GEMINI_DIR}/{name}"
            if fs.is_file(os.path.join(home, rel)):  # noted: a file created later makes the load stale
                # Gemini CLI confines a global memory file's imports to ~/.gemini
                _load(found, diags, home, rel, "user", "", GLOBAL_PRIORITY + min(i, 3), settings, follow=True,
                      home=home, import_root=GEMINI_DIR)
    else:
        targets: dict[str, str] = {}
        for rel_dir, rel, name in _walk(source.root, names, settings, diags, profile, folders, targets):
            prio = PROJECT_PRIORITY + min(names.index(name), 4)
            _load(found, diags, source.root, rel, "project", rel_dir, prio, settings, follow=False, home=None,
                  target=targets.get(rel))
    return LoadResult(resources=tuple(found), diagnostics=tuple(diags))


def _load(found, diags, base, rel, source, scope_dir, priority, settings, *, follow, home, target=None,
          import_root: str = "") -> None:
    prefetched = None
    if target is not None:  # a link inside the project: its resolved target is read
        try:
            prefetched = fs.read_bytes(base, target, max_bytes=settings.max_file_bytes)
        except fs.SafeFsError as e:
            diags.append(Diagnostic(level="error", code=e.code, path=os.path.join(base, rel),
                                    message=e.message_for(os.path.join(base, rel))))
            return
    rule, d = load_rule_file(base, rel, source=source, scope_dir=scope_dir, priority=priority,
                             file_kind="instruction", follow_links=follow, settings=settings, home=home,
                             import_depth=IMPORT_DEPTH, prefetched=prefetched, import_root=import_root)
    diags.extend(d)
    if rule is not None:
        found.append(rule)


class _DefaultProfile:
    """The conventions of host ``wskit`` (what :func:`_walk` assumes without a profile)."""

    claude_conventions = True
    agents_conventions = True
    host_dir = ".wskit"
    instruction_file = "WSKIT.md"


def _walk(root: str, names: tuple[str, ...], settings: RuleSettings, diags: list[Diagnostic], profile=None,
          request=None, targets: dict[str, str] | None = None):
    """``(folder, file, name)`` triples (relative to ``root``) of every memory file in the project.

    Pre-order, sorted by name. The project is not listed again: the folders are
    those of the rule catalog's walk of this load (:func:`wskit.builtin_plugins.rules.projectwalk.project_walk`,
    as a second listing of every folder would cost as much as the rule walk
    itself), so the same folders are skipped (links, :data:`SKIP_DIRS`, virtual
    environments, what ``.gitignore`` ignores, ``.claude``/``.<host>`` folders);
    in addition, as Gemini's walk does, a folder holding a ``.git`` entry (a nested
    repository) is left out with everything below it, and so are ``.gemini`` folders;
    a git submodule is read (the binding makes it part of this project), so a cwd inside
    it gets its memory files: the static answer then starts at its root, as Gemini CLI
    0.61.0's upward walk does (``RuleSettings.repository_boundary``, recorded case
    ``git-submodule``).
    Open errors are reported once, by the rule catalog. A memory file that is a link
    resolving inside the project is yielded, its target put in ``targets`` by path
    (without ``targets`` linked files are left out).
    """
    if request is None:
        listing = project_walk(root, profile or _DefaultProfile, settings).listing()
    else:  # a lazy catalog's folders, from the chain walk the rule catalog shares
        listing = chain_walk(root, profile or _DefaultProfile, settings, request).listing_of(request.folders)
        listing = _chain_filter(listing, request, root)
    heads = {name.split("/", 1)[0]: "/" in name for name in names}
    plain = frozenset(h for h, nested in heads.items() if not nested and not fs.is_secret_name(h))
    nested = frozenset(h for h, is_nested in heads.items() if is_nested)
    stop = None  # a folder ("…/") under which nothing counts; the walk is pre-order, so
    out = []     # a subtree's folders follow it and one prefix at a time is enough
    for rel_dir, files, dirs, has_git in listing:
        if rel_dir:
            if stop is not None and rel_dir.startswith(stop):
                continue
            if (has_git and not is_submodule(os.path.join(root, rel_dir))) \
                    or rel_dir[rel_dir.rfind("/") + 1:] == GEMINI_DIR:
                stop = rel_dir + "/"  # a nested repository, or a .gemini folder
                continue
        if plain.isdisjoint(files) and (not nested or nested.isdisjoint(dirs)):
            continue
        for name in names:
            head = name.split("/", 1)[0]
            if not (head in dirs if "/" in name else head in plain and head in files):
                continue
            out.append((tuple(rel_dir.split("/")) if rel_dir else (), rel_dir, name))
    out.sort(key=lambda t: t[0])  # pre-order by name: the order of the component tuples
    for _parts, rel_dir, name in out:
        rel = f"{rel_dir}/{name}" if rel_dir else name
        path = os.path.join(root, rel)
        if "/" in name:
            if not Path(path).is_file() or Path(path).is_symlink():
                continue
        else:
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISLNK(mode):
                target = _inside_target(root, path, diags)
                if target is not None and targets is not None:
                    targets[rel] = target
                    yield rel_dir, rel, name
                continue
            if not stat.S_ISREG(mode):
                continue  # Gemini skips a folder named like the context file silently
        yield rel_dir, rel, name


def _inside_target(root: str, path: str, diags: list[Diagnostic]) -> str | None:
    """The target of a linked memory file, relative to ``root``, when it resolves to a
    regular, singly linked, non-secret file inside the project (Gemini CLI follows such
    links); else a ``symlink`` warning naming the target, and None."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    try:
        shown = os.readlink(path)
    except OSError:
        shown = "?"
    why = None
    target = os.path.relpath(real, real_root).replace(os.sep, "/")
    if not real.startswith(real_root.rstrip(os.sep) + os.sep):
        why = "leads outside the project"
    else:
        try:
            st = os.stat(real, follow_symlinks=False)
        except OSError:
            st = None
        if st is None:
            why = "is broken or loops"
        elif not stat.S_ISREG(st.st_mode):
            why = "does not lead to a regular file"
        elif st.st_nlink > 1:
            why = "leads to a file with more than one hard link"
        elif any(fs.is_secret_name(p) for p in target.split("/")):
            why = "leads to a secret-looking path"
    if why is not None:
        diags.append(Diagnostic(level="warning", code="symlink", path=path,
                                message=f"memory file is a symbolic link to {shown!r}, which {why}; not followed"))
        return None
    return target
def _chain_filter(listing, request, root: str):
    """The chain folders below a nested repository or a ``.gemini`` folder (seen by an earlier
    request of the same catalog, or by this one) left out, as :func:`_walk` leaves out a
    whole subtree."""
    stops = request.memo.setdefault("wskit_gemini.memory.stops", set())
    for rel_dir, files, dirs, has_git in listing:
        if rel_dir and any(rel_dir.startswith(s) for s in stops):
            continue
        if rel_dir and ((has_git and not is_submodule(os.path.join(root, rel_dir)))
                        or rel_dir[rel_dir.rfind("/") + 1:] == GEMINI_DIR):
            stops.add(rel_dir + "/")
        yield rel_dir, files, dirs, has_git
