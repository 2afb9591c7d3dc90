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
    assert ex["builtin"] is False and ex["error"] is None
    assert ex["hooks"] == ["wskit_register_commands", "wskit_resource_kinds", "wskit_resource_sources"]


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


PROMPT = "---\ndescription: {d}\n---\n{b}\n"


@pytest.fixture
def prompts_project(make_tree):
    return make_tree({
        ".example/prompts/review.md": PROMPT.format(d="Review a diff", b="Review it."),
        ".claude/prompts/greet.md": "Say hello.\n",
        ".claude/plugins/kit/.claude-plugin/plugin.json": '{"name": "kit", "prompts": ["./mine"]}',
        ".claude/plugins/kit/mine/summary.md": PROMPT.format(d="Summarize", b="Summarize the thread."),
        ".claude/plugins/kit/prompts/unread.md": "replaced by ./mine\n",
        ".claude/plugins/plain/.claude-plugin/plugin.json": '{"name": "plain"}',
        ".claude/plugins/plain/prompts/fix.md": "Fix the bug.\n",
    })


def test_prompts_list_reads_the_project_and_its_bundles(wsctl, pm_with_entrypoints, prompts_project):
    wsctl("trust", "grant", str(prompts_project), pm=pm_with_entrypoints)
    data = json.loads(wsctl("prompts", "list", str(prompts_project), json=True, pm=pm_with_entrypoints).stdout)
    assert [(p["id"], p["path"], p["plugin"]) for p in data["prompts"]] == [
        ("plugin:kit:summary", ".claude/plugins/kit/mine/summary.md", "kit"),
        ("plugin:plain:fix", ".claude/plugins/plain/prompts/fix.md", "plain"),
        ("project:greet", ".claude/prompts/greet.md", None),
        ("project:review", ".example/prompts/review.md", None),
    ]
    assert data["diagnostics"] == []
    human = wsctl("prompts", "list", str(prompts_project), pm=pm_with_entrypoints).stdout
    assert "project:review" in human and "Review a diff" in human and "unread" not in human
    shown = json.loads(wsctl("prompts", "show", "kit:summary", str(prompts_project), json=True,
                             pm=pm_with_entrypoints).stdout)
    assert shown["id"] == "plugin:kit:summary" and shown["body"] == "Summarize the thread."


def test_prompts_of_an_untrusted_project_are_not_read(wsctl, pm_with_entrypoints, prompts_project):
    data = json.loads(wsctl("prompts", "list", str(prompts_project), json=True, pm=pm_with_entrypoints).stdout)
    assert data["prompts"] == []
    assert wsctl("prompts", "list", str(prompts_project), pm=pm_with_entrypoints).stdout.startswith("no prompts")


def test_disabling_the_plugin_removes_the_prompt_kind(wsctl, prompts_project):
    pm = make_plugin_manager(env={"WSKIT_DISABLE_PLUGINS": "example"})
    assert wsctl("prompts", "list", str(prompts_project), pm=pm).exit_code == 2
