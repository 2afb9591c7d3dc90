"""Benchmark (not collected by pytest): what one approval coverage costs.

Run: ``.venv/bin/python tests/benchmarks/bench_coverage.py``. A temporary project holds
a script folder of N small files; each line is the mean of 20 calls of
:func:`wskit.approval.coverage.command_coverage` after a first one (the parse of a command
text is kept per process; files are read and hashed on every call).
"""

from __future__ import annotations

import os
import tempfile
import time

from wskit.approval.coverage import command_coverage

__all__ = ["main"]


def _mean_ms(command: str, root: str, n: int = 20) -> float:
    command_coverage(command, cwd=root, project_root=root, plugin_root=None, env={})
    t0 = time.perf_counter()
    for _ in range(n):
        command_coverage(command, cwd=root, project_root=root, plugin_root=None, env={})
    return (time.perf_counter() - t0) / n * 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as root:
        print(f"{'case':<52} {'ms':>8}")
        print(f"{'parse only: jq | grep && exit 2 || exit 0':<52} "
              f"{_mean_ms('jq -r .tool_input.command | grep -q rm && exit 2 || exit 0', root):8.2f}")
        for files in (1, 16, 256):
            folder = os.path.join(root, f"s{files}")
            os.makedirs(folder)
            for i in range(files):
                with open(os.path.join(folder, f"f{i}.sh"), "w") as fh:
                    fh.write("x" * 2000)
            print(f"{f'sh s{files}/f0.sh (folder of {files} x 2 KB)':<52} {_mean_ms(f'sh s{files}/f0.sh', root):8.2f}")
        print(f"{'python3 -c (importable names of the root)':<52} {_mean_ms('python3 -c 1', root):8.2f}")


if __name__ == "__main__":
    main()
