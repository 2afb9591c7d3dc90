"""Two wskit installations side by side: ``python -m tests.benchmarks.ab A_WSCTL B_WSCTL``.

Whole processes, a fresh home per run (trust grant of the monorepo untimed), one
untimed warm-up, then ``--rounds`` shuffled rounds of: ``wsctl --json inspect`` of an
empty folder and ``wsctl --json rules --for F`` (F 8 folders deep in the benchmark
monorepo) with each ``wsctl``, and ``python -c "import click, pluggy"`` (P4's
baseline). With ``--second``, also P5 second: ``wsctl --json inspect`` of the monorepo
in a home kept per ``wsctl`` (trusted, its persistent index written by an untimed run)
and the bare ``os.scandir`` walk of it. Prints medians of wall and CPU (user + system
of the child) time and the medians of per-round ratios B ÷ A (wall and CPU), and the
load average at the start and the end. Used for docs/performance.md's before/after;
nothing asserts on time.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks import trees
from tests.benchmarks.peers import _BARE_WALK, deep_file

__all__ = ["main"]


def main(argv: list[str] | None = None) -> None:
    """Run the comparison (see the module doc)."""
    ap = argparse.ArgumentParser(prog="python -m tests.benchmarks.ab")
    ap.add_argument("a", help="the first wsctl (e.g. main's virtual environment)")
    ap.add_argument("b", help="the second wsctl")
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--dest", default=os.path.join(tempfile.gettempdir(), "wskit-bench"))
    ap.add_argument("--second", action="store_true", help="add P5 second (inspect of the monorepo again)")
    ap.add_argument("--only-second", action="store_true", help="P5 second and the bare walk only")
    args = ap.parse_args(argv)
    mono = trees.generate("monorepo", args.dest, scale=args.scale, seed=0)
    target = deep_file(mono)
    work = Path(tempfile.mkdtemp(prefix="wskit-ab-"))
    empty = work / "empty"
    empty.mkdir()
    env0 = {k: v for k, v in os.environ.items() if not k.startswith("WSKIT_") and k != "PYTHONDONTWRITEBYTECODE"}
    cases: dict[str, tuple[list[str], bool | str]] = {}
    for tag, wsctl in (("A", args.a), ("B", args.b)):
        if not args.only_second:
            cases[f"{tag} inspect empty"] = ([wsctl, "--json", "inspect", str(empty)], False)
            cases[f"{tag} rules --for F"] = ([wsctl, "--json", "rules", "--for", str(target), str(mono)], True)
        if args.second or args.only_second:
            kept = tempfile.mkdtemp(dir=work, prefix="kept-")  # one home per wsctl: its index stays
            subprocess.run([wsctl, "--home", kept, "trust", "grant", str(mono)], env={**env0, "HOME": kept},
                           check=True, capture_output=True)
            cases[f"{tag} inspect again"] = ([wsctl, "--json", "inspect", str(mono)], kept)
    if not args.only_second:
        cases["import click, pluggy"] = ([sys.executable, "-c", "import click, pluggy"], False)
    if args.second or args.only_second:
        cases["bare walk"] = ([sys.executable, "-c", _BARE_WALK, str(mono)], False)
    cpu: dict[str, list[float]] = {k: [] for k in cases}

    def children_cpu() -> float:
        import resource

        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        return ru.ru_utime + ru.ru_stime

    def once(argv: list[str], trust: bool | str, key: str | None = None) -> float:
        home = trust if isinstance(trust, str) else tempfile.mkdtemp(dir=work)
        env = {**env0, "HOME": home}
        run = argv if argv[0] == sys.executable else [argv[0], "--home", home, *argv[1:]]
        if trust is True:
            subprocess.run([argv[0], "--home", home, "trust", "grant", str(mono)], env=env, check=True,
                           capture_output=True)
        c0 = children_cpu()
        t0 = time.perf_counter()
        res = subprocess.run(run, env=env, capture_output=True)
        took = time.perf_counter() - t0
        if key is not None:
            cpu[key].append(children_cpu() - c0)
        if not isinstance(trust, str):
            shutil.rmtree(home, ignore_errors=True)
        if res.returncode != 0:
            raise SystemExit(f"{' '.join(run)} failed: {res.stderr[-500:]!r}")
        return took

    print("start", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "load", os.getloadavg())
    for argv, trust in cases.values():
        once(argv, trust)
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(args.rounds):
        keys = list(cases)
        random.shuffle(keys)
        for k in keys:
            times[k].append(once(*cases[k], key=k))
    print("end", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "load", os.getloadavg())
    for k, v in times.items():
        print(f"{k:24s} {1e3 * statistics.median(v):8.1f} ms wall {1e3 * statistics.median(cpu[k]):8.1f} ms CPU")
    whats = [w for w in ("inspect empty", "rules --for F", "inspect again") if f"A {w}" in times]
    for what in whats:
        a, b = times[f"A {what}"], times[f"B {what}"]
        ca, cb = cpu[f"A {what}"], cpu[f"B {what}"]
        print(f"B ÷ A, {what}: {statistics.median([y / x for x, y in zip(a, b)]):.3f} wall, "
              f"{statistics.median([y / x for x, y in zip(ca, cb)]):.3f} CPU")
    for tag in ("A", "B"):
        if "import click, pluggy" in times:
            base = times["import click, pluggy"]
            r = statistics.median([x / y for x, y in zip(times[f"{tag} inspect empty"], base)])
            print(f"{tag} inspect empty ÷ import click, pluggy: {r:.2f}×")
        if "bare walk" in times:
            w, cw = times["bare walk"], cpu["bare walk"]
            r = statistics.median([x / y for x, y in zip(times[f"{tag} inspect again"], w)])
            rc = statistics.median([x / y for x, y in zip(cpu[f"{tag} inspect again"], cw)])
            print(f"{tag} inspect again ÷ bare walk (P5 second): {r:.3f}× wall, {rc:.3f}× CPU")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
