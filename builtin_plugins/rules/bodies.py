"""The bodies of ``wsctl rules [PATH]`` with plain arguments (click-free: the per-turn
dispatcher :mod:`wskit.cli.fast` and the click command :mod:`wskit.builtin_plugins.rules.cli`
both call them) and the loads ``wsctl rules`` and ``rules explain`` share."""

from __future__ import annotations

import os

from wskit.cli.context import WsctlContext, print_diag_dicts, safe_text, table
from wskit.cli.plain import bad_parameter, echo


class _RulesOnly:
    """What ``wsctl rules`` reads of a workspace when only its rules were loaded: the
    binding and the trust decision (the catalog is returned beside it)."""

    __slots__ = ("binding", "trust", "diagnostics")

    def __init__(self, binding, trust, diagnostics) -> None:
        self.binding = binding
        self.trust = trust
        #: the trust decision's diagnostics (a ``trust-store-error``), as a whole load has them
        self.diagnostics = tuple(diagnostics)


def _load_rules_only(obj: WsctlContext, path: str, markers: tuple[str, ...]):
    """``(workspace view, catalog)`` for ``wsctl rules``, reading only what its answer
    depends on — the binding, the trust decision and the rule catalog, made as a whole
    load makes them (:func:`~wskit.workspace.decide_trust`,
    :func:`~wskit.builtin_plugins.rules.build.build_catalog`, in the load's change
    recording and with the collector paused) — instead of every capability's resources:
    the other kinds, bundles and catalogs do not reach its output.

    None (the caller loads the whole workspace) when that would not be the same answer:
    explicit plugin folders (their failures are reported), a ``rules`` plugin that is not
    the built-in one, another plugin implementing ``wskit_workspace_catalogs`` (it could
    name a ``rules`` catalog), or a catalog that failed to build (the whole load reports it).
    """
    pm = obj.plugin_manager()
    profile = obj.profile()
    if profile.settings.get("plugin_dirs"):
        return None
    import sys

    from wskit.plugin.manager import DEFAULT_PLUGINS

    builtin = {sys.modules.get(module) for _, module in DEFAULT_PLUGINS}
    rules_module = sys.modules.get("wskit.builtin_plugins.rules")
    if rules_module is None or pm.get_plugin("rules") is not rules_module:  # blocked or replaced
        return None
    if any(impl.plugin not in builtin for impl in pm.hook.wskit_workspace_catalogs.get_hookimpls()):
        return None
    from wskit import changes
    from wskit.binding import Binding
    from wskit.builtin_plugins.rules.build import build_catalog
    from wskit.plugin.facade import WskitHooks
    from wskit.util.gcpause import gc_paused
    from wskit.workspace import decide_trust

    binding = Binding.discover(path, markers)
    hooks = WskitHooks(pm)
    try:
        with gc_paused(), changes.recording(), changes.reusing(None):
            trust, trust_diags = decide_trust(hooks, binding, profile)
            catalog = build_catalog(hooks, binding, profile, trust)
    except Exception:
        return None
    return _RulesOnly(binding, trust, trust_diags), catalog


def _load(obj: WsctlContext, path: str, *, whole: bool = True):
    """The workspace of ``path`` (project-root markers from the host's rules settings) and its
    catalog; with ``whole=False`` only what ``wsctl rules`` answers from when that is the
    same answer (:func:`_load_rules_only`). What was loaded lives until the command ends
    (:func:`wskit.util.gcpause.loaded`)."""
    from wskit.builtin_plugins.rules.model import RuleSettings
    from wskit.util.gcpause import loaded

    if not os.path.exists(path):
        raise bad_parameter(f"path {path!r} does not exist", param_hint="PATH")
    settings, _ = RuleSettings.from_profile(obj.profile())
    markers = tuple(settings.project_root_markers)
    got = None if whole else _load_rules_only(obj, path, markers)
    if got is None:
        got = _load_whole(obj, path, markers)
    loaded()
    return got


