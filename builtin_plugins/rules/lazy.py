"""The lazy rule catalog: rules read folder chain by folder chain, when a query first needs them.

Claude Code, Codex CLI and Gemini CLI read the instruction files of the folders from the
project root to the working folder before the first turn, and those of a touched file's
folders when a tool touches it; none lists the whole repository first. A
:class:`LazyRuleCatalog` does the same: :meth:`~LazyRuleCatalog.static_rules` of a cwd and
:meth:`~LazyRuleCatalog.contextual_rules` of a path visit only the folders from the root to
them (each once per catalog: the walk keeps what it decided per folder), and answer from a
:class:`~wskit.builtin_plugins.rules.catalog.RuleCatalog` of every rule read so far — the
answer of a query depends only on the rules of its cwd's and targets' ancestor folders,
and a folder's rules are those the whole-project walk finds there, so the answers equal
the whole catalog's (tests/builtin_plugins/rules/test_lazy_catalog.py compares them).

Operations that need every rule (:meth:`~LazyRuleCatalog.rules`, ``len``,
:meth:`~LazyRuleCatalog.shell_rules`, :attr:`~LazyRuleCatalog.catalog_sha256`, and
:meth:`~LazyRuleCatalog.get`/:meth:`~LazyRuleCatalog.hydrate`/:meth:`~LazyRuleCatalog.drift`
of a rule not read yet) walk the whole project once (:meth:`~LazyRuleCatalog.complete`).
:attr:`~LazyRuleCatalog.diagnostics` are those of what was read so far.

Implementations of ``wskit_discover_rules`` that take ``folders`` are asked per chain with a
:class:`FolderRequest`; the others are asked once for the whole project, when the catalog
is built. Reads made after the workspace load returned are recorded as the load's
dependencies (:func:`wskit.changes.resumed`), so the workspace cache reloads when one of
those folders or files changes, as for the load's own reads.
"""

from __future__ import annotations

import _thread
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from wskit import changes
from wskit.builtin_plugins.rules.catalog import RuleCatalog
from wskit.builtin_plugins.rules.model import HOST_RULES, RuleSelection, RuleSettings
from wskit.builtin_plugins.rules.scopes import ancestors
from wskit.models import Diagnostic

if TYPE_CHECKING:
    from wskit.resources.rule import RuleFile


class FolderRequest:
    """What a lazy catalog asks a ``wskit_discover_rules`` implementation for.

    :ivar folders: catalog-relative folders (``""`` is the root), root first; each one's
        ancestors were asked before or are in this request. Wanted: the rules whose
        ``scope_dir`` is one of them.
    :ivar memo: a dictionary that lives as long as the catalog, shared by every
        implementation (keys: the implementation's own, e.g. its walk state).
    """

    __slots__ = ("folders", "memo", "open")

    def __init__(self, folders: tuple[str, ...], memo: dict, open: bool = False) -> None:  # noqa: A002
        self.folders = folders
        self.memo = memo
        #: enter every folder of the chain, skip list and ``.gitignore`` aside, as the hosts
        #: read them (:class:`~wskit.builtin_plugins.rules.walk.OpenChainWalker`)
        self.open = open

    def __repr__(self) -> str:
        return f"FolderRequest({self.folders!r})"


def collect(res, rules: list, diags: list) -> None:
    """Sort the per-plugin values of a ``wskit_discover_rules`` call into ``rules`` and
    ``diags`` (anything else is a ``bad-contribution`` error)."""
    from wskit.plugin.facade import flatten_contributions  # the facade's own rule for hook values

    diags.extend(res.diagnostics)
    for plugin, value in res.values:
        for item in flatten_contributions(value):
            if isinstance(item, Diagnostic):
                diags.append(item)
                continue
            from wskit.resources.rule import RuleFile  # the model class, built by the first rule

            if isinstance(item, RuleFile):
                rules.append(item)
            else:
                diags.append(Diagnostic(level="error", code="bad-contribution", plugin=plugin,
                                        hook="wskit_discover_rules",
                                        message=f"plugin {plugin!r} returned {type(item).__name__} from "
                                        "wskit_discover_rules, expected RuleFile"))


_ASKED_LIMIT = 1 << 20


