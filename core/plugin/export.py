"""``wskit.export``: the host-side entry of ``wsctl export`` (docs/export.md).

Core does not export anything itself: it loads the workspace and asks the ``wskit_export``
hook, which the built-in ``export`` plugin implements (core never imports a built-in).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wskit.workspace import WorkspaceResources


def export(workspace: "WorkspaceResources | str | os.PathLike[str]", targets: "str | Iterable[str]", *,
           home: "str | os.PathLike[str] | None" = None, source: str = "claude", dry_run: bool = False,
           force: bool = False, prune: bool = False, check: bool = False, verify: bool = False,
           plugin_manager: Any = None) -> Any:
    """Write each target host's own files from ``workspace`` (``wsctl export``; docs/export.md).

    :param workspace: a loaded :class:`WorkspaceResources` (loaded under the source host's
        profile), or a path: then it is loaded with ``HostProfile(name=source, home=home)``.
    :param targets: ``"codex,gemini"`` or a list of target names.
    :param home: the user home (required with a path; never implied).
    :param source: the host profile the workspace is read as (``--from``).
    :param dry_run, force, prune, check, verify: as the ``wsctl export`` options.
    :returns: the export report (``ExportReport`` of the built-in ``export``): statuses of
        every file, losses per target, and with ``verify`` the verification per target.
    :raises LookupError: no plugin exports (the ``export`` built-in is blocked).
    :raises PermissionError: the project is not trusted (nothing of it would be read).
    :raises ValueError: an unknown target, no home with a path.
    """
    if isinstance(targets, str):
        targets = [t.strip() for t in targets.split(",") if t.strip()]
    from wskit.workspace import WorkspaceResources

    if not isinstance(workspace, WorkspaceResources):
        if home is None:
            raise ValueError("wskit.export: pass home=... with a path (the home is never implied)")
        from wskit.cache import WorkspaceCache
        from wskit.host import HostProfile
        from wskit.plugin.manager import make_plugin_manager

        pm = plugin_manager or make_plugin_manager()
        workspace = WorkspaceCache(HostProfile(name=source, home=Path(home)), pm).resolve(os.fspath(workspace))
    if workspace.hooks is None:
        raise LookupError("wskit.export: the workspace was loaded without a plugin manager")
    options = {"source": source, "dry_run": dry_run, "force": force, "prune": prune, "check": check,
               "verify": verify}
    return workspace.hooks.export(workspace, list(targets), options)
