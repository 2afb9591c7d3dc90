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
    assert "fails as a whole" in failed.output and "inspect` for the diagnostics" in failed.output  # says why none is listed


def test_styles_list_shows_skipped_style_files(wsctl, make_tree, wskit_home):
    """'styles list' shows the style-skipped warnings."""
    ws = make_tree({".git/HEAD": "ref: refs/heads/main\n",
                    ".claude/output-styles/ok.md": "---\ndescription: Fine\n---\nBe brief.",
                    ".claude/output-styles/empty.md": "---\ndescription: nothing\n---\n",
                    ".claude/rules/badyaml.md": "---\npaths: \"unclosed\n---\nx\n"})
    TrustStore.for_home(wskit_home).grant(ws)
    data = json.loads(wsctl("styles", "list", str(ws), "--json").output)
    assert [s["id"] for s in data["styles"] if s["source"] == "project"] == ["project:ok"]
    codes = [(d["code"], d["path"]) for d in data["diagnostics"]]
    assert codes and all(p.endswith("output-styles/empty.md") for _c, p in codes), codes
    human = wsctl("styles", "list", str(ws)).output
    assert "diagnostics (" in human and "empty.md" in human and "badyaml" not in human


def test_styles_catalog_failure_follows_the_failed_operation_convention(wsctl, make_tree, wskit_home):
    """The message does not claim "`wsctl inspect` shows the style files that did
    load", false when none did. A failed operation prints nothing on
    stdout, even with --json (docs/wsctl.md), `error: …` on stderr, exit 1; the
    message points at inspect's diagnostics, which do say it."""
    ws = make_tree({".git/HEAD": "ref: refs/heads/main\n"})
    for i in range(33):
        (ws / ".claude/output-styles").mkdir(parents=True, exist_ok=True)
        (ws / f".claude/output-styles/s{i}.md").write_text("x")
    TrustStore.for_home(wskit_home).grant(ws)
    for argv in (("styles", "list", str(ws)), ("styles", "show", "project:s1", str(ws))):
        r = wsctl(*argv, json=True)
        assert r.exit_code == 1 and r.stdout == "", r.output
        assert r.stderr.startswith("error: Output style catalog exceeds 32 files")
        assert "run `wsctl --home " in r.stderr and " inspect` for the diagnostics" in r.stderr  # keeps --home
        assert "shows the style files that did load" not in r.stderr
    inspect = json.loads(wsctl("inspect", str(ws), json=True).stdout)
    assert inspect["counts"].get("style", 0) == 0  # nothing "did load"
    assert any(d["code"] == "style-catalog-invalid" and "exceeds 32 files" in d["message"]
               for d in inspect["diagnostics"])
