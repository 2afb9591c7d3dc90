"""``wsctl styles list|show``."""

import json

from wskit.trust import TrustStore


def test_styles_list_show_and_catalog_failure(wsctl, make_tree, wskit_home):
    ws = make_tree({".git/HEAD": "ref: refs/heads/main\n",
                    ".claude/output-styles/compact.md": "---\ndescription: Short answers\n---\nBe brief."})
    TrustStore.for_home(wskit_home).grant(ws)
    data = json.loads(wsctl("styles", "list", str(ws), "--json").output)
    row = data["styles"][0]
    assert row["id"] == "project:compact" and row["source"] == "project" and row["name"] == "compact"
    assert set(row) == {"id", "name", "description", "source", "content_sha256"}
    shown = json.loads(wsctl("styles", "show", "project:compact", str(ws), "--json").output)
    assert shown["prompt"] == "Be brief."
    bad = wsctl("styles", "show", "project:../x", str(ws))
    assert bad.exit_code == 1 and "Invalid communication style ID" in bad.output
    for i in range(33):
        (ws / f".claude/output-styles/s{i}.md").write_text("x")
    failed = wsctl("styles", "list", str(ws), "--json")
    assert failed.exit_code == 1 and "exceeds 32 files" in failed.output
    assert "fails as a whole" in failed.output and "wsctl inspect" in failed.output  # says why none is listed


def test_styles_list_shows_skipped_style_files(wsctl, make_tree, wskit_home):
    """Found by the newcomer test: 'styles list' did not show style-skipped warnings."""
    ws = make_tree({".git/HEAD": "ref: refs/heads/main\n",
                    ".claude/output-styles/ok.md": "---\ndescription: Fine\n---\nBe brief.",
                    ".claude/output-styles/empty.md": "---\ndescription: nothing\n---\n",
                    ".claude/rules/badyaml.md": "---\npaths: [unclosed\n---\nx\n"})
    TrustStore.for_home(wskit_home).grant(ws)
    data = json.loads(wsctl("styles", "list", str(ws), "--json").output)
    assert [s["id"] for s in data["styles"] if s["source"] == "project"] == ["project:ok"]
    codes = [(d["code"], d["path"]) for d in data["diagnostics"]]
    assert codes and all(p.endswith("output-styles/empty.md") for _c, p in codes), codes
    human = wsctl("styles", "list", str(ws)).output
    assert "diagnostics (" in human and "empty.md" in human and "badyaml" not in human
