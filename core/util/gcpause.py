"""The cyclic garbage collector paused while a bulk of acyclic objects is built.

Building 10,000 skills allocates a few hundred thousand containers; each 700 of them
start a young-generation collection and every few dozen of those a full one, which
scans every object of the process (a fifth of a 10,000-skill load, and as much again
while its listing is written). None of those objects is part of a reference cycle,
so reference counting frees them all; the collector only costs time while they are
built. :func:`gc_paused` turns it off for a block and gives it back as it found it.
A workspace load is such a block (on a 50,000-file tree every second cold resolve paid
≈ 90 ms of full collections), so are a 10,000-skill listing and the imports of the
``wsctl`` console script. Mercurial's ``util.nogc`` does the same for the same reason.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["gc_paused"]


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Run the block with the cyclic collector disabled, enabling it again afterwards
    (also when the block raises) unless it was already disabled on entry. Nesting is
    free: an inner block finds it disabled and leaves it so. Process-wide, like
    :func:`gc.disable`: meant for blocks that end (a load, a command), not for a
    server's lifetime."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()
