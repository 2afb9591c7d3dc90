"""The tutorial's code blocks are the example plugin's real files."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def blocks_after(doc: str, label: str) -> str:
    part = doc.split(f"`{label}`:", 1)[1]
    return re.search(r"```[a-z]*\n(.*?)```", part, re.S).group(1)


def test_tutorial_code_is_the_repository_code():
    doc = (REPO / "docs" / "writing-plugins.md").read_text()
    for rel in (
        "plugins/wskit-example/pyproject.toml",
        "plugins/wskit-example/wskit_example/__init__.py",
        "plugins/wskit-example/wskit_example/prompts.py",
    ):
        assert blocks_after(doc, rel) == (REPO / rel).read_text(), rel


def test_tutorial_test_snippet_passes(wsctl, wskit_pm, make_tree):
    import json

    import wskit_example
    from wskit.testing import register_plugin

    skill = "---\nname: greet\ndescription: Greets.\n---\nHello.\n"
    root = make_tree({".example/skills/greet/SKILL.md": skill})
    wsctl("trust", "grant", str(root))
    with register_plugin(wskit_pm, wskit_example, name="example"):
        data = json.loads(wsctl("inspect", str(root), json=True).stdout)
    assert any(r["path"] == ".example/skills/greet/SKILL.md" for r in data["resources"])
    data = json.loads(wsctl("inspect", str(root), json=True).stdout)  # unregistered again
    assert not any(r["path"] == ".example/skills/greet/SKILL.md" for r in data["resources"])


# -- section 6: the resource kind and wsctl command of docs/examples/acme_snippets.py --------

def _acme():
    import importlib
    import sys

    sys.path.insert(0, str(REPO / "docs" / "examples"))
    try:
        return importlib.import_module("acme_snippets")
    finally:
        sys.path.pop(0)


def test_acme_snippets_code_is_the_documented_code():
    doc = (REPO / "docs" / "writing-plugins.md").read_text()
    assert blocks_after(doc, "docs/examples/acme_snippets.py") == (REPO / "docs/examples/acme_snippets.py").read_text()


def test_acme_snippets_kind_and_command(wsctl, wskit_pm, make_tree, wskit_home):
    import json

    from wskit.testing import register_plugin, write_tree

    acme_snippets = _acme()
    root = make_tree({".claude/snippets/hello.txt": "Hello!\n", ".claude/snippets/empty.txt": "  \n",
                      ".claude/snippets/notes.md": "not a snippet"})
    write_tree(wskit_home, {".claude/snippets/sig.txt": "-- \nme\n", ".claude/snippets/hello.txt": "user hello\n"})
    wsctl("trust", "grant", str(root))
    with register_plugin(wskit_pm, acme_snippets, name="acme"):
        data = json.loads(wsctl("snippets", str(root), json=True).stdout)
        inspect = json.loads(wsctl("inspect", str(root), json=True).stdout)
        human = wsctl("snippets", str(root)).stdout
    assert data["snippets"] == [
        {"id": "project:hello", "name": "hello", "path": ".claude/snippets/hello.txt"},
        {"id": "user:sig", "name": "sig", "path": ".claude/snippets/sig.txt"},
    ]
    assert "project:hello\t.claude/snippets/hello.txt" in human
    assert inspect["counts"]["snippet"] == 2
    assert any(d["code"] == "acme-snippet-empty" and d["path"].endswith("empty.txt") for d in inspect["diagnostics"])
    assert wsctl("snippets", str(root)).exit_code == 2  # gone with the plugin


def test_acme_snippets_refuses_a_linked_project_snippet(wsctl, wskit_pm, make_tree, tmp_path):
    import json

    from wskit.testing import register_plugin

    acme_snippets = _acme()
    (tmp_path / "secret.txt").write_text("outside\n")
    root = make_tree({".claude/snippets/": None})
    (root / ".claude/snippets/link.txt").symlink_to(tmp_path / "secret.txt")
    wsctl("trust", "grant", str(root))
    with register_plugin(wskit_pm, acme_snippets, name="acme"):
        inspect = json.loads(wsctl("inspect", str(root), json=True).stdout)
    assert inspect["counts"].get("snippet") == 0
    assert any(d["code"] == "symlink" for d in inspect["diagnostics"])


# -- section 7: the prompt kind of plugins/wskit-example/wskit_example/prompts.py ------------

def test_prompts_snippet_runs_as_written(wsctl, wskit_pm, make_tree):
    """The section's test block, executed as it is in the document."""
    import json

    import wskit_example
    from wskit.testing import register_plugin

    doc = (REPO / "docs" / "writing-plugins.md").read_text()
    scope = {"json": json, "wskit_example": wskit_example, "register_plugin": register_plugin}
    exec(compile(blocks_after(doc, "test_prompts"), "docs/writing-plugins.md", "exec"), scope)
    scope["test_prompts"](wsctl, wskit_pm, make_tree)


def test_prompt_kind_in_a_named_bundle_folder_and_its_diagnostics(wsctl, wskit_pm, make_tree, tmp_path):
    """What the section says beyond its snippet: a manifest's "prompts" replaces the
    default folder, --plugin-dir bundles count, bad files are prompt-* diagnostics."""
    import json

    import wskit_example
    from wskit.testing import register_plugin, write_tree

    kit = write_tree(tmp_path / "kit", {
        ".claude-plugin/plugin.json": '{"name": "kit", "prompts": "./mine"}',
        "mine/ops/deploy.md": "---\ndescription: Deploy it\n---\nShip.\n",
        "prompts/unread.md": "replaced by ./mine\n",
    })
    root = make_tree({".example/prompts/bad name.md": "x\n", ".example/prompts/ok.md": "Fine.\n"}, root=tmp_path / "p")
    wsctl("trust", "grant", str(root))
    with register_plugin(wskit_pm, wskit_example, name="example"):
        data = json.loads(wsctl("--plugin-dir", str(kit), "prompts", "list", str(root), json=True).stdout)
        human = wsctl("--plugin-dir", str(kit), "prompts", "list", str(root)).stdout
    assert [p["id"] for p in data["prompts"]] == ["plugin:kit:ops:deploy", "project:ok"]
    assert [(d["code"], d["path"]) for d in data["diagnostics"]] == [("prompt-name-invalid", ".example/prompts/bad name.md")]
    assert human.splitlines()[0].split() == ["ID", "MODEL", "DESCRIPTION"]
    assert "plugin:kit:ops:deploy" in human and "Deploy it" in human
