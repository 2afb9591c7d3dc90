"""B4: ``contextual_rules`` for one random path vs a brute-force scan of the catalog.

Runs when the rule catalog is present: the workspace's catalog is
``ws.catalog("rules")`` (built by the ``rules`` plugin through
``wskit_workspace_catalogs``). The brute force asks the same question of
every rule in the catalog with ``catalog.applies`` (same matchers, no index).
"""

from __future__ import annotations

import os
import random
import time

from .harness import Row

QUERIES = 2000


def _paths(root: str, rng: random.Random, n: int) -> list[str]:
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in (".git", "node_modules")]
        files.extend(os.path.join(dirpath, f) for f in filenames)
    files.sort()
    return [rng.choice(files) for _ in range(n)]


def run(ctx) -> list[Row]:
    root = ctx.trusted(ctx.tree("monorepo"))
    ws = ctx.cache().resolve(root)
    catalog = ws.catalog("rules") if hasattr(ws, "catalog") else None
    if catalog is None:
        return [Row("B4", "contextual_rules, one random path", None, "brute-force scan of the catalog", None,
                    "≤ 50 µs/query and ≥ 20×", None,
                    "n/a (rule catalog module present but the workspace has no 'rules' catalog)")]
    rules = catalog.rules() if callable(catalog.rules) else catalog.rules
    paths = _paths(str(root), random.Random(ctx.seed), QUERIES)

    def brute(p: str) -> list:
        rel = catalog.relative(p)
        cwd_rel = ""
        out = []
        for r in rules:  # the whole catalog, every query
            if not catalog.applies(r, rel):
                continue
            if not r.conditional and (r.source == "user" or r.scope_dir == "" or cwd_rel == r.scope_dir):
                continue  # static for cwd = root
            out.append(r)
        return out

    # same answers first (ids, definition order aside)
    for p in paths[:200]:
        sel = catalog.contextual_rules(str(root), [p])
        got = {r.id for r in getattr(sel, "files", None) or getattr(sel, "rules", ())}
        want = {r.id for r in brute(p)}
        if got != want:
            raise AssertionError(f"contextual_rules and brute force disagree on {p}: {sorted(got ^ want)[:5]}")

    def timed(fn) -> float:
        best = []
        for _ in range(3):
            t0 = time.perf_counter()
            for p in paths:
                fn(p)
            best.append((time.perf_counter() - t0) / len(paths))
        return sorted(best)[1]

    fast = timed(lambda p: catalog.contextual_rules(str(root), [p]))
    slow = timed(brute)
    n = len(rules)
    rows = [Row("B4", f"contextual_rules, one random path ({n} rules)", fast, "brute-force scan of the catalog",
                slow, "≤ 50 µs/query and ≥ 20×", fast <= 50e-6 and slow / fast >= 20,
                f"{fast * 1e6:.1f} µs/query, {slow / fast:.1f}× faster; median of 3 passes over {QUERIES} paths")]
    plans = getattr(catalog, "_plans", None)
    if isinstance(plans, dict):  # the per-folder query plans: what a first query costs

        def first(p: str) -> None:
            plans.clear()
            catalog.contextual_rules(str(root), [p])

        cold = timed(first)
        rows.append(Row("B4 first", "the same query, plan cache emptied before each", cold,
                        "brute-force scan of the catalog", slow, "(report)", None,
                        f"{cold * 1e6:.1f} µs/query, {slow / cold:.1f}× faster: a folder's first query "
                        "builds its plan"))
    return rows
