"""Benchmark (not collected by pytest): N tool calls through the gate, each with a command
hook that sleeps 0.5 s, run one after the other on the sync gate and gathered on one event
loop with the async gate (hooks as asyncio subprocesses).

Run: ``.venv/bin/python -m tests.benchmarks.bench_gate_async [N]``. Prints both wall times
and the peak thread count during the async run (on Python 3.11 asyncio's default child
watcher waits for each subprocess in a thread of its own; wskit starts none).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.core.session.test_gate import tree
from tests.core.session.test_gate_async import _cmd, _session


def main(n: int = 20) -> None:
    root = Path(tempfile.mkdtemp())
    home, project = tree(root, user_hooks=_cmd("sleep 0.5", timeout=10), permissions={"allow": ["Bash"]},
                         rules=False)
    sync_session = _session(home, project, {})
    start = time.monotonic()
    for i in range(n):
        sync_session.before_tool("shell", {"cmd": "ls"}, tool_use_id=f"s{i}")
    sync = time.monotonic() - start
    async_session = _session(home, project, {})

    async def gathered() -> tuple[float, int]:
        peak = 0
        start = time.monotonic()
        tasks = [asyncio.ensure_future(async_session.abefore_tool("shell", {"cmd": "ls"}, tool_use_id=f"a{i}"))
                 for i in range(n)]
        while not all(t.done() for t in tasks):
            peak = max(peak, threading.active_count())
            await asyncio.sleep(0.01)
        return time.monotonic() - start, peak

    took, peak = asyncio.run(gathered())
    print(f"{n} calls, each with a 0.5 s command hook: sync one after the other {sync:.2f} s; "
          f"async gathered on one loop {took:.2f} s; peak threads during the async run {peak}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
