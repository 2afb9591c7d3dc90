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


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Run the block with the cyclic collector disabled, enabling it again afterwards
    (also when the block raises) unless it was already disabled on entry. Nesting is
    free: an inner block finds it disabled and leaves it so. Process-wide, like
    :func:`gc.disable`: meant for blocks that end (a load, a command), not for a
    server's lifetime.

    In a ``wsctl`` run (:func:`freeze_loads` on) what exists when the block ends is
    frozen (:func:`gc.freeze`) before the collector is enabled again: otherwise the first
    allocation after the block starts a young collection that walks every container the
    block made (≈ 5 ms after a second ``inspect`` of a 50,000-file tree, 8–20 ms after a
    first one), objects that live until the short process exits. A host's process never
    freezes."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            if _freeze_loads:
                gc.freeze()
            gc.enable()


#: set by the ``wsctl`` console script (:func:`freeze_loads`): see :func:`loaded`
_freeze_loads = False


def freeze_loads(on: bool) -> None:
    """Whether :func:`loaded` freezes: the ``wsctl`` console script turns it on for its
    one command and off when the command ends; a host's process never does."""
    global _freeze_loads
    _freeze_loads = on


def loaded() -> None:
    """Called when a command has loaded its workspace: in a ``wsctl`` run (see
    :func:`freeze_loads`) what exists now — the workspace, its registries and catalogs,
    which live until the short process exits — is frozen (:func:`gc.freeze`), so the
    collections while the answer is written, and the one at interpreter exit, do not
    walk them (≈ 6–10 ms of a second ``inspect`` of a 50,000-file tree). Elsewhere it
    does nothing: a long-lived host keeps collecting its loads' cycles."""
    if _freeze_loads:
        gc.freeze()
