"""The ``wsctl`` console script: :func:`wskit.cli.fast.main`, which answers the per-turn
forms without click and hands everything else to the click application
(:func:`wskit.cli.main`). It pauses the cyclic garbage collector while it starts (see
its docstring); click's path, which answers help, errors and the rare commands, is not
tuned for start-up time.
"""

from __future__ import annotations


def main() -> int:
    """Run ``wsctl`` on this process's command line (the ``wsctl`` console script)."""
    from wskit.cli.fast import main as run

    return run()
