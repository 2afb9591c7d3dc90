"""Testing helpers for wskit and its plugins, registered as a pytest plugin
(entry point ``pytest11: wskit = wskit.testing``).

Fixtures:

- ``wskit_home`` — a fresh user home folder (``tmp_path / "home"``); never the real one;
- ``wskit_pm`` — a fresh plugin manager *without* entry points (built-ins only);
- ``wskit_profile`` — ``HostProfile(name="wskit", home=wskit_home)``;
- ``make_tree`` — ``make_tree({"a/b.md": "text", "c/": None}, root=None) -> Path``
  writes files (str or bytes) and folders under ``tmp_path / "ws"`` by default;
- ``wsctl`` — ``wsctl(*args, home=None, json=False, pm=None, input=None, env=None)
  -> click.testing.Result`` running the CLI in-process with ``--home`` set to
  ``wskit_home`` and the plugin manager ``pm`` (default ``wskit_pm``); stdout
  and stderr are separate (``result.stdout``, ``result.stderr``).

And :func:`register_plugin`, a context manager that registers a plugin object
on a manager and unregisters it on exit.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

__all__ = ["make_tree", "register_plugin", "write_tree", "wsctl", "wskit_home", "wskit_pm", "wskit_profile"]


@contextlib.contextmanager
def register_plugin(pm, plugin: object, name: str | None = None) -> Iterator[object]:
    """Register ``plugin`` on ``pm`` for the duration of the block, checked the
    way entry points are (an unknown ``wskit_*`` hook or argument raises
    :class:`pluggy.PluginValidationError` at once) and listed by ``wsctl plugins``.
    The plugin is unregistered on exit, also when the block raises.

    :param pm: a manager from :func:`wskit.plugin.manager.make_plugin_manager`
        (or any pluggy manager: then plain ``register``).
    :param name: the plugin name (default: pluggy's canonical name).
    :returns: the plugin object.
    """
    register = getattr(pm, "register_checked", None)
    if register is None:
        name = pm.register(plugin, name=name)
    else:
        from wskit.plugin.manager import PluginInfo

        name = name or getattr(plugin, "__name__", None) or pm.get_canonical_name(plugin)
        register(plugin, name)
        pm.info[name] = PluginInfo(name=name)
    try:
        yield plugin
    finally:
        if pm.is_registered(plugin):
            pm.unregister(plugin)
        info = getattr(pm, "info", None)
        if isinstance(info, dict):
            info.pop(name, None)


def write_tree(root: Path, files: Mapping[str, str | bytes | None]) -> Path:
    """Write ``files`` under ``root``: a str or bytes value is a file's content,
    ``None`` (or a key ending in ``/``) makes a folder. Returns ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        target = root / rel
        if content is None or rel.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


@pytest.fixture
def wskit_home(tmp_path: Path) -> Path:
    """A fresh, empty user home."""
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.fixture
def wskit_pm():
    """A fresh plugin manager with the built-ins and no entry points."""
    from wskit.plugin.manager import make_plugin_manager

    return make_plugin_manager(load_entrypoints=False, env={})


@pytest.fixture
def wskit_profile(wskit_home: Path):
    """The default host profile bound to ``wskit_home``."""
    from wskit.host import HostProfile

    return HostProfile(name="wskit", home=wskit_home)


@pytest.fixture
def make_tree(tmp_path: Path):
    """Factory: ``make_tree(files, root=None) -> Path`` (default root ``tmp_path/'ws'``)."""

    def _make(files: Mapping[str, str | bytes | None], root: Path | None = None) -> Path:
        return write_tree(root or tmp_path / "ws", files)

    return _make


@pytest.fixture
def wsctl(wskit_home: Path, wskit_pm):
    """Run ``wsctl`` in-process: ``wsctl("inspect", str(path), json=True)``.

    Uses ``wskit_pm`` (no entry points) unless ``pm=`` is given; ``home=``
    overrides the home; ``--json`` is added when ``json=True``; ``env=`` sets
    environment variables for the run only.
    """
    from click.testing import CliRunner

    from wskit.cli import make_cli

    def _run(*args: str, home: Path | None = None, json: bool = False, pm=None, input: str | None = None,
             env: Mapping[str, str] | None = None):
        argv = ["--home", str(home or wskit_home)]
        if json:
            argv.append("--json")
        argv.extend(args)
        runner = CliRunner()
        return runner.invoke(make_cli(pm if pm is not None else wskit_pm), argv, input=input,
                             catch_exceptions=False, env=dict(env) if env else None)

    return _run
