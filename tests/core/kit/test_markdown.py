"""wskit.kit.markdown: a throwaway markdown kind registered in-process gets its
loader, its registry and ``wsctl <plural> list|show`` from one declaration."""

from __future__ import annotations

import json

import pytest

from wskit.kinds import ResourceKind
from wskit.kit.markdown import MarkdownKind
from wskit.testing import register_plugin, write_tree

MEMOS = MarkdownKind("memo", help="Memos: memos/*.md of every source.")

MEMO = "---\ndescription: {d}\naudience: team\n---\n{b}\n"


@pytest.fixture
def project(make_tree, wsctl):
    root = make_tree({
        ".claude/memos/standup.md": MEMO.format(d="Daily standup notes", b="Say what you did."),
        ".claude/memos/team/retro.md": "# Retro\n\nWhat went well.\n",  # no frontmatter: first line
        ".claude/memos/bad name.md": "x\n",
        ".claude/memos/long.md": MEMO.format(d="y" * 1025, b="b"),
        ".claude/memos/bidi.md": MEMO.format(d="ok", b="look \u202eright"),
        ".claude/memos/broken.md": "---\ndescription: \"unclosed\n---\nb\n",
        ".agents/memos/ignored.md": "skills only in .agents\n",
    })
    wsctl("trust", "grant", str(root))
    return root


def test_list_json_rows_and_diagnostics(wsctl, wskit_pm, project):
    with register_plugin(wskit_pm, MEMOS, name="memos"):
        data = json.loads(wsctl("memos", "list", str(project), json=True).stdout)
    assert data["memos"] == [
        {"id": "project:bidi", "name": "bidi", "description": "ok", "scope": "project",
         "path": ".claude/memos/bidi.md", "plugin": None},
        {"id": "project:standup", "name": "standup", "description": "Daily standup notes", "scope": "project",
         "path": ".claude/memos/standup.md", "plugin": None},
        {"id": "project:team:retro", "name": "team:retro", "description": "Retro", "scope": "project",
         "path": ".claude/memos/team/retro.md", "plugin": None},
    ]
    by_code = {d["code"]: d for d in data["diagnostics"]}
    assert by_code["memo-name-invalid"]["path"] == ".claude/memos/bad name.md"
    assert by_code["memo-description-too-long"]["level"] == "error"
    assert by_code["hidden-characters"]["level"] == "warning"  # bidi still loads
    assert by_code["yaml-error"]["path"] == ".claude/memos/broken.md"


def test_list_human_and_show(wsctl, wskit_pm, project):
    with register_plugin(wskit_pm, MEMOS, name="memos"):
        human = wsctl("memos", "list", str(project)).stdout
        shown = wsctl("memos", "show", "standup", str(project)).stdout
        data = json.loads(wsctl("memos", "show", "team:retro", str(project), json=True).stdout)
    assert human.splitlines()[0].split() == ["ID", "DESCRIPTION"]
    assert "project:team:retro  Retro" in human and "memo-name-invalid" in human
    assert shown == "project:standup (project) — Daily standup notes\n---\nSay what you did.\n"
    assert data["id"] == "project:team:retro" and data["body"] == "# Retro\n\nWhat went well."


def test_the_resource_keeps_other_frontmatter_keys(wskit_pm, wskit_profile, project):
    from wskit.binding import Binding
    from wskit.plugin.facade import WskitHooks
    from wskit.workspace import load_workspace

    with register_plugin(wskit_pm, MEMOS, name="memos"):
        ws = load_workspace(WskitHooks(wskit_pm), Binding.discover(project), wskit_profile)
    memo = ws.registry("memo").get("standup")
    assert memo.kind == "memo" and memo.extra == {"audience": "team"} and memo.body == "Say what you did."
    assert ws.kinds["memo"].markdown and ws.kinds["memo"].manifest_keys == ("memos",)


def test_plugin_bundle_folder_and_empty_listing(wsctl, wskit_pm, make_tree, tmp_path):
    kit = write_tree(tmp_path / "kit", {".claude-plugin/plugin.json": '{"name": "kit", "memos": "./notes"}',
                                        "notes/plan.md": "The plan\n", "memos/unread.md": "replaced\n"})
    empty = make_tree({"README.md": "x"}, root=tmp_path / "empty")
    with register_plugin(wskit_pm, MEMOS, name="memos"):
        data = json.loads(wsctl("--plugin-dir", str(kit), "memos", "list", str(empty), json=True).stdout)
        none = wsctl("memos", "list", str(empty)).stdout
    assert [(m["id"], m["path"], m["plugin"]) for m in data["memos"]] == [
        ("plugin:kit:plan", str(kit / "notes/plan.md"), "kit")]
    assert none == "no memos\n"


def test_gone_with_its_plugin(wsctl, project):
    assert wsctl("memos", "list", str(project)).exit_code == 2


def test_folder_arguments_come_from_a_given_kind():
    with pytest.raises(TypeError):
        MarkdownKind(ResourceKind(name="memo"), plural="memoes")
    kind = MarkdownKind("datum", plural="data", manifest_keys=()).kind
    assert (kind.plural_name, kind.default_dir, kind.manifest_keys, kind.markdown) == ("data", "data", (), True)
    assert kind.loader is not None and kind.hook is None


def test_a_kind_never_takes_over_an_existing_command(wsctl, wskit_pm, project):
    """A kind whose plural names a command that exists (``plugins`` is wsctl's own; a
    second ``memo`` kind meets the first one's) adds no commands: the plugin is shown
    failing in that hook with the reason, and the existing command keeps working."""
    clash = MarkdownKind("plugin")
    with register_plugin(wskit_pm, clash, name="clash"):
        listing = wsctl("plugins", "list", str(project))
        assert listing.exit_code == 0 and "Python plugins:" in listing.stdout.splitlines()
        assert "wsctl plugins already exists" in listing.stdout and "failing" in listing.stdout
    again = MarkdownKind("memo", help="the second memo kind")
    with register_plugin(wskit_pm, MEMOS, name="memos"), register_plugin(wskit_pm, again, name="memos2"):
        out = wsctl("memos", "list", str(project), json=True)
        assert out.exit_code == 0 and json.loads(out.stdout)["memos"]
        failing = {name for name in ("memos", "memos2") if name in wskit_pm.hook_failures}
        assert len(failing) == 1  # the one whose kind and commands came second
        assert "wsctl memos already exists" in wskit_pm.hook_failures[failing.pop()][0]


@pytest.mark.parametrize("name", ["BadKind", "1st", "a-b", "", "_x", "é"])
def test_kind_names_are_snake_case(name):
    with pytest.raises(ValueError, match="kind name"):
        MarkdownKind(name)
