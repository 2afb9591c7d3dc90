"""Which files of a folder are rule candidates (docs/rules.md §1): the per-folder part of
the project walk (:mod:`wskit.builtin_plugins.rules.walk`), as a mixin of its walker.

Per folder, lowest to highest priority: ``CLAUDE.md``, ``.claude/CLAUDE.md``,
``AGENTS.md`` (shadowed by ``AGENTS.override.md``; Codex fallback names only when
neither is present), ``.<host>/AGENTS.md``, ``<HOST>.md``, ``.claude/rules/**/*.md``,
``.<host>/rules/**/*.md``, ``CLAUDE.local.md`` (exempt from ``.gitignore``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from wskit import fs
from wskit.models import Diagnostic
from wskit.builtin_plugins.rules.model import PRIORITY

__all__ = ["Candidate", "RuleFiles"]


@dataclass
class Candidate:
    """A rule file found by the walk, before it is read."""

    rel: str
    source: str
    scope_dir: str
    priority: int
    file_kind: str


def _join(a: str, b: str) -> str:
    return f"{a}/{b}" if a else b


class RuleFiles:
    """Candidates of one walk: expects ``root``, ``claude``, ``agents``, ``host_dir``,
    ``host_file``, ``settings``, ``found``, ``added``, ``diags`` and ``ignored()`` on
    the walker (:class:`wskit.builtin_plugins.rules.walk._Walker`)."""

    def add(self, rel: str, source: str, scope: str, key: str, kind: str = "instruction") -> None:
        if rel not in self.found:
            cand = self.found[rel] = Candidate(rel, source, scope, PRIORITY[key], kind)
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
            return None
        rel = _join(rel_dir, name)
        if gitignore and self.ignored(rel, False, specs):
            return None
        if e.type == "link":
            self.refuse_link(rel)
            return None
        if e.type != "file":
            if e.type == "special":
                self.diags.append(Diagnostic(level="warning", code="special-file", path=os.path.join(self.root, rel),
                                             message="rule file is not a regular file"))
            return None
        return rel

    def folder_files(self, rel_dir: str, by: dict, specs: tuple) -> None:
        if self.claude and (rel := self._file(rel_dir, by, "CLAUDE.md", specs)):
            self.add(rel, "project", rel_dir, "CLAUDE.md")
        if self.agents:
            override = self._file(rel_dir, by, "AGENTS.override.md", specs)
            if override:
                self.add(override, "project", rel_dir, "AGENTS.override.md")
            plain = by.get("AGENTS.md")
            if plain is not None and "AGENTS.override.md" in by:
                self.shadow(_join(rel_dir, "AGENTS.md"), "AGENTS.override.md")
            elif (rel := self._file(rel_dir, by, "AGENTS.md", specs)):
                self.add(rel, "project", rel_dir, "AGENTS.md")
            else:
                taken = None
                for name in self.settings.fallback_filenames:
                    if name in by and taken is not None:
                        self.shadow(_join(rel_dir, name), taken)
                    elif (rel := self._file(rel_dir, by, name, specs)):
                        taken = name
                        self.add(rel, "project", rel_dir, "AGENTS.md")
        if (rel := self._file(rel_dir, by, self.host_file, specs)):
            self.add(rel, "project", rel_dir, "<HOST>.md")
        if self.claude and (rel := self._file(rel_dir, by, "CLAUDE.local.md", specs, gitignore=False)):
            self.add(rel, "local", rel_dir, "CLAUDE.local.md")

    def config_dir(self, rel_dir: str, cfg: str, specs: tuple) -> None:
        cfg_rel = _join(rel_dir, cfg)
        entries = self.scan(cfg_rel)
        if entries is None:
            return
        by = {e.name: e for e in entries}
        if cfg == ".claude" and self.claude and (rel := self._file(cfg_rel, by, "CLAUDE.md", specs)):
            self.add(rel, "project", rel_dir, ".claude/CLAUDE.md")
        if cfg == self.host_dir and (rel := self._file(cfg_rel, by, "AGENTS.md", specs)):
            self.add(rel, "project", rel_dir, ".<host>/AGENTS.md")
        key = ".claude/rules" if cfg == ".claude" else ".<host>/rules"
        if "rules" in by and by["rules"].type == "dir":
            self.rules_dir(_join(cfg_rel, "rules"), rel_dir, key, specs)

    def rules_dir(self, rules_rel: str, scope: str, key: str, specs: tuple) -> None:
        stack = [rules_rel]
        while stack:
            cur = stack.pop()
            if self.ignored(cur, True, specs):
                continue
            for e in self.scan(cur) or []:
                rel = _join(cur, e.name)
                if e.type == "dir":
                    stack.append(rel)
                elif e.name.endswith(".md"):
                    if (ok := self._file(cur, {e.name: e}, e.name, specs)):
                        self.add(ok, "project", scope, key, "rule")
                elif e.type == "link":  # a link to a folder or to a file not named *.md
                    self.refuse_link(rel, "entry of a rules folder")
