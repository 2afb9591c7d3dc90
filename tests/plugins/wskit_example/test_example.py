"""The first-party example plugin, installed for real (README command 2 installs ./plugins/*)."""

import json

import pytest

from tests.conftest import skill_md
from wskit.plugin.manager import make_plugin_manager


@pytest.fixture
def pm_with_entrypoints():
    try:
        import wskit_example  # noqa: F401
    except ImportError:
        pytest.fail("plugins/wskit-example is not installed: run README command 2 (pip install ./plugins/*)")
    return make_plugin_manager(env={})


@pytest.fixture
def project(make_tree):
    return make_tree({
        ".example/skills/greet/SKILL.md": skill_md("greet", "From the example source."),
        ".claude/skills/greet/SKILL.md": skill_md("greet", "From .claude."),
    })


def test_listed_in_wsctl_plugins(wsctl, pm_with_entrypoints, project):
    data = json.loads(wsctl("plugins", "--path", str(project), json=True, pm=pm_with_entrypoints).stdout)
    ex = next(p for p in data["plugins"] if p["name"] == "example")
    assert ex["distribution"] == "wskit-example" and ex["version"] == "0.1.0"
    assert ex["builtin"] is False and ex["hooks"] == ["wskit_resource_sources"] and ex["error"] is None


def test_its_source_shows_in_inspect_when_trusted(wsctl, pm_with_entrypoints, project):
    wsctl("trust", "grant", str(project), pm=pm_with_entrypoints)
    data = json.loads(wsctl("inspect", str(project), json=True, pm=pm_with_entrypoints).stdout)
    (greet,) = [r for r in data["resources"] if r["name"] == "greet"]
    assert greet["path"] == ".example/skills/greet/SKILL.md" and greet["id"] == "project:greet"
    assert any(d["code"] == "shadowed" and ".claude/skills/greet" in d["path"] for d in data["diagnostics"])


def test_untrusted_project_gets_nothing_from_it(wsctl, pm_with_entrypoints, project):
    data = json.loads(wsctl("inspect", str(project), json=True, pm=pm_with_entrypoints).stdout)
    assert not [r for r in data["resources"] if r["name"] == "greet"]


def test_disable_env_removes_it(wsctl, project):
    pm = make_plugin_manager(env={"WSKIT_DISABLE_PLUGINS": "example"})
    wsctl("trust", "grant", str(project), pm=pm)
    data = json.loads(wsctl("inspect", str(project), json=True, pm=pm).stdout)
    (greet,) = [r for r in data["resources"] if r["name"] == "greet"]
    assert greet["path"] == ".claude/skills/greet/SKILL.md"
