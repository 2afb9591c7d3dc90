"""Benchmark (not collected by pytest): one ``contextual_rules`` query stays flat as
the catalog grows, because rules are indexed by scope folder.

Run: ``.venv/bin/python tests/benchmarks/bench_rules_query.py``. Rules are built in
memory (no disk); each catalog has N unconditional rules spread over N folders
plus conditional rules, and the query asks about one deep path.
"""

from __future__ import annotations

import time

from wskit.builtin_plugins.rules.catalog import RuleCatalog
from wskit.builtin_plugins.rules.model import RuleFile, rule_digest, rule_id
from wskit.models import Provenance, Scope


def make(n: int) -> RuleCatalog:
    rules = []
    for i in range(n):
        scope = f"d{i % 97}/e{i}"
        cond = i % 5 == 0
        rel = f"{scope}/.claude/rules/r.md" if cond else f"{scope}/AGENTS.md"
        pats = ("**/*.py",) if cond else ()
        rules.append(RuleFile(id=rule_id("project", rel), name=rel, source="project", scope_dir=scope,
                              priority=70 if cond else 30, patterns=pats, body="x", bytes=1,
                              provenance=Provenance(scope=Scope.PROJECT, source_root="/r", path=rel,
                                                    sha256=rule_digest(rel, pats, "x"))))
    return RuleCatalog("/r", rules)


def main() -> None:
    print(f"{'rules':>8} {'build s':>8} {'query us':>9}")
    for n in (1_000, 10_000, 100_000):
        t0 = time.perf_counter()
        cat = make(n)
        built = time.perf_counter() - t0
        t0 = time.perf_counter()
        for _ in range(1000):
            cat.contextual_rules("/r", ["/r/d5/e5/src/deep/a/b/c.py"])
        q = (time.perf_counter() - t0) / 1000 * 1e6
        print(f"{n:>8} {built:>8.2f} {q:>9.1f}")


if __name__ == "__main__":
    main()
