"""Functions imported on their first call, so that registering a plugin does not
import its engine.

A built-in plugin's module is imported for every ``wsctl`` start (pluggy registers
its hook implementations); the loaders, parsers and value classes behind those hooks
are needed only when a hook runs. ``deferred("pkg.loader:load_x")`` is a plain
function that imports ``pkg.loader`` when first called and forwards to ``load_x``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["deferred", "import_target"]


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
