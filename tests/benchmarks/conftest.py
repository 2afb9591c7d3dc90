"""Benchmarks are run with ``python -m tests.benchmarks``, never by ``pytest``:
nothing in this folder is collected, even when it is named explicitly."""

collect_ignore_glob = ["*.py"]
