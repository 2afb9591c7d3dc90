"""Functions imported on their first call, so that registering a plugin does not
import its engine.

A built-in plugin's module is imported for every ``wsctl`` start (pluggy registers
its hook implementations); the loaders, parsers and value classes behind those hooks
are needed only when a hook runs. ``deferred("pkg.loader:load_x")`` is a plain
function that imports ``pkg.loader`` when first called and forwards to ``load_x``.

A loader needs its engine only when the source holds something for it. A built-in
declares what that is with :func:`idle_unless`: ``idle_unless("pkg.loader:load_x",
folders_present(KIND))`` imports the loader only for a source where one of the kind's
folders exists (:func:`folders_present`), :func:`definitions_present` for a kind read
from a definitions file at a project's root or from a config folder's settings files. When the declaration says "nothing there" the hook answers an empty
:class:`~wskit.models.LoadResult` without importing anything; the declaration must be
exact (the engine answers the same empty result for every such source), which
``tests/core/util/test_idle_hooks.py`` checks for each built-in that declares one. Every
look a declaration takes goes through :func:`wskit.changes.lstat`, so a cached load that
was idle for a source goes stale when the kind's folder or file appears there.
"""

from __future__ import annotations

import importlib
import os
import stat
from collections.abc import Callable
from typing import Any

from wskit import changes

__all__ = ["deferred", "definitions_present", "folders_present", "idle_unless", "import_target", "lazy_exports"]

def import_target(target: str) -> Any:
    """The object ``target`` names: ``"module:attr.sub"`` imports ``module`` and looks the
    dotted ``attr`` up; ``"module"`` alone is the module (the syntax of an entry point's
    value, extras left out; blanks around the parts ignored).

    :raises ImportError, AttributeError: as the import or lookup does.
    """
    module, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module.strip())
    for part in filter(None, attr.strip().split(".")):
        obj = getattr(obj, part)
    return obj


def deferred(target: str) -> Callable[..., Any]:
    """A function calling ``attr`` of ``module`` (``target`` is ``"module:attr"``),
    importing the module on the first call.

    :raises ImportError, AttributeError: on the first call, as the import or lookup does.
    """
    module, _, attr = target.partition(":")
    found: list[Callable[..., Any]] = []

    def call(*args: Any, **kwargs: Any) -> Any:
        if not found:
            found.append(import_target(target))
        return found[0](*args, **kwargs)

    call.__name__ = call.__qualname__ = attr
    call.__module__ = module
    call.__doc__ = f"``{target}``, imported on its first call."
    return call


def folders_present(kind: Any) -> Callable[[Any], bool]:
    """The idle declaration of a folder kind (``kind``: its
    :class:`~wskit.kinds.ResourceKind`): a source may hold something for it when it is a
    plugin's (its manifest may name other folders), when its root is a link (reported), or
    when something stands at the first component of one of the kind's folders there
    (:func:`wskit.formats.mdwalk.component_dirs`: ``agents``, ``output-styles``…)."""

    def needs(source: Any) -> bool:
        if source.plugin:
            return True
        st = changes.lstat(source.root)
        if st is None:
            return False
        if stat.S_ISLNK(st.st_mode):
            return True
        from wskit.formats.mdwalk import component_dirs

        return any(changes.lexists(os.path.join(source.root, d.split("/", 1)[0]))
                   for d in component_dirs(source, kind))

    return needs


def definitions_present(source: Any, default_file: str) -> bool:
    """Whether ``source`` may hold definitions of a kind read as
    :func:`wskit.formats.definitions.blocks` reads them: always for a plugin (its
    manifest may hold them inline); for a source at a project's root, ``default_file``
    there (``.mcp.json``); for a config folder, its ``settings.json`` or
    ``settings.local.json`` (or the folder being a link, which is reported)."""
    if source.plugin:
        return True
    st = changes.lstat(source.root)
    if st is None:
        return False
    if os.path.normpath(source.root) == os.path.normpath(source.base):
        return changes.lexists(os.path.join(source.base, default_file))
    return (stat.S_ISLNK(st.st_mode) or changes.lexists(os.path.join(source.root, "settings.json"))
            or changes.lexists(os.path.join(source.root, "settings.local.json")))


def idle_unless(target: str, needs: Callable[[Any], bool],
                idle: Callable[[Any], Any] | None = None) -> Callable[..., Any]:
    """A function ``(first, …)`` that calls ``target`` (imported on first use, as
    :func:`deferred`) only when ``needs(first)``; otherwise ``idle(first)`` — by default an
    empty :class:`~wskit.models.LoadResult` (a loader's ``source``) — with nothing imported.
    A kind's filter, ``(resources, profile)``, declares ``needs=bool`` (no resources, nothing
    to filter)."""
    call = deferred(target)

    def load(first: Any, *args: Any, **kwargs: Any) -> Any:
        if not needs(first):
            if idle is not None:
                return idle(first)
            from wskit.models import LoadResult

            return LoadResult()
        return call(first, *args, **kwargs)

    load.__name__ = load.__qualname__ = call.__name__
    load.__module__ = call.__module__
    load.__doc__ = f"``{target}`` when the source holds something for it (imported then)."
    return load


def lazy_exports(package: str, names: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) for a capability's package: the public names it
    exports from its submodules, each imported on first access and then kept in the
    package's namespace, so that registering the plugin imports none of them.

    :param package: the package's ``__name__``.
    :param names: public name -> ``"submodule:attr"`` (relative to ``package``).
    :raises AttributeError: from the returned function, for any other name.
    """
    def __getattr__(name: str) -> Any:
        target = names.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = import_target(f"{package}.{target}")
        import sys

        vars(sys.modules[package])[name] = value
        return value

    return __getattr__
