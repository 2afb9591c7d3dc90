"""The first-party example plugin, installed for real (README command 2 installs ./plugins/*)."""

import json

import pytest

from wskit.plugin.manager import make_plugin_manager


@pytest.fixture
def pm_with_entrypoints():
    try:
        import wskit_example  # noqa: F401
    except ImportError:
        pytest.fail("plugins/wskit-example is not installed: run README command 2 (pip install ./plugins/*)")
    return make_plugin_manager(env={})


def test_listed_in_wsctl_plugins(wsctl, pm_with_entrypoints):
    data = json.loads(wsctl("plugins", json=True, pm=pm_with_entrypoints).stdout)
    ex = next(p for p in data["plugins"] if p["name"] == "example")
    assert ex["distribution"] == "wskit-example" and ex["version"] == "0.1.0"
    assert ex["builtin"] is False and ex["hooks"] == ["wskit_resource_sources"] and ex["error"] is None


def test_its_source_shows_in_inspect(wsctl, pm_with_entrypoints, make_tree):
    root = make_tree({"README.md": "x"})
    data = json.loads(wsctl("inspect", str(root), json=True, pm=pm_with_entrypoints).stdout)
    ex = next(r for r in data["resources"] if r["name"] == "example-greeting")
    assert ex["id"] == "builtin:example-greeting" and ex["scope"] == "builtin"


def test_disable_env_removes_it(wsctl, make_tree):
    pm = make_plugin_manager(env={"WSKIT_DISABLE_PLUGINS": "example"})
    root = make_tree({"README.md": "x"})
    data = json.loads(wsctl("inspect", str(root), json=True, pm=pm).stdout)
    assert not any(r["name"] == "example-greeting" for r in data["resources"])
