"""Built-in plugin ``bundles``: content plugins (manifest bundles) as
plugin-scope resource sources, the ``wsctl marketplace`` commands and the content-plugin
sub-commands of ``wsctl plugins``.

Discovery, enablement and dependencies are in :mod:`wskit.builtin_plugins.bundles`; plugins
that fail to load come back as ``plugin-failed`` diagnostics naming their path
and reason, the others load (docs/plugins.md).
"""

from __future__ import annotations

from wskit.plugin import hookimpl

__all__ = ["nothing_to_find", "wskit_plugin_bundles", "wskit_register_commands"]


@hookimpl
def wskit_plugin_bundles(binding, profile, trust, kinds):
    """The active content plugins of the workspace as plugin-scope sources, and the
    diagnostics of finding them. A plugin of the user's that a project or local settings
    file switched off adds a source of its guard kinds only, carrying ``switched_off_by``
    (:attr:`wskit.models.ResourceSource.switched_off_by`). Discovery is imported only when there may be one: when
    :func:`nothing_to_find` says there is none, the answer is the settings layers'
    diagnostics, as discovery would answer."""
    from wskit.formats.settings import settings_layers

    settings = settings_layers(binding, profile, trust) if profile.home is not None else None
    if settings is not None and nothing_to_find(binding, profile, settings[0], settings[1]):
        return list(settings[1])
    from wskit.builtin_plugins.bundles.active import bundle_source, find_bundles  # when a workspace loads

    replaced: list = []
    bundles, diags = find_bundles(binding, profile, trust, kinds=kinds, settings=settings, replaced=replaced)
    out = [bundle_source(b, profile.name) for b in bundles if b.state == "active"]
    # a plugin of the user's that the project switched off, replaced, or broke through a
    # dependency: its guards load, marked (never run)
    guards = frozenset(k.name for k in kinds or () if getattr(k, "guards", False))
    out += [bundle_source(b, profile.name).model_copy(update={"kinds": guards, "switched_off_by": b.switched_off_by})
            for b in [*bundles, *replaced] if guards and b.state != "active" and b.switched_off_by]
    return out + diags


def _absent(base: str, rel: str) -> bool:
    """Nothing at ``base/rel`` and no link or unreadable folder on the way there (each
    component of ``rel`` looked at with ``lstat``)."""
    import os
    import stat

    cur = base
    for part in rel.split("/"):
        cur = os.path.join(cur, part)
        try:
            st = os.lstat(cur)
        except FileNotFoundError:
            return True
        except OSError:
            return False
        if not stat.S_ISDIR(st.st_mode):  # a link, or a file where a folder would be
            return False
    return False  # it exists


def nothing_to_find(binding, profile, layers, diags) -> bool:
    """True when discovery (:func:`wskit.builtin_plugins.bundles.active.find_bundles`) can find
    no plugin and report nothing of its own: no ``plugins`` folder in any config folder of the
    home or the project, no plugin ledger, no ``plugin_dirs`` setting, no settings layer with
    ``enabledPlugins`` and no unusable managed settings (each path free of links, which
    discovery would report). Exact: ``tests/core/util/test_idle_hooks.py`` compares it with
    discovery itself. ``layers``/``diags``: what ``settings_layers`` answered."""
    from wskit.formats.settings import config_dirs

    if profile.settings.get("plugin_dirs"):
        return False
    if any("enabledPlugins" in layer.data for layer in layers):
        return False
    if any(d.code == "managed-settings-invalid" for d in diags):
        return False
    home = str(profile.home)
    dirs = config_dirs(profile)
    if not _absent(home, f"{profile.host_dir}/plugin-ledger.json"):
        return False
    if not all(_absent(home, f"{d}/plugins") for d in dirs):
        return False
    return binding is None or all(_absent(str(binding.source_root), f"{d}/plugins") for d in dirs)


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
