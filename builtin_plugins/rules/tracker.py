"""The Sakura scope tracker (reference/holon-sakura.md B1).

A session in "Sakura mode" keeps one *scope snapshot*: the instruction files
that apply to the folders it currently works in.

- :meth:`ScopeTracker.visit` with new targets whose folders differ from the
  current scope **replaces** the snapshot (it is never appended to);
- a file appears once per snapshot, keyed by its path;
- :meth:`ScopeTracker.refresh` re-reads every file of the snapshot from disk
  (call it before each model call): an edited file gets its new body, compared
  **by digest, not mtime**; a deleted file drops out;
- :meth:`ScopeTracker.pending` lists what the model has not seen yet (by path
  *and* digest), the barrier's input; :meth:`ScopeTracker.mark_delivered` records delivery.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable

from wskit.builtin_plugins.rules.catalog import RuleCatalog
from wskit.builtin_plugins.rules.discovery import reload_rule
from wskit.builtin_plugins.rules.model import RuleFile, RuleSelection
from wskit.models import Diagnostic


class ScopeTracker:
    """Per-session scope snapshot over a :class:`RuleCatalog`.

    :param catalog: the session's catalog (its files are the initial versions).
    :param map_path: maps a tool path to the source project (e.g. ``Binding.to_source``).
    """

    def __init__(self, catalog: RuleCatalog, map_path: Callable[[str], object] | None = None) -> None:
        self.catalog = catalog
        self.map_path = map_path or (lambda p: p)
        self._lock = threading.Lock()
        self._scope: tuple[str, ...] = ()
        self._targets: tuple[str, ...] = ()
        self._files: dict[str, RuleFile] = {}
        self._delivered: set[tuple[str, str]] = set()
        #: diagnostics of the last re-read (e.g. a file that became too large); rendered with the snapshot
        self.diagnostics: list[Diagnostic] = []

    def _dirs(self, rels: Iterable[str]) -> tuple[str, ...]:
        out = set()
        for rel in rels:
            full = os.path.join(self.catalog.root, rel)
            out.add(rel if os.path.isdir(full) else rel.rpartition("/")[0])
        return tuple(sorted(out))

    def _select(self, targets: tuple[str, ...]) -> dict[str, RuleFile]:
        chosen: dict[str, RuleFile] = {}
        for rel in targets or ("",):
            for r in self.catalog.candidates(rel):
                if r.display_path not in chosen and self.catalog.applies(r, rel):
                    chosen[r.display_path] = r
        return {r.display_path: r for r in self.catalog.order(chosen.values())}

    def visit(self, targets: Iterable[str | os.PathLike[str]]) -> RuleSelection:
        """Point the tracker at ``targets`` (tool paths); replace the snapshot when their folders changed.

        :returns: the current snapshot.
        """
        rels = self.catalog.triggers(str(self.map_path(os.fspath(t))) for t in targets)
        scope = self._dirs(rels)
        with self._lock:
            if scope != self._scope or rels != self._targets:
                self._files = self._select(rels)
                self._scope, self._targets = scope, rels
                self._reload_locked()
            return self.snapshot()

    def visit_shell(self) -> RuleSelection:
        """A shell command cannot be targeted: the snapshot becomes every rule of the repository
        (Sakura's whole-repository scan; the catalog already skips dependencies, caches, ignored files)."""
        with self._lock:
            if self._scope != ("*",):
                self._files = {r.display_path: r for r in self.catalog.rules()}
                self._scope, self._targets = ("*",), ()
                self._reload_locked()
            return self.snapshot()

    def refresh(self) -> RuleSelection:
        """Re-read the snapshot's files from disk: edits (by digest) replace, deletions drop out."""
        with self._lock:
            self._reload_locked()
            return self.snapshot()

    def _reload_locked(self) -> None:
        fresh: dict[str, RuleFile] = {}
        found: list[Diagnostic] = []
        for key, rule in self._files.items():
            cur, diags = reload_rule(rule, self.catalog.settings, self.catalog.home)
            found.extend(d for d in diags if d.code != "not-found")  # a deleted file just drops out
            if cur is not None:
                fresh[key] = cur
        self._files = fresh
        self.diagnostics = found

    def snapshot(self) -> RuleSelection:
        """The current scope snapshot (definition order), with its target paths."""
        files = sorted(self._files.values(), key=RuleFile.sort_key)
        return RuleSelection("contextual", tuple(files), (), self._targets, diagnostics=tuple(self.diagnostics))

    def pending(self) -> list[RuleFile]:
        """Files of the snapshot whose (path, digest) was never delivered."""
        return [r for r in self.snapshot().files if (r.display_path, r.sha256) not in self._delivered]

    def mark_delivered(self, rules: Iterable[RuleFile] | RuleSelection) -> None:
        """Record that the model has seen these versions."""
        files = rules.files if isinstance(rules, RuleSelection) else rules
        with self._lock:
            self._delivered.update((r.display_path, r.sha256) for r in files)
