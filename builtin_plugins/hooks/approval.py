"""The workspace catalog ``hooks``: hook approval status for ``wsctl inspect`` and integrators
(see :class:`HookApproval`; docs/hooks.md "Presenting approval")."""

from __future__ import annotations

import _weakref  # weakref.ref itself, without importing weakref (and _weakrefset) at start-up
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wskit.builtin_plugins.hooks.trust import HookApprovalStatus


class HookApproval:
    """The workspace catalog ``hooks`` (``ws.catalog("hooks")``): the approval state of each
    hook of a loaded workspace, computed when asked (the registries are complete by then),
    for ``wsctl inspect`` and any integrator that shows it.

    :param workspace: a loaded :class:`~wskit.workspace.WorkspaceResources` with a profile home.
    """

    def __init__(self, workspace) -> None:
        # weak: the workspace holds its catalogs, and a cycle would outlive a dropped cache
        self._ws = _weakref.ref(workspace)

    def status(self) -> HookApprovalStatus | None:
        """The :class:`~wskit.builtin_plugins.hooks.trust.HookApprovalStatus` of the workspace's
        hooks; None without a home, without hooks that need approval, or once the workspace is gone."""
        ws = self._ws()
        profile = getattr(ws, "profile", None)
        if ws is None or profile is None or profile.home is None:
            return None
        hooks = [h for h in ws.registry("hook").active() if h.type != "function"]
        if not hooks:  # nothing to approve: the approval store is not read (start-up stays light)
            return None
        from wskit.builtin_plugins.hooks.trust import hook_approval_status, hooks_enabled

        return hook_approval_status(profile.home, ws.binding.source_root, hooks,
                                    enabled=hooks_enabled(ws.binding, ws.trust, profile),
                                    files_root=ws.binding.execution_root, folder_trusted=ws.trust.trusted,
                                    host=profile.name)

    def shown_digests(self) -> dict[str, str]:
        """:meth:`HookApprovalStatus.shown_digests <wskit.builtin_plugins.hooks.trust.HookApprovalStatus.shown_digests>`
        of the workspace (empty without hooks): named when another capability's approval is
        given one of them (:func:`wskit.approval.servers.shown_digests`)."""
        st = self.status()
        return {d: f"hook {what}" if what.startswith("entry ") else f"hooks: {what}"
                for d, what in st.shown_digests().items()} if st is not None else {}

    def summary(self) -> str | None:
        """``"N hooks await approval (plugin NAME; …)"`` when some do (``awaiting`` or
        ``modified``), the store's error when it is unusable, else the user's guards that
        project settings switched off (``switched-off``), else None."""
        st = self.status()
        if st is None:
            return None
        if st.error:
            return f"project hooks do not run: approval store unusable ({st.error})"
        if not st.awaiting_approval:
            off = st.switched_off
            # a guard of the user's that the project switched off is said, never silent
            return (f"{len(off)} hook{'s' if len(off) != 1 else ''} of the user's switched off by project settings, "
                    f"not decided: {off[0].reason}") if off and st.enabled else None
        import shlex

        what = "changed since they were approved" if st.state == "modified" else "not approved"
        where = f"{', '.join(st.sources)}; " if st.sources else ""
        n = st.awaiting_approval
        ws = self._ws()
        folder = f" {shlex.quote(str(ws.binding.source_root))}" if ws is not None else ""
        return (f"{n} hook{'s await' if n != 1 else ' awaits'} approval "
                f"({where}{what}; review with 'wsctl hooks status{folder}', approve with "
                f"'wsctl hooks trust --digest {st.digest}{folder}')")
