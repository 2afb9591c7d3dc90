"""Links inside a source project, part of :mod:`wskit.fs` (re-exported there).

Every host follows a link whose target lies in the same repository (``AGENTS.md ->
CLAUDE.md``, ``.claude/skills -> ../skills``, a skill folder linked from a shared
folder): the most common way public repositories share one file between conventions.
:func:`inside_target` decides whether such a link may be followed: on the *resolved*
path, so ``a/../../x`` tricks and chains of links count where they finally land. A
link loop resolves to a path that does not exist and is refused. The caller then reads
the returned target path through the ordinary no-follow reads of :mod:`wskit.fs`, so a
component swapped for another link after this check is still refused.
"""

from __future__ import annotations

import os
import stat

from wskit.fs.paths import is_secret_name


def inside_target(base: str, rel: str, *, want: str = "file") -> tuple[str | None, str, str]:
    """Where the link ``base/rel`` (or a path with a link among its components) leads,
    when it may be followed.

    :param base: the source project's root (absolute).
    :param rel: the linked path relative to ``base`` (``/`` separators).
    :param want: ``"file"`` (a regular file with one hard link) or ``"dir"`` (a folder).
    :returns: ``(target, shown, why)``: ``target`` is the resolved path relative to
        ``base`` (``/`` separators) or None when refused; ``shown`` is what the link
        names (``os.readlink`` of the last linked component, for diagnostics); ``why``
        says why it is refused (``"leads outside the project"``, ``"is broken or
        loops"``, ``"does not lead to a folder"``, ``"does not lead to a regular file"``,
        ``"leads to a file with more than one hard link"``, ``"leads to a secret-looking
        path"``), empty when followed.
    """
    path = os.path.join(base, *rel.split("/"))
    shown = _named(base, rel)
    real_base = os.path.realpath(base)
    real = os.path.realpath(path)
    if real == real_base or not real.startswith(real_base.rstrip(os.sep) + os.sep):
        return None, shown, "leads outside the project"
    target = os.path.relpath(real, real_base).replace(os.sep, "/")
    try:
        st = os.stat(real, follow_symlinks=False)
    except OSError:
        return None, shown, "is broken or loops"
    if stat.S_ISLNK(st.st_mode):  # realpath stops at a link it cannot resolve further
        return None, shown, "is broken or loops"
    if any(is_secret_name(part) for part in target.split("/")):
        return None, shown, "leads to a secret-looking path"
    if want == "dir":
        if not stat.S_ISDIR(st.st_mode):
            return None, shown, "does not lead to a folder"
    elif not stat.S_ISREG(st.st_mode):
        return None, shown, "does not lead to a regular file"
    elif st.st_nlink > 1:
        return None, shown, "leads to a file with more than one hard link"
    return target, shown, ""


def _named(base: str, rel: str) -> str:
    """What the deepest linked component of ``base/rel`` names (``?`` when none can be read)."""
    parts = rel.split("/")
    for i in range(len(parts), 0, -1):
        try:
            return os.readlink(os.path.join(base, *parts[:i]))
        except OSError:
            continue
    return "?"
