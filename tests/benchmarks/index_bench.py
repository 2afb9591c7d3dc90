"""P5 with and without the persistent index: median wall time of whole processes.

``python -m tests.benchmarks.index_bench [--scale 1] [--rounds 7]``: per round, in a
shuffled order, the bare ``os.scandir`` walk of the monorepo (as P5 times it), a first
``wsctl --json inspect`` (fresh home, trust granted untimed) and a second one (the home of
a first run), each with the index on and with ``WSKIT_INDEX=0``. Prints medians and their
ratios to the bare walk. Not collected by pytest.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import trees
from .peers import _BARE_WALK, _trust, _wsctl


def _run(cmd, env) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--dest", default=os.path.join(tempfile.gettempdir(), "wskit-bench"))
    a = ap.parse_args(argv)
    mono = str(trees.generate("monorepo", Path(a.dest), scale=a.scale, seed=0))
    wsctl = _wsctl()
    homes = tempfile.mkdtemp(prefix="idx-homes-")
    env_on = {**os.environ, "WSKIT_INDEX": "1"}
    env_off = {**os.environ, "WSKIT_INDEX": "0"}
    kept = {}
    for tag, env in (("on", env_on), ("off", env_off)):
        kept[tag] = tempfile.mkdtemp(dir=homes)
        _trust(Path(mono))(kept[tag])
        _run([wsctl, "--home", kept[tag], "--json", "inspect", mono], env)  # makes the index (on)
    times: dict[str, list[float]] = {}

    def first(env):
        home = tempfile.mkdtemp(dir=homes)
        _trust(Path(mono))(home)
        return lambda: _run([wsctl, "--home", home, "--json", "inspect", mono], env)

    for r in range(a.rounds + 1):
        cases = {
            "bare walk": lambda: _run([sys.executable, "-c", _BARE_WALK, mono], env_on),
            "first, index on": first(env_on),
            "second, index on": lambda: _run([wsctl, "--home", kept["on"], "--json", "inspect", mono], env_on),
            "first, index off": first(env_off),
            "second, index off": lambda: _run([wsctl, "--home", kept["off"], "--json", "inspect", mono], env_off),
        }
        names = list(cases)
        random.shuffle(names)
        for n in names:
            t = cases[n]()
            if r:  # round 0 warms up
                times.setdefault(n, []).append(t)
    bare = statistics.median(times["bare walk"])
    print(f"monorepo scale {a.scale:g}, {a.rounds} rounds, load {os.getloadavg()[0]:.2f}")
    for n in ("bare walk", "first, index on", "second, index on", "first, index off", "second, index off"):
        m = statistics.median(times[n])
        print(f"{n:20s} {m * 1000:8.1f} ms  {m / bare:5.2f}x bare")


if __name__ == "__main__":
    main()
