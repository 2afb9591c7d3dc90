"""The project walk of the rule catalog: which files are rule candidates (docs/rules.md §1).

Used by :mod:`wskit.builtin_plugins.rules.discovery`. The walk lists every folder
once through descriptors (:mod:`wskit.fs.fdwalk`), never follows links, skips
VCS folders, dependencies, virtual environments, git worktrees inside the
project and what ``.gitignore`` files ignore; on a reload it reuses the
listings and decisions of folders whose stat signature is unchanged
(:func:`wskit.changes.reuse`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from wskit import changes, fs
from wskit.builtin_plugins.rules.conventions import Conventions
from wskit.builtin_plugins.rules.gitignore import GitIgnore, SimpleGitIgnore, simple_gitignore
from wskit.builtin_plugins.rules.model import RuleSettings
from wskit.builtin_plugins.rules.rulefiles import Candidate, RuleFiles, _join  # noqa: F401  (Candidate re-exported)
from wskit.fs import descriptors, fdwalk
from wskit.models import Diagnostic

#: Folder names never walked (VCS, dependencies, virtual environments, caches, build output).
SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".bzr", "_darcs", "node_modules", "bower_components", "vendor",
    ".venv", "venv", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".nox",
    ".cache", ".hypothesis", ".gradle", ".next", ".nuxt", ".turbo", ".parcel-cache",
    "dist", "build", "target", "coverage", "htmlcov", ".eggs",
})


_MEMO_TAG = "wskit.builtin_plugins.rules.walk"
#: memo namespace of the whole walk's result (projectwalk) and tag of a rule file's (discovery)
_WHOLE_NAMESPACE = "wskit.builtin_plugins.rules.walk.whole"
_RULE_TAG = "wskit.builtin_plugins.rules.file"
_GITIGNORE_TAG = "wskit.builtin_plugins.rules.gitignore"
#: Folder descriptors a walk keeps open at most (one per level of depth).
_MAX_HELD = 64
#: Folder levels the project walk enters at most, whatever ``max_depth`` says: past
#: :data:`_MAX_HELD` levels each folder is opened from the root (cost grows with the
#: square of the depth), and 10,000 nested folders took minutes. Real projects stay
#: far below; deeper folders are a ``rule-walk-too-deep`` warning and are not walked.
MAX_WALK_DEPTH = 256


def _same_specs(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x[0] == y[0] and x[1] is y[1] for x, y in zip(a, b))


#: instruction-file names some host matches without regard to case (GitHub Copilot CLI reads
#: ``Agents.md``), kept in every listing whatever their case (``Conventions.casefold``)
_FOLDED_NAMES = frozenset({"agents.md", "claude.md", "gemini.md"})
_NO_ENTRIES: dict = {}  # the kept names of most folders (never mutated)
_CHILD_FLAGS = fdwalk._DIR_FLAGS | descriptors.O_NOFOLLOW
class ProjectWalker(RuleFiles):
    def __init__(self, root: str, profile, settings: RuleSettings) -> None:
        self.root = root
        self.settings = settings
        self.conventions = Conventions.of(profile, settings)
        self.host_dir = profile.host_dir
        self.skip = SKIP_DIRS | set(settings.extra_skip_dirs)
        self.prefix = root if root.endswith(os.sep) else root + os.sep
        self.found: dict[str, Candidate] = {}
        self.added: list[Candidate] = []  # self.found in insertion order
        self.diags: list[Diagnostic] = []
        self.link_targets: dict[str, str] = {}
        #: rule-file links refused and reported by :meth:`RuleFiles.inside_link`
        self.refused_links: set[str] = set()
        #: every folder entered, in walk order: ``(rel_dir, memo)`` (see :meth:`_listing`)
        self.folders: list[tuple[str, list]] = []
        self._secret: dict[str, bool] = {}  # is_secret_name of folder names, per walk
        #: rule files read during the walk, by relative path (see :meth:`_prefetch`)
        self.prefetched: dict[str, fs.ReadResult] = {}
        #: what a folder's cached decisions depend on besides its listing and the specs
        self.config_key = (self.skip, self.conventions.key, settings.honour_gitignore)
        #: names a folder listing keeps (everything the walk looks up by name)
        self.interesting = self.conventions.names | {".gitignore", "pyvenv.cfg", ".git"}

    def listing(self) -> Iterator[tuple[str, tuple[str, ...], tuple[str, ...], bool]]:
        """Every folder the walk entered, in walk order (pre-order: a folder's subtree
        follows it): ``(rel_dir, names, sub_folders, has_git)`` — ``names``: every entry
        that is not a folder (files, links, special files; unsorted), ``sub_folders``:
        sorted, secret-looking names left out, ``has_git``: a ``.git`` entry of any type."""
        for rel_dir, memo in self.folders:
            yield rel_dir, memo[6], memo[2], memo[7]

    def gitignore(self, rel_dir: str) -> GitIgnore | SimpleGitIgnore | None:
        """The parsed ``.gitignore`` of ``rel_dir``: the previous load's object when the
        file is unchanged (so decisions that depend on it can be reused too)."""
        rel = _join(rel_dir, ".gitignore")
        path = os.path.join(self.root, rel)
        prev = changes.reuse(path)
        if type(prev) is tuple and len(prev) == 3 and prev[0] == _GITIGNORE_TAG:
            self.diags.extend(prev[2])
            return prev[1]
        mark = len(self.diags)
        ignore = self._parse_gitignore(rel)
        changes.remember(path, False, (_GITIGNORE_TAG, ignore, tuple(self.diags[mark:])))
        return ignore

    def _parse_gitignore(self, rel: str) -> GitIgnore | SimpleGitIgnore | None:
        """The matcher of ``rel`` (a ``.gitignore``): string tests when every pattern is a
        plain name or path (:func:`~wskit.builtin_plugins.rules.gitignore.simple_gitignore`),
        else pathspec's ``GitIgnoreSpec`` (imported only then); None when it cannot be read
        or pathspec refuses a pattern (a warning says which)."""
        try:
            res = fs.read_bytes(self.root, rel, max_bytes=1024 * 1024)
            lines = fs.decode_text(res.raw, res.path).split("\n")
            literal = simple_gitignore(lines)
            if literal is not None:
                return literal
            import pathspec  # lazily: only a .gitignore with wildcards needs it

            return GitIgnore(pathspec.GitIgnoreSpec.from_lines(lines))
        except fs.SafeFsError as err:
            self.diags.append(Diagnostic(level="warning", code="gitignore-unreadable", path=err.path,
                                         message=f"{err.reason}; its patterns are not applied"))
        except Exception as err:  # pathspec refusing a pattern
            self.diags.append(Diagnostic(level="warning", code="gitignore-invalid",
                                         path=os.path.join(self.root, rel), message=str(err)))
        return None

    @staticmethod
    def ignored(rel: str, is_dir: bool, specs: tuple) -> bool:
        for base, ignore in reversed(specs):
            sub = rel[len(base) + 1:] if base else rel
            include = ignore.check(sub + "/" if is_dir else sub)
            if include is not None:
                return include
        return False

    def linked_worktree(self, rel_dir: str) -> bool:
        """A git worktree checked out inside the project holds copies of its rules: never walked."""
        full = os.path.join(self.root, rel_dir)
        marker = os.path.join(full, ".git")
        # what the .git file says decides: a rewrite must reach change detection (the
        # folder's own signature does not change when a file's content does)
        changes.note(marker, False)
        if not os.path.isfile(marker):
            return False
        from wskit.binding import _git_marker

        found = _git_marker(Path(full))
        return found is not None and found[0] == "worktree"

    def walk(self) -> None:
        """Depth-first walk, pre-order, children in reverse name order (the order
        diagnostics are reported in). Each folder is listed once through a descriptor
        opened from its parent's (:mod:`wskit.fs.fdwalk`); on a reload, a folder
        whose stat signature is unchanged is not listed again (its memo is reused,
        :func:`wskit.changes.reuse`), nor are its ``ignored``/skip decisions redone
        when the ``.gitignore`` specs above it are the same objects.
        Every folder entered is kept in :attr:`folders` (see :func:`project_walk`)."""
        self.notes = changes.Notes()
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
                return fdwalk.open_root(self.root)
            if parent_fd is not None:
                return fdwalk.open_child(parent_fd, name, shown)
            return descriptors.open_dir_chain(self.root, rel_dir.split("/"), shown, False)
        except fs.SafeFsError as err:
            changes.note(shown, False)
            if err.code != "not-found":
                self.diags.append(err.diagnostic(level="warning"))
            return None

    def _listing(self, rel_dir: str, parent_fd: int | None, name: str, shown: str) -> tuple[list | None, int | None]:
        """The folder's memo entry (reused when unchanged) and its descriptor when it was opened.

        The memo: ``[tag, by, dirs, git, decision, dir_links, files, git_any]`` — ``by``:
        the kept names (:attr:`interesting`, secret names left out) as
        :class:`~wskit.fs.DirEntry`; ``dirs``/``dir_links``: sorted sub-folders and
        folder links (secret names left out); ``git``: a ``.git`` file or link (a
        worktree's marker); ``decision``: the walk's cached decisions; ``files``: every
        other name of the folder, unsorted (for :func:`project_walk`'s users);
        ``git_any``: any ``.git`` entry.
        """
        notes = self.notes
        if notes.reloading:
            prev = notes.reuse(shown)
            if type(prev) is list and prev and prev[0] == _MEMO_TAG:
                return prev, None
        if parent_fd is not None:
            try:  # the common case: one openat from the held parent
                fd = os.open(name, _CHILD_FLAGS, dir_fd=parent_fd)
            except OSError:
                fd = self._open(rel_dir, parent_fd, name, shown)  # refusals and their diagnostics
        else:
            fd = self._open(rel_dir, parent_fd, name, shown)
        if fd is None:
            return None, None
        try:
            memo = self._list(fd, shown)
        except OSError as err:
            os.close(fd)
            self.diags.append(descriptors.oserror(err, shown, final=False).diagnostic(level="warning"))
            return None, None
        notes.remember(shown, memo)
        return memo, fd

    def _list(self, fd: int, shown: str) -> list:
        """List the folder open as ``fd`` (what :func:`wskit.fs.fdwalk.list_fd` does, inlined:
        one ``fstat`` noted to the recordings, one ``scandir``, types from ``d_type``)."""
        self.notes.stat(shown, os.fstat(fd))
        interesting = self.interesting
        secret = self._secret
        kept: dict[str, os.DirEntry] = {}
        dirs: list[str] = []
        links: list[str] = []
        files: list[str] = []
        with os.scandir(fd) as it:
            for e in it:
                name = e.name
                if name in interesting or (len(name) == 9 and name.casefold() in _FOLDED_NAMES):
                    kept[name] = e
                try:
                    is_dir = e.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir:
                    hidden = secret.get(name)
                    if hidden is None:
                        hidden = secret[name] = fs.is_secret_name(name)
                    if not hidden:
                        dirs.append(name)
                    continue
                files.append(name)
                if e.is_symlink() and not fs.is_secret_name(name) and fdwalk.leads_to_folder(e):
                    links.append(name)
        if kept:
            by = {n: fs.DirEntry(n, fdwalk.entry_type(e)) for n, e in kept.items() if not fs.is_secret_name(n)}
            git_any = ".git" in kept
            git = git_any and fdwalk.entry_type(kept[".git"]) in ("file", "link")
        else:
            by, git, git_any = _NO_ENTRIES, False, False
        dirs.sort()
        if links:
            links.sort()
        return [_MEMO_TAG, by, tuple(dirs), git, None, tuple(links), tuple(files), git_any]

    def _enter(self, rel_dir: str, depth: int, specs: tuple, parent_fd: int | None, name: str,
               frames: list[list]) -> None:
        shown = f"{self.prefix}{rel_dir}" if rel_dir else self.root  # os.path.join(root, rel_dir)
        memo, fd = self._listing(rel_dir, parent_fd, name, shown)
        if memo is None:
            return
        try:
            _tag, by, dirs, git, decision, dir_links, _files, _git_any = memo
            if rel_dir and git and self.linked_worktree(rel_dir):
                return  # a worktree checked out inside the project holds copies of its rules
            if by:
                if rel_dir and "pyvenv.cfg" in by:
                    return  # a virtual environment under any name
                if self.settings.honour_gitignore and by.get(".gitignore") and by[".gitignore"].type == "file":
                    spec = self.gitignore(rel_dir)
                    if spec is not None:
                        specs = (*specs, (rel_dir, spec))
            self.folders.append((rel_dir, memo))
            if decision is not None and decision[0][0] == self.config_key and _same_specs(decision[0][1], specs):
                adds, file_diags = decision[1], decision[2]
                for cand in adds:
                    if cand.rel not in self.found:
                        self.found[cand.rel] = cand
                        self.added.append(cand)
                self.diags.extend(file_diags)
            elif by:
                mark, added = len(self.diags), len(self.added)
                self.folder_files(rel_dir, by, specs)
                adds = tuple(self.added[added:])
                file_diags = tuple(self.diags[mark:])
                decision = None
                if adds and fd is not None:
                    self._prefetch(fd, rel_dir, adds)
            else:  # nothing the walk looks up by name: no rule files, no config folders
                adds = file_diags = ()
                decision = None
            if by:
                for cfg in self.conventions.config_dirs:
                    name = cfg.name
                    if name in by and by[name].type == "dir" and not self.ignored(_join(rel_dir, name), True, specs):
                        self.config_dir(rel_dir, cfg, specs)
            if self.settings.max_depth is not None and depth >= self.settings.max_depth:
                return
            if depth >= MAX_WALK_DEPTH:
                if dirs:
                    self.diags.append(Diagnostic(
                        level="warning", code="rule-walk-too-deep", path=shown,
                        message=f"folders deeper than {MAX_WALK_DEPTH} levels are not searched for rules"))
                return
            if decision is not None:
                children, diags = decision[3], decision[4]
            else:
                if dir_links or not specs:
                    children, diags = self._children(rel_dir, dirs, specs, dir_links)
                else:  # _children inlined for the common case (no folder links)
                    out: list[str] = []
                    skip = self.skip
                    host_dir = self.host_dir
                    ignored = self.ignored
                    diags = ()
                    for child in dirs:
                        if child in skip or child == ".claude" or child == host_dir:
                            continue
                        if "\\" in child or ":" in child:
                            children, diags = self._children(rel_dir, dirs, specs, dir_links)
                            break
                        if not ignored(f"{rel_dir}/{child}" if rel_dir else child, True, specs):
                            out.append(child)
                    else:
                        children = tuple(out)
                memo[4] = ((self.config_key, specs), adds, file_diags, children, diags)
            if diags:
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

    def _prefetch(self, fd: int, rel_dir: str, adds: tuple) -> None:
        """Read the rule files found directly in the folder open as ``fd`` while it is
        open (:func:`wskit.fs.fdwalk.read_file_at`), so loading them does not open every
        folder from the root again. What cannot be read so is read (and
        refused with its diagnostic) by the loader."""
        start = len(rel_dir) + 1 if rel_dir else 0
        limit = self.settings.max_file_bytes
        for cand in adds:
            name = cand.rel[start:]
            if "/" not in name:
                got = fdwalk.read_file_at(fd, name, f"{self.prefix}{cand.rel}", limit)
                if got is not None:
                    self.prefetched[cand.rel] = got

    def _children(self, rel_dir: str, dirs: tuple[str, ...], specs: tuple,
                  dir_links: tuple[str, ...] = ()) -> tuple[tuple[str, ...], tuple]:
        out: list[str] = []
        diags: list[Diagnostic] = []
        for name in dir_links:  # never followed in a project; said once, as info
            sub = _join(rel_dir, name)
            if name in self.skip or sub in self.refused_links or self.ignored(sub, True, specs):
                continue  # a rule file's name that loops is the loader's to report, once
            diags.append(Diagnostic(level="info", code="symlink", path=os.path.join(self.root, sub),
                                    message="a folder link, or a link that loops, is not walked for rules: "
                                    "linked folders are not followed in a project (links to files inside it are)"))
        for name in dirs:
            if name in self.skip or name in (".claude", self.host_dir):
                continue
            sub = _join(rel_dir, name)
            if "\\" in name or ":" in name:  # what fs.split_relative refuses in a listed name
                try:
                    fs.split_relative(sub)
                except fs.SafeFsError as err:
                    if err.code != "not-found":
                        diags.append(err.diagnostic(level="warning"))
                    continue
            if not self.ignored(sub, True, specs):
                out.append(name)
        return tuple(out), tuple(diags)


class ChainWalker(ProjectWalker):
    """The project walk restricted to chains of folders from the root (lazy rule catalog).

    :meth:`walk_to` enters the folders from the root to one folder, each with exactly the
    decisions :meth:`ProjectWalker.walk` makes for it (the same :meth:`ProjectWalker._enter`: skip names,
    ``.gitignore`` specs of its ancestors, links, virtual environments, worktrees, depth
    limits), so the candidates and diagnostics of a folder it enters are those the whole walk
    finds there. A folder is entered at most once per walker; :attr:`state` keeps, per folder
    asked about, what its children need (``None``: the whole walk does not enter it).
    """

    def __init__(self, root: str, profile, settings: RuleSettings) -> None:
        super().__init__(root, profile, settings)
        #: folder -> ``(specs, depth, children)`` after entering it; None when not entered
        #: (or entered without sub-folders to walk)
        self.state: dict[str, tuple | None] = {}
        #: folders entered, in the order entered (for :meth:`listing`)
        self.entered: dict[str, int] = {}

    def walk_to(self, rel_dir: str) -> list[str]:
        """Enter every folder from the root to ``rel_dir`` (catalog-relative, normal) the whole
        walk enters and this walker has not; stop at the first one it does not enter.

        :returns: the folders entered by this call, root first."""
        self.notes = changes.Notes()
        parts = rel_dir.split("/") if rel_dir else []
        state = self.state
        newly: list[str] = []
        fd: int | None = None
        try:
            rel = ""
            for i in range(len(parts) + 1):
                if i:
                    name = parts[i - 1]
                    parent = state.get(rel)
                    if parent is None or name not in parent[2]:
                        return newly  # the whole walk does not enter it
                    child = f"{rel}/{name}" if rel else name
                else:
                    name, parent, child = "", None, ""
                if child in state:
                    if fd is not None:
                        os.close(fd)
                        fd = None
                    rel = child
                    if state[child] is None:
                        return newly
                    continue
                frames: list[list] = []
                specs = parent[0] if parent is not None else ()
                depth = parent[1] + 1 if parent is not None else 0
                mark = len(self.folders)
                self._enter(child, depth, specs, fd, name, frames)
                if fd is not None:
                    os.close(fd)
                    fd = None
                if len(self.folders) > mark:
                    self.entered[child] = len(self.entered)
                newly.append(child)
                if frames:
                    frame = frames[0]
                    fd = frame[3]
                    state[child] = (frame[2], frame[1], frozenset(frame[4]))
                else:
                    state[child] = None
                rel = child
            return newly
        finally:
            if fd is not None:
                os.close(fd)

    def listing_of(self, folders) -> Iterator[tuple[str, tuple[str, ...], tuple[str, ...], bool]]:
        """:meth:`ProjectWalker.listing` of the entered folders among ``folders`` (walk order)."""
        wanted = set(folders)
        for rel_dir, memo in self.folders:
            if rel_dir in wanted:
                yield rel_dir, memo[6], memo[2], memo[7]


class OpenChainWalker(ChainWalker):
    """A chain walker that enters every folder on the chain whatever the skip list and the
    ``.gitignore`` files say: the hosts read the instruction files of every folder from the
    project root to the cwd (asked of Claude Code 2.1.337 and Codex CLI 0.171.0 with the cwd
    in a git-ignored folder and in ``build/``), where the project walk leaves such folders
    out. Links, virtual environments, worktrees and depth limits are decided as before."""

    def __init__(self, root: str, profile, settings: RuleSettings) -> None:
        super().__init__(root, profile, settings)
        self.skip = frozenset()

    @staticmethod
    def ignored(rel: str, is_dir: bool, specs: tuple) -> bool:
        return False
