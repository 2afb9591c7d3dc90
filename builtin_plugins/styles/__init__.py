"""Built-in plugin ``styles``: output styles (see :mod:`wskit.builtin_plugins.styles.loader`, :mod:`wskit.builtin_plugins.styles.catalog`).

wskit itself contributes no built-in style; hosts add theirs by implementing
``wskit_builtin_styles``.
"""

from __future__ import annotations

from wskit.plugin import hookimpl
from wskit.builtin_plugins.styles.loader import STYLE_FOLDERS, load_styles


@hookimpl
def wskit_resource_kinds():
    return [STYLE_FOLDERS.model_copy(update={"hook": "wskit_load_styles"})]


@hookimpl
def wskit_load_styles(source):
    return load_styles(source)


@hookimpl
def wskit_register_commands(cli):
    """Add ``styles`` to ``wsctl`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "styles", "wskit.builtin_plugins.styles.cli:styles_group",
                     "Output styles: user:<key>, project:<key>, plugin:<plugin>:<key> and built-ins.")
