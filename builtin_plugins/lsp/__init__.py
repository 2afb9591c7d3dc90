"""Built-in plugin ``lsp``: the ``lsp_server`` kind (definitions only), the
project ``.lsp.json`` source, and ``wsctl lsp list``. See :mod:`wskit.builtin_plugins.lsp.loader`."""

from __future__ import annotations

from wskit.kinds import ResourceKind
from wskit.models import LoadResult, ResourceSource, Scope
from wskit.plugin import hookimpl
from wskit.util.deferred import definitions_present

__all__ = [
    "APPROVAL_RUNS", "ROOT_RANK", "server_approval", "wskit_lsp_servers", "wskit_register_commands",
    "wskit_resource_kinds", "wskit_resource_sources"
]

#: Approval states under which an LSP server may start (:func:`server_approval`).
APPROVAL_RUNS = frozenset({"approved", "not-required"})


def server_approval(server, binding, home, *, folder_trusted=None):
    """``(state, reason, entry)`` of an LSP ``server`` in the workspace ``binding`` with the
    user's ``home`` (:func:`wskit.builtin_plugins.lsp.approval.server_approval`): a project's
    or ``settings.local.json``'s server starts only when ``state`` is in :data:`APPROVAL_RUNS`."""
    from wskit.builtin_plugins.lsp.approval import server_approval as _approval

    return _approval(server, binding, home, folder_trusted=folder_trusted)

#: the kind's name (declared here so that registering the plugin does not import
#: :mod:`wskit.builtin_plugins.lsp.loader`)
KIND = "lsp_server"


#: ``.lsp.json`` ranks just below the project config folders (whose settings files win).
ROOT_RANK = 19


@hookimpl
def wskit_resource_kinds():
    # a manifest's "lspServers" adds files to .lsp.json, or holds the servers inline
    return [ResourceKind(name=KIND, hook="wskit_lsp_servers", default_dir=".lsp.json", plural="lsp_servers",
                         manifest_keys=("lspServers",), manifest_adds=True, manifest_inline=True)]


@hookimpl
def wskit_resource_sources(binding, profile, trust):
    # a project .lsp.json is a wskit extension: Claude Code reads LSP servers from plugins only
    if not trust.trusted or getattr(profile, "family", None) == "claude":
        return []
    root = str(binding.source_root)
    return [ResourceSource(scope=Scope.PROJECT, root=root, base=root, rank=ROOT_RANK, label="project:.lsp.json",
                           kinds=frozenset({KIND}))]


@hookimpl
def wskit_lsp_servers(source):
    if not definitions_present(source, ".lsp.json"):
        return LoadResult()  # nothing there: the loader is not imported
    from wskit.builtin_plugins.lsp.loader import load_lsp_servers  # when a source is read

    return load_lsp_servers(source)


@hookimpl
def wskit_register_commands(cli):
    """Add ``lsp`` to ``wsctl`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "lsp", "wskit.builtin_plugins.lsp.cli:lsp_group",
                     "LSP server definitions; `check` starts one.")