def _load_whole(obj: WsctlContext, path: str, markers: tuple[str, ...]):
    """``(workspace, catalog)`` from a whole workspace load (its ``--plugin-dir`` failures noted)."""
    from wskit.builtin_plugins.rules.catalog import RuleCatalog
    from wskit.cache import WorkspaceCache

    ws = WorkspaceCache(obj.profile(), obj.plugin_manager(), markers=markers).resolve(path)
    obj.note_plugin_dir_failures(ws)  # a failing --plugin-dir is said (WsctlContext.resolve)
    catalog = ws.catalog("rules")
    if catalog is None:  # not `or`: a catalog without rules is falsy, and its diagnostics count
        catalog = RuleCatalog.empty(ws.binding.source_root, trusted=ws.trust.trusted)
    return ws, catalog


def _trust_problems(ws) -> list:
    """Why the project's trust could not be decided (``trust-store-error``: a corrupt, linked
    or world-readable store fails closed): said with the rules it left out."""
    return [d for d in ws.diagnostics if d.code == "trust-store-error"]


def _cwd(ws, cwd: str | None) -> str:
    b = ws.binding
    return str(b.to_source(os.path.abspath(cwd))) if cwd else str(b.to_source(b.cwd))


load_for_rules = _load
session_cwd = _cwd


def rules_answer(obj: WsctlContext, path: str, cwd: str | None, targets: tuple[str, ...], shell: bool,
                 loaded: tuple[str, ...], budget: int | None) -> None:
    """``wsctl rules PATH``: the static rules of ``cwd`` (default: PATH) and, with ``targets``
    (``--for``) or ``shell``, the contextual ones; JSON with ``--json``, else text."""
    ws, catalog = _load(obj, path, whole=False)
    cwd_s = _cwd(ws, cwd)
    static = catalog.static_rules(cwd_s, budget)
    loaded_ids = set(loaded) | set(static.ids)
    outside: list = []
    if shell:
        contextual = catalog.shell_rules(cwd_s, loaded_ids, budget)
    elif targets:
        from wskit.models import Diagnostic

        mapped = [str(ws.binding.to_source(os.path.abspath(t))) for t in targets]
        contextual = catalog.contextual_rules(cwd_s, mapped, loaded_ids, budget)
        # a target outside the catalog cannot match a rule: said, not dropped in silence
        outside = [Diagnostic(level="warning", code="target-outside-project", path=m,
                              message=f"--for {t!r} is outside the catalog root {catalog.root}; no rule applies "
                                      "to it (a relative FILE is taken from the current folder, not from PATH)")
                   for t, m in zip(targets, mapped) if catalog.relative(m) is None]
    else:
        contextual = None
    from wskit.builtin_plugins.rules.explain import diagnostic_json
    from wskit.workspace import unique_diagnostics

    skipped = [*static.skipped, *(contextual.skipped if contextual is not None else ())]
    data = {
        "catalog_root": catalog.root,
        "static": [r.to_ref_json() for r in static.files],
        "contextual": [r.to_ref_json() for r in contextual.files] if contextual is not None else [],
        "skipped": [{"path": s.rule.display_path, "reason": s.reason} for s in skipped],
        "diagnostics": diagnostic_json(obj.listing_diagnostics(ws, list(unique_diagnostics(
            [*_trust_problems(ws), *catalog.diagnostics, *outside]))), catalog),
    }

    def human() -> None:
        echo(safe_text(f"catalog root: {catalog.root}")
                   + ("" if catalog.trusted else " (untrusted: project rules not read)"))
        for title, refs in (("static", data["static"]), ("contextual", data["contextual"])):
            if title == "contextual" and contextual is None:
                continue
            echo(f"\n{title} ({len(refs)}):")
            if refs:
                echo(table([[r["path"], r["source"], str(r["priority"]), "yes" if r["conditional"] else "",
                                   str(r["bytes"])] for r in refs], ["PATH", "SOURCE", "PRIO", "COND", "BYTES"]))
        for s in skipped:
            echo(safe_text(f"skipped {s.rule.display_path}: {s.reason} ({s.detail})"))
        print_diag_dicts(data["diagnostics"])

    obj.emit(data, human)
