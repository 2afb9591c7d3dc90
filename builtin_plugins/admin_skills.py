"""Built-in plugin ``admin_skills``: the admin-installed skills root (see :mod:`wskit.builtin_plugins.skills.admin`).

Contributes one ``admin`` source (rank 40, skills only, following no links)
whose ``names`` are the slugs the manifest ``<home>/.wskit/skills.toml``
enables. A corrupt manifest raises, which the hook facade turns into a
``hook-failed`` diagnostic naming this plugin: no admin skill loads (fail closed).
"""

from __future__ import annotations

from wskit.plugin import hookimpl

__all__ = ["wskit_resource_sources"]


@hookimpl
def wskit_resource_sources(binding, profile, trust):
    from wskit.builtin_plugins.skills.admin import ADMIN_RANK, admin_root, enabled_slugs  # when a workspace loads
    from wskit.models import ResourceSource, Scope

    root = admin_root(profile)
    return [
        ResourceSource(
            scope=Scope.ADMIN, root=str(root), base=str(root), rank=ADMIN_RANK, label="admin",
            components={"skill": (".",)}, kinds=frozenset({"skill"}), names=enabled_slugs(profile),
        )
    ]
