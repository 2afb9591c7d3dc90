"""The rule-file conventions of a walk, as data: which file names a folder may hold,
which priority slot (:data:`~wskit.builtin_plugins.rules.model.PRIORITY`) and source each
gets, which conventions switch them on, which are exempt from ``.gitignore``, and which
config folders (``.claude``, ``.<host>``) hold more files and a ``rules/`` tree.

Per folder, lowest to highest priority: ``CLAUDE.md``, ``.claude/CLAUDE.md``, the Codex
group (``AGENTS.override.md`` over ``AGENTS.md``, fallback names only when neither is
taken; :meth:`Conventions.agents_group`), ``.<host>/AGENTS.md``, ``<HOST>.md``,
``.claude/rules/**/*.md``, ``.<host>/rules/**/*.md``, ``CLAUDE.local.md``.

:attr:`Conventions.key` is derived from the whole table, so every cache of walk
decisions keyed by it changes when any convention does.
"""

from __future__ import annotations

from wskit.values import FrozenValue


class FolderFile(FrozenValue):
    """A file name a folder may hold: ``name`` loaded at priority ``slot`` from ``source``
    (``project`` or ``local``); ``gitignore=False``: read even when ``.gitignore`` ignores it
    (``CLAUDE.local.md`` is meant to be ignored); ``root_only``: read in the project root alone
(Cursor's legacy ``.cursorrules``). Immutable; a plain class, so start-up
    compiles nothing (see :mod:`wskit.values`)."""

    __slots__ = ("__weakref__",)
    name: str
    slot: str
    source: str
    gitignore: bool
    root_only: bool

    def __init__(self, name: str, slot: str, source: str = "project", gitignore: bool = True,
                 root_only: bool = False) -> None:
        _set = object.__setattr__
        _set(self, "name", name)
        _set(self, "slot", slot)
        _set(self, "source", source)
        _set(self, "gitignore", gitignore)
        _set(self, "root_only", root_only)


class ConfigDir(FrozenValue):
    """A config folder (``.claude``, ``.<host>``, ``.github``, ``.cursor``): the files read in
    it and the priority slot of the files of its rules tree: ``rules_dir`` (``rules``; GitHub
    Copilot's ``instructions``), files whose names end with one of ``rules_suffixes``
    (``.md``; Copilot's ``.instructions.md``, Cursor's ``.mdc`` and ``.md``). Immutable; a
    plain class, so start-up compiles nothing."""

    __slots__ = ("__weakref__",)
    name: str
    files: tuple[FolderFile, ...]
    rules_slot: str
    rules_dir: str
    rules_suffixes: tuple[str, ...]

    def __init__(self, name: str, files: tuple[FolderFile, ...], rules_slot: str, rules_dir: str = "rules",
                 rules_suffixes: tuple[str, ...] = (".md",)) -> None:
        _set = object.__setattr__
        _set(self, "name", name)
        _set(self, "files", files)
        _set(self, "rules_slot", rules_slot)
        _set(self, "rules_dir", rules_dir)
        _set(self, "rules_suffixes", rules_suffixes)


#: the Codex group: (override, plain) file names; a folder holding the override loads it and
#: reports the plain file as shadowed (reference/conventions.md, Codex ``AGENTS.override.md``)
AGENTS_GROUP = ("AGENTS.override.md", "AGENTS.md")


_CROSS_TOOL = ("CLAUDE.md", "CLAUDE.local.md", ".claude")


