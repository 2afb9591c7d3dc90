"""Finding and loading instruction and rule files (issue 3 §1–4, reference/blade.md §4.3–4.6).

Per folder, lowest to highest priority: ``CLAUDE.md``, ``.claude/CLAUDE.md``,
``AGENTS.md`` (not read when ``AGENTS.override.md`` is present; Codex fallback
names only when neither is), ``AGENTS.override.md``, ``.<host>/AGENTS.md``,
``<HOST>.md``, ``.claude/rules/**/*.md``, ``.<host>/rules/**/*.md``,
``CLAUDE.local.md``. User-level files: ``~/.claude/CLAUDE.md``,
``~/.agents/AGENTS.md``, ``~/.<host>/AGENTS.md`` (or its ``AGENTS.override.md``),
``~/.claude/rules/**/*.md``, ``~/.<host>/rules/**/*.md``.

The project walk never follows links, skips VCS folders, ``node_modules``,
virtual environments (by name or by ``pyvenv.cfg``), caches and build output,
and whatever the repository's ``.gitignore`` files ignore (pathspec's
``GitIgnoreSpec``; deeper files override shallower ones), and git worktrees
checked out inside the project (they hold copies of its rules). ``CLAUDE.local.md``
is exempt from ``.gitignore``: it is meant to be ignored. User folders follow
links (design §5), cycle-safe. Every read goes through :mod:`wskit.safefs`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from .. import changes, safefs, safewalk
from ..markdown import parse_frontmatter
from ..models import Diagnostic, Provenance, Scope
from .imports import expand_imports
from .model import PRIORITY, RuleFile, RuleSettings, rule_digest, rule_id
from .patterns import compiled, normalise, split_paths

#: Folder names never walked (VCS, dependencies, virtual environments, caches, build output).
SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".bzr", "_darcs", "node_modules", "bower_components", "vendor",
    ".venv", "venv", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".nox",
    ".cache", ".hypothesis", ".gradle", ".next", ".nuxt", ".turbo", ".parcel-cache",
    "dist", "build", "target", "coverage", "htmlcov", ".eggs",
})


@dataclass
class Candidate:
    """A rule file found by the walk, before it is read."""

    rel: str
    source: str
    scope_dir: str
    priority: int
    file_kind: str


@dataclass
class Discovery:
    """Rules loaded and diagnostics (``rule-shadowed`` info entries name shadowed files)."""

    rules: list[RuleFile] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _join(a: str, b: str) -> str:
    return f"{a}/{b}" if a else b


_MEMO_TAG = "wskit.rules.walk"
_GITIGNORE_TAG = "wskit.rules.gitignore"
#: Folder descriptors a walk keeps open at most (one per level of depth).
_MAX_HELD = 64


def _same_specs(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x[0] == y[0] and x[1] is y[1] for x, y in zip(a, b))


class _Walker:
    def __init__(self, root: str, profile, settings: RuleSettings) -> None:
        self.root = root
        self.settings = settings
        self.claude = profile.claude_conventions
        self.agents = profile.agents_conventions
        self.host_dir = profile.host_dir
        self.host_file = profile.instruction_file
        self.skip = SKIP_DIRS | set(settings.extra_skip_dirs)
        self.prefix = root if root.endswith(os.sep) else root + os.sep
        self.found: dict[str, Candidate] = {}
        self.added: list[Candidate] = []  # self.found in insertion order
        self.diags: list[Diagnostic] = []
        #: what a folder's cached decisions depend on besides its listing and the specs
        self.config_key = (self.skip, self.claude, self.agents, self.host_dir, self.host_file,
                           settings.fallback_filenames, settings.honour_gitignore)
        #: names a folder listing keeps (everything the walk looks up by name)
        self.interesting = frozenset({
            "CLAUDE.md", "AGENTS.md", "AGENTS.override.md", "CLAUDE.local.md", ".gitignore", "pyvenv.cfg",
            ".claude", ".git", self.host_dir, self.host_file, *settings.fallback_filenames})

    def add(self, rel: str, source: str, scope: str, key: str, kind: str = "instruction") -> None:
        if rel not in self.found:
            cand = self.found[rel] = Candidate(rel, source, scope, PRIORITY[key], kind)
            self.added.append(cand)

    def refuse_link(self, rel: str) -> None:
        self.diags.append(Diagnostic(
            level="warning", code="symlink", path=os.path.join(self.root, rel),
            message="rule file is a symbolic link; links are not followed in project sources"))

    def shadow(self, rel: str, by: str) -> None:
        self.diags.append(Diagnostic(
            level="info", code="rule-shadowed", path=os.path.join(self.root, rel),
            message=f"not loaded: shadowed by {by} in the same folder"))

    def scan(self, rel_dir: str) -> list[safefs.DirEntry] | None:
        try:
            return safefs.scan_dir(self.root, rel_dir or None)
        except safefs.SafeFsError as err:
            if err.code != "not-found":
                self.diags.append(err.diagnostic(level="warning"))
            return None

    def gitignore(self, rel_dir: str) -> pathspec.GitIgnoreSpec | None:
        """The parsed ``.gitignore`` of ``rel_dir``: the previous load's object when the
        file is unchanged (so decisions that depend on it can be reused too)."""
        rel = _join(rel_dir, ".gitignore")
        path = os.path.join(self.root, rel)
        prev = changes.reuse(path)
        if type(prev) is tuple and len(prev) == 3 and prev[0] == _GITIGNORE_TAG:
            self.diags.extend(prev[2])
            return prev[1]
        mark = len(self.diags)
        spec = self._parse_gitignore(rel)
        changes.remember(path, False, (_GITIGNORE_TAG, spec, tuple(self.diags[mark:])))
        return spec

    def _parse_gitignore(self, rel: str) -> pathspec.GitIgnoreSpec | None:
        try:
            res = safefs.read_bytes(self.root, rel, max_bytes=1024 * 1024)
            return pathspec.GitIgnoreSpec.from_lines(safefs.decode_text(res.raw, res.path).split("\n"))
        except safefs.SafeFsError as err:
            self.diags.append(Diagnostic(level="warning", code="gitignore-unreadable", path=err.path,
                                         message=f"{err.args[0]}; its patterns are not applied"))
        except Exception as err:  # pathspec refusing a pattern
            self.diags.append(Diagnostic(level="warning", code="gitignore-invalid",
                                         path=os.path.join(self.root, rel), message=str(err)))
        return None

    @staticmethod
    def ignored(rel: str, is_dir: bool, specs: tuple) -> bool:
        for base, spec in reversed(specs):
            sub = rel[len(base) + 1:] if base else rel
            res = spec.check_file(sub + "/" if is_dir else sub)
            if res.include is not None:
                return bool(res.include)
        return False

    def linked_worktree(self, rel_dir: str) -> bool:
        """A git worktree checked out inside the project holds copies of its rules: never walked."""
        full = os.path.join(self.root, rel_dir)
        if not os.path.isfile(os.path.join(full, ".git")):
            return False
        from ..binding import _git_marker

        found = _git_marker(Path(full))
        return found is not None and found[0] == "worktree"

    def walk(self) -> None:
        """Depth-first walk, pre-order, children in reverse name order (the order of
        diagnostics since issue 3). Each folder is listed once through a descriptor
        opened from its parent's (:mod:`wskit.safewalk`); on a reload, a folder
        whose stat signature is unchanged is not listed again (its memo is reused,
        :func:`wskit.changes.reuse`), nor are its ``ignored``/skip decisions redone
        when the ``.gitignore`` specs above it are the same objects (issue 8, B1/B3)."""
        frames: list[list] = []
        try:
            self._enter("", 0, (), None, "", frames)
            while frames:
                frame = frames[-1]
                children = frame[4]
                if not children:
                    frames.pop()
                    if frame[3] is not None:
                        os.close(frame[3])
                    continue
                name = children.pop()
                self._enter(_join(frame[0], name), frame[1] + 1, frame[2], frame[3], name, frames)
        finally:
            for frame in frames:
                if frame[3] is not None:
                    os.close(frame[3])

    def _open(self, rel_dir: str, parent_fd: int | None, name: str, shown: str) -> int | None:
        try:
            if not rel_dir:
                return safewalk.open_root(self.root)
            if parent_fd is not None:
                return safewalk.open_child(parent_fd, name, shown)
            return safefs._open_dir_chain(self.root, rel_dir.split("/"), shown, False)
        except safefs.SafeFsError as err:
            changes.note(shown, False)
            if err.code != "not-found":
                self.diags.append(err.diagnostic(level="warning"))
            return None

    def _listing(self, rel_dir: str, parent_fd: int | None, name: str, shown: str) -> tuple[list | None, int | None]:
        """The folder's memo entry (reused when unchanged) and its descriptor when it was opened."""
        prev = changes.reuse(shown)
        if type(prev) is list and prev and prev[0] == _MEMO_TAG:
            return prev, None
        fd = self._open(rel_dir, parent_fd, name, shown)
        if fd is None:
            return None, None
        try:
            listing = safewalk.list_fd(fd, shown, self.interesting)
        except OSError as err:
            os.close(fd)
            self.diags.append(safefs._oserror(err, shown, final=False).diagnostic(level="warning"))
            return None, None
        kept = listing.kept()
        by = {n: safefs.DirEntry(n, safewalk.entry_type(e)) for n, e in kept.items() if not safefs.is_secret_name(n)}
        git = ".git" in kept and safewalk.entry_type(kept[".git"]) in ("file", "link")
        memo = [_MEMO_TAG, by, tuple(sorted(listing.dirs)), git, None]
        changes.remember(shown, False, memo)
        return memo, fd

    def _enter(self, rel_dir: str, depth: int, specs: tuple, parent_fd: int | None, name: str,
               frames: list[list]) -> None:
        shown = f"{self.prefix}{rel_dir}" if rel_dir else self.root  # os.path.join(root, rel_dir)
        memo, fd = self._listing(rel_dir, parent_fd, name, shown)
        if memo is None:
            return
        try:
            _tag, by, dirs, git, decision = memo
            if rel_dir and git and self.linked_worktree(rel_dir):
                return  # a worktree checked out inside the project holds copies of its rules
            if rel_dir and "pyvenv.cfg" in by:
                return  # a virtual environment under any name
            if self.settings.honour_gitignore and by.get(".gitignore") and by[".gitignore"].type == "file":
                spec = self.gitignore(rel_dir)
                if spec is not None:
                    specs = (*specs, (rel_dir, spec))
            if decision is not None and decision[0][0] == self.config_key and _same_specs(decision[0][1], specs):
                adds, file_diags = decision[1], decision[2]
                for cand in adds:
                    if cand.rel not in self.found:
                        self.found[cand.rel] = cand
                        self.added.append(cand)
                self.diags.extend(file_diags)
            else:
                mark, added = len(self.diags), len(self.added)
                self.folder_files(rel_dir, by, specs)
                adds = tuple(self.added[added:])
                file_diags = tuple(self.diags[mark:])
                decision = None
            for cfg, conv in ((".claude", self.claude), (self.host_dir, True)):
                if conv and cfg in by and by[cfg].type == "dir" and not self.ignored(_join(rel_dir, cfg), True, specs):
                    self.config_dir(rel_dir, cfg, specs)
            if self.settings.max_depth is not None and depth >= self.settings.max_depth:
                return
            if decision is not None:
                children, diags = decision[3], decision[4]
            else:
                children, diags = self._children(rel_dir, dirs, specs)
                memo[4] = ((self.config_key, specs), adds, file_diags, children, diags)
            self.diags.extend(diags)
            if children:
                if fd is not None and len(frames) >= _MAX_HELD:
                    os.close(fd)  # very deep trees: children open from the root instead
                    fd = None
                frames.append([rel_dir, depth, specs, fd, list(children)])
                fd = None
        finally:
            if fd is not None:
                os.close(fd)

    def _children(self, rel_dir: str, dirs: tuple[str, ...], specs: tuple) -> tuple[tuple[str, ...], tuple]:
        out: list[str] = []
        diags: list[Diagnostic] = []
        for name in dirs:
            if name in self.skip or name in (".claude", self.host_dir):
                continue
            sub = _join(rel_dir, name)
            if "\\" in name or ":" in name:  # what safefs.split_relative refuses in a listed name
                try:
                    safefs.split_relative(sub)
                except safefs.SafeFsError as err:
                    if err.code != "not-found":
                        diags.append(err.diagnostic(level="warning"))
                    continue
            if not self.ignored(sub, True, specs):
                out.append(name)
        return tuple(out), tuple(diags)

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
                elif e.type == "link":
                    self.refuse_link(rel)


