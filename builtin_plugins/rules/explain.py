"""``wsctl rules explain``: every candidate rule file for one target, and why it applies or not.

Reasons (``reason`` key, stable):

===================== ======= ==================================================
reason                applies meaning
===================== ======= ==================================================
``static``            yes     unconditional, its scope contains the cwd (system prompt)
``ancestor``          yes     unconditional, its scope contains the target (contextual)
``pattern-matched``   yes     conditional, a ``paths`` pattern matched
``not-ancestor``      no      its scope folder does not contain the target
``pattern-not-matched`` no    conditional, no pattern matched the target
``inlined``           yes     its text is delivered inside the file that ``@``-imports it
``shadowed``          no      ``AGENTS.md`` beside an ``AGENTS.override.md`` (or a later fallback name);
                              for hosts ``claude`` and ``opencode`` also a file of a later name
                              group (``RuleSettings.first_name_wins``) on the chain or in its folder
``untrusted``         no      the project is not trusted: the file was not read
``over-budget``       no      it applies but did not fit the byte budget
``invalid``           no      it could not be loaded (the diagnostic says why)
===================== ======= ==================================================
"""

from __future__ import annotations

import os
from typing import Any

from wskit.builtin_plugins.rules.catalog import RuleCatalog, is_ancestor, relative_to_scope
from wskit.builtin_plugins.rules.model import RuleFile
from wskit.models import Diagnostic, display_path

_INVALID_WARNINGS = {"symlink", "rule-empty", "special-file", "link-cycle"}


def _entry(rule: RuleFile, applies: bool, reason: str, detail: str) -> dict[str, Any]:
    d = rule.to_ref_json()
    d.update(applies=applies, reason=reason, detail=detail)
    return d


def _plain(path: str, source: str, applies: bool, reason: str, detail: str) -> dict[str, Any]:
    return {"id": None, "path": path, "scope_dir": None, "source": source, "priority": None,
            "conditional": None, "sha256": None, "bytes": None, "applies": applies, "reason": reason,
            "detail": detail}


def explain(catalog: RuleCatalog, target: str, cwd: str, budget: int | None = None, profile=None) -> list[dict[str, Any]]:
    """Every candidate rule file for ``target`` with ``applies`` and ``reason``.

    :param target: the file asked about (absolute, in the source project).
    :param cwd: the session cwd (absolute, in the source project).
    :param budget: byte budget applied to the static and contextual answers.
    :param profile: host profile (names of candidate files of an untrusted project).
    :raises RuleQueryError: when ``target`` or ``cwd`` lies outside the catalog root.
    """
    from wskit.builtin_plugins.rules.model import RuleQueryError

    rel = catalog.relative(target)
    if rel is None:
        raise RuleQueryError(f"{target} is outside the rule catalog root {catalog.root}")
    cwd_rel = catalog.cwd_relative(cwd)
    static = catalog.static_rules(cwd, budget)
    ctx = catalog.contextual_rules(cwd, [target], (), budget)
    over = {s.rule.id: s for s in (*static.skipped, *ctx.skipped)}
    out: list[dict[str, Any]] = []
    for r in catalog.rules():
        scope = "" if r.source == "user" else r.scope_dir
        where = "the project root" if not scope else f"{scope}/"
        static_here = not r.conditional and (r.source == "user" or is_ancestor(scope, cwd_rel))
        if not static_here and r.source != "user" and not is_ancestor(scope, rel):
            # a file static for the cwd applies whatever the target: `rules --cwd` delivers it
            out.append(_entry(r, False, "not-ancestor", f"its scope {where} does not contain {rel}"))
            continue
        if r.conditional:
            m = catalog.matcher(r)
            sub = relative_to_scope(rel, scope)
            hit = m.matching_pattern(sub) if m is not None else None
            if hit is None:
                out.append(_entry(r, False, "pattern-not-matched",
                                  f"no pattern of {list(r.patterns)} matches {sub!r} (relative to {where})"))
                continue
            reason, detail = "pattern-matched", f"pattern {hit!r} matches {sub!r} (relative to {where})"
        elif static_here:
            reason, detail = "static", f"unconditional; its scope {where} contains the cwd"
        else:
            reason, detail = "ancestor", f"unconditional; its scope {where} contains {rel}"
        skip = over.get(r.id)
        if skip is None:
            out.append(_entry(r, True, reason, detail))
        elif skip.reason == "cut":  # delivered, shortened to Codex's exact byte budget
            out.append(_entry(r, True, reason, f"{detail}; {skip.detail}"))
        elif skip.reason == "inlined":  # delivered inside the file that imports it
            out.append(_entry(r, True, "inlined", skip.detail))
        else:
            out.append(_entry(r, False, skip.reason, skip.detail))
    for d in catalog.diagnostics:
        if d.path is None:
            continue
        shown = display_path(d.path, catalog.root) if catalog.home is None or not d.path.startswith(catalog.home + os.sep) \
            else "~/" + os.path.relpath(d.path, catalog.home)
        source = "user" if shown.startswith("~/") else "local" if shown.endswith("CLAUDE.local.md") else "project"
        if d.code == "rule-shadowed":
            out.append(_plain(shown, source, False, "shadowed", d.message))
        elif (d.level == "error" or (d.level == "warning" and d.code in _INVALID_WARNINGS)) \
                and not d.code.startswith("rule-import"):  # an info (a folder link) is no candidate file
            out.append(_plain(shown, source, False, "invalid", f"{d.code}: {d.message}"))
    if not catalog.trusted and profile is not None:
        for path in untrusted_candidates(catalog.root, rel, profile):
            out.append(_plain(path, "project", False, "untrusted", "the project is not trusted; the file was not read"))
    return out


def untrusted_candidates(root: str, rel: str, profile) -> list[str]:
    """Names of rule files along ``rel``'s folders (existence only: nothing is read)."""
    names = ["CLAUDE.md", ".claude/CLAUDE.md", "AGENTS.md", "AGENTS.override.md", f"{profile.host_dir}/AGENTS.md",
             profile.instruction_file, "CLAUDE.local.md"]
    names = list(dict.fromkeys(names))  # a host's own names may repeat the defaults (host claude)
    parts = rel.split("/") if rel else []
    found: list[str] = []
    for i in range(len(parts) + 1):
        folder = "/".join(parts[:i])
        full = os.path.join(root, folder)
        if not os.path.isdir(full) or os.path.islink(full):
            break
        for n in names:
            p = os.path.join(full, n)
            if os.path.isfile(p) and not os.path.islink(p):
                found.append(f"{folder}/{n}" if folder else n)
        for cfg in dict.fromkeys((".claude", profile.host_dir)):
            rules = os.path.join(full, cfg, "rules")
            for dirpath, dirs, files in os.walk(rules):
                dirs.sort()
                for f in sorted(files):
                    if f.endswith(".md"):
                        found.append(os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/"))
    return found


def diagnostic_json(diags: list[Diagnostic], catalog: RuleCatalog) -> list[dict[str, Any]]:
    """Diagnostics as JSON with paths relative to the catalog root (``~/…`` for the home)."""
    out = []
    for d in diags:
        j = d.to_json(catalog.root)
        if d.path and catalog.home and d.path.startswith(catalog.home + os.sep):
            j["path"] = "~/" + os.path.relpath(d.path, catalog.home).replace(os.sep, "/")
        out.append(j)
    return out