class Conventions(FrozenValue):
    """The conventions of one host profile and rule settings (immutable; a plain class, so
    start-up compiles nothing: see :mod:`wskit.values`).

    :ivar before: plain files checked before the Codex group (``CLAUDE.md``).
    :ivar agents: whether the Codex group is read (``AGENTS.override.md``, ``AGENTS.md``,
        then ``fallbacks``).
    :ivar fallbacks: Codex's ``project_doc_fallback_filenames``, loaded at the ``AGENTS.md``
        slot when neither group file is taken; the first one taken shadows the rest.
    :ivar after: plain files checked after the group (``<HOST>.md``, ``CLAUDE.local.md``).
    :ivar config_dirs: config folders of a folder, in the order they are read.
    :ivar user_files: files of the user home, by path below it, in the order they are read.
    :ivar user_group: the home's Codex group, ``(override, plain)`` paths with their slots:
        the override, when present, shadows the plain file.
    :ivar user_rules: ``(folder, slot)`` of the home's ``rules/`` trees.
    :ivar gitignore: whether the project walk skips what ``.gitignore`` files ignore.
    :ivar casefold: a folder's instruction files are matched without regard to case (GitHub
        Copilot CLI reads ``Agents.md`` as ``AGENTS.md``; the first name in sorted order wins).
    """

    __slots__ = ("__weakref__",)
    before: tuple[FolderFile, ...]
    agents: bool
    fallbacks: tuple[str, ...]
    after: tuple[FolderFile, ...]
    config_dirs: tuple[ConfigDir, ...]
    user_files: tuple[FolderFile, ...]
    user_group: tuple[FolderFile, FolderFile] | None
    user_rules: tuple[tuple[str, str], ...]
    gitignore: bool
    casefold: bool

    def __init__(self, before: tuple[FolderFile, ...], agents: bool, fallbacks: tuple[str, ...],
                 after: tuple[FolderFile, ...], config_dirs: tuple[ConfigDir, ...],
                 user_files: tuple[FolderFile, ...] = (), user_group: tuple[FolderFile, FolderFile] | None = None,
                 user_rules: tuple[tuple[str, str], ...] = (), gitignore: bool = True, casefold: bool = False) -> None:
        _set = object.__setattr__
        _set(self, "before", before)
        _set(self, "agents", agents)
        _set(self, "fallbacks", fallbacks)
        _set(self, "after", after)
        _set(self, "config_dirs", config_dirs)
        _set(self, "user_files", user_files)
        _set(self, "user_group", user_group)
        _set(self, "user_rules", user_rules)
        _set(self, "gitignore", gitignore)
        _set(self, "casefold", casefold)

    @classmethod
    def of(cls, profile, settings) -> "Conventions":
        """The conventions ``profile`` (its ``claude_conventions``, ``agents_conventions``,
        host folder and instruction file) and ``settings`` (``fallback_filenames``) switch on;
        for a reproduced host (:attr:`wskit.host.HostProfile.family`) that host's table
        (:data:`HOST_TABLES`)."""
        family = getattr(profile, "family", None)
        if family is not None:
            return HOST_TABLES[family](settings)
        claude = profile.claude_conventions
        before = (FolderFile("CLAUDE.md", "CLAUDE.md"),) if claude else ()
        # Cursor's legacy .cursorrules (the root's only) beside the host's own file
        after = (FolderFile(profile.instruction_file, "<HOST>.md"), FolderFile(".cursorrules", "<HOST>.md", root_only=True))
        if claude:
            after += (FolderFile("CLAUDE.local.md", "CLAUDE.local.md", source="local", gitignore=False),)
        dirs = []
        if claude:
            dirs.append(ConfigDir(".claude", (FolderFile("CLAUDE.md", ".claude/CLAUDE.md"),), ".claude/rules"))
        host = profile.host_dir
        dirs.append(ConfigDir(host, (FolderFile("AGENTS.md", ".<host>/AGENTS.md"),), ".<host>/rules"))
        # GitHub Copilot's and Cursor's conventions (docs/rules.md §1): their files and rules trees
        dirs.append(ConfigDir(".github", (FolderFile("copilot-instructions.md", ".github/copilot-instructions.md"),),
                              ".<host>/rules", rules_dir="instructions", rules_suffixes=(".instructions.md",)))
        dirs.append(ConfigDir(".cursor", (), ".<host>/rules", rules_suffixes=(".mdc",)))
        user_files = ((FolderFile(".claude/CLAUDE.md", ".claude/CLAUDE.md"),) if claude else ()) + (
            (FolderFile(".agents/AGENTS.md", "AGENTS.md"),) if profile.agents_conventions else ()) + (
            FolderFile(".copilot/copilot-instructions.md", ".github/copilot-instructions.md"),)
        user_group = (FolderFile(f"{host}/AGENTS.override.md", ".<host>/AGENTS.override.md"),
                      FolderFile(f"{host}/AGENTS.md", ".<host>/AGENTS.md"))
        user_rules = (((".claude", ".claude/rules"),) if claude else ()) + ((host, ".<host>/rules"),)
        return cls(before=before, agents=profile.agents_conventions, fallbacks=tuple(settings.fallback_filenames),
                   after=after, config_dirs=tuple(dirs), user_files=user_files, user_group=user_group,
                   user_rules=user_rules)

    @property
    def key(self) -> tuple:
        """A hashable value equal for equal conventions (for cache keys)."""
        return (self.before, self.agents, self.fallbacks, self.after, self.config_dirs, self.user_files,
                self.user_group, self.user_rules, self.gitignore, self.casefold)

    @property
    def names(self) -> frozenset[str]:
        """Every name a folder listing must keep for these conventions (files and config folders)."""
        out = {f.name for f in (*self.before, *self.after)} | {d.name for d in self.config_dirs}
        # the cross-tool names are kept whatever the profile switches off, so a folder's
        # cached listing serves walks of every profile
        return frozenset(out | {*_CROSS_TOOL, *AGENTS_GROUP, *self.fallbacks, *_HOST_NAMES})