def discover_project(root: str, profile, settings: RuleSettings) -> Discovery:
    """Find and load every rule file of the project at ``root`` (absolute, canonical).

    :returns: :class:`Discovery`; only call for a *trusted* project.
    """
    walker = _Walker(root, profile, settings)
    walker.walk()
    out = Discovery(diagnostics=walker.diags)
    _load_all(out, root, sorted(walker.found.values(), key=lambda c: c.rel), settings,
              follow_links=False, home=None)
    return out


def discover_user(home: str, profile, settings: RuleSettings) -> Discovery:
    """Find and load the user-level rule files under ``home`` (links followed, cycle-safe)."""
    found: dict[str, Candidate] = {}
    diags: list[Diagnostic] = []
    host = profile.host_dir

    def add(rel: str, key: str, kind: str = "instruction") -> None:
        found.setdefault(rel, Candidate(rel, "user", "", PRIORITY[key], kind))

    def exists(rel: str) -> bool:
        return os.path.isfile(os.path.join(home, rel))

    if profile.claude_conventions and exists(".claude/CLAUDE.md"):
        add(".claude/CLAUDE.md", ".claude/CLAUDE.md")
    if profile.agents_conventions and exists(".agents/AGENTS.md"):
        add(".agents/AGENTS.md", "AGENTS.md")
    if exists(f"{host}/AGENTS.override.md"):
        add(f"{host}/AGENTS.override.md", ".<host>/AGENTS.override.md")
        if exists(f"{host}/AGENTS.md"):
            diags.append(Diagnostic(level="info", code="rule-shadowed", path=os.path.join(home, host, "AGENTS.md"),
                                    message="not loaded: shadowed by AGENTS.override.md in the same folder"))
    elif exists(f"{host}/AGENTS.md"):
        add(f"{host}/AGENTS.md", ".<host>/AGENTS.md")
    dirs = [(".claude", ".claude/rules")] if profile.claude_conventions else []
    dirs.append((host, ".<host>/rules"))
    for cfg, key in dirs:
        seen: set[str] = set()
        stack = [f"{cfg}/rules"]
        while stack:
            cur = stack.pop()
            real = os.path.realpath(os.path.join(home, cur))
            if real in seen:
                diags.append(Diagnostic(level="warning", code="link-cycle", path=os.path.join(home, cur),
                                        message=f"folder link leads back to {real}; not walked again"))
                continue
            seen.add(real)
            try:
                entries = safefs.scan_dir(home, cur, follow_links=True)
            except safefs.SafeFsError as err:
                if err.code != "not-found":
                    diags.append(err.diagnostic(level="warning"))
                continue
            for e in entries:
                rel = f"{cur}/{e.name}"
                if e.type == "dir":
                    stack.append(rel)
                elif e.type == "file" and e.name.endswith(".md"):
                    add(rel, key, "rule")
    out = Discovery(diagnostics=diags)
    _load_all(out, home, sorted(found.values(), key=lambda c: c.rel), settings, follow_links=True, home=home)
    return out


