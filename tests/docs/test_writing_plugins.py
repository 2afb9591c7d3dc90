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
