"""P6 before and after: ``python -m tests.benchmarks.skills_bench A_WSCTL B_WSCTL``.

``wsctl --json skills list`` of the 10,000-skill benchmark tree
(``trees.generate("skills", DEST, scale=10.0, seed=0)``, reused read-only when it
exists) with two wskit installations (A: e.g. main's virtual environment, B: this
one), beside Claude Code to its ``system/init`` line on the same tree (target P6,
docs/performance.md: B ≤ 0.2× Claude Code).

Method (host-oracles.md, "Timing side by side"): whole processes, a fresh home per
run (each wsctl's own ``trust grant`` of the tree is untimed), one untimed warm-up
round, then ``--rounds`` rounds running every case once in a shuffled order. Both
wsctl get the same environment, with ``PYTHONPYCACHEPREFIX`` set to a folder of this
run (bytecode cached for both, nothing written into either source tree). Claude Code
runs as :mod:`tests.benchmarks.peers` runs it (API at the discard port, timed to its
first stdout line, then its process group killed). Prints the medians, the medians
of the per-round ratios (wall clock; for the two wsctl also CPU time, user +
system, which a loaded machine disturbs less) and the load average at the start and
the end; ``--json FILE`` writes every time. Nothing asserts on time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from tests.benchmarks import trees
from tests.benchmarks.peers import TIMEOUT, find_hosts, stop_group

__all__ = ["main"]

_DEAD_URL = "http://127.0.0.1:9"  # the discard port: a model request fails at once


def _time(argv: list[str], cwd: str, env: dict, first_line: bool, cpu: list | None = None) -> float | None:
    """Seconds of one run (to the first stdout line when ``first_line``), or None when it
    failed; a run to its exit appends its CPU seconds (user + system) to ``cpu``."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    watchdog = threading.Timer(TIMEOUT, os.killpg, (proc.pid, signal.SIGKILL))  # a hung run counts as failed
    watchdog.start()
    try:
        if first_line:
            ok = bool(proc.stdout.readline())
            took = time.perf_counter() - t0
        else:
            proc.stdout.read()
            _, status, usage = os.wait4(proc.pid, 0)
            took = time.perf_counter() - t0
            proc.returncode = os.waitstatus_to_exitcode(status)
            ok = proc.returncode == 0
            if cpu is not None:
                cpu.append(usage.ru_utime + usage.ru_stime if ok else None)
    finally:
        watchdog.cancel()
        stop_group(proc)
    return took if ok else None


def main(argv: list[str] | None = None) -> None:
    """Run the comparison (see the module doc)."""
    ap = argparse.ArgumentParser(prog="python -m tests.benchmarks.skills_bench")
    ap.add_argument("a", help="the first wsctl (e.g. main's virtual environment)")
    ap.add_argument("b", help="the second wsctl")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--scale", type=float, default=10.0)
    ap.add_argument("--dest", default=os.path.join(tempfile.gettempdir(), "wskit-bench"))
    ap.add_argument("--hosts", default=os.environ.get("WSKIT_HOSTS", "/work/hosts"))
    ap.add_argument("--json", dest="json_out", default=None)
    args = ap.parse_args(argv)
    tree = trees.generate("skills", args.dest, scale=args.scale, seed=0)
    claude = find_hosts(args.hosts)["claude"]
    work = Path(tempfile.mkdtemp(prefix="wskit-skills-bench-"))
    pycache = work / "pycache"
    base_env = {"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8", "PYTHONPYCACHEPREFIX": str(pycache)}
    cases: dict[str, tuple] = {}
    for tag, wsctl in (("A", args.a), ("B", args.b)):
        cases[tag] = (wsctl, False)
    if claude:
        cases["claude"] = (claude, True)

    cpu: dict[str, list[float | None]] = {k: [] for k in cases if not cases[k][1]}

    def once(name: str, timed: bool = True) -> float | None:
        exe, is_host = cases[name]
        home = tempfile.mkdtemp(prefix="home-", dir=work)
        try:
            env = {**base_env, "HOME": home}
            if is_host:
                env.update({"ANTHROPIC_BASE_URL": _DEAD_URL, "ANTHROPIC_API_KEY": "x"})
                return _time([exe, "-p", "hi", "--output-format", "stream-json", "--verbose"], str(tree), env, True)
            subprocess.run([exe, "--home", home, "trust", "grant", str(tree)], env=env, check=True,
                           capture_output=True)
            return _time([exe, "--home", home, "--json", "skills", "list", str(tree)], str(tree), env, False,
                         cpu[name] if timed else None)
        finally:
            shutil.rmtree(home, ignore_errors=True)

    start = (time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), os.getloadavg())
    print("start", start[0], "load %.2f %.2f %.2f" % start[1], flush=True)
    for name in cases:  # warm-up (and bytecode for both wsctl)
        once(name, timed=False)
    times: dict[str, list[float | None]] = {k: [] for k in cases}
    for rnd in range(args.rounds):
        order = list(cases)
        random.shuffle(order)
        for name in order:
            times[name].append(once(name))
        print(f"  round {rnd + 1}/{args.rounds}: " + ", ".join(
            f"{k} {1e3 * t:.0f} ms" if t else f"{k} failed" for k, t in times.items() for t in [t[-1]]), flush=True)
    end = (time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), os.getloadavg())
    print("end", end[0], "load %.2f %.2f %.2f" % end[1])

    def med(ts):
        ok = [t for t in ts if t is not None]
        return statistics.median(ok) if ok else None

    def ratio(a, b):
        rs = [x / y for x, y in zip(times[a], times[b]) if x is not None and y]
        return statistics.median(rs) if rs else None

    for k, v in times.items():
        m = med(v)
        print(f"{k:7s} median {1e3 * m:8.1f} ms" if m is not None else f"{k:7s} failed")
    for k, v in cpu.items():
        m = med(v)
        print(f"{k:7s} CPU (user + system) median {1e3 * m:8.1f} ms" if m is not None else f"{k:7s} CPU n/a")
    out = {"start": start, "end": end, "rounds": args.rounds, "tree": str(tree), "times": times, "cpu": cpu}
    rs = [y / x for x, y in zip(cpu["A"], cpu["B"]) if x and y]
    out["B/A cpu"] = statistics.median(rs) if rs else None
    if rs:
        print(f"B ÷ A, CPU: median of per-round ratios {out['B/A cpu']:.3f}")
    pairs = [("B", "A")] + ([("A", "claude"), ("B", "claude")] if claude else [])
    for x, y in pairs:
        r = ratio(x, y)
        out[f"{x}/{y}"] = r
        print(f"{x} ÷ {y}: median of per-round ratios {r:.3f}" if r is not None else f"{x} ÷ {y}: n/a")
    if claude:
        print(f"P6 target B ÷ claude ≤ 0.2: {'met' if (out['B/claude'] or 9) <= 0.2 else 'missed'}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(out, indent=1))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
