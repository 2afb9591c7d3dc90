"""Timing helpers, the result table and the command line of ``python -m tests.benchmarks``.

Every benchmark returns :class:`Row` objects: a median in seconds (or another
unit), the baseline measured in the same run, their ratio and the
target. Nothing here asserts on time: the table *reports* (speed targets
live only in ``tests/benchmarks/``, never in the default test run).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass
class Row:
    """One line of the table.

    :ivar bench: ``B1`` … ``B8`` (with a suffix for variants).
    :ivar what: what was measured. :ivar value: median (seconds unless ``unit``).
    :ivar baseline: what it is compared with. :ivar base_value: its median.
    :ivar target: the target as text (``≤ 1.5×``). :ivar met: True/False, None = no target.
    :ivar note: anything the reader needs (counts, bytes per skill, why n/a).
    """

    bench: str
    what: str
    value: float | None
    baseline: str = ""
    base_value: float | None = None
    target: str = ""
    met: bool | None = None
    note: str = ""
    unit: str = "s"

    @property
    def ratio(self) -> float | None:
        if self.value is None or not self.base_value:
            return None
        return self.value / self.base_value


def median_time(fn: Callable[[], object], repeat: int, setup: Callable[[], object] | None = None) -> float:
    """Median wall time in seconds of ``repeat`` calls of ``fn`` (``setup`` runs untimed before each)."""
    times = []
    for _ in range(max(1, repeat)):
        if setup is not None:
            setup()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def median_process(argv: list[str], repeat: int, env: dict | None = None) -> float:
    """Median wall time in seconds of running ``argv`` to completion (output discarded).

    :raises subprocess.CalledProcessError: the process failed.
    """
    times = []
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def median_processes(commands: dict[str, list[str]], repeat: int, env: dict | None = None) -> dict[str, float]:
    """Median wall time in seconds of each command, run round-robin (A, B, C, A, B, C…)
    after one untimed warm-up round, so load drift on a shared machine hits all alike.

    :raises subprocess.CalledProcessError: a process failed.
    """
    times: dict[str, list[float]] = {k: [] for k in commands}
    for rnd in range(max(1, repeat) + 1):
        for name, argv in commands.items():
            t0 = time.perf_counter()
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            if rnd:
                times[name].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def rchar() -> int | None:
    """Bytes this process has read through read-like system calls (``/proc/self/io``), or None."""
    try:
        with open("/proc/self/io", "rb") as f:
            for line in f:
                if line.startswith(b"rchar:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def fmt(v: float | None, unit: str = "s") -> str:
    """Human form of a value: seconds as µs/ms/s, bytes as MB/KB."""
    if v is None:
        return "n/a"
    if unit == "s":
        if v < 1e-3:
            return f"{v * 1e6:.1f} µs"
        if v < 1:
            return f"{v * 1e3:.2f} ms"
        return f"{v:.2f} s"
    if unit == "B":
        if v >= 1 << 20:
            return f"{v / (1 << 20):.1f} MiB"
        return f"{v:.0f} B"
    return f"{v:g} {unit}"


def render(rows: list[Row]) -> str:
    """The result table as GitHub-flavoured Markdown."""
    head = "| bench | measured | median | baseline | baseline median | ratio | target | met | note |"
    out = [head, "|---|---|---:|---|---:|---:|---|---|---|"]
    for r in rows:
        ratio = "" if r.ratio is None else f"{r.ratio:.3f}×"
        met = {True: "yes", False: "**no**", None: ""}[r.met]
        out.append(
            f"| {r.bench} | {r.what} | {fmt(r.value, r.unit)} | {r.baseline} | "
            f"{fmt(r.base_value, r.unit) if r.baseline else ''} | {ratio} | {r.target} | {met} | {r.note} |"
        )
    return "\n".join(out)


def machine() -> dict:
    """nproc, CPU model, Python version and platform of this machine."""
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "cpu": cpu, "python": sys.version.split()[0],
            "platform": platform.platform()}


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.benchmarks [--scale S] [--only B1,B6] [--dest DIR] [--json FILE]``."""
    from . import cases

    ap = argparse.ArgumentParser(prog="python -m tests.benchmarks", description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply tree sizes (0.1 for a quick run)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=7, help="repetitions per timed measurement")
    ap.add_argument("--only", default="", help="comma-separated benchmarks (B1,B2,…); default all")
    ap.add_argument("--dest", default=os.path.join(tempfile.gettempdir(), "wskit-bench"),
                    help="where generated trees are cached")
    ap.add_argument("--json", dest="json_out", help="also write the rows and machine as JSON here")
    ap.add_argument("--peers", action="store_true",
                    help="P1–P6 beside Claude Code, Codex CLI and Gemini CLI, the peer and scaling tables")
    ap.add_argument("--hosts", default=os.environ.get("WSKIT_HOSTS", "/work/hosts"),
                    help="where the hosts are installed (host-oracles.md layout)")
    ap.add_argument("--scales", default="0.1,0.3,1,3", help="monorepo scales of --peers' scaling table")
    ap.add_argument("--base", default=os.environ.get("WSKIT_BENCH_BASE") or None,
                    help="another installation's wsctl (e.g. main's): --peers runs its wsctl cases through it "
                         "too, in the same rounds, and prints a before/after table (env WSKIT_BENCH_BASE)")
    args = ap.parse_args(argv)
    if args.peers:
        return _peers(args)
    only = {cases.ALIASES.get(x.strip().upper(), x.strip().upper()) for x in args.only.split(",") if x.strip()}
    ctx = cases.Context(dest=Path(args.dest), scale=args.scale, seed=args.seed, repeat=args.repeat)
    m = machine()
    print(f"machine: {m['nproc']} CPUs, {m['cpu']}, Python {m['python']}, {m['platform']}", flush=True)
    rows: list[Row] = []
    for name, fn in cases.BENCHMARKS:
        if only and name not in only:
            continue
        t0 = time.perf_counter()
        new = fn(ctx)
        rows.extend(new)
        print(f"  {name} done in {time.perf_counter() - t0:.1f}s", file=sys.stderr, flush=True)
    print(render(rows))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(
            {"machine": m, "scale": args.scale, "rows": [asdict(r) | {"ratio": r.ratio} for r in rows]}, indent=1))
    return 0


def load_average() -> str:
    """``/proc/loadavg``'s 1/5/15-minute averages, or ``n/a``."""
    try:
        return " / ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def _peers(args) -> int:
    from . import cases, peers

    ctx = cases.Context(dest=Path(args.dest), scale=1.0, seed=args.seed, repeat=args.repeat)
    m = machine()
    start = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    print(f"machine: {m['nproc']} CPUs, {m['cpu']}, Python {m['python']}, {m['platform']}", flush=True)
    print(f"start {start}, load {load_average()}", flush=True)
    scales = tuple(float(x) for x in args.scales.split(",") if x.strip())
    rows, table = peers.run(ctx, args.hosts, scales, base=args.base)
    print(render(rows))
    print()
    print(table)
    end = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    print(f"\nend {end}, load {load_average()}", flush=True)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(
            {"machine": m, "peers": True, "rows": [asdict(r) | {"ratio": r.ratio} for r in rows], "table": table},
            indent=1))
    return 0
