"""Which files of a folder are rule candidates (docs/rules.md §1): the per-folder part of the project walk
(:mod:`wskit.builtin_plugins.rules.walk`), as a mixin of its walker, applying the
conventions table of :mod:`wskit.builtin_plugins.rules.conventions`.
"""

from __future__ import annotations

import os

from wskit import fs
from wskit.builtin_plugins.rules.conventions import AGENTS_GROUP, ConfigDir
from wskit.builtin_plugins.rules.model import PRIORITY
from wskit.models import Diagnostic
from wskit.values import Value


class Candidate(Value):
    """A rule file found by the walk, before it is read (a plain class, so start-up compiles
    nothing: see :mod:`wskit.values`).

    :ivar target: for a link inside the project: its resolved target, relative to the root
        (read instead).
    """

    __slots__ = ("__weakref__",)
    rel: str
    source: str
    scope_dir: str
    priority: int
    file_kind: str
    target: str | None

    def __init__(self, rel: str, source: str, scope_dir: str, priority: int, file_kind: str,
                 target: str | None = None) -> None:
        self.rel = rel
        self.source = source
        self.scope_dir = scope_dir
        self.priority = priority
        self.file_kind = file_kind
        self.target = target


def _join(a: str, b: str) -> str:
    return f"{a}/{b}" if a else b


