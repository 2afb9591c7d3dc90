"""Two wskit installations side by side: ``python -m tests.benchmarks.ab A_WSCTL B_WSCTL``.

Whole processes, a fresh home per run (trust grant untimed), one untimed warm-up, then
``--rounds`` shuffled rounds of, with each ``wsctl``: ``wsctl --json inspect`` of an empty
project (a ``.git`` folder, as the benchmark's), ``hooks run PreToolUse`` and
``permissions check Bash ls`` there (the three P4 forms), and ``rules --for F`` (F 8
folders deep in the benchmark monorepo; left out with ``--forms``), plus ``python -c
"import click, pluggy"`` and ``python -c pass`` (P4's baselines). Prints, per case, the
median wall time and the median CPU time (user + system of the child, from the kernel's
accounting of reaped children) and the least CPU time of any round (the least disturbed
run, on a loaded machine), then the median of the per-round ratios B ÷ A (wall and CPU)
and each P4 form ÷ each baseline, and the load average at the start and the end.
Used for docs/performance.md's before/after of the start-up passes; nothing asserts on time.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks import trees
from tests.benchmarks.peers import deep_file

__all__ = ["main"]


def main(argv: list[str] | None = None) -> None:
    """Run the comparison (see the module doc)."""
    ap = argparse.ArgumentParser(prog="python -m tests.benchmarks.ab")
    ap.add_argument("a", help="the first wsctl (e.g. main's virtual environment)")
    ap.add_argument("b", help="the second wsctl")
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--dest", default=os.path.join(tempfile.gettempdir(), "wskit-bench"))
    ap.add_argument("--forms", default="inspect,hooks,permissions,rules",
                    help="comma-separated: inspect, hooks, permissions, rules")
    args = ap.parse_args(argv)
    forms = set(args.forms.split(","))
    work = Path(tempfile.mkdtemp(prefix="wskit-ab-"))
    empty = work / "empty"
    (empty / ".git").mkdir(parents=True)
    (empty / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    env0 = {k: v for k, v in os.environ.items() if not k.startswith("WSKIT_") and k != "PYTHONDONTWRITEBYTECODE"}
    # name -> (argv, folder to trust or None, exit statuses that count as success)
    cases: dict[str, tuple[list[str], Path | None, tuple[int, ...]]] = {}
    mono = None
    if "rules" in forms:
        mono = trees.generate("monorepo", args.dest, scale=args.scale, seed=0)
        target = deep_file(mono)
    for tag, wsctl in (("A", args.a), ("B", args.b)):
        if "inspect" in forms:
            cases[f"{tag} inspect empty"] = ([wsctl, "--json", "inspect", str(empty)], empty, (0,))
        if "hooks" in forms:
            cases[f"{tag} hooks run empty"] = ([wsctl, "--json", "hooks", "run", "PreToolUse", str(empty)], empty, (0,))
        if "permissions" in forms:
            cases[f"{tag} permissions check empty"] = (
                [wsctl, "--json", "permissions", "check", "Bash", "ls", str(empty)], empty, (0, 3))
        if mono is not None:
            cases[f"{tag} rules --for F"] = ([wsctl, "--json", "rules", "--for", str(target), str(mono)], mono, (0,))
    cases["import click, pluggy"] = ([sys.executable, "-c", "import click, pluggy"], None, (0,))
    cases["python -c pass"] = ([sys.executable, "-c", "pass"], None, (0,))

    def once(argv: list[str], trust: Path | None, ok: tuple[int, ...]) -> tuple[float, float]:
        home = tempfile.mkdtemp(dir=work)
        env = {**env0, "HOME": home}
        run = argv if argv[0] == sys.executable else [argv[0], "--home", home, *argv[1:]]
        if trust is not None:
            subprocess.run([argv[0], "--home", home, "trust", "grant", str(trust)], env=env, check=True,
                           capture_output=True)
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        res = subprocess.run(run, env=env, capture_output=True, cwd=str(empty), stdin=subprocess.DEVNULL)
        took = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        shutil.rmtree(home, ignore_errors=True)
        if res.returncode not in ok:
            raise SystemExit(f"{' '.join(run)} failed: {res.stderr[-500:]!r}")
        return took, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

    print("start", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "load", os.getloadavg())
    for case in cases.values():
        once(*case)
    wall: dict[str, list[float]] = {k: [] for k in cases}
    cpu: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(args.rounds):
        keys = list(cases)
        random.shuffle(keys)
        for k in keys:
            w, c = once(*cases[k])
            wall[k].append(w)
            cpu[k].append(c)
    print("end", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "load", os.getloadavg())
    print(f"{'case':32s} {'wall':>9s} {'CPU':>9s}   (medians)  {'CPU min':>9s}")
    for k in cases:
        print(f"{k:32s} {1e3 * statistics.median(wall[k]):6.1f} ms {1e3 * statistics.median(cpu[k]):6.1f} ms"
              f"             {1e3 * min(cpu[k]):6.1f} ms")

    def ratio(xs: list[float], ys: list[float]) -> float:
        return statistics.median([y / x for x, y in zip(xs, ys) if x > 0])

    whats = sorted({k[2:] for k in cases if k.startswith("A ")}, key=list(k[2:] for k in cases).index)
    for what in whats:
        a, b = f"A {what}", f"B {what}"
        print(f"B ÷ A, {what}: wall {ratio(wall[a], wall[b]):.3f}, CPU {ratio(cpu[a], cpu[b]):.3f}")
    for base in ("import click, pluggy", "python -c pass"):
        for what in whats:
            if what.startswith("rules"):
                continue
            for tag in ("A", "B"):
                k = f"{tag} {what}"
                print(f"{k} ÷ {base}: wall {ratio(wall[base], wall[k]):.3f}×, CPU {ratio(cpu[base], cpu[k]):.3f}×")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
