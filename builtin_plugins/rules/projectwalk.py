"""One project walk per workspace load, shared, and taken whole on a reload when
nothing it depended on changed.

:func:`project_walk` is what the rule catalog and plugins that look for their own
instruction files (wskit-gemini's ``GEMINI.md``) call; :mod:`wskit.builtin_plugins.rules.walk` is
the walk itself.
"""

from __future__ import annotations

from wskit import changes
from wskit.builtin_plugins.rules.conventions import Conventions
from wskit.builtin_plugins.rules.model import RuleSettings
from wskit.builtin_plugins.rules.walk import _MEMO_TAG, _WHOLE_NAMESPACE, ChainWalker, ProjectWalker  # noqa: F401


def walk_key(root: str, profile, settings: RuleSettings) -> tuple:
    """What the project walk's result depends on besides the files: root, conventions,
    host folder and settings (the key of its memo and of the persistent index)."""
    return (_MEMO_TAG, root, Conventions.of(profile, settings).key, profile.host_dir, settings)


def project_walk(root: str, profile, settings: RuleSettings) -> ProjectWalker:
    """The rule catalog's walk of the project at ``root`` (absolute, canonical), done
    once per workspace load and shared by everyone who asks during that load
    (:func:`wskit.changes.scratch`): the rule discovery, and plugins that look for
    their own instruction files (wskit-gemini's ``GEMINI.md``) without listing the
    project a second time. Outside a load each call walks afresh.

    The result is read-only: :meth:`ProjectWalker.listing` gives every folder entered,
    in walk order, with its names. Folders the walk does not enter are not listed:
    skipped names (:data:`SKIP_DIRS`, ``settings.extra_skip_dirs``), ``.claude`` and
    ``.<host>`` folders (only their ``rules/`` are read), what ``.gitignore`` ignores,
    links, virtual environments and linked worktrees. Only call it for a trusted project.
    """
    scratch = changes.scratch()
    key = walk_key(root, profile, settings)
    if scratch is not None:
        done = scratch.get(key)
        if done is not None:
            return done
    walker = ProjectWalker(root, profile, settings)
    from wskit.builtin_plugins.rules import persist

    if not _reuse_current(walker, key):
        # a new process's first load: offered the persistent index as the previous load
        with changes.offering(persist.previous(root, profile, settings, key)):
            if not _reuse_whole(walker, key):
                with changes.recording() as deps:
                    walker.walk()
                _keep_whole(walker, key, deps)
    if scratch is not None:
        scratch[key] = walker
    return walker


def _reuse_current(walker: ProjectWalker, key: tuple) -> bool:
    """The walk this same load already made or took (a lazy catalog read whole after the
    load returned, in :func:`wskit.changes.resumed`, has a scratch of its own): its result
    again, without a second check of every folder."""
    got = changes.remembered(walker.root, False, namespace=_WHOLE_NAMESPACE)
    if got is None or not (type(got[1]) is tuple and len(got[1]) == 5 and got[1][0] == key):
        return False
    _key, _sigs, found, diags, folders = got[1]
    walker.found = dict(found)
    walker.added = list(found.values())
    walker.diags = list(diags)
    walker.folders = folders
    return True


def _reuse_whole(walker: ProjectWalker, key: tuple) -> bool:
    """On a reload: take the previous walk's whole result when nothing it depended on
    changed (every folder listed, ``.gitignore`` and config folder read — not the
    rule files it read ahead, which the loader checks by signature). One set
    comparison against the change check's verified signatures instead of a pass
    over every folder (the common reload: one rule file edited)."""
    prev = changes.reuse(walker.root, False, namespace=_WHOLE_NAMESPACE)
    if not (type(prev) is tuple and len(prev) == 5 and prev[0] == key):
        return False
    _key, sigs, found, diags, folders = prev
    if not changes.unchanged(sigs):
        return False
    changes.adopt(sigs)
    walker.found = dict(found)
    walker.added = list(found.values())
    walker.diags = list(diags)
    walker.folders = folders
    return True


def _keep_whole(walker: ProjectWalker, key: tuple, deps: changes.Dependencies) -> None:
    """Remember this walk's result and what it depended on (see :func:`_reuse_whole`)."""
    if deps.racy:
        return
    ahead = {(f"{walker.prefix}{rel}", False) for rel in walker.prefetched}
    sigs = {k: v for k, v in deps._paths.items() if k not in ahead}
    changes.remember(walker.root, False, (key, sigs, dict(walker.found), tuple(walker.diags), list(walker.folders)),
                     namespace=_WHOLE_NAMESPACE)


def chain_walk(root: str, profile, settings: RuleSettings, request) -> "ChainWalker":
    """The chain walk of a lazy rule catalog (:class:`~wskit.builtin_plugins.rules.lazy.FolderRequest`
    ``request``), walked to every folder the request asks for: one walker per catalog and
    conventions, kept in ``request.memo``, so each folder is listed once per catalog and
    every implementation of ``wskit_discover_rules`` that asks shares it (the built-in
    rule files, wskit-gemini's ``GEMINI.md``). :meth:`ChainWalker.listing_of` gives the
    folders of this request that the walk entered. Only call it for a trusted project."""
    opened = getattr(request, "open", False)
    key = (_MEMO_TAG, "chain", root, Conventions.of(profile, settings).key, profile.host_dir, settings, opened)
    walker = request.memo.get(key)
    if walker is None:
        from wskit.builtin_plugins.rules.walk import OpenChainWalker

        walker = request.memo[key] = (OpenChainWalker if opened else ChainWalker)(root, profile, settings)
    done = request.memo.setdefault((key, "asked"), set())
    for folder in request.folders:
        if folder not in done:
            walker.walk_to(folder)
            done.add(folder)
    return walker
