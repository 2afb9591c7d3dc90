"""The rule catalog: an immutable index of rule files by scope folder, and its queries.

Queries follow reference/blade.md §4.7–4.9 and §4.11 with the choices of
design §5 (optional budgets, whole files, every skipped file reported;
``strict``/``refresh`` resume policies):

- :meth:`RuleCatalog.static_rules` — unconditional rules whose scope contains ``cwd``;
- :meth:`RuleCatalog.contextual_rules` — rules newly applicable to target paths;
- :meth:`RuleCatalog.shell_rules` — every rule a shell command could need;
- :meth:`RuleCatalog.hydrate` — rebuild persisted references.

The index maps a scope folder to its rules in definition order, so one
target costs O(path depth + rules at its ancestor scopes), never O(catalog).
A one-target query is answered from a cached plan (:mod:`.plans`), any other
by the scope walk (:mod:`.scopewalk`); scope arithmetic and budgets: :mod:`.scopes`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from wskit.builtin_plugins.rules.model import (
    RuleProvenanceMismatch,
    RuleQueryError,
    RuleSelection,
    RuleSettings,
    SkippedRule,
    provenance_digest,
)
from wskit.models import Diagnostic
from wskit.util.lazyre import lazy_pattern

if TYPE_CHECKING:
    from wskit.builtin_plugins.rules.patterns import PathMatcher
    from wskit.resources.rule import RuleFile
from wskit.builtin_plugins.rules.plans import BY_SUFFIX, build_plan, keep_plan
from wskit.builtin_plugins.rules.plans import query_entry as _query_entry
from wskit.builtin_plugins.rules.plans import selection as _selection

# re-exported: the package and its callers import the scope helpers from the catalog
from wskit.builtin_plugins.rules.scopes import ancestors, apply_budget, is_ancestor, relative_to_scope  # noqa: F401
from wskit.builtin_plugins.rules.scopewalk import walk_scopes

Policy = Literal["strict", "refresh"]
_EMPTY: frozenset[str] = frozenset()

#: a path component that ``os.path.normpath`` would change: empty, ``.`` or ``..`` (or a trailing ``/``)
_UNCLEAN = lazy_pattern(globals(), "_UNCLEAN", r"/(?:\.{1,2})?(?=/|$)")
_POSIX = os.sep == "/"


def _clean(path: str) -> bool:
    """A quick sufficient test that :data:`_UNCLEAN` finds nothing in ``path`` (non-empty):
    no ``//``, no ``/.``, no trailing ``/`` (False says nothing)."""
    return "/." not in path and "//" not in path and path[-1] != "/"


