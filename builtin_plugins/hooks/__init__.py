"""Built-in plugin ``hooks``: the ``hook`` kind (definitions from settings
files and plugin ``hooks/hooks.json``) and ``wsctl hooks list|status|trust|revoke``.
Hook trust is :mod:`wskit.builtin_plugins.hooks.trust`; see docs/hooks.md."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wskit.kinds import ResourceKind
from wskit.plugin import hookimpl
from wskit.util.deferred import lazy_exports

__all__ = [
    "managed_hook_filter", "wskit_hook_definitions", "wskit_hook_trust", "wskit_register_commands",
    "wskit_resource_kinds", "wskit_resource_sources", "wskit_session_services", "wskit_workspace_catalogs",
    # hook approval, as docs/hooks.md describes it (imported on first use)
    "EntryHookTrust", "HookApprovalStatus", "hook_approval_status",
]

#: the kind's name (declared here so that registering the plugin does not import
#: :mod:`wskit.builtin_plugins.hooks.definitions`)
KIND = "hook"
# limits the loader, the runner and the HTTP client share, declared here so that a runner
# without hooks imports neither the loader nor the command runner
#: Longest ``timeout`` a hook definition may ask for, seconds (one day); more is refused at load.
MAX_TIMEOUT = 86400.0
#: Default cap on each of a command hook's stdout and stderr, bytes (Blade: 1 MiB each).
DEFAULT_OUTPUT_CAP = 1024 * 1024


@hookimpl
def wskit_resource_kinds():
    # a manifest's "hooks" adds files to hooks/hooks.json, or holds the definitions inline
    return [ResourceKind(name=KIND, hook="wskit_hook_definitions", default_dir="hooks/hooks.json",
                         manifest_keys=("hooks",), manifest_adds=True, manifest_inline=True,
                         filter=managed_hook_filter, guards=True)]


def managed_hook_filter(resources: list, profile) -> tuple[list, list]:
    """The ``hook`` kind's filter: managed settings with ``allowManagedHooksOnly: true``
    (Claude Code) keep only hooks no user or project wrote (builtin, admin and cli scope);
    one ``hooks-managed-only`` warning names the managed file and how many were switched
    off. A managed file the host named that cannot be read (or does not exist) is taken as
    that policy, never as none. (``disableAllHooks: true`` there switches every hook off at
    run time.)"""
    from wskit.formats.settings import managed_layer
    from wskit.models import Diagnostic

    layer, bad = managed_layer(profile)
    if bad:  # named but unusable: the policy may say managed hooks only, so it is applied
        why, path = "managed settings cannot be read", bad[0].path
    elif layer is None or layer.data.get("allowManagedHooksOnly") is not True:
        return resources, []
    else:
        why, path = "managed settings allow managed hooks only", layer.path
    kept = [r for r in resources if r.provenance.scope.value in ("builtin", "admin", "cli")]
    dropped = len(resources) - len(kept)
    if not dropped:
        return kept, []
    return kept, [Diagnostic(level="warning", code="hooks-managed-only", path=path,
                             message=f"{dropped} hook(s) switched off: {why}")]


#: rank of the ``.cursor/hooks.json`` sources (hooks are not chosen by name: any rank in their scope)
_CURSOR_RANK = {"user": 9, "project": 19}


@hookimpl
def wskit_resource_sources(binding, profile, trust):
    """Cursor's hooks files, ``~/.cursor/hooks.json`` and the project root's
    ``.cursor/hooks.json`` (once the folder is trusted), for ``--host cursor`` and wskit's
    default host (:mod:`wskit.builtin_plugins.hooks.cursor`). A project's entries run only
    once approved, one by one, as every project hook."""
    family = getattr(profile, "family", None)
    if family not in (None, "cursor"):
        return []
    import os

    from wskit.models import ResourceSource, Scope

    user = str(profile.require_home() / ".cursor")
    comp = {KIND: ("hooks.json",)}
    out = [ResourceSource(scope=Scope.USER, root=user, base=user, rank=_CURSOR_RANK["user"],
                          label="user:~/.cursor/hooks.json", kinds=frozenset({KIND}), follow_links=True,
                          components=comp, host=profile.name)]
    if trust.trusted:
        at = os.path.join(str(binding.source_root), ".cursor")
        out.append(ResourceSource(scope=Scope.PROJECT, root=at, base=at, rank=_CURSOR_RANK["project"],
                                  label="project:.cursor/hooks.json", kinds=frozenset({KIND}), components=comp,
                                  host=profile.name))
    return out


@hookimpl
def wskit_hook_definitions(source):
    """The hooks ``source`` defines (a ``.cursor`` folder's ``hooks.json`` in Cursor's format);
    nothing is imported for a source that holds no file they could come from
    (:func:`~wskit.util.deferred.definitions_present`: a config folder
    without ``settings.json``/``settings.local.json``, a project root without the kind's
    file), where the loader answers nothing either."""
    if source.plugin is None and source.components.get(KIND) == ("hooks.json",):  # a .cursor folder's own file
        import os

        from wskit import changes

        if not changes.lexists(os.path.join(source.base, "hooks.json")):
            return None  # nothing there: the loader is not imported
        from wskit.builtin_plugins.hooks.cursor import load_cursor_hooks

        return load_cursor_hooks(source)
    own = source.components.get(KIND, ())[:1]  # a host's own file name, as wskit.formats.definitions.blocks reads it
    from wskit.util.deferred import definitions_present

    if not definitions_present(source, own[0] if own and isinstance(own[0], str) else "hooks/hooks.json"):
        from wskit.models import LoadResult

        return LoadResult()
    from wskit.builtin_plugins.hooks.definitions import load_hook_definitions  # when a source is read

    return load_hook_definitions(source)


@hookimpl(trylast=True)
def wskit_hook_trust(session):
    """Per-entry approval from ``<home>/.wskit/approvals.json`` for the session runtime
    (:class:`~wskit.builtin_plugins.hooks.trust.EntryHookTrust`); a session without a home gets
    :class:`~wskit.builtin_plugins.hooks.runner.ScopeHookTrust` (project, local and plugin
    hooks untrusted)."""
    from wskit.builtin_plugins.hooks.trust import session_hook_trust

    trust = session_hook_trust(session)
    if trust is None:
        from wskit.builtin_plugins.hooks.runner import ScopeHookTrust

        trust = ScopeHookTrust(list(session.registry("hook").active()))
    return trust


@hookimpl
def wskit_workspace_catalogs(workspace):
    """``hooks``: :class:`~wskit.builtin_plugins.hooks.approval.HookApproval`, the hook trust
    status of the workspace, computed when asked (``wsctl inspect`` shows its summary)."""
    from wskit.builtin_plugins.hooks.approval import HookApproval

    return {"hooks": HookApproval(workspace)}


@hookimpl
def wskit_session_services():
    """``hooks``: the session's :class:`~wskit.builtin_plugins.hooks.runner.HookRunner`
    (``runtime.hooks``, ``session.hooks.run``)."""
    return [("hooks", _start_runner)]


def _start_runner(runtime):
    from wskit.builtin_plugins.hooks.runner import HookRunner, HookRunnerConfig

    cfg = runtime.options.hooks or HookRunnerConfig()
    if cfg.trust is None:
        cfg = cfg.copy_with(trust=runtime.trust)
    if runtime.options.env and not cfg.env:
        cfg = cfg.copy_with(env=dict(runtime.options.env))
    models = runtime.models
    if models is not None and models.disable_all_hooks:
        cfg = cfg.copy_with(disable_all=True, disabled_by=models.hooks_switched_off_by)
    session = runtime.session
    return HookRunner(list(session.registry("hook").active()), host=session.host, session_id=session.session_id,
                      execution_root=runtime.execution_root, config=cfg)


@hookimpl
def wskit_register_commands(cli):
    """Add ``hooks`` to ``wsctl`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "hooks", "wskit.builtin_plugins.hooks.cli:hooks_group",
                     "Hook definitions and hook approval (one approval per hook).")


#: hook approval's names, imported on first access (PEP 562): registering the plugin
#: does not import them
__getattr__ = lazy_exports(__name__, {"EntryHookTrust": "trust:EntryHookTrust",
                                      "HookApprovalStatus": "trust:HookApprovalStatus",
                                      "hook_approval_status": "trust:hook_approval_status"})

if TYPE_CHECKING:
    from wskit.builtin_plugins.hooks.trust import EntryHookTrust, HookApprovalStatus, hook_approval_status
