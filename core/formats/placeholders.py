"""Placeholder expansion for server and hook definitions.

- ``${CLAUDE_PLUGIN_ROOT}`` and ``${<HOST>_PLUGIN_ROOT}`` expand to a plugin's
  root (Claude Code reference/conventions.md §1.10, Blade reference/blade.md §8.8);
- ``${VAR}`` and ``${VAR:-default}`` expand from an environment mapping
  (Claude Code's ``.mcp.json`` rule, §1.9). An undefined variable without a
  default stays literal and is reported, so the caller can refuse to start it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from wskit.util.lazyre import lazy_pattern

__all__ = ["expand", "expand_tree", "plugin_root_vars", "variables"]


_VAR = lazy_pattern(globals(), "_VAR", r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def plugin_root_vars(root: str | None, host: str | None) -> dict[str, str]:
    """The plugin-root placeholders for ``root``: ``CLAUDE_PLUGIN_ROOT`` and,
    when ``host`` is given, ``<HOST>_PLUGIN_ROOT`` (``BLADE_PLUGIN_ROOT``)."""
    if not root:
        return {}
    out = {"CLAUDE_PLUGIN_ROOT": root}
    if host:
        out[f"{host.upper().replace('-', '_')}_PLUGIN_ROOT"] = root
    return out


def expand(value: str, env: Mapping[str, str] | None, fixed: Mapping[str, str] | None = None,
           missing: list[str] | None = None) -> str:
    """Expand placeholders in one string.

    :param value: the text.
    :param env: variables for ``${VAR}``/``${VAR:-default}``; None expands only ``fixed``.
    :param fixed: placeholders that always expand (plugin roots); they win over ``env``.
    :param missing: when given, names of undefined variables without default are
        appended (the placeholder stays literal).
    :returns: the expanded text.
    """
    fixed = fixed or {}

    def sub(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        if name in fixed:
            return fixed[name]
        if env is None:
            return m.group(0)
        if name in env and (env[name] != "" or default is None):
            return env[name]
        if default is not None:
            return default
        if missing is not None and name not in missing:
            missing.append(name)
        return m.group(0)

    return _VAR.sub(sub, value)


def expand_tree(value: Any, env: Mapping[str, str] | None, fixed: Mapping[str, str] | None = None,
                missing: list[str] | None = None) -> Any:
    """:func:`expand` applied to every string inside lists and dict values (keys untouched)."""
    if isinstance(value, str):
        return expand(value, env, fixed, missing)
    if isinstance(value, list):
        return [expand_tree(v, env, fixed, missing) for v in value]
    if isinstance(value, dict):
        return {k: expand_tree(v, env, fixed, missing) for k, v in value.items()}
    return value


def variables(value: Any, fixed: Mapping[str, str] | None = None) -> list[str]:
    """Names of the ``${VAR}`` placeholders in every string of ``value`` (lists and dict
    values walked, keys untouched), in first-seen order, ``fixed`` names left out."""
    found: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, str):
            for m in _VAR.finditer(v):
                if m.group(1) not in found and m.group(1) not in (fixed or {}):
                    found.append(m.group(1))
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)

    walk(value)
    return found