class RuleCatalog:
    """An immutable rule catalog for one source project.

    Build it with :meth:`build` (the built-in ``rules`` plugin does, per
    workspace load). Never mutated: a refresh builds a new catalog, so a
    session snapshot keeps the bodies it saw.

    :ivar root: absolute, canonical catalog root (the source project).
    :ivar home: the user home user-level rules came from (or None).
    :ivar trusted: False when project files were not read (untrusted project).
    :ivar settings: :class:`RuleSettings`.
    :ivar diagnostics: every diagnostic of discovery and loading.
    """

    def __init__(self, root: str | Path, rules: Iterable[RuleFile], *, diagnostics: Iterable[Diagnostic] = (),
                 settings: RuleSettings | None = None, trusted: bool = True, home: str | Path | None = None) -> None:
        self.root = str(root)
        self._prefix = self.root.rstrip(os.sep) + os.sep
        self.home = None if home is None else str(home)
        self.trusted = trusted
        self.settings = settings or RuleSettings()
        diags = list(diagnostics)
        by_id: dict[str, RuleFile] = {}
        for r in rules:
            if r.id in by_id:
                diags.append(Diagnostic(level="warning", code="duplicate-rule", path=str(r.provenance.absolute_path),
                                        message=f"rule id {r.id} was contributed twice; the first one is kept"))
                continue
            by_id[r.id] = r
        if by_id:
            from wskit.resources.rule import RuleFile  # built by the first rule

            ordered = sorted(by_id.values(), key=RuleFile.sort_key)
        else:
            ordered = []
        self._rules: tuple[RuleFile, ...] = tuple(ordered)
        self._order = MappingProxyType({r.id: i for i, r in enumerate(ordered)})
        self._by_id = MappingProxyType(by_id)
        self._by_path = MappingProxyType({(r.source == "user", r.path): r for r in ordered})
        scopes: dict[str, list[RuleFile]] = {}
        user: list[RuleFile] = []
        matchers: dict[str, PathMatcher] = {}
        if ordered:
            from wskit.builtin_plugins.rules.patterns import compiled  # imported by the first rule
        for r in ordered:
            (user if r.source == "user" else scopes.setdefault(r.scope_dir, [])).append(r)
            if r.conditional:
                matchers[r.id] = compiled(r.patterns, self.settings.max_pattern_length)
        self._scopes = MappingProxyType({k: tuple(v) for k, v in scopes.items()})
        self._user = tuple(user)
        self._matchers = MappingProxyType(matchers)
        # the query index: per scope folder, (id, rule, matcher or None for an
        # unconditional rule), so a contextual query does no property or mapping lookups per rule
        self._query_user = tuple((r.id, r, matchers.get(r.id) if r.conditional else None) for r in user)
        self._query_scopes = {k: tuple(_query_entry(r, matchers.get(r.id) if r.conditional else None) for r in v)
                              for k, v in scopes.items()}
        # one-target plans by (cwd, target folder): see .plans; bounded, valid because the catalog never changes
        self._plans: dict[Any, tuple] = {}
        self._groups = self.settings.first_name_wins
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diags)

    @classmethod
    def empty(cls, root: str | Path, **kwargs: Any) -> "RuleCatalog":
        """A catalog without rules."""
        return cls(root, (), **kwargs)

    # -- lookups -----------------------------------------------------------

    def __len__(self) -> int:
        return len(self._rules)

    def rules(self) -> tuple[RuleFile, ...]:
        """Every rule, definition order."""
        return self._rules

    def get(self, rule_id: str) -> RuleFile | None:
        """The rule with this id, or None."""
        return self._by_id.get(rule_id)

    def by_path(self, path: str, user: bool = False) -> RuleFile | None:
        """The rule at a relative ``path`` (a user-level one with ``user=True``)."""
        return self._by_path.get((user, path))

    def matcher(self, rule: RuleFile) -> PathMatcher | None:
        """The compiled patterns of a conditional rule."""
        return self._matchers.get(rule.id)

    def order(self, rules: Iterable[RuleFile]) -> list[RuleFile]:
        """``rules`` de-duplicated and sorted in definition order."""
        seen = {r.id: r for r in rules}
        return sorted(seen.values(), key=lambda r: self._order.get(r.id, len(self._order)))

    @property
    def catalog_sha256(self) -> str:
        """Provenance digest over every rule."""
        return provenance_digest(self._rules)

    def relative(self, path: str | os.PathLike[str]) -> str | None:
        """``path`` (absolute, or relative to the root) relative to the root with ``/``; None when outside."""
        # lexical first: no file-system call on the query path; the
        # realpath fallback only runs for a path that is lexically outside the root
        prefix = self._prefix
        if type(path) is str and _POSIX and path.startswith(prefix) \
                and (_clean(path) or _UNCLEAN.search(path, len(prefix) - 1) is None):
            return path[len(prefix):]  # already normal: what normpath would give
        p = os.path.normpath(os.path.join(self.root, os.fspath(path)))
        if p == self.root:
            return ""
        if p.startswith(prefix):
            return p[len(prefix):] if os.sep == "/" else p[len(prefix):].replace(os.sep, "/")
        real = os.path.realpath(p)
        if real.startswith(prefix):
            return real[len(prefix):].replace(os.sep, "/")
        if real == self.root:
            return ""
        return None

    def applies(self, rule: RuleFile, rel: str) -> bool:
        """Whether ``rule`` applies to catalog-relative path ``rel`` (ignoring static/loaded)."""
        if rule.source == "user":
            scope_ok = True
        else:
            scope_ok = is_ancestor(rule.scope_dir, rel)
        if not scope_ok:
            return False
        if not rule.conditional:
            return True
        m = self._matchers.get(rule.id)
        return m is not None and m.match(relative_to_scope(rel, "" if rule.source == "user" else rule.scope_dir))

    # -- queries -----------------------------------------------------------

    def cwd_relative(self, cwd: str | os.PathLike[str]) -> str:
        """``cwd`` relative to the root.

        :raises RuleQueryError: when it lies outside the catalog root.
        """
        if type(cwd) is str and cwd == self.root:
            return ""  # the usual cwd of a query, without normalising it
        rel = self.relative(cwd)
        if rel is None:
            raise RuleQueryError(f"{cwd} is outside the rule catalog root {self.root}")
        return rel

    def _static(self, cwd_rel: str) -> list[RuleFile]:
        out = [r for r in self._user if not r.conditional]
        for scope in ancestors(cwd_rel):
            out.extend(r for r in self._scopes.get(scope, ()) if not r.conditional)
        return out

    def static_rules(self, cwd: str | os.PathLike[str], budget: int | None = None,
                     extra: "tuple[RuleFile, ...]" = ()) -> RuleSelection:
        """Unconditional rules (user-level ones first) whose scope contains ``cwd``.

        :param cwd: a folder inside the catalog root (absolute, or relative to it).
        :param budget: byte budget over bodies (None: no budget).
        :param extra: instruction files of chain folders the project walk does not enter,
            deepest last (``LazyRuleCatalog.static_rules`` of a reproduced host).
        :raises RuleQueryError: when ``cwd`` lies outside the catalog root.
        """
        cwd_rel = self.cwd_relative(cwd)
        rules, inlined = _without_inlined([*self._static(cwd_rel), *extra] if extra else self._static(cwd_rel))
        settings = self.settings
        if settings.repository_boundary and cwd_rel:
            from wskit.builtin_plugins.rules.scopes import inside_repository

            rules, outside = inside_repository(str(self.root), cwd_rel, rules)
            inlined = (*inlined, *outside)
        if settings.first_name_wins or settings.nearest_first or settings.user_last:
            from wskit.builtin_plugins.rules.scopes import host_chain

            rules, shadowed = host_chain(rules, settings)
            inlined = (*inlined, *shadowed)
        if settings.copilot_order:
            from wskit.builtin_plugins.rules.scopes import copilot_chain, repository_folder

            top = (repository_folder(str(self.root), cwd_rel) or "") if settings.repository_boundary else ""
            rules, dropped = copilot_chain(rules, cwd_rel, top)
            inlined = (*inlined, *dropped)
        if settings.string_path_order:
            user = [r for r in rules if r.source == "user"]
            rules = [*user, *sorted((r for r in rules if r.source != "user"), key=lambda r: r.path)]
        if settings.exact_byte_budget is not None:
            from wskit.builtin_plugins.rules.scopes import cut_exact

            rules, cut = cut_exact(rules, settings.exact_byte_budget)
            inlined = (*inlined, *cut)
        kept, skipped = apply_budget(rules, budget)
        return RuleSelection("static", tuple(kept), (*inlined, *skipped), (), budget)

    def triggers(self, target_paths: Iterable[str | os.PathLike[str]]) -> tuple[str, ...]:
        """Targets made catalog-relative, outside ones and the root dropped, de-duplicated, sorted."""
        out = set()
        for t in target_paths:
            rel = self.relative(t)
            if rel:
                out.add(rel)
        return tuple(sorted(out))

    def candidates(self, rel: str) -> Iterable[RuleFile]:
        """Rules that may apply to catalog-relative ``rel``: user rules, then the rules of
        each ancestor scope (``rel`` itself included), from the index — O(depth + rules there)."""
        yield from self._user
        for scope in ancestors(rel):
            yield from self._scopes.get(scope, ())

    def contextual_rules(self, cwd: str | os.PathLike[str], target_paths: Iterable[str | os.PathLike[str]],
                         loaded_ids: Iterable[str] = (), budget: int | None = None) -> RuleSelection:
        """Rules newly applicable to ``target_paths``.

        For each target: rules of its ancestor scopes (user-level ones count as
        root scope), conditional ones only when a pattern matches the target
        relative to the rule's scope; minus ``loaded_ids`` and minus the static
        rules of ``cwd``. Definition order; budget from the most specific end.

        :raises RuleQueryError: when ``cwd`` lies outside the catalog root.
        """
        if self._groups:
            return self._host_contextual(cwd, target_paths, loaded_ids, budget)
        return self._contextual(cwd, target_paths, loaded_ids, budget)

    def _contextual(self, cwd: str | os.PathLike[str], target_paths: Iterable[str | os.PathLike[str]],
                    loaded_ids: Iterable[str], budget: int | None) -> RuleSelection:
        """:meth:`contextual_rules` before a reproduced host's name groups are applied."""
        cwd_rel = "" if type(cwd) is str and cwd == self.root else self.cwd_relative(cwd)
        loaded = set(loaded_ids) if loaded_ids else _EMPTY
        targets = target_paths if isinstance(target_paths, (list, tuple)) else list(target_paths)
        if len(targets) == 1:  # the common case: no set, no sort
            rel = self.relative(targets[0])
            if not rel:
                return _selection((), (), (), budget)
            cut = rel.rfind("/")
            if cut != 0 and rel not in self._query_scopes and rel[-1] != "/" and "\n" not in rel:
                # the target is not itself a scope folder (nor "/…", from a root "/" and "//…"),
                # and holds no line feed (wcmatch's "$" matches before a final "\n", so ".\n"
                # is read as "."; the scope walk asks wcmatch itself): its folder's plan
                # decides
                folder = rel[:cut] if cut > 0 else ""
                plans = self._plans
                plan = plans.get(folder if not cwd_rel else (cwd_rel, folder))
                if plan is None:
                    plan = self._plan(cwd_rel, folder)
                fixed, suffixes, entries = plan
                if not loaded and not rel.endswith(suffixes):
                    files = fixed  # no conditional rule can match: every suffix fails (none is "")
                else:
                    files = []
                    for rid, r, m, off, pre, suf in entries:
                        if rid in loaded:
                            continue
                        if m is None or (rel.startswith(pre, off) and rel.endswith(suf, off)
                                         and (m is BY_SUFFIX or m.match(rel[off:] if off else rel))):
                            files.append(r)
                    files = tuple(files)
                if budget is None:
                    return _selection(files, (), (rel,), None)
                kept, skipped = apply_budget(files, budget)
                return _selection(tuple(kept), tuple(skipped), (rel,), budget)
            trig: tuple[str, ...] = (rel,)
        else:
            trig = self.triggers(targets)
        chosen = walk_scopes(self._query_user, self._query_scopes, trig, cwd_rel, loaded)
        order = self._order
        kept, skipped = apply_budget(sorted(chosen.values(), key=lambda r: order[r.id]), budget)
        return RuleSelection("contextual", tuple(kept), tuple(skipped), trig, budget)

    def _plan(self, cwd_rel: str, folder: str) -> tuple:
        """The one-target plan of ``folder`` for ``cwd_rel`` (:func:`.plans.build_plan`), kept in ``self._plans``."""
        plan = build_plan(self._query_user, self._query_scopes, self._order, cwd_rel, folder)
        keep_plan(self._plans, folder if not cwd_rel else (cwd_rel, folder), plan)
        return plan

    def _host_contextual(self, cwd: str | os.PathLike[str], target_paths: Iterable[str | os.PathLike[str]],
                         loaded_ids: Iterable[str], budget: int | None) -> RuleSelection:
        """A contextual answer as a reproduced host gives it (``RuleSettings.first_name_wins``).

        An instruction file of a later name group is dropped (skipped as ``shadowed``) when
        the static answer for ``cwd`` delivers a file of an earlier group, or when its own
        folder holds one. Matches Claude Code 2.1.337 reading a file below the cwd: with a
        ``CLAUDE.md`` at the start no ``AGENTS.md`` is added; otherwise a folder's
        ``AGENTS.md`` is added only where that folder has no ``CLAUDE.md`` (a ``CLAUDE.md``
        higher up does not hide it). opencode (``RuleSettings.nearest_first``) applies its
        groups per folder only, whatever the start read, the folders nearest the file first.
        """
        from wskit.builtin_plugins.rules.scopes import name_group

        groups = self._groups
        sel = self._contextual(cwd, target_paths, loaded_ids, None)
        found = [name_group(r, groups) for r in sel.files]
        if self.settings.nearest_first:
            # opencode 1.18.33 (recorded case ctx-per-folder-names): in each folder the first of
            # its names, whatever the start read; the folders nearest the file first
            kept, shadowed = [], []
            for r, g in zip(sel.files, found):
                here = min((h for h in (name_group(x, groups) for x in self._scopes.get(r.scope_dir, ()))
                            if h is not None), default=None) if g is not None else None
                if here is not None and here < g:
                    shadowed.append(SkippedRule(r, "shadowed", f"{groups[here][0]} is in its folder"))
                else:
                    kept.append(r)
            kept.sort(key=lambda r: -(r.scope_dir.count("/") + 1 if r.scope_dir else 0))
        elif all(g is None or g == 0 for g in found):
            kept, shadowed = list(sel.files), []
        else:
            chain = min((g for g in (name_group(r, groups) for r in self.static_rules(cwd).files) if g is not None),
                        default=None)
            kept, shadowed = [], []
            for r, g in zip(sel.files, found):
                if g is not None and chain is not None and chain < g:
                    shadowed.append(SkippedRule(r, "shadowed", f"{groups[chain][0]} files are on the chain"))
                    continue
                here = min((h for h in (name_group(x, groups) for x in self._scopes.get(r.scope_dir, ()))
                            if h is not None), default=None) if g is not None else None
                if here is not None and here < g:
                    shadowed.append(SkippedRule(r, "shadowed", f"{groups[here][0]} is in its folder"))
                    continue
                kept.append(r)
            # Claude Code 2.1.337 adds a CLAUDE.md-group file before an AGENTS.md one, each group
            # outermost first (recorded cases ctx-per-folder-names, ctx-both-in-one-folder)
            kept.sort(key=lambda r: name_group(r, groups) or 0)
        delivered, over = apply_budget(kept, budget)
        return RuleSelection("contextual", tuple(delivered), (*sel.skipped, *shadowed, *over), sel.trigger_paths,
                             budget)

    def shell_rules(self, cwd: str | os.PathLike[str], loaded_ids: Iterable[str] = (),
                    budget: int | None = None) -> RuleSelection:
        """Every rule a shell command in ``cwd`` could need: all rules of the
        repository except the static ones of ``cwd`` and ``loaded_ids``
        (Sakura's whole-repository scan, reference/holon-sakura.md B1).

        :raises RuleQueryError: when ``cwd`` lies outside the catalog root.
        """
        static = {r.id for r in self._static(self.cwd_relative(cwd))}
        loaded = set(loaded_ids) | static
        kept, skipped = apply_budget([r for r in self._rules if r.id not in loaded], budget)
        return RuleSelection("contextual", tuple(kept), tuple(skipped), (), budget)

    # -- provenance ----------------------------------------------------------

    def drift(self, refs: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """Compare persisted references with this catalog.

        :returns: ``[{"id", "path", "source", "change"}]``: ``changed`` (same
            id and path, other digest), ``moved`` (the id answers with another
            path or source), ``missing`` (no such rule).
        """
        out = []
        for ref in refs:
            cur = self._by_id.get(ref.get("id", ""))
            change = None
            if cur is None:
                change = "missing"
            elif cur.path != ref.get("path") or cur.source != ref.get("source"):
                change = "moved"
            elif cur.sha256 != ref.get("sha256"):
                change = "changed"
            if change:
                out.append({"id": ref.get("id"), "path": ref.get("path"), "source": ref.get("source"), "change": change})
        return out

    def hydrate(self, refs: Iterable[dict[str, Any]], policy: Policy = "strict") -> tuple[RuleSelection, list[dict[str, Any]]]:
        """Rebuild the bodies of persisted rule references (no budget applied).

        :param refs: ``{"id", "path", "source", "sha256"}`` mappings.
        :param policy: ``strict`` (default) fails on any drift; ``refresh``
            returns the current content of the rules still present.
        :returns: the selection (definition order) and the drift list.
        :raises RuleProvenanceMismatch: under ``strict`` when any reference drifted.
        :raises ValueError: for an unknown policy.
        """
        if policy not in ("strict", "refresh"):
            raise ValueError(f"unknown hydrate policy {policy!r}; use 'strict' or 'refresh'")
        refs = list(refs)
        drift = self.drift(refs)
        if drift and policy == "strict":
            raise RuleProvenanceMismatch(drift)
        gone = {d["id"] for d in drift if d["change"] == "missing"}
        files = self.order(self._by_id[r["id"]] for r in refs if r.get("id") not in gone and r.get("id") in self._by_id)
        return RuleSelection("contextual", tuple(files)), drift


def _without_inlined(rules: list[RuleFile]) -> tuple[list[RuleFile], list[SkippedRule]]:
    """``rules`` without those whose whole text another rule of the same answer already
    delivers through an ``@import`` (a ``CLAUDE.md`` holding ``@AGENTS.md`` — Claude
    Code's way to share one file — would otherwise deliver ``AGENTS.md`` twice),
    each reported as skipped with reason ``inlined``.
    Two rules that import each other (a cycle the expander cut) are both kept."""
    if not any(r.imports for r in rules):
        return rules, []
    importers: dict[tuple[bool, str], RuleFile] = {}
    for r in rules:
        for path in r.imports:
            importers.setdefault((r.source == "user", path), r)
    kept: list[RuleFile] = []
    skipped: list[SkippedRule] = []
    for r in rules:
        by = importers.get((r.source == "user", r.path))
        if by is not None and by is not r and by.path not in r.imports:
            skipped.append(SkippedRule(r, "inlined", f"its text is delivered inside {by.display_path}"))
        else:
            kept.append(r)
    return kept, skipped