class LazyRuleCatalog:
    """A rule catalog that reads folder chains on demand; same queries and answers as
    :class:`~wskit.builtin_plugins.rules.catalog.RuleCatalog` (see the module doc).

    Built by :func:`wskit.builtin_plugins.rules.build.build_catalog` during a workspace load
    for a trusted project.

    :ivar root: absolute, canonical catalog root.
    :ivar home: the user home user-level rules came from.
    :ivar trusted: always True (an untrusted project gets an eager catalog of user rules).
    :ivar settings: :class:`RuleSettings`.
    """

    def __init__(self, root: str, hooks, source, profile, *, rules: Iterable[RuleFile],
                 diagnostics: Iterable[Diagnostic], settings: RuleSettings, home: str | None) -> None:
        self.root = str(root)
        self.home = home
        self.trusted = True
        self.settings = settings
        self._hooks = hooks
        self._source = source
        self._profile = profile
        self._base_rules = list(rules)
        self._base_diags = list(diagnostics)
        self._rules: dict[str, RuleFile] = {}
        self._extra: list[RuleFile] = []  # a second rule of a known id: kept for the duplicate warning
        self._diags: list[Diagnostic] = []
        self._memo: dict = {}
        self._asked: set[str] = set()
        self._lock = _thread.RLock()  # threading.RLock, without importing threading at start-up
        self._captured = changes.capture()
        self._complete = False
        self._inner = self._build()
        self._ask(("",))  # the root folder, on every chain: its problems reach the workspace's diagnostics

    def _build(self) -> RuleCatalog:
        return RuleCatalog(self.root, [*self._base_rules, *self._rules.values(), *self._extra],
                           diagnostics=[*self._base_diags, *self._diags], settings=self.settings,
                           trusted=True, home=self.home)

    # -- loading -------------------------------------------------------------

    @property
    def is_complete(self) -> bool:
        """True once the whole project was read (:meth:`complete`)."""
        return self._complete

    def _add(self, rules: list, diags: list) -> bool:
        grew = bool(diags)
        self._diags.extend(diags)
        for r in rules:
            prev = self._rules.get(r.id)
            if prev is None:
                self._rules[r.id] = r
                grew = True
            elif prev.path != r.path or prev.source != r.source or prev.sha256 != r.sha256:
                self._extra.append(r)  # another file under a known id: RuleCatalog warns
                grew = True
        return grew

    def _ask(self, folders: tuple[str, ...]) -> None:
        with self._lock:
            if self._complete:
                return
            folders = tuple(f for f in folders if f not in self._asked)
            if not folders:
                return
            rules: list = []
            diags: list = []
            with changes.resumed(self._captured):
                res = self._hooks.discover_rules(self._source, self._source.root, self._profile,
                                                 FolderRequest(folders, self._memo), lazy=True)
            collect(res, rules, diags)
            if len(self._asked) < _ASKED_LIMIT:
                self._asked.update(folders)
            if self._add(rules, diags):
                self._inner = self._build()

    def _want(self, rel: str, folder: bool) -> None:
        """Make sure the rules of every ancestor folder of ``rel`` (``rel`` too, when it may
        be a folder) were asked for."""
        if rel in self._asked or self._complete:
            return
        chain = ancestors(rel)
        if not folder:
            chain.pop()
            if os.path.isdir(os.path.join(self.root, rel)):  # not a folder: no rules of its own
                chain.append(rel)
            elif len(self._asked) < _ASKED_LIMIT:
                self._ask(tuple(chain))
                self._asked.add(rel)
                return
        self._ask(tuple(chain))

    def complete(self) -> RuleCatalog:
        """Read the whole project (once) and return the whole catalog, the eager
        :class:`RuleCatalog` of every rule (its answers are this catalog's from then on)."""
        with self._lock:
            if not self._complete:
                rules: list = []
                diags: list = []
                with changes.resumed(self._captured):
                    res = self._hooks.discover_rules(self._source, self._source.root, self._profile, None,
                                                     lazy=True)
                collect(res, rules, diags)
                self._rules = {}
                self._extra = []
                self._diags = []
                self._add(rules, diags)
                self._inner = self._build()
                self._complete = True
                self._memo = {}
            return self._inner

    def _whole(self) -> RuleCatalog:
        return self._inner if self._complete else self.complete()

    # -- lookups (the whole project) ----------------------------------------

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Diagnostics of the sources and folders read so far (all of them after :meth:`complete`)."""
        return self._inner.diagnostics

    def __len__(self) -> int:
        return len(self._whole())

    def rules(self) -> tuple[RuleFile, ...]:
        """Every rule, definition order (reads the whole project)."""
        return self._whole().rules()

    @property
    def catalog_sha256(self) -> str:
        """Provenance digest over every rule (reads the whole project)."""
        return self._whole().catalog_sha256

    def get(self, rule_id: str) -> RuleFile | None:
        """The rule with this id, or None (reads the whole project when it was not read yet)."""
        got = self._inner.get(rule_id)
        return got if got is not None else self._whole().get(rule_id)

    def by_path(self, path: str, user: bool = False) -> RuleFile | None:
        """The rule at a relative ``path`` (reads the whole project when it was not read yet)."""
        got = self._inner.by_path(path, user)
        return got if got is not None else self._whole().by_path(path, user)

    def _holding(self, rules: Iterable[RuleFile]) -> RuleCatalog:
        inner = self._inner
        return inner if all(inner.get(r.id) is r for r in rules) else self._whole()

    def matcher(self, rule: RuleFile):
        """The compiled patterns of a conditional rule."""
        return self._holding((rule,)).matcher(rule)

    def order(self, rules: Iterable[RuleFile]) -> list[RuleFile]:
        """``rules`` de-duplicated and sorted in definition order."""
        rules = list(rules)
        return self._holding(rules).order(rules)

    def relative(self, path: str | os.PathLike[str]) -> str | None:
        """``path`` relative to the root (see :meth:`RuleCatalog.relative`)."""
        return self._inner.relative(path)

    def cwd_relative(self, cwd: str | os.PathLike[str]) -> str:
        """``cwd`` relative to the root; :raises RuleQueryError: when outside."""
        return self._inner.cwd_relative(cwd)

    def triggers(self, target_paths: Iterable[str | os.PathLike[str]]) -> tuple[str, ...]:
        """Targets made catalog-relative (see :meth:`RuleCatalog.triggers`)."""
        return self._inner.triggers(target_paths)

    def applies(self, rule: RuleFile, rel: str) -> bool:
        """Whether ``rule`` applies to catalog-relative ``rel`` (ignoring static/loaded)."""
        return self._holding((rule,)).applies(rule, rel)

    # -- queries (the chains they need) ------------------------------------

    def candidates(self, rel: str) -> Iterable[RuleFile]:
        """Rules that may apply to catalog-relative ``rel`` (see :meth:`RuleCatalog.candidates`)."""
        self._want(rel, False)
        return self._inner.candidates(rel)

    def static_rules(self, cwd: str | os.PathLike[str], budget: int | None = None) -> RuleSelection:
        """Unconditional rules whose scope contains ``cwd`` (see :meth:`RuleCatalog.static_rules`).

        For a reproduced host (``--host claude|codex|gemini|opencode|copilot``) the folders from the
        root to ``cwd`` that the project walk leaves out (git-ignored, ``build/``,
        ``node_modules/``…) contribute their instruction files too, as the hosts read every
        folder of that chain (:meth:`_open_chain`)."""
        cwd_rel = self._inner.cwd_relative(cwd)
        if not self._complete:
            self._want(cwd_rel, True)
        if cwd_rel and self._profile is not None and self._profile.name in HOST_RULES:
            extra = self._open_chain(cwd_rel)
            if extra:
                return self._inner.static_rules(cwd, budget, extra)
        return self._inner.static_rules(cwd, budget)

    def _open_chain(self, cwd_rel: str) -> tuple:
        """Instruction files of the folders on the chain to ``cwd_rel`` below the last one the
        project walk enters, read as the hosts read them (:class:`~.walk.OpenChainWalker`);
        kept per cwd. Their reads are this load's dependencies."""
        key = ("open-chain", cwd_rel)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        from wskit.builtin_plugins.rules.projectwalk import chain_walk

        chain = ancestors(cwd_rel)
        with changes.resumed(self._captured):
            # the catalog's own chain walk (shared through the request memo): already walked
            # to the cwd by the query, so this lists nothing again
            walked = chain_walk(self.root, self._profile, self.settings, FolderRequest(tuple(chain), self._memo))
            missing = {f for f in chain if f not in walked.entered}
            out: tuple = ()
            if missing:
                rules: list = []
                res = self._hooks.discover_rules(self._source, self._source.root, self._profile,
                                                 FolderRequest(tuple(chain), {}, open=True), lazy=True)
                collect(res, rules, [])
                out = tuple(sorted((r for r in rules if r.source != "user" and r.scope_dir in missing
                                    and r.file_kind == "instruction"), key=lambda r: r.sort_key()))
        self._memo[key] = out
        return out

    def contextual_rules(self, cwd: str | os.PathLike[str], target_paths: Iterable[str | os.PathLike[str]],
                         loaded_ids: Iterable[str] = (), budget: int | None = None) -> RuleSelection:
        """Rules newly applicable to ``target_paths`` (see :meth:`RuleCatalog.contextual_rules`)."""
        if not self._complete:
            inner = self._inner
            targets = target_paths if isinstance(target_paths, (list, tuple)) else list(target_paths)
            target_paths = targets
            self._want(inner.cwd_relative(cwd), True)
            for t in targets:
                rel = inner.relative(t)
                if rel:
                    self._want(rel, False)
        return self._inner.contextual_rules(cwd, target_paths, loaded_ids, budget)

    def shell_rules(self, cwd: str | os.PathLike[str], loaded_ids: Iterable[str] = (),
                    budget: int | None = None) -> RuleSelection:
        """Every rule a shell command in ``cwd`` could need (reads the whole project)."""
        return self._whole().shell_rules(cwd, loaded_ids, budget)

    def drift(self, refs: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """Persisted references compared with this catalog (see :meth:`RuleCatalog.drift`)."""
        refs = list(refs)
        inner = self._inner
        return (inner if all(inner.get(r.get("id", "")) is not None for r in refs) else self._whole()).drift(refs)

    def hydrate(self, refs: Iterable[dict[str, Any]], policy: str = "strict") -> tuple[RuleSelection, list[dict[str, Any]]]:
        """Rebuild persisted references (see :meth:`RuleCatalog.hydrate`)."""
        refs = list(refs)
        inner = self._inner
        use = inner if all(inner.get(r.get("id", "")) is not None for r in refs) else self._whole()
        return use.hydrate(refs, policy)  # type: ignore[arg-type]
