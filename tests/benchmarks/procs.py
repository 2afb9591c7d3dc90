"""Benchmarks run as separate processes: B7 (start-up of ``wsctl``) and B8 (memory)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from .harness import Row, median_processes, median_time

PY = sys.executable

#: B8's limit, "300 MB", in bytes (decimal megabytes: the stricter reading)
LIMIT_B8 = 300_000_000


def _wsctl() -> str:
    exe = Path(PY).parent / "wsctl"
    if exe.exists():
        return str(exe)
    found = shutil.which("wsctl")
    if not found:
        raise RuntimeError("wsctl is not installed next to this Python; pip install -e . first")
    return found


def b7(ctx) -> list[Row]:
    from wskit.cli import main as wsctl_main

    wsctl = _wsctl()
    rep = max(ctx.repeat, 15)
    empty = ctx.dest / "empty-workspace"
    (empty / ".git").mkdir(parents=True, exist_ok=True)
    (empty / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    skills = ctx.trusted(ctx.tree("skills"))
    ctx.trusted(empty)
    home = str(ctx.home)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "0"}
    med = median_processes({
        "click": [PY, "-c", "import click"],
        "version": [wsctl, "--version"],
        "deps": [PY, "-c", "import pydantic, pluggy, click"],
        "bare": [PY, "-c", "pass"],
        "empty": [wsctl, "--home", home, "--json", "inspect", str(empty)],
        "skills": [wsctl, "--home", home, "--json", "inspect", str(skills)],
    }, rep, env)
    click_t, version_t, deps_t, bare_t = med["click"], med["version"], med["deps"], med["bare"]
    empty_t, skills_t = med["empty"], med["skills"]
    rows = [
        Row("B7 version", "`wsctl --version` (process)", version_t, "`python -c \"import click\"`", click_t,
            "≤ 1.3×", version_t <= 1.3 * click_t),
        Row("B7 empty", "`wsctl --json inspect` empty workspace", empty_t,
            "`python -c \"import pydantic, pluggy, click\"`", deps_t, "≤ 2×", empty_t <= 2 * deps_t),
    ]
    # in-process: the same command through wsctl's main(), output to /dev/null, fresh cache each time
    devnull = open(os.devnull, "w")

    def inproc():
        old = sys.stdout
        sys.stdout = devnull
        try:
            rc = wsctl_main(["--home", home, "--json", "inspect", str(skills)])
        finally:
            sys.stdout = old
        assert rc == 0

    inproc()
    in_t = median_time(inproc, ctx.repeat)
    devnull.close()
    rows.append(Row("B7 skills", "`wsctl --json inspect` of `skills` (process)", skills_t,
                    "in-process call + `python -c pass`", in_t + bare_t, "(report)", None,
                    f"in-process {in_t * 1e3:.1f} ms + interpreter {bare_t * 1e3:.1f} ms"))
    return rows


_B8_SCRIPT = textwrap.dedent("""
    import contextlib, json, sys
    from pathlib import Path
    def rss():
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    from wskit.cache import WorkspaceCache
    from wskit.host import HostProfile
    from wskit.plugin.manager import make_plugin_manager
    home, roots = sys.argv[1], sys.argv[2:]
    pm = make_plugin_manager()
    cache = WorkspaceCache(HostProfile(name="wskit", home=Path(home)), pm, idle_capacity=64, active_capacity=64)
    base = rss()
    with contextlib.ExitStack() as stack:
        wss = [stack.enter_context(cache.using(r)) for r in roots]
        after = rss()
        counts = {}
        for ws in wss:
            for k, v in ws.counts().items():
                counts[k] = counts.get(k, 0) + v
        print(json.dumps({"base": base, "after": after, "cached": cache.stats()["initialized"], "counts": counts}))
""")


def b8(ctx) -> list[Row]:
    src = ctx.tree("plugins")
    parent = ctx.dest / f"{src.name}-x64"
    done = parent.parent / (parent.name + ".done")
    if not done.exists():
        if parent.exists():
            shutil.rmtree(parent)
        parent.mkdir(parents=True)
        for i in range(64):
            shutil.copytree(src, parent / f"ws{i:02d}", symlinks=True)
        done.write_text("64\n")
    roots = [str(ctx.trusted(parent / f"ws{i:02d}")) for i in range(64)]
    t0 = time.perf_counter()
    out = subprocess.run([PY, "-c", _B8_SCRIPT, str(ctx.home), *roots], check=True, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    data = json.loads(out.stdout.strip().splitlines()[-1])
    counts = ", ".join(f"{k} {v}" for k, v in data["counts"].items() if v) or "no resources"
    after = data["after"]
    # "300 MB" read strictly: 300,000,000 bytes (= 286.1 MiB), not 300 MiB
    return [Row("B8", "resident size, 64 cached `plugins` workspaces", after, "RSS after imports, before loading",
                data["base"], "≤ 300 MB", after <= LIMIT_B8,
                f"{after / 1e6:.1f} MB = {after / (1 << 20):.1f} MiB (limit {LIMIT_B8 / 1e6:.0f} MB = "
                f"{LIMIT_B8 / (1 << 20):.1f} MiB); {data['cached']} cached; {counts}; run {elapsed:.1f}s", unit="B")]
