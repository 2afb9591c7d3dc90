"""Built-in plugin ``bundles``: content plugins (manifest bundles) as
plugin-scope resource sources, the ``wsctl marketplace`` commands and the content-plugin
sub-commands of ``wsctl plugins``.

Discovery, enablement and dependencies are in :mod:`wskit.builtin_plugins.bundles`; plugins
that fail to load come back as ``plugin-failed`` diagnostics naming their path
and reason, the others load (docs/plugins.md).
"""

from __future__ import annotations

from wskit.plugin import hookimpl

__all__ = ["wskit_plugin_bundles", "wskit_register_commands"]


@hookimpl
def wskit_plugin_bundles(binding, profile, trust, kinds):
    from wskit.builtin_plugins.bundles.active import bundle_source, find_bundles  # when a workspace loads

    bundles, diags = find_bundles(binding, profile, trust, kinds=kinds)
    return [bundle_source(b, profile.name) for b in bundles if b.state == "active"] + diags


#: ``wsctl plugins`` sub-commands of this plugin: (name, attribute, help text)
_PLUGIN_COMMANDS = (
    ("list", "list_cmd", "List Python plugins and the content plugins of the workspace holding PATH."),
    ("show", "show_cmd", "Show one content plugin: manifest, state, issues and resources."),
    ("validate", "validate_cmd", "Validate the plugin in DIRECTORY: manifest and every component it brings.\n"
                                 "    Exit status 1 when an error is found."),
    ("install", "install_cmd", "Install NAME from a local MARKETPLACE into the user plugin folder."),
    ("uninstall", "uninstall_cmd", "Remove a managed plugin: its files and its ledger entry."),
    ("migrate", "migrate_cmd", "Move plugins earlier versions installed into ~/.<host>/plugins to wskit's state."),
    ("enable", "enable_cmd", "Enable plugin NAME (enabledPlugins[NAME] = true)."),
    ("disable", "disable_cmd", "Disable plugin NAME (enabledPlugins[NAME] = false)."),
)


@hookimpl
def wskit_register_commands(cli):
    """Add ``marketplace`` and the content-plugin sub-commands of ``plugins`` to ``wsctl``
    (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    for name, attr, help_text in _PLUGIN_COMMANDS:
        add_lazy_command(cli, name, f"wskit.builtin_plugins.bundles.cli:{attr}", help_text, parent="plugins",
                         parent_help="List Python plugins and content plugins; manage content plugins.")

    add_lazy_command(cli, "marketplace", "wskit.builtin_plugins.bundles.cli:marketplace_group",
                     "Local plugin marketplaces (.claude-plugin/marketplace.json).")
