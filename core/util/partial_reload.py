"""Partial reload: a reload re-runs only the pipeline stages whose inputs changed.

:func:`wskit.workspace.load_workspace` is a pipeline of *stages* — the resource sources,
the resource kinds, the plugin bundles, one ``load`` per kind and source, one filter and
registry build per kind. A :class:`~wskit.cache.WorkspaceCache` reload used to run every
stage again over reused file results (:func:`wskit.changes.reuse`); this module lets a
reload take a stage's whole result from the load it replaces when nothing the stage
depended on changed. After one skill is edited, the reload runs the ``skill`` load of
that skill's source and the ``skill`` registry build, and takes everything else as it was.
The rule and permission catalogs (``wskit_workspace_catalogs``) are not stages: they are
built again for every load (the rule catalog is lazy; what it reads later is recorded into
the load that owns it, and its own per-file memo makes that build cheap).

**How change recording works here.** Each stage runs inside a nested
:func:`wskit.changes.recording`: every folder listed and every file opened (or found
absent) by safe file access during the stage is noted there with its ``stat`` signature,
besides the load's own recording. What the stage kept is ``(inputs, signatures, value)``
in the new load's :class:`wskit.changes.Memo` (its ``stages`` slot), so it lives and dies
with the load. A reload looks its stage up in the previous load's memo and takes the value
when

1. its *inputs* (the arguments the stage's hooks are called with: binding, trust
   decision, kind, source, the candidate resources of a registry…) are the same objects
   or equal values, and
2. every recorded signature still holds (:func:`wskit.changes.unchanged`): what the
   change check that started the reload verified — with notifications
   (:mod:`wskit.fs.watch`), every recorded path the kernel reported no event for; with the
   stat check, the paths it stat-ed before the first change — is taken as is, any other
   path is ``stat``-ed once.

A taken stage's signatures are noted into the new load's recordings
(:func:`wskit.changes.adopt`), so the next change check covers them exactly as if the
stage had run. So *what changed* keys the reload: the watcher's hit paths (or the stat
check's first changed path) are the only paths not verified, and only the stages that
recorded one of them run again — along with the stages downstream whose inputs they
changed (a new trust decision re-runs every stage; a new source list re-runs the loads of
the sources that are new or differ; a changed skill re-builds the skill registry and the
kinds shadowed by skills).

**When a stage is not kept** (and so always runs): its recording is racy (a file written
within :data:`wskit.changes.RACY_WINDOW_NS` of its read, as for file results); it used
the load's shared scratch space (:func:`wskit.changes.scratch`: another stage's reads
would stand behind its result without being in its recording) or captured the load for
later reads (:func:`wskit.changes.capture`: those reads would go to the old load); or it
raised. Nothing is taken across a change of the plugin manager's plugins, of the hook
facade, of the host profile or of the process environment (hooks read ``os.environ``;
:func:`load_key`), nor on a cold load (no previous memo).

The differential test next to this seam is ``tests/core/util/test_partial_reload.py``:
after every kind of change (edits, adds, deletes, renames, a file moved from one
capability to another, settings that switch a capability's entries or a plugin on and
off, trust revoked and granted, a plugin folder edited, a notification queue overflow)
a reload answers exactly what a fresh load answers, and runs only the stages it must.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from wskit import changes

#: the stage running now (innermost), marked when it did something that makes it unkeepable
#: (:func:`wskit.changes.scratch` and :func:`wskit.changes.capture` mark it)
_CURRENT = changes._STAGE

_LOAD_KEY = ("<load>",)
_OFFERED = ("<offered>",)


class _Run:
    __slots__ = ("tainted",)

    def __init__(self) -> None:
        self.tainted = False


class Kept:
    """What one stage of a load kept: its inputs, the signatures of what it read, its value."""

    __slots__ = ("inputs", "sigs", "value")

    def __init__(self, inputs: tuple, sigs: dict, value: Any) -> None:
        self.inputs, self.sigs, self.value = inputs, sigs, value


#: stages run (not taken) since the process started, by stage key kind (``"load"``…): for tests
runs: dict[str, int] = {}


def load_key(hooks: Any, profile: Any) -> tuple:
    """What every stage of a load depends on besides its own inputs and reads: the hook
    facade, its plugin manager's plugins (names and identities; a blocked name counts),
    the host profile, and the process environment (its items, hashed)."""
    pm = getattr(hooks, "pm", None)
    listing = getattr(pm, "list_name_plugin", None)
    plugins = tuple((name, id(p)) for name, p in listing()) if listing is not None else ()
    return (id(hooks), plugins, profile, hash(frozenset(os.environ.items())))


def _stages() -> tuple[dict | None, dict] | None:
    """``(what the previous load kept and offers to this one, or None; what this load
    keeps)`` inside a load, else None."""
    ctx = changes._REUSE.get()
    if ctx is None:
        return None
    memo = ctx[1]
    return memo.scratch.get(_OFFERED), memo.stages


def begin(hooks: Any, profile: Any) -> None:
    """Call once as a load starts: the previous load's stages are offered to this one
    when it was made under the same :func:`load_key`. Free outside a cache's load."""
    ctx = changes._REUSE.get()
    if ctx is None:
        return
    memo = ctx[1]
    key = memo.stages[_LOAD_KEY] = load_key(hooks, profile)
    prev = ctx[0].stages if ctx[0] is not None else None
    # in the load's scratch space, dropped when the load ends: a load's memo never holds the
    # one before it (nor, through it, every earlier one)
    memo.scratch[_OFFERED] = prev if prev and prev.get(_LOAD_KEY) == key else None


def _same(a: tuple, b: tuple) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is y:
            continue
        try:
            if x != y:
                return False
        except Exception:  # a value that cannot be compared is not the same
            return False
    return True


def stage(key: tuple, inputs: tuple, compute: Callable[[], Any]) -> Any:
    """``compute()``, or what the previous load's stage ``key`` made when its ``inputs``
    are the same and nothing it read changed (module doc). Outside a load, ``compute()``.

    :param key: names the stage within a load (hashable; its first item is the kind of
        stage, counted in :data:`runs`).
    :param inputs: every argument ``compute`` depends on besides what it reads from files.
    :param compute: runs the stage; its value must be immutable (or treated so).
    """
    ctx = _stages()
    if ctx is None:
        return compute()
    prev, cur = ctx
    if prev:
        kept = prev.get(key)
        if kept is not None and _same(kept.inputs, inputs) and changes.unchanged(kept.sigs):
            changes.adopt(kept.sigs)
            cur[key] = kept
            return kept.value
    runs[key[0]] = runs.get(key[0], 0) + 1
    run = _Run()
    token = _CURRENT.set(run)
    try:
        with changes.recording() as deps:
            value = compute()
    finally:
        _CURRENT.reset(token)
    if run.tainted:
        outer = _CURRENT.get()
        if outer is not None:
            outer.tainted = True
    elif not deps.racy:
        cur[key] = Kept(inputs, dict(deps._paths), value)
    return value


def taint() -> None:
    """Mark the stage running now as unkeepable (it used what another stage read, or
    captured the load for later reads; module doc). Free outside a stage."""
    run = _CURRENT.get()
    if run is not None:
        run.tainted = True