def _load_all(out: Discovery, base: str, cands: list[Candidate], settings: RuleSettings, *,
              follow_links: bool, home: str | None) -> None:
    for i, c in enumerate(cands):
        if settings.max_files is not None and i >= settings.max_files:
            out.diagnostics.append(Diagnostic(
                level="error", code="rule-file-limit", path=os.path.join(base, c.rel),
                message=f"more than {settings.max_files} rule files; this one was not loaded"))
            continue
        rule, diags = _load_reusing(base, c, settings, follow_links, home)
        out.diagnostics.extend(diags)
        if rule is not None:
            out.rules.append(rule)


_RULE_TAG = "wskit.rules.file"


def _load_reusing(base: str, c: Candidate, settings: RuleSettings, follow_links: bool,
                  home: str | None) -> tuple[RuleFile | None, list[Diagnostic]]:
    """:func:`load_rule_file`, or on a reload the previous load's rule when the file's
    stat signature is unchanged (:func:`wskit.changes.reuse`, issue 8 B3). Only a rule
    that imports nothing is remembered: an ``@`` import would make it depend on other files."""
    path = os.path.join(base, c.rel)
    key = (base, c.rel, c.source, c.scope_dir, c.priority, c.file_kind, follow_links, settings, home)
    prev = changes.reuse(path, follow_links)
    if type(prev) is tuple and len(prev) == 4 and prev[0] == _RULE_TAG and prev[1] == key:
        return prev[2], list(prev[3])
    rule, diags = load_rule_file(base, c.rel, source=c.source, scope_dir=c.scope_dir, priority=c.priority,
                                 file_kind=c.file_kind, follow_links=follow_links, settings=settings, home=home)
    if rule is not None and not rule.imports and "@" not in rule.body:
        changes.remember(path, follow_links, (_RULE_TAG, key, rule, tuple(diags)))
    return rule, diags


