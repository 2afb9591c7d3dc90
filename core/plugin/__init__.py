"""wskit's plugin system: pluggy markers and the project name.

Write a plugin in three steps::

    # my_plugin.py
    import wskit

    @wskit.hookimpl
    def wskit_resource_sources(binding, profile, trust):
        return [wskit.ResourceSource(scope="user", root=..., base=..., rank=15)]

    # pyproject.toml
    [project.entry-points.wskit]
    my-plugin = "my_plugin"

Hooks are listed in :mod:`wskit.plugin.spec`; the manager is built by
:func:`wskit.plugin.manager.make_plugin_manager`; host code calls hooks only
through the typed facade :class:`wskit.plugin.facade.WskitHooks`.
"""

from __future__ import annotations

import pluggy

#: Project name: pluggy project name, entry-point group and hook prefix ``wskit_``.
NAME = "wskit"

hookspec = pluggy.HookspecMarker(NAME)
hookimpl = pluggy.HookimplMarker(NAME)

__all__ = ["NAME", "hookimpl", "hookspec"]
