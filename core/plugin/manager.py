"""The plugin manager factory (design §6, reference/aesthetics.md §8).

:func:`make_plugin_manager` builds a *fresh* manager every call (never at
import time):

1. hookspecs from :mod:`wskit.plugin.spec`;
2. ``WSKIT_DISABLE_PLUGINS=a,b`` blocks those names (built-ins too); names that
   are neither a built-in nor an entry point of group ``wskit`` (a typo, a
   distribution name) are named in one stderr warning;
3. entry points of group ``wskit``, each loaded in its own failure path: a
   plugin that fails to import or register becomes a :class:`PluginLoadFailure`
   naming its distribution, one line goes to stderr, and the rest load
   (``WSKIT_STRICT_PLUGINS=1`` re-raises instead). ``WSKIT_LOAD_PLUGINS=a,b``
   loads only those entry points or distributions; set and empty, none;
4. the built-ins of :data:`DEFAULT_PLUGINS`, registered *after* entry points
   with the same ``register`` call (pluggy is LIFO, so built-ins run first).
   An entry point with a built-in's name replaces that built-in.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections.abc import Iterable, Mapping
from types import FunctionType, ModuleType
from typing import Any

import pluggy

from wskit.errors import PluginLoadError
from wskit.plugin import NAME, spec
from wskit.values import FrozenValue, Value

__all__ = ["DEFAULT_PLUGINS", "make_plugin_manager", "PluginInfo", "PluginLoadFailure",
           "WskitPluginManager"]


_PREFIX = f"{NAME}_"
#: the attribute pluggy's ``HookimplMarker("wskit")`` sets on an implementation
_IMPL_MARKER = f"{NAME}_impl"

#: Built-in plugins: (registered name, module).
DEFAULT_PLUGINS: tuple[tuple[str, str], ...] = (
    ("trust", "wskit.builtin_plugins.trust"),
    ("sources", "wskit.builtin_plugins.sources"),
    ("skills", "wskit.builtin_plugins.skills"),
    ("admin_skills", "wskit.builtin_plugins.admin_skills"),
    ("commands", "wskit.builtin_plugins.commands"),
    ("agents", "wskit.builtin_plugins.agents"),
    ("styles", "wskit.builtin_plugins.styles"),
    ("workspaces", "wskit.builtin_plugins.workspaces"),
    ("bundles", "wskit.builtin_plugins.bundles"),
    ("mcp", "wskit.builtin_plugins.mcp"),
    ("lsp", "wskit.builtin_plugins.lsp"),
    ("hooks", "wskit.builtin_plugins.hooks"),
    ("rules", "wskit.builtin_plugins.rules"),
    ("permissions", "wskit.builtin_plugins.permissions"),
    ("export", "wskit.builtin_plugins.export"),
    ("runtime", "wskit.builtin_plugins.runtime"),
)


class PluginLoadFailure(FrozenValue):
    """An entry point that could not be loaded.

    :ivar name: entry-point name.
    :ivar distribution: distribution that declares it (``None`` if unknown).
    :ivar version: that distribution's version.
    :ivar entry_point: ``module:attr`` value of the entry point.
    :ivar error: ``ExceptionType: message``.
    """

    name: str
    distribution: str | None
    version: str | None
    entry_point: str
    error: str


class PluginInfo(Value):
    """What ``wsctl plugins`` shows about one registered plugin (a plain class, so start-up
    compiles nothing: see :mod:`wskit.values`).

    :ivar seconds: import plus registration time in seconds.
    :ivar import_seconds: time to import the plugin's module (entry point
        ``load()``), in seconds (~0 when it was already imported).
    :ivar register_seconds: time to register and validate it, in seconds.
    """

    __slots__ = ("__weakref__",)
    name: str
    distribution: str | None
    version: str | None
    builtin: bool
    seconds: float
    import_seconds: float
    register_seconds: float

    def __init__(self, name: str, distribution: str | None = None, version: str | None = None, builtin: bool = False,
                 seconds: float = 0.0, import_seconds: float = 0.0, register_seconds: float = 0.0) -> None:
        self.name = name
        self.distribution = distribution
        self.version = version
        self.builtin = builtin
        self.seconds = seconds
        self.import_seconds = import_seconds
        self.register_seconds = register_seconds


class WskitPluginManager(pluggy.PluginManager):
    """A pluggy manager that only takes ``wskit_``-prefixed attributes as hook
    implementations and records load failures, provenance and hook failures.

    :ivar load_failures: entry points that failed to load.
    :ivar info: :class:`PluginInfo` per registered plugin name.
    :ivar hook_failures: plugin name -> ``"hook: error"`` strings recorded by
        :class:`~wskit.plugin.facade.WskitHooks` when an implementation raised.
    :ivar strict: re-raise load and hook failures (``WSKIT_STRICT_PLUGINS=1``).
    """

    def __init__(self) -> None:
        super().__init__(NAME)
        self.load_failures: list = []  # of PluginLoadFailure
        self.info: dict[str, PluginInfo] = {}
        self.hook_failures: dict[str, list[str]] = {}
        self.strict = False
        #: hook names of the implementations the registration in progress found
        self._found: list[str] = []

    def parse_hookimpl_opts(self, plugin: Any, name: str):  # type: ignore[override]
        """pluggy's answer for ``wskit_*`` attributes, None for any other.

        A plain function in a module's own namespace (every built-in's, and most plugins')
        is answered from its ``wskit_impl`` marker here: what pluggy's static lookup
        (``inspect.getattr_static``, ≈ 10 µs an attribute) finds for it, without the walk of
        the module type's attributes. Anything else (instances, classes, static or class
        methods, a marker that is not a dict) goes through pluggy
        (``tests/core/plugin/test_manager.py`` compares both over every plugin)."""
        if not name.startswith(_PREFIX):
            return None
        opts: Any = None
        value = plugin.__dict__.get(name) if type(plugin) is ModuleType else None
        if type(value) is FunctionType and not hasattr(value, "__func__"):
            opts = getattr(value, _IMPL_MARKER, None)
            if opts is not None and not isinstance(opts, dict):
                opts = super().parse_hookimpl_opts(plugin, name)
        else:
            opts = super().parse_hookimpl_opts(plugin, name)
        if opts is not None:
            self._found.append(opts.get("specname") or name)
        return opts

    def register_checked(self, plugin: object, name: str) -> None:
        """Register ``plugin`` and verify every ``wskit_*`` implementation names
        a known hookspec with known arguments and is a plain implementation; roll
        back on failure.

        :class:`~wskit.plugin.facade.WskitHooks` calls each implementation on its own
        (so one failing plugin cannot take a hook down), which leaves no place for a
        pluggy wrapper: a ``wrapper=True`` or ``hookwrapper=True`` implementation is
        refused here rather than registered and never called.

        :raises pluggy.PluginValidationError: for an unknown hook or argument, or a wrapper.
        """
        self._found = []
        registered = self.register(plugin, name=name)
        found = set(self._found) if registered is not None else set()
        self._found = []
        try:
            # the hook callers holding an implementation of this plugin (pluggy's
            # get_hookcallers, in its order, without scanning every implementation of every hook)
            for hookcaller in [hc for hc in vars(self.hook).values() if hc.name in found]:
                if not hookcaller.has_spec():
                    raise pluggy.PluginValidationError(
                        plugin, f"unknown hook {hookcaller.name!r} in plugin {name!r}"
                    )
                for impl in hookcaller.get_hookimpls():
                    if impl.plugin is plugin and (getattr(impl, "wrapper", False)
                                                  or getattr(impl, "hookwrapper", False)):
                        raise pluggy.PluginValidationError(
                            plugin, f"{hookcaller.name!r} of plugin {name!r} is a hook wrapper; wskit calls "
                            "every implementation on its own and does not run wrappers")
        except BaseException:
            self.unregister(plugin)
            raise


def _env_list(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]


def make_plugin_manager(
    load_entrypoints: bool = True,
    *,
    builtins: bool = True,
    plugins: Iterable[object] = (),
    env: Mapping[str, str] | None = None,
    state_dir: str | os.PathLike[str] | None = None,
) -> WskitPluginManager:
    """Build a fresh plugin manager.

    :param load_entrypoints: load entry points of group ``wskit`` (tests pass False).
    :param builtins: register :data:`DEFAULT_PLUGINS`.
    :param plugins: extra plugin objects (modules, instances) registered last
        (so they run first); their name is ``getattr(obj, "__name__", None)``.
    :param env: environment to read ``WSKIT_*`` from (default ``os.environ``).
    :param state_dir: the wskit state folder (``<home>/.wskit``, what ``wsctl``
        passes): the entry points are then read once per environment and kept in
        ``<state_dir>/cache/entry-points.json`` (:mod:`wskit.plugin.epcache`); None
        reads them with ``importlib.metadata`` every time.
    :returns: a :class:`WskitPluginManager`.
    :raises PluginLoadError: only with ``WSKIT_STRICT_PLUGINS=1``.
    """
    env = os.environ if env is None else env
    pm = WskitPluginManager()
    pm.add_hookspecs(spec)
    pm.strict = env.get("WSKIT_STRICT_PLUGINS", "") not in ("", "0", "false", "no")
    disabled = _env_list(env.get("WSKIT_DISABLE_PLUGINS")) or []
    for name in disabled:
        pm.set_blocked(name)
    if load_entrypoints:
        seen = _load_entrypoints(pm, _env_list(env.get("WSKIT_LOAD_PLUGINS")), state_dir)
        if disabled:
            _warn_unknown_disabled(disabled, seen | {n for n, _ in DEFAULT_PLUGINS}
                                   | {getattr(o, "__name__", None) for o in plugins})
    if builtins:
        for name, module in DEFAULT_PLUGINS:
            if pm.is_blocked(name) or pm.has_plugin(name):
                continue
            t0 = time.perf_counter()
            mod = importlib.import_module(module)
            t1 = time.perf_counter()
            pm.register_checked(mod, name)
            t2 = time.perf_counter()
            pm.info[name] = PluginInfo(
                name=name, distribution="wskit", version=_own_version(), builtin=True,
                seconds=t2 - t0, import_seconds=t1 - t0, register_seconds=t2 - t1,
            )
    for obj in plugins:
        name = getattr(obj, "__name__", None) or pm.get_canonical_name(obj)
        pm.register_checked(obj, name)
        pm.info[name] = PluginInfo(name=name)
    return pm


def _warn_unknown_disabled(disabled: list[str], known: set[str | None]) -> None:
    """One stderr line naming the ``WSKIT_DISABLE_PLUGINS`` names that match no
    plugin in ``known`` (built-ins, entry-point names, extra plugins): blocking
    them does nothing, and a typo would otherwise leave the plugin loaded in
    silence. Only when entry points were scanned: without
    them a name cannot be known to match nothing."""
    unknown = [n for n in dict.fromkeys(disabled) if n not in known]
    if unknown:
        print(f"wskit: WSKIT_DISABLE_PLUGINS names no plugin called {', '.join(map(repr, unknown))} "
              "(names are those of built-ins and of entry points of group 'wskit', as 'wsctl plugins' lists "
              "them); ignored", file=sys.stderr)


def _own_version() -> str:
    from wskit import __version__

    return __version__


def _entry_points(state_dir: str | os.PathLike[str] | None = None) -> list[Any]:
    """``importlib.metadata.entry_points(group="wskit")``, as a list (kept in
    ``state_dir`` when given: :func:`wskit.plugin.epcache.cached_entry_points`).

    The library call, not a faster walk of our own: it parses every installed
    distribution's ``entry_points.txt`` (≈ half of what this call costs), but its
    de-duplication and metadata rules are the ones packaging tools follow, which a
    faster scan of our own would have to match (measurements in docs/performance.md).
    """
    from wskit.plugin.epcache import cached_entry_points

    return cached_entry_points(NAME, state_dir)


def _load_entrypoints(pm: WskitPluginManager, only: list[str] | None,
                      state_dir: str | os.PathLike[str] | None = None) -> set[str]:
    """Load the entry points of group ``wskit`` (see the module doc).

    :returns: the names of every entry point of the group, loaded or not.
    """
    names: set[str] = set()
    for ep in _entry_points(state_dir):
        names.add(ep.name)
        dist = getattr(ep, "dist", None)
        dist_name = getattr(dist, "name", None) if dist is not None else None
        version = getattr(dist, "version", None) if dist is not None else None
        if only is not None and ep.name not in only and (dist_name not in only):
            continue
        if pm.is_blocked(ep.name) or pm.has_plugin(ep.name):
            continue
        t0 = t1 = time.perf_counter()
        try:
            obj = ep.load()
            t1 = time.perf_counter()
            pm.register_checked(obj, ep.name)
        except Exception as err:  # each entry point has its own failure path
            if pm.strict:
                raise PluginLoadError(
                    f"plugin {ep.name!r} from distribution {dist_name!r} failed to load: {err}"
                ) from err
            failure = PluginLoadFailure(
                name=ep.name,
                distribution=dist_name,
                version=version,
                entry_point=ep.value,
                error=f"{type(err).__name__}: {err}",
            )
            pm.load_failures.append(failure)
            print(
                f"wskit: plugin {ep.name!r} (distribution {dist_name or '?'}) failed to load: {failure.error}",
                file=sys.stderr,
            )
            continue
        t2 = time.perf_counter()
        pm.info[ep.name] = PluginInfo(
            name=ep.name, distribution=dist_name, version=version, seconds=t2 - t0,
            import_seconds=t1 - t0, register_seconds=t2 - t1,
        )
    return names
