"""S2: ``wsctl serve --mcp --http`` under sustained load from official-SDK clients:
throughput, latency (p50/p99), failed or mixed answers, and the server's memory over
time; then clients that vanish without closing their session.

``python -m tests.benchmarks.serve_load [--clients 50] [--seconds 120] [--vanish 200] [--arguments BYTES]``
``python -m tests.benchmarks.serve_load --tracemalloc [--calls 20000]``

Loopback only (127.0.0.1), bounded in count and time: every client stops at
``--seconds`` (or ``--calls`` in all), the server is stopped (its process group)
at the end. Each client holds one session (streamable HTTP, the SDK's
``streamable_http_client``) and calls ``skills_list``, ``skill_load`` and
``rules_for`` in turn, checking each answer names what it asked for (a mixed
answer is counted). The server's RSS (``/proc/<pid>/status`` VmRSS) is sampled
every second.

``--tracemalloc`` runs the server in this process instead (a thread, same code)
with :mod:`tracemalloc`, and prints the allocation sites that grew between a
snapshot after warm-up and one after ``--calls`` more calls: how the cause of a
per-call growth was found (docs/serve.md, "Load"). By default each burst opens new
sessions (what a session leaves behind when it closes); ``--fixed`` keeps the same
``--clients`` sessions open through warm-up and both snapshots (what a live session
accumulates per call), the case of the issue's 50 fixed sessions.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

__all__ = ["main"]


def _workspace(dest: Path, skills: int = 20) -> tuple[Path, Path]:
    home, proj = dest / "home", dest / "proj"
    (proj / ".git").mkdir(parents=True, exist_ok=True)
    home.mkdir(exist_ok=True)
    (proj / "AGENTS.md").write_text("Be brief.\n")
    (proj / "src").mkdir(exist_ok=True)
    (proj / "src" / "AGENTS.md").write_text("src rule.\n")
    for i in range(skills):
        d = proj / ".claude" / "skills" / f"skill-{i:03d}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "SKILL.md").write_text(f"---\nname: skill-{i:03d}\ndescription: skill number {i}\n---\n"
                                    f"Body of skill-{i:03d}: {'x' * 200}\n")
    subprocess.run([sys.executable, "-m", "wskit", "--home", str(home), "trust", "grant", str(proj)],
                   check=True, capture_output=True, timeout=60)
    return home, proj


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


async def _client(url: str, idx: int, stop_at: float, budget: list[int], lat: list[float], bad: list[str],
                  arg_bytes: int = 0) -> None:
    import json

    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (r, w, *_):
        async with ClientSession(r, w) as s:
            await s.initialize()
            n = 0
            while time.monotonic() < stop_at and budget[0] > 0:
                budget[0] -= 1
                skill = f"skill-{(idx + n) % 20:03d}"
                t0 = time.perf_counter()
                try:
                    if n % 3 == 0:
                        res = await s.call_tool("skills_list", {"limit": 5, "offset": (idx + n) % 15})
                        ok = not res.is_error and len(json.loads(res.content[0].text)["skills"]) == 5
                    elif n % 3 == 1:
                        res = await s.call_tool("skill_load", {"name": skill, **_arguments(idx, n, arg_bytes)})
                        ok = not res.is_error and f"Body of {skill}" in res.content[0].text
                    else:
                        res = await s.call_tool("rules_for", {"path": "src/x.py"})
                        ok = not res.is_error and "src/AGENTS.md" in res.content[0].text
                except Exception as err:  # noqa: BLE001 — counted, the run goes on
                    ok = False
                    bad.append(f"{type(err).__name__}: {err}"[:200])
                lat.append(time.perf_counter() - t0)
                if not ok and len(bad) < 1000:
                    bad.append(f"client {idx} call {n}: wrong or failed answer")
                n += 1


def _arguments(idx: int, n: int, size: int) -> dict[str, str]:
    """``skill_load`` arguments of about ``size`` bytes, new on every call (none for 0):
    what a client passing the user's words to each skill sends."""
    return {"arguments": f"{idx}.{n} " + "a" * size} if size else {}


async def _fixed_client(url: str, idx: int, phases: list[int], gates: list, done: list, lat: list[float],
                        bad: list[str], arg_bytes: int = 0) -> None:
    """One session held open through every phase: phase ``k`` starts when ``gates[k]``
    is set and makes calls from the shared budget ``phases[k]``; the client then
    reports on ``done[k]`` (a memory object stream) and waits for the next gate."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (r, w, *_):
        async with ClientSession(r, w) as s:
            await s.initialize()
            n = 0
            for k, gate in enumerate(gates):
                await gate.wait()
                while phases[k] > 0:
                    phases[k] -= 1
                    t0 = time.perf_counter()
                    try:
                        res = await s.call_tool("skill_load", {"name": f"skill-{(idx + n) % 20:03d}",
                                                               **_arguments(idx, n, arg_bytes)}) \
                            if n % 3 == 1 else await s.call_tool("rules_for", {"path": "src/x.py"}) \
                            if n % 3 == 2 else await s.call_tool("skills_list", {"limit": 5})
                        if res.is_error:
                            bad.append(f"client {idx} call {n}: error answer")
                    except Exception as err:  # noqa: BLE001 — counted, the run goes on
                        bad.append(f"{type(err).__name__}: {err}"[:200])
                    lat.append(time.perf_counter() - t0)
                    n += 1
                await done[k].send(idx)


async def _vanish(url: str, count: int) -> int:
    """Open ``count`` sessions that are never closed (the HTTP client is dropped without
    the session's DELETE): what a client killed mid-session leaves."""
    from mcp.shared._httpx_utils import create_mcp_http_client

    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "gone", "version": "0"}}}
    opened = 0
    async with create_mcp_http_client() as http:
        for _ in range(count):
            r = await http.post(url, json=body, headers={"Accept": "application/json, text/event-stream"})
            opened += r.status_code == 200
    return opened


