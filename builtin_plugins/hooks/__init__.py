"""Built-in plugin ``hooks``: the ``hook`` kind (definitions from settings
files and plugin ``hooks/hooks.json``) and ``wsctl hooks list|status|trust|revoke``.
Hook trust is :mod:`wskit.builtin_plugins.hooks.trust`; see docs/hooks.md."""

from __future__ import annotations

from wskit.kinds import ResourceKind
from wskit.plugin import hookimpl
from wskit.builtin_plugins.hooks.definitions import KIND, load_hook_definitions


@hookimpl
def wskit_resource_kinds():
    # a manifest's "hooks" adds files to hooks/hooks.json, or holds the definitions inline
    return [ResourceKind(name=KIND, hook="wskit_hook_definitions", default_dir="hooks/hooks.json",
                         manifest_keys=("hooks",), manifest_adds=True, manifest_inline=True)]


@hookimpl
def wskit_hook_definitions(source):
    return load_hook_definitions(source)


@hookimpl(trylast=True)
def wskit_hook_trust(session):
    """Digest approval from ``<home>/.wskit/hook-trust.json`` for the session runtime."""
    from wskit.builtin_plugins.hooks.trust import session_hook_trust

    return session_hook_trust(session)


@hookimpl
def wskit_register_commands(cli):
    """Add ``hooks`` to ``wsctl`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "hooks", "wskit.builtin_plugins.hooks.cli:hooks_group",
                     "Hook definitions and hook trust (approval by configuration digest).")