#: names the host tables look up in a folder (kept in every listing, like the cross-tool ones)
_HOST_NAMES = ("GEMINI.md", "CONTEXT.md", ".github", ".cursor", ".cursorrules")


def _claude(settings) -> Conventions:
    """Claude Code 2.1.332: ``CLAUDE.md``, ``.claude/CLAUDE.md``, ``.claude/rules/**/*.md`` and
    ``CLAUDE.local.md`` per folder; ``~/.claude/CLAUDE.md`` and ``~/.claude/rules``;
    ``AGENTS.md`` (never ``AGENTS.override.md``) only when no ``CLAUDE.md`` or
    ``CLAUDE.local.md`` is on the chain (``RuleSettings.first_name_wins``; asked of the
    binary); instruction files are not filtered by ``.gitignore``."""
    return Conventions(
        before=(FolderFile("CLAUDE.md", "CLAUDE.md", gitignore=False),), agents=False, fallbacks=(),
        after=(FolderFile("AGENTS.md", "AGENTS.md", gitignore=False),
               FolderFile("CLAUDE.local.md", "CLAUDE.local.md", source="local", gitignore=False),),
        config_dirs=(ConfigDir(".claude", (FolderFile("CLAUDE.md", ".claude/CLAUDE.md", gitignore=False),),
                               ".claude/rules"),),
        user_files=(FolderFile(".claude/CLAUDE.md", ".claude/CLAUDE.md"),), user_rules=((".claude", ".claude/rules"),),
        gitignore=False)


def _codex(settings) -> Conventions:
    """Codex CLI 0.171.0: one file per folder (``AGENTS.override.md``, else ``AGENTS.md``, else
    the first ``project_doc_fallback_filenames`` name); ``~/.codex/AGENTS.override.md`` over
    ``~/.codex/AGENTS.md``; nothing filtered by ``.gitignore``; no ``CLAUDE.md``, no
    ``.codex/`` project folder, no rules trees."""
    return Conventions(
        before=(), agents=True, fallbacks=tuple(settings.fallback_filenames), after=(), config_dirs=(),
        user_group=(FolderFile(".codex/AGENTS.override.md", ".<host>/AGENTS.override.md"),
                    FolderFile(".codex/AGENTS.md", ".<host>/AGENTS.md")),
        gitignore=False)


