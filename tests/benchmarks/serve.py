"""S1: start-up of ``wsctl serve --mcp`` to its ``initialize`` response on a 1,000-skill
workspace, beside Claude Code's time to its ``system/init`` line on the same workspace.

``python -m tests.benchmarks.serve [--skills 1000] [--rounds 15] [--claude PATH]``

Whole processes, a fresh home per run (trust granted untimed), the two cases
interleaved and shuffled each round after one untimed warm-up round, the median
of the per-round ratios and the load average reported
(reference/host-oracles.md, "Timing side by side"). Claude Code runs offline:
``ANTHROPIC_BASE_URL`` at a closed loopback port; its process group is killed at
its first stdout line. Without ``--claude`` (or ``WSKIT_CLAUDE_BIN``, or the
``claude-agent-sdk`` wheel's bundled binary) only wskit's time is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks.peers import stop_group

from .trees import skill_md

__all__ = ["main"]

INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}) + "\n"


def _claude_bin(given: str | None) -> str | None:
    if given:
        return given
    if os.environ.get("WSKIT_CLAUDE_BIN"):
        return os.environ["WSKIT_CLAUDE_BIN"]
    try:
        import claude_agent_sdk  # noqa: F401
    except ImportError:
        return None
    exe = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    return str(exe) if exe.exists() else None


def _workspace(dest: Path, count: int) -> Path:
    root = dest / f"skills-{count}"
    if (root / ".done").exists():
        return root
    rng = random.Random(0)
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for i in range(count):
        d = root / ".claude" / "skills" / f"skill-{i:05d}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "SKILL.md").write_text(skill_md(rng, f"skill-{i:05d}"))
    (root / "AGENTS.md").write_text("Be brief.\n")
    (root / ".done").write_text("")
    return root


def _first_line(argv: list[str], env: dict, cwd: Path, stdin: str | None) -> float:
    """Seconds from spawn to the process's first stdout line; the process group is killed then."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        if stdin is not None:
            proc.stdin.write(stdin.encode())
            proc.stdin.flush()
        line = proc.stdout.readline()
        elapsed = time.perf_counter() - t0
        if not line:
            raise RuntimeError(f"{argv[0]} printed nothing")
        return elapsed
    finally:
        stop_group(proc)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.benchmarks.serve", description=__doc__.split("\n")[0])
    ap.add_argument("--skills", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--claude", help="Claude Code binary (default: WSKIT_CLAUDE_BIN or claude-agent-sdk's)")
    ap.add_argument("--dest", type=Path, default=Path(tempfile.gettempdir()) / "wskit-bench-serve")
    args = ap.parse_args(argv)
    wsctl = str(Path(sys.executable).parent / "wsctl")
    claude = _claude_bin(args.claude)
    ws = _workspace(args.dest, args.skills)
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}

    def fresh_home() -> Path:
        home = Path(tempfile.mkdtemp(prefix="home-", dir=args.dest))
        subprocess.run([wsctl, "--home", str(home), "trust", "grant", str(ws)], check=True, capture_output=True)
        return home

    cases = {"wskit": lambda home: _first_line(
        [wsctl, "--home", str(home), "serve", str(ws), "--mcp", "--poll", "0"], {**base_env, "HOME": str(home)}, ws,
        INIT)}
    if claude:
        cases["claude"] = lambda home: _first_line(
            [claude, "-p", "x", "--output-format", "stream-json", "--verbose"],
            {**base_env, "HOME": str(home), "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "ANTHROPIC_API_KEY": "x"},
            ws, None)
    times: dict[str, list[float]] = {k: [] for k in cases}
    rng = random.Random(1)
    for rnd in range(args.rounds + 1):
        order = list(cases)
        rng.shuffle(order)
        for name in order:
            home = fresh_home()
            try:
                t = cases[name](home)
            finally:
                shutil.rmtree(home, ignore_errors=True)
            if rnd:  # round 0 warms the page cache, untimed
                times[name].append(t)
    load = os.getloadavg()
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"S1 on {args.skills} skills, {args.rounds} rounds, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"  wsctl serve --mcp to initialize response: {med['wskit'] * 1000:.1f} ms")
    if "claude" in med:
        ratios = [w / c for w, c in zip(times["wskit"], times["claude"])]
        ratio = statistics.median(ratios)
        print(f"  Claude Code to its system/init line:      {med['claude'] * 1000:.1f} ms")
        print(f"  ratio (median of per-round ratios): {ratio:.3f}x  target <= 1.0x: {'met' if ratio <= 1.0 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
