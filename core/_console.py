"""The ``wsctl`` console script: :func:`wskit.cli.main` with the cyclic garbage
collector paused from the first import on.

``wskit.cli.main()`` pauses the collector while ``wsctl`` looks its command up and
freezes what start-up made (see its docstring), but the imports before it —
click and what click imports, the bulk of a start — ran with the collector on:
≈ 20 collections, ≈ 3.5 ms of CPU of every run, walking objects that live until
exit. This entry point pauses it before importing :mod:`wskit.cli`; ``main`` then
freezes and resumes it as before. Only the console script goes through here: a
process importing :mod:`wskit.cli` keeps its collector as it was.
"""

from __future__ import annotations


def main() -> int:
    """Run ``wsctl`` on this process's command line (the ``wsctl`` console script)."""
    from wskit.util.gcpause import gc_paused

    with gc_paused():  # main() pauses it again at once, and freezes after the lookup
        from wskit.cli.fast import main as run  # the per-turn forms without click; click for the rest
    return run()