def load_rule_file(
    base: str, rel: str, *, source: str, scope_dir: str, priority: int, file_kind: str,
    follow_links: bool, settings: RuleSettings, home: str | None = None,
) -> tuple[RuleFile | None, list[Diagnostic]]:
    """Read, check and build one :class:`RuleFile` (imports inlined).

    Refusals (each a diagnostic naming the file; the file is skipped): every
    :mod:`wskit.safefs` code (``too-large`` over ``settings.max_file_bytes``,
    ``symlink``, ``hardlink``…), ``hidden-characters``, frontmatter errors,
    ``rule-paths-invalid`` and ``rule-empty``. Refused *patterns* are
    ``rule-pattern-invalid``/``rule-pattern-limit`` warnings; the rule stays.

    :returns: the rule (or None) and diagnostics.
    """
    path = os.path.join(base, rel)
    diags: list[Diagnostic] = []

    def err(code: str, msg: str, line: int | None = None, level: str = "error"):
        diags.append(Diagnostic(level=level, code=code, path=path, line=line, message=msg))
        return None, diags

    try:
        res = safefs.read_bytes(base, rel, max_bytes=settings.max_file_bytes, follow_links=follow_links)
        text = safefs.decode_text(res.raw, res.path)
    except safefs.SafeFsError as e:
        diags.append(Diagnostic(level="error", code=e.code, path=path, line=getattr(e, "line", None),
                                message=e.args[0]))
        return None, diags
    hidden = next(iter(safefs.find_hidden_chars(text)), None)
    if hidden is not None:
        return err("hidden-characters", f"rule contains the hidden character {hidden[1]}", hidden[0])
    patterns: tuple[str, ...] = ()
    body = text
    if file_kind == "rule":
        fm = parse_frontmatter(text, path)
        diags.extend(fm.diagnostics)
        if fm.present and not fm.ok:
            return None, diags
        body = fm.body if fm.present else text
        line = fm.line_of("paths")
        try:
            items, problems = split_paths(fm.data.get("paths"))
        except TypeError as e:
            return err("rule-paths-invalid", str(e), line)
        for p in problems:
            diags.append(Diagnostic(level="warning", code="rule-paths-invalid", path=path, line=line, message=p))
        patterns = normalise(items)
        if settings.max_patterns is not None and len(patterns) > settings.max_patterns:
            return err("rule-paths-invalid", f"paths has {len(patterns)} patterns, over the limit of "
                       f"{settings.max_patterns}", line)
        for prob in compiled(patterns, settings.max_pattern_length).problems:
            diags.append(Diagnostic(level="warning", code=prob.code, path=path, line=line,
                                    message=f"pattern {prob.pattern[:80]!r}: {prob.message}; it matches nothing"))
    imp = expand_imports(body, base=base, rel_path=rel, home=home, follow_links=follow_links,
                         max_bytes=settings.max_file_bytes)
    diags.extend(imp.diagnostics)
    body = imp.text.strip()
    if not body:
        return err("rule-empty", "rule has no content after its frontmatter; skipped", level="warning")
    scope = Scope.USER if source == "user" else Scope.LOCAL if source == "local" else Scope.PROJECT
    rule = RuleFile(
        id=rule_id(source, rel), name=rel, source=source, scope_dir=scope_dir, priority=priority,
        patterns=patterns, body=body, bytes=len(body.encode("utf-8")), imports=tuple(imp.imported),
        file_kind=file_kind, follow_links=follow_links,
        provenance=Provenance(scope=scope, source_root=base, path=rel, sha256=rule_digest(rel, patterns, body)),
    )
    return rule, diags


def reload_rule(rule: RuleFile, settings: RuleSettings, home: str | None = None) -> tuple[RuleFile | None, list[Diagnostic]]:
    """Read ``rule`` again from disk (same classification): the current version, or None when gone or invalid."""
    return load_rule_file(rule.provenance.source_root, rule.path, source=rule.source, scope_dir=rule.scope_dir,
                          priority=rule.priority, file_kind=rule.file_kind, follow_links=rule.follow_links,
                          settings=settings, home=home if rule.source == "user" else None)
