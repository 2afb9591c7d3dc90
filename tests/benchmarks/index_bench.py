"""P5 with and without the persistent index: median wall time of whole processes.

``python -m tests.benchmarks.index_bench [--scale 1] [--rounds 7] [--against OTHER_WSCTL]``:
per round, in a shuffled order, the bare ``os.scandir`` walk of the monorepo (as P5 times
it), a first ``wsctl --json inspect`` (fresh home, trust granted untimed) and a second one
(the home of a first run), each with the index on and with ``WSKIT_INDEX=0``, and
``wsctl --json rules --for F`` (F 8 folders deep, as P1) in a home that holds the index.
With ``--against``, the same index-on cases of a second installation's ``wsctl`` (e.g. the
main branch's venv) run in the same rounds, interleaved, each with homes of its own: a
before/after side by side. Prints medians, their ratios to the bare walk, and the load.

Every process runs with bytecode caching on (``PYTHONDONTWRITEBYTECODE`` removed, the
caches under one ``PYTHONPYCACHEPREFIX`` folder, so no installation's tree is written to):
an installed wskit has its ``.pyc`` files. Not collected by pytest.
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
from .peers import _BARE_WALK, _trust, _wsctl, deep_file


def _run(cmd, env, cwd=None) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--dest", default=os.path.join(tempfile.gettempdir(), "wskit-bench"))
    ap.add_argument("--wsctl", default=None, help="the wsctl measured (default: this Python's)")
    ap.add_argument("--against", default=None, help="a second wsctl run in the same rounds (the 'before')")
    a = ap.parse_args(argv)
    mono = str(trees.generate("monorepo", Path(a.dest), scale=a.scale, seed=0))
    target = str(deep_file(Path(mono)))
    homes = tempfile.mkdtemp(prefix="idx-homes-")
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    base["PYTHONPYCACHEPREFIX"] = os.path.join(homes, "pycache")
    env_on = {**base, "WSKIT_INDEX": "1"}
    env_off = {**base, "WSKIT_INDEX": "0"}
    tools = {"": a.wsctl or _wsctl()}
    if a.against:
        tools["before: "] = a.against

    def first(wsctl, env):
        home = tempfile.mkdtemp(dir=homes)
        _trust(Path(mono))(home)
        return lambda: _run([wsctl, "--home", home, "--json", "inspect", mono], env)

    cases = {"bare walk": lambda: _run([sys.executable, "-c", _BARE_WALK, mono], env_on)}
    for tag, wsctl in tools.items():
        envs = (("on", env_on), ("off", env_off)) if not tag else (("on", env_on),)
        for state, env in envs:
            kept = tempfile.mkdtemp(dir=homes)
            _trust(Path(mono))(kept)
            _run([wsctl, "--home", kept, "--json", "inspect", mono], env)  # makes the index (on) and the .pyc files
            cases[f"{tag}first, index {state}"] = (first, wsctl, env)
            cases[f"{tag}second, index {state}"] = (
                lambda w=wsctl, h=kept, e=env: _run([w, "--home", h, "--json", "inspect", mono], e))
            if state == "on":
                cases[f"{tag}rules --for F, index present"] = (
                    lambda w=wsctl, h=kept, e=env: _run([w, "--home", h, "--json", "rules", "--for", target, mono], e,
                                                        cwd=os.path.dirname(target)))
    times: dict[str, list[float]] = {}
    loads = []
    for r in range(a.rounds + 1):
        names = list(cases)
        random.shuffle(names)
        for n in names:
            case = cases[n]
            t = case[0](case[1], case[2])() if type(case) is tuple else case()
            if r:  # round 0 warms up
                times.setdefault(n, []).append(t)
        loads.append(os.getloadavg()[0])
    bare = statistics.median(times["bare walk"])
    print(f"monorepo scale {a.scale:g}, {a.rounds} rounds, load (1 min) per round "
          f"{min(loads):.2f}-{max(loads):.2f}, median {statistics.median(loads):.2f}")
    for tag, wsctl in tools.items():
        print(f"{tag or 'measured: '}{wsctl}")
    for n in cases:
        m = statistics.median(times[n])
        print(f"{n:38s} {m * 1000:8.1f} ms  {m / bare:5.2f}x bare")


if __name__ == "__main__":
    main()