def _load(args) -> int:
    import anyio

    dest = Path(tempfile.mkdtemp(prefix="wskit-bench-serve-load-", dir=args.workdir))
    home, proj = _workspace(dest)
    proc = subprocess.Popen([sys.executable, "-m", "wskit", "--home", str(home), "serve", str(proj), "--mcp",
                             "--poll", "0", "--http", "127.0.0.1:0",
                             *(["--max-sessions", str(args.max_sessions)] if args.max_sessions else [])],
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        line = proc.stderr.readline().decode()
        if "serving" not in line:
            raise RuntimeError(f"the server did not start: {line}")
        url = line.strip().rsplit(" ", 1)[1]
        threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()  # keep stderr read
        series: list[tuple[float, int, int]] = []
        lat: list[float] = []
        bad: list[str] = []
        done = threading.Event()
        t_start = time.monotonic()

        def sample() -> None:
            while not done.is_set():
                series.append((time.monotonic() - t_start, _rss_kib(proc.pid), len(lat)))
                done.wait(1.0)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        budget = [args.calls]
        stop_at = time.monotonic() + args.seconds

        async def run() -> None:
            async with anyio.create_task_group() as tg:
                for i in range(args.clients):
                    tg.start_soon(_client, url, i, stop_at, budget, lat, bad, args.arguments)

        anyio.run(run)
        elapsed = time.monotonic() - t_start
        rss_after_load = _rss_kib(proc.pid)
        opened = anyio.run(_vanish, url, args.vanish) if args.vanish else 0
        time.sleep(1.0)
        rss_after_vanish = _rss_kib(proc.pid)
        done.set()
        sampler.join()
        lat.sort()
        p = (lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000) if lat else (lambda q: 0.0)
        load = os.getloadavg()
        print(f"S2 serve --http: {args.clients} SDK clients, {elapsed:.0f} s, {len(lat)} calls, "
              f"load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        print(f"  throughput {len(lat) / elapsed:.0f} calls/s; latency p50 {p(0.5):.1f} ms, p99 {p(0.99):.1f} ms; "
              f"failed or wrong answers: {len(bad)}")
        for msg in bad[:5]:
            print(f"    {msg}")
        print("  server RSS over time (s, MiB, calls so far):")
        step = max(1, len(series) // 12)
        for t, rss, calls in series[::step] + series[-1:]:
            print(f"    {t:6.0f}  {rss / 1024:7.1f}  {calls}")
        # warm-up: until a fifth of the calls were made (the clients connect first, slowly on a loaded machine)
        warm_at = next((i for i, (_, _, c) in enumerate(series) if c >= len(lat) / 5), 0)
        warm = series[warm_at][1]
        end = series[-1][1] if series else 0
        calls_after_warm = len(lat) - series[warm_at][2]
        growth = (end - warm) / max(1, calls_after_warm) * 1024
        print(f"  after warm-up ({series[warm_at][2]} calls, {series[warm_at][0]:.0f} s): {warm / 1024:.1f} -> "
              f"{end / 1024:.1f} MiB ({growth:.0f} bytes per call)")
        if args.vanish:
            print(f"  {opened} sessions opened and abandoned (max-sessions {args.max_sessions or 'default'}): RSS "
                  f"{rss_after_load / 1024:.1f} -> {rss_after_vanish / 1024:.1f} MiB "
                  f"({(rss_after_vanish - rss_after_load) / max(1, opened):.1f} KiB per abandoned session)")
        return 1 if bad else 0
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _tracemalloc(args) -> int:
    """The server in this process (a thread) under tracemalloc: top growth by site."""
    import tracemalloc

    import anyio
    from wskit_serve.guard import HttpLimits, ServeLog
    from wskit_serve.server import WorkspaceServer

    from wskit.cache import WorkspaceCache
    from wskit.host import HostProfile

    dest = Path(tempfile.mkdtemp(prefix="wskit-bench-serve-tm-", dir=args.workdir))
    home, proj = _workspace(dest)
    cache = WorkspaceCache(profile=HostProfile(home=home))
    ports: list[int] = []
    server = WorkspaceServer(cache.resolve, str(proj), poll=0, log=ServeLog())
    t = threading.Thread(target=lambda: anyio.run(lambda: server.serve_http(
        "127.0.0.1", 0, None, ports.append,
        # the real default header timeout (10 s): the clients share this process (and its GIL) with a
        # traced server, the load under which it once closed live clients (docs/serve.md)
        limits=HttpLimits(max_sessions=args.max_sessions or 64))),
        daemon=True)
    t.start()
    deadline = time.monotonic() + 30
    while not ports and time.monotonic() < deadline:
        time.sleep(0.05)
    url = f"http://127.0.0.1:{ports[0]}/mcp"

    def burst(calls: int) -> None:
        async def run() -> None:
            lat: list[float] = []
            bad: list[str] = []
            budget = [calls]
            async with anyio.create_task_group() as tg:
                for i in range(args.clients):
                    tg.start_soon(_client, url, i, time.monotonic() + 600, budget, lat, bad, args.arguments)
            if bad:
                print("  failures:", bad[:3])

        anyio.run(run)

    tracemalloc.start(args.frames)
    if args.fixed:
        return _tracemalloc_fixed(args, url)
    burst(max(200, args.calls // 10))  # warm-up
    print("warmed up", flush=True)
    import gc

    gc.collect()
    before = tracemalloc.take_snapshot()
    burst(args.calls)
    gc.collect()
    after = tracemalloc.take_snapshot()
    stats = after.compare_to(before, "traceback")
    total = sum(s.size_diff for s in stats)
    print(f"tracemalloc: {args.calls} calls by {args.clients} clients (new session each burst): "
          f"{total / 1024:.0f} KiB more traced ({total / args.calls:.0f} bytes per call)")
    for s in stats[:args.top]:
        if s.size_diff <= 0:
            continue
        print(f"  +{s.size_diff / 1024:.1f} KiB in {s.count_diff} blocks")
        for frame in s.traceback.format()[-12:]:
            print(f"      {frame}")
    return 0


def _show(stats, calls: int, top: int, what: str) -> None:
    total = sum(s.size_diff for s in stats)
    print(f"tracemalloc: {what}: {total / 1024:.0f} KiB more traced ({total / max(1, calls):.0f} bytes per call)")
    for s in stats[:top]:
        if s.size_diff <= 0:
            continue
        print(f"  +{s.size_diff / 1024:.1f} KiB in {s.count_diff} blocks")
        for frame in s.traceback.format()[-12:]:
            print(f"      {frame}")


def _tracemalloc_fixed(args, url: str) -> int:
    """``--fixed``: the same sessions through warm-up and two measured phases of
    ``--calls`` each; snapshots between phases (after ``gc.collect()``). Growth that
    repeats in both phases is per call; growth only in the first is warm-up."""
    import gc
    import tracemalloc

    import anyio

    sizes = [max(200, args.calls // 10), args.calls, args.calls]
    phases = list(sizes)  # budgets the clients spend
    snaps: list = []
    lat: list[float] = []
    bad: list[str] = []

    async def run() -> None:
        gates = [anyio.Event() for _ in phases]
        streams = [anyio.create_memory_object_stream(args.clients) for _ in phases]
        async with anyio.create_task_group() as tg:
            for i in range(args.clients):
                tg.start_soon(_fixed_client, url, i, phases, gates, [s for s, _ in streams], lat, bad,
                              args.arguments)
            for k, gate in enumerate(gates):
                gate.set()
                for _ in range(args.clients):
                    await streams[k][1].receive()
                gc.collect()
                snaps.append(tracemalloc.take_snapshot())
                print(f"phase {k}: {len(lat)} calls so far, traced {tracemalloc.get_traced_memory()[0] / 1024:.0f} KiB",
                      flush=True)

    anyio.run(run)
    if bad:
        print("  failures:", len(bad), bad[:3])
    for k in (1, 2):
        _show(snaps[k].compare_to(snaps[k - 1], "traceback"), sizes[k], args.top,
              f"phase {k}, {sizes[k]} calls on {args.clients} fixed sessions")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.benchmarks.serve_load", description=__doc__.split("\n")[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--calls", type=int, default=1_000_000, help="calls in all, at most")
    ap.add_argument("--vanish", type=int, default=200, help="sessions opened and abandoned after the load")
    ap.add_argument("--max-sessions", type=int, default=0, help="the server's --max-sessions (0: its default)")
    ap.add_argument("--tracemalloc", action="store_true", help="find what grows per call (server in-process)")
    ap.add_argument("--arguments", type=int, default=0, metavar="BYTES",
                    help="skill_load sends arguments of about BYTES bytes, new on every call")
    ap.add_argument("--fixed", action="store_true", help="with --tracemalloc: the same sessions throughout")
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--workdir", default=None, help="folder for the workspace and home (default: the temp folder)")
    ap.add_argument("--frames", type=int, default=12, help="traceback depth kept by tracemalloc")
    args = ap.parse_args(argv)
    if args.tracemalloc:
        if args.calls == 1_000_000:
            args.calls = 5000
        return _tracemalloc(args)
    return _load(args)


if __name__ == "__main__":
    sys.exit(main())
