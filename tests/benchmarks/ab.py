"""Two wskit installations side by side: ``python -m tests.benchmarks.ab A_WSCTL B_WSCTL``.

Whole processes, a fresh home per run (trust grant untimed), one untimed warm-up, then
``--rounds`` shuffled rounds of, with each ``wsctl``: ``wsctl --json inspect`` of an empty
project (a ``.git`` folder, as the benchmark's), ``hooks run PreToolUse`` and
``permissions check Bash ls`` there (the three P4 forms), and ``rules --for F`` (F 8
folders deep in the benchmark monorepo; left out with ``--forms``), plus ``python -c
"import click, pluggy"`` and ``python -c pass`` (P4's baselines). With ``--second``, also
P5 second: ``wsctl --json inspect`` of the monorepo in a home kept per ``wsctl`` (trusted,
its persistent index written by an untimed run) and the bare ``os.scandir`` walk of it
(``--only-second``: those alone). Prints, per case, the
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
    ap.add_argument("--forms", default="inspect,hooks,permissions,rules",
                    help="comma-separated: inspect, hooks, permissions, rules")
    ap.add_argument("--second", action="store_true", help="add P5 second (inspect of the monorepo again)")
    ap.add_argument("--only-second", action="store_true", help="P5 second and the bare walk only")
    args = ap.parse_args(argv)
    forms = set() if args.only_second else set(args.forms.split(","))
    second = args.second or args.only_second
    work = Path(tempfile.mkdtemp(prefix="wskit-ab-"))
    empty = work / "empty"
    (empty / ".git").mkdir(parents=True)
    (empty / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    env0 = {k: v for k, v in os.environ.items() if not k.startswith("WSKIT_") and k != "PYTHONDONTWRITEBYTECODE"}
    # name -> (argv, folder to trust or None, exit statuses that count as success, a kept home or None)
    cases: dict[str, tuple[list[str], Path | None, tuple[int, ...], str | None]] = {}
    mono = None
    if "rules" in forms or second:
        mono = trees.generate("monorepo", args.dest, scale=args.scale, seed=0)
        target = deep_file(mono)
    for tag, wsctl in (("A", args.a), ("B", args.b)):
        if "inspect" in forms:
            cases[f"{tag} inspect empty"] = ([wsctl, "--json", "inspect", str(empty)], empty, (0,), None)
        if "hooks" in forms:
            cases[f"{tag} hooks run empty"] = ([wsctl, "--json", "hooks", "run", "PreToolUse", str(empty)], empty,
                                               (0,), None)
        if "permissions" in forms:
            cases[f"{tag} permissions check empty"] = (
                [wsctl, "--json", "permissions", "check", "Bash", "ls", str(empty)], empty, (0, 3), None)
        if "rules" in forms:
            cases[f"{tag} rules --for F"] = ([wsctl, "--json", "rules", "--for", str(target), str(mono)], mono, (0,),
                                             None)
        if second:
            kept = tempfile.mkdtemp(dir=work, prefix="kept-")  # one home per wsctl: its index stays
            subprocess.run([wsctl, "--home", kept, "trust", "grant", str(mono)], env={**env0, "HOME": kept},
                           check=True, capture_output=True)
            cases[f"{tag} inspect again"] = ([wsctl, "--json", "inspect", str(mono)], None, (0,), kept)
    if forms:
        cases["import click, pluggy"] = ([sys.executable, "-c", "import click, pluggy"], None, (0,), None)
        cases["python -c pass"] = ([sys.executable, "-c", "pass"], None, (0,), None)
    if second:
        cases["bare walk"] = ([sys.executable, "-c", _BARE_WALK, str(mono)], None, (0,), None)

    def once(argv: list[str], trust: Path | None, ok: tuple[int, ...], kept: str | None) -> tuple[float, float]:
        home = kept or tempfile.mkdtemp(dir=work)
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
        if kept is None:
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
    for base in [b for b in ("import click, pluggy", "python -c pass") if b in cases]:
        for what in whats:
            if what.startswith("rules") or what == "inspect again":
                continue
            for tag in ("A", "B"):
                k = f"{tag} {what}"
                print(f"{k} ÷ {base}: wall {ratio(wall[base], wall[k]):.3f}×, CPU {ratio(cpu[base], cpu[k]):.3f}×")
    if "bare walk" in cases:
        for tag in ("A", "B"):
            k = f"{tag} inspect again"
            print(f"{k} ÷ bare walk (P5 second): wall {ratio(wall['bare walk'], wall[k]):.3f}×, "
                  f"CPU {ratio(cpu['bare walk'], cpu[k]):.3f}×")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