def _gemini(settings) -> Conventions:
    """Gemini CLI 0.61.0: its memory files (``context.fileName``, default ``GEMINI.md``, in
    every folder of the chain and ``~/.gemini/``) are read by the wskit-gemini plugin,
    which knows the setting; this table reads no ``AGENTS.md``, ``CLAUDE.md`` or rules tree."""
    return Conventions(before=(), agents=False, fallbacks=(), after=(), config_dirs=(), gitignore=False)


def _opencode(settings) -> Conventions:
    """opencode 1.18.33: ``AGENTS.md``, ``CLAUDE.md`` and ``CONTEXT.md`` are candidates in
    every folder; the query keeps only the first name with a match on the chain
    (``RuleSettings.first_name_wins``). User level: ``~/.config/opencode/AGENTS.md``, else
    ``~/.claude/CLAUDE.md`` (the group's override/plain rule)."""
    return Conventions(
        before=(FolderFile("CLAUDE.md", "CLAUDE.md", gitignore=False),), agents=False, fallbacks=(),
        after=(FolderFile("AGENTS.md", "AGENTS.md", gitignore=False), FolderFile("CONTEXT.md", "CONTEXT.md", gitignore=False)),
        config_dirs=(),
        user_group=(FolderFile(".config/opencode/AGENTS.md", ".<host>/AGENTS.md"),
                    FolderFile(".claude/CLAUDE.md", ".claude/CLAUDE.md")),
        gitignore=False)


def _copilot(settings) -> Conventions:
    """GitHub Copilot CLI 1.0.102 (asked with ``copilot instruction list --json`` and the
    model input sent to a stand-in model; tests/conformance): per folder
    ``.github/copilot-instructions.md``, ``AGENTS.md``, ``CLAUDE.md`` and ``GEMINI.md`` (no
    ``CLAUDE.local.md``, no ``.claude/CLAUDE.md``); the rules trees
    ``.github/instructions/**/*.instructions.md`` and ``.claude/rules/**/*.md`` (their
    ``applyTo`` / ``paths``); ``~/.copilot/copilot-instructions.md``; nothing filtered by
    ``.gitignore``. Which folders count and in what order is ``RuleSettings.copilot_order``."""
    return Conventions(
        before=(), agents=False, fallbacks=(),
        after=(FolderFile("AGENTS.md", "AGENTS.md", gitignore=False), FolderFile("CLAUDE.md", "CLAUDE.md", gitignore=False),
               FolderFile("GEMINI.md", "<HOST>.md", gitignore=False)),
        config_dirs=(ConfigDir(".github", (FolderFile("copilot-instructions.md", ".github/copilot-instructions.md",
                                                      gitignore=False),),
                               ".<host>/rules", rules_dir="instructions", rules_suffixes=(".instructions.md",)),
                     ConfigDir(".claude", (), ".claude/rules")),
        user_files=(FolderFile(".copilot/copilot-instructions.md", ".github/copilot-instructions.md"),),
        gitignore=False, casefold=True)


def _cursor(settings) -> Conventions:
    """Cursor (its documentation and public reports; docs/compatibility.md cites each):
    ``AGENTS.md`` in the root and in subfolders, the legacy ``.cursorrules`` (the
    root's only), and ``.cursor/rules/**/*.mdc`` / ``*.md`` of the root and of
    nested folders, whose ``alwaysApply`` / ``globs`` / ``description`` frontmatter decides
    how each applies. User rules live in Cursor's settings database, not in files."""
    return Conventions(
        before=(), agents=False, fallbacks=(),
        after=(FolderFile("AGENTS.md", "AGENTS.md", gitignore=False),
               FolderFile(".cursorrules", "<HOST>.md", gitignore=False, root_only=True)),
        config_dirs=(ConfigDir(".cursor", (), ".<host>/rules", rules_suffixes=(".mdc", ".md")),),
        gitignore=False)


#: the conventions of each reproduced host, by :attr:`wskit.host.HostProfile.family`
HOST_TABLES = {"claude": _claude, "codex": _codex, "gemini": _gemini, "opencode": _opencode,
               "copilot": _copilot, "cursor": _cursor}
