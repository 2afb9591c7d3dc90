"""Built-in plugin ``bundles``: content plugins (manifest bundles) as
plugin-scope resource sources, and the ``wsctl marketplace`` commands.

Discovery, enablement and dependencies are in :mod:`wskit.builtin_plugins.bundles`; plugins
that fail to load come back as ``plugin-failed`` diagnostics naming their path
and reason, the others load (docs/plugins.md).
"""

from __future__ import annotations

from wskit.builtin_plugins.bundles.active import bundle_source, find_bundles
from wskit.plugin import hookimpl


@hookimpl
def wskit_plugin_bundles(binding, profile, trust):
    bundles, diags = find_bundles(binding, profile, trust)
    return [bundle_source(b, profile.name) for b in bundles if b.state == "active"] + diags


@hookimpl
def wskit_register_commands(cli):
    """Add ``marketplace`` to ``wsctl`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "marketplace", "wskit.builtin_plugins.bundles.cli:marketplace_group",
                     "Local plugin marketplaces (.claude-plugin/marketplace.json).")
