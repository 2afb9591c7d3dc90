"""``wsctl commands list|render``."""

import json

from tests.builtin_plugins._cli_trees import markdown_workspace
from wskit.trust import TrustStore


def test_commands_list_and_render(wsctl, make_tree, wskit_home):
    ws = markdown_workspace(make_tree, wskit_home)
    data = json.loads(wsctl("commands", "list", str(ws), "--json").output)
    assert data["commands"] == [{"id": "project:git:commit", "name": "git:commit", "description": "Commit",
                                 "scope": "project", "path": ".claude/commands/git/commit.md", "plugin": None,
                                 "argument_hint": "MSG"}]
    assert data["diagnostics"] == []
    res = wsctl("commands", "render", "git:commit", "fix", "-C", str(ws), "--json")
    out = json.loads(res.output)
    assert out["id"] == "project:git:commit"
    assert out["text"].startswith("Commit fix: \n```md\nN\n```\n")
    assert "!`date`" in out["text"]
    assert [d["code"] for d in out["diagnostics"]] == ["command-shell-not-run"]
    unknown = wsctl("commands", "render", "nope", "-C", str(ws))
    assert unknown.exit_code == 1 and "unknown command" in unknown.output


def test_render_never_drops_arguments(wsctl, make_tree, wskit_home):
    """``render plain "important arg"`` never drops the argument silently: a body with
    no placeholder gets ``ARGUMENTS: <value>`` (Claude Code); each command-line word is
    one argument."""
    ws = make_tree({
        ".git/HEAD": "ref: refs/heads/main\n",
        ".claude/commands/plain.md": "---\ndescription: Plain\n---\nJust do it.\n",
        ".claude/commands/idx.md": "---\ndescription: Idx\n---\n$0 then $1; all: $ARGUMENTS; $2\n",
    })
    TrustStore.for_home(wskit_home).grant(ws)

    def render(*args):
        return json.loads(wsctl("commands", "render", *args, "-C", str(ws), "--json").output)["text"]

    assert render("plain", "important arg") == "Just do it.\n\nARGUMENTS: important arg\n"
    assert render("plain") == "Just do it.\n"
    assert render("idx", "important arg", "x") == "important arg then x; all: important arg x; $2\n"


def test_listings_cut_long_descriptions_with_the_shared_ellipsis(wsctl, make_tree, wskit_home):
    """``commands list`` and ``styles list`` cut a long description as ``skills list``
    does (one width, a final "…", docs/wsctl.md), never silently at 60 characters."""
    from wskit.cli.context import shorten

    long = "Cleans up all git branches marked as [gone] (branches that were deleted on the remote)"
    ws = make_tree({".git/HEAD": "ref: refs/heads/main\n",
                    ".claude/commands/clean.md": f"---\ndescription: {long}\n---\nClean.\n",
                    ".claude/output-styles/wordy.md": f"---\ndescription: {long}\n---\nBe wordy.\n",
                    ".claude/skills/tidy/SKILL.md": f"---\nname: tidy\ndescription: {long}\n---\nClean.\n"})
    TrustStore.for_home(wskit_home).grant(ws)
    cut = shorten(long)
    assert cut.endswith("…") and len(cut) <= 60
    for group in ("commands", "styles", "skills"):
        out = wsctl(group, "list", str(ws)).stdout
        assert cut in out, (group, out)
        assert long not in out
    # JSON keeps the whole description
    assert json.loads(wsctl("commands", "list", str(ws), "--json").stdout)["commands"][0]["description"] == long
