"""The long-lived host row of P5 (issue 33 item 4): a resolve after one edit, with the
workspace cache learning of changes from file notifications (``watch=True``,
:mod:`wskit.fs.watch`) and, for comparison, from the stat check.

Runs in a fresh process (imports untimed). Each round, in a shuffled order: the bare
``os.scandir`` walk of the tree; one edit of a rule file the load reads, then the timed
resolve (wall and CPU of the process); the same with a cache on the stat check; and a
resolve after nothing changed. The host is a server's: the cache resolves the project,
then asks the rule catalog for the static rules and the rules of a deep file, as
``wsctl serve`` does for ``rules_for``. The edited file is restored (bytes and times)."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from .harness import Row

PY = sys.executable

_SCRIPT = textwrap.dedent("""
    import json, os, random, sys, time
    from pathlib import Path
    from tests.benchmarks.cases import bare_walk
    from wskit.cache import WorkspaceCache
    from wskit.host import HostProfile
    from wskit.plugin.manager import make_plugin_manager
    home, root, target, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    pm = make_plugin_manager()
    prof = HostProfile(name="wskit", home=Path(home))
    rule = sorted(Path(root, ".claude", "rules").glob("rule-*.md"))[0]
    original, st = rule.read_bytes(), rule.stat()

    def host(cache):
        ws = cache.resolve(root)
        cat = ws.catalog("rules")
        cat.contextual_rules(root, [target], cat.static_rules(root).ids)
        return ws

    caches = {"watch": WorkspaceCache(prof, pm, watch=True), "stat": WorkspaceCache(prof, pm)}
    assert caches["watch"].watch_status == "watching", caches["watch"].watch_status
    for c in caches.values():
        host(c); host(c)
    out = {k: [] for k in ("walk", "watch", "stat", "watch idle", "stat idle")}
    cpu = {k: [] for k in out}
    k = [0]

    def timed(name, fn):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        out[name].append(time.perf_counter() - t0)
        cpu[name].append(time.process_time() - c0)

    def edit():
        k[0] += 1
        rule.write_bytes(original + f"\\n<!-- edit {k[0]} -->\\n".encode())

    rng = random.Random(0)
    try:
        for _ in range(rounds):
            steps = ["walk", "watch", "stat", "watch idle", "stat idle"]
            rng.shuffle(steps)
            for s in steps:
                if s == "walk":
                    timed(s, lambda: bare_walk(root))
                elif s.endswith("idle"):
                    c = caches[s.split()[0]]
                    host(c)  # settle after the other steps' edits (the stat check may reload twice)
                    host(c)
                    timed(s, lambda: host(c))
                else:
                    edit()
                    timed(s, lambda: host(caches[s]))
        reloads = {n: c.stats()["reloads"] for n, c in caches.items()}
        watched = caches["watch"].watcher.watched()
    finally:
        rule.write_bytes(original)
        os.utime(rule, ns=(st.st_atime_ns, st.st_mtime_ns))
        for c in caches.values():
            c.close()
    print(json.dumps({"t": out, "cpu": cpu, "reloads": reloads, "watched": watched}))
""")


def p5_host(ctx, root: Path, target: Path, *, python: str = PY, checkout: Path | None = None) -> list[Row]:
    """The ``P5 host`` row (and its stat-check and nothing-changed companions).

    :param python: the interpreter of the wskit installation measured (default: this one).
    :param checkout: the checkout the script runs in (its ``tests.benchmarks``; default: this one).
    """
    from .peers import _trust, _wskit_env, meets

    home = tempfile.mkdtemp(prefix="home-", dir=ctx.dest)
    try:
        _trust(root)(home)
        ctx.settle(Path(home) / ".wskit" / "trust.toml")
        rounds = max(ctx.repeat, 11)
        proc = subprocess.run([python, "-c", _SCRIPT, home, str(root), str(target), str(rounds)],
                              capture_output=True, text=True, env=_wskit_env(home),
                              cwd=str(checkout or Path(__file__).resolve().parents[2]))
    finally:
        import shutil

        shutil.rmtree(home, ignore_errors=True)
    if proc.returncode != 0:
        why = (proc.stderr.strip().splitlines() or ["failed"])[-1]
        return [Row("P5 host", "long-lived host: resolve after one edit", None, "bare walk", None, "≤ 0.05×",
                    None, f"n/a: {why}")]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    t, cpu = res["t"], res["cpu"]

    def per_round(a: str, b: str, d: dict) -> float:
        return statistics.median(x / y for x, y in zip(d[a], d[b], strict=True))

    def med(name: str) -> float:
        return statistics.median(t[name])

    walk = med("walk")
    rows = []
    for bench, key, what, limit in (
            ("P5 host", "watch", "long-lived host, `WorkspaceCache(watch=True)`: resolve after one rule file edited",
             0.05),
            ("P5 host stat", "stat", "the same on the stat check (no notifications; before)", None),
            ("P5 host idle", "watch idle", "long-lived host, notifications: resolve, nothing changed", None),
            ("P5 host idle stat", "stat idle", "the same on the stat check", None)):
        r, rc = per_round(key, "walk", t), per_round(key, "walk", cpu)
        note = f"median of per-round ratios {r:.4f}× wall, {rc:.4f}× CPU"
        if key == "watch":
            note += f"; {res['watched']} folders and files watched"
        rows.append(Row(bench, what, med(key), "bare os.scandir walk (in process)", walk,
                        "≤ 0.05×" if limit else "(report)", meets(r, rc, limit) if limit else None, note))
    return rows


def main(argv: list[str] | None = None) -> None:
    """``python -m tests.benchmarks.watch_bench [--before CHECKOUT]``: the ``P5 host`` rows
    alone; with ``--before``, alternately for another checkout (its ``.venv``, e.g. a
    ``git archive`` of main) and this one, ``--turns`` times each, in one run: the
    before/after of docs/performance.md. Prints the load average at the start and the end."""
    import argparse
    import os

    from .cases import Context
    from .peers import deep_file

    ap = argparse.ArgumentParser(prog="python -m tests.benchmarks.watch_bench")
    ap.add_argument("--before", help="a checkout with its own .venv (installed with its plugins)")
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--dest", default=os.path.join(tempfile.gettempdir(), "wskit-bench"))
    args = ap.parse_args(argv)
    ctx = Context(dest=Path(args.dest), scale=args.scale, repeat=args.repeat)
    root = ctx.tree("monorepo")
    target = deep_file(root)
    print(f"load average at start: {os.getloadavg()}", flush=True)
    sides = [("after", PY, None)]
    if args.before:
        before = Path(args.before).resolve()
        sides.insert(0, ("before", str(before / ".venv" / "bin" / "python"), before))
    for turn in range(args.turns if args.before else 1):
        for tag, python, checkout in sides:
            for row in p5_host(ctx, root, target, python=python, checkout=checkout):
                print(f"turn {turn} {tag}: {row.bench}: median {row.value * 1000 if row.value else float('nan'):.3f} ms,"
                      f" walk {row.base_value * 1000 if row.base_value else float('nan'):.1f} ms; {row.note}",
                      flush=True)
    print(f"load average at end: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