class RuleFiles:
    """Candidates of one walk: expects ``root``, ``conventions``
    (:class:`~wskit.builtin_plugins.rules.conventions.Conventions`), ``found``, ``added``,
    ``diags`` and ``ignored()`` on the walker (:class:`wskit.builtin_plugins.rules.walk.ProjectWalker`)."""

    #: resolved targets of links accepted by :meth:`inside_link`, until :meth:`add` takes them
    link_targets: dict[str, str]

    def add(self, rel: str, source: str, scope: str, key: str, kind: str = "instruction") -> None:
        if rel not in self.found:
            cand = self.found[rel] = Candidate(rel, source, scope, PRIORITY[key], kind,
                                               self.link_targets.pop(rel, None) if self.link_targets else None)
            self.added.append(cand)

    def refuse_link(self, rel: str, what: str = "rule file") -> None:
        self.diags.append(Diagnostic(
            level="warning", code="symlink", path=os.path.join(self.root, rel),
            message=f"{what} is a symbolic link; links are not followed in project sources"))

    def shadow(self, rel: str, by: str) -> None:
        self.diags.append(Diagnostic(
            level="info", code="rule-shadowed", path=os.path.join(self.root, rel),
            message=f"not loaded: shadowed by {by} in the same folder"))

    def scan(self, rel_dir: str) -> list[fs.DirEntry] | None:
        try:
            return fs.scan_dir(self.root, rel_dir or None)
        except fs.SafeFsError as err:
            if err.code != "not-found":
                self.diags.append(err.diagnostic(level="warning"))
            return None

    def _file(self, rel_dir: str, by: dict, name: str, specs: tuple, *, gitignore: bool = True) -> str | None:
        e = by.get(name)
        if e is None:
            if not self.conventions.casefold:
                return None
            folded = name.casefold()  # Copilot matches AGENTS.md, CLAUDE.md, GEMINI.md without regard to case
            name = next((n for n in sorted(by) if n.casefold() == folded), "")
            e = by.get(name)
            if e is None:
                return None
        rel = _join(rel_dir, name)
        if gitignore and self.conventions.gitignore and self.ignored(rel, False, specs):
            self.diags.append(Diagnostic(
                level="info", code="rule-ignored", path=os.path.join(self.root, rel),
                message="not loaded: .gitignore ignores it (it shadows no other file)"))
            return None
        if e.type == "link":
            return rel if self.inside_link(rel) else None
        if e.type != "file":
            if e.type == "special":
                self.diags.append(Diagnostic(level="warning", code="special-file", path=os.path.join(self.root, rel),
                                             message="rule file is not a regular file"))
            return None
        return rel

    def inside_link(self, rel: str) -> bool:
        """A linked rule file is followed when its resolved target is a regular file inside
        the project (checked on the resolved path; a loop resolves to nothing), not a secret
        path, and not hard-linked elsewhere (every host follows such links: ``AGENTS.md ->
        CLAUDE.md``). The candidate then reads the target (:attr:`Candidate.target`);
        anything else is a ``symlink`` warning naming the target."""
        path = os.path.join(self.root, rel)
        real_root = self.__dict__.get("_real_root")
        if real_root is None:
            real_root = self.__dict__["_real_root"] = os.path.realpath(self.root)
        try:
            shown_target = os.readlink(path)
        except OSError:
            shown_target = "?"
        real = os.path.realpath(path)
        why = None
        if not real.startswith(real_root.rstrip(os.sep) + os.sep):
            why = "leads outside the project"
        else:
            target = os.path.relpath(real, real_root).replace(os.sep, "/")
            try:
                st = os.stat(real, follow_symlinks=False)
            except OSError:
                st = None
            import stat as _stat

            if st is None:
                why = "is broken or loops"
            elif _stat.S_ISLNK(st.st_mode):  # resolution stopped at a link: a loop
                why = "loops"
            elif not _stat.S_ISREG(st.st_mode):
                why = "does not lead to a regular file"
            elif st.st_nlink > 1:
                why = "leads to a file with more than one hard link"
            elif any(fs.is_secret_name(part) for part in target.split("/")):
                why = "leads to a secret-looking path"
        if why is not None:
            self.diags.append(Diagnostic(
                level="warning", code="symlink", path=path,
                message=f"rule file is a symbolic link to {shown_target!r}, which {why}; not followed"))
            self.refused_links.add(rel)
            return False
        self.link_targets[rel] = target
        return True

    def folder_files(self, rel_dir: str, by: dict, specs: tuple) -> None:
        conv = self.conventions
        for f in conv.before:
            if (rel := self._file(rel_dir, by, f.name, specs, gitignore=f.gitignore)):
                self.add(rel, f.source, rel_dir, f.slot)
        if conv.agents:
            self.agents_group(rel_dir, by, specs)
        for f in conv.after:
            if f.root_only and rel_dir:
                continue
            if (rel := self._file(rel_dir, by, f.name, specs, gitignore=f.gitignore)):
                self.add(rel, f.source, rel_dir, f.slot)

    def agents_group(self, rel_dir: str, by: dict, specs: tuple) -> None:
        """Codex's choice in one folder: ``AGENTS.override.md`` (which shadows ``AGENTS.md``),
        else ``AGENTS.md``, else the first fallback name present (shadowing the later ones).
        Only a file that is taken shadows another: a git-ignored or refused override leaves
        ``AGENTS.md`` to load."""
        override_name, plain_name = AGENTS_GROUP
        override = self._file(rel_dir, by, override_name, specs)
        if override:
            self.add(override, "project", rel_dir, override_name)
            if plain_name in by:
                self.shadow(_join(rel_dir, plain_name), override_name)
        elif (rel := self._file(rel_dir, by, plain_name, specs)):
            self.add(rel, "project", rel_dir, plain_name)
        else:
            taken = None
            for name in self.conventions.fallbacks:
                if name in by and taken is not None:
                    self.shadow(_join(rel_dir, name), taken)
                elif (rel := self._file(rel_dir, by, name, specs)):
                    taken = name
                    self.add(rel, "project", rel_dir, plain_name)

    def config_dir(self, rel_dir: str, cfg: ConfigDir, specs: tuple) -> None:
        cfg_rel = _join(rel_dir, cfg.name)
        entries = self.scan(cfg_rel)
        if entries is None:
            return
        by = {e.name: e for e in entries}
        for f in cfg.files:
            if (rel := self._file(cfg_rel, by, f.name, specs, gitignore=f.gitignore)):
                self.add(rel, f.source, rel_dir, f.slot)
        rules = cfg.rules_dir
        if rules in by and by[rules].type == "dir":
            self.rules_dir(_join(cfg_rel, rules), rel_dir, cfg.rules_slot, specs, cfg.rules_suffixes)

    def rules_dir(self, rules_rel: str, scope: str, key: str, specs: tuple,
                  suffixes: tuple[str, ...] = (".md",)) -> None:
        stack = [rules_rel]
        while stack:
            cur = stack.pop()
            if self.ignored(cur, True, specs):
                continue
            for e in self.scan(cur) or []:
                rel = _join(cur, e.name)
                if e.type == "dir":
                    stack.append(rel)
                elif e.name.endswith(suffixes):
                    if (ok := self._file(cur, {e.name: e}, e.name, specs)):
                        self.add(ok, "project", scope, key, "rule")
                elif e.type == "link":  # a link to a folder or to a file not named *.md
                    self.refuse_link(rel, "entry of a rules folder")
