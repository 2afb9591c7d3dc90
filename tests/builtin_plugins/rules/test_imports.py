"""@path imports (docs/rules.md §3): relative resolution, depth 4, cycles, confinement, code spans."""

from __future__ import annotations

import os


def _codes(cat):
    return sorted(d.code for d in cat.diagnostics)


def test_import_inlines_relative_to_the_containing_file(rules_ws):
    ws = rules_ws({"docs/AGENTS.md": "see @style/guide.md for style", "docs/style/guide.md": "use tabs\n"})
    rule = ws.catalog("rules").rules()[0]
    assert rule.body == "see use tabs for style"
    assert rule.imports == ("docs/style/guide.md",)


def test_digest_covers_imported_content(rules_ws, tmp_path):
    ws = rules_ws({"CLAUDE.md": "@inc.md", "inc.md": "one"})
    before = ws.catalog("rules").rules()[0].sha256
    (tmp_path / "ws" / "inc.md").write_text("two")
    after = rules_ws({}).catalog("rules").rules()[0]
    assert after.body == "two" and after.sha256 != before


def test_import_cycle_is_reported_and_stops(rules_ws):
    ws = rules_ws({"CLAUDE.md": "top @a.md", "a.md": "A @b.md", "b.md": "B @a.md"})
    cat = ws.catalog("rules")
    assert cat.rules()[0].body == "top A B @a.md"
    cyc = [d for d in cat.diagnostics if d.code == "rule-import-cycle"]
    assert len(cyc) == 1 and cyc[0].path.endswith("b.md") and cyc[0].line == 1


def test_import_outside_project_is_a_diagnostic_not_a_read(rules_ws, tmp_path, monkeypatch):
    (tmp_path / "secret.md").write_text("outside")
    from wskit import fs

    reads = []
    real = fs.read_bytes
    monkeypatch.setattr(fs, "read_bytes", lambda b, r, **k: reads.append((str(b), str(r))) or real(b, r, **k))
    ws = rules_ws({"CLAUDE.md": f"x @../secret.md y @{tmp_path}/secret.md z @~/notes.md"})
    cat = ws.catalog("rules")
    assert cat.rules()[0].body.count("@") == 3
    assert _codes(cat) == ["rule-import-outside"] * 3
    assert not [r for r in reads if "secret" in r[1] or "notes" in r[1]]


def test_depth_limit_four(rules_ws):
    files = {"CLAUDE.md": "0 @1.md"}
    for i in range(1, 7):
        files[f"{i}.md"] = f"{i} @{i + 1}.md"
    cat = rules_ws(files).catalog("rules")
    assert cat.rules()[0].body == "0 1 2 3 4 @5.md"
    depth = [d for d in cat.diagnostics if d.code == "rule-import-depth"]
    assert len(depth) == 1 and depth[0].path.endswith(os.sep + "4.md")


def test_code_spans_fences_mentions_and_missing(rules_ws):
    text = "mail me@example.com, `@inc.md` stays\n```\n@inc.md\n```\nreal @inc.md. and @nobody\n"
    cat = rules_ws({"CLAUDE.md": text, "inc.md": "IN"}).catalog("rules")
    body = cat.rules()[0].body
    assert "`@inc.md`" in body and "```\n@inc.md\n```" in body and "real IN." in body and "@nobody" in body
    missing = [d for d in cat.diagnostics if d.code == "rule-import-not-found"]
    assert len(missing) == 1 and missing[0].level == "info" and missing[0].line == 5


def test_import_of_secret_or_link_is_refused(rules_ws, tmp_path):
    root = tmp_path / "ws"
    rules_ws({"target.md": "t"})
    os.symlink(root / "target.md", root / "link.md")
    cat = rules_ws({"CLAUDE.md": "@.env and @link.md", ".env": "TOKEN=1"}).catalog("rules")
    assert cat.rules()[0].body == "@.env and @link.md"
    assert _codes(cat) == ["rule-import-refused", "rule-import-refused"]


def test_user_file_imports_confined_to_home(rules_ws):
    cat = rules_ws({}, home_files={".claude/CLAUDE.md": "@~/shared/style.md", "shared/style.md": "home style"}
                   ).catalog("rules")
    assert cat.rules()[0].body == "home style"


def test_a_rule_inlined_by_another_static_rule_is_not_delivered_twice(rules_ws, tmp_path):
    """A CLAUDE.md holding @AGENTS.md (Claude Code's way to share one file) delivers
    AGENTS.md once, inlined; on its own too, it would reach the model twice."""
    ws = rules_ws({"CLAUDE.md": "Claude notes\n@AGENTS.md\n", "AGENTS.md": "Shared rules\n",
                   "sub/AGENTS.md": "Sub rules\n"})
    cat = ws.catalog("rules")
    sel = cat.static_rules(str(tmp_path / "ws" / "sub"))
    assert [r.path for r in sel.files] == ["CLAUDE.md", "sub/AGENTS.md"]
    assert [(s.rule.path, s.reason) for s in sel.skipped] == [("AGENTS.md", "inlined")]
    assert "CLAUDE.md" in sel.skipped[0].detail
    assert "Shared rules" in sel.files[0].body  # the text is delivered, once


def test_rules_importing_each_other_are_both_kept(rules_ws, tmp_path):
    ws = rules_ws({"CLAUDE.md": "C @AGENTS.md", "AGENTS.md": "A @CLAUDE.md"})
    sel = ws.catalog("rules").static_rules(str(tmp_path / "ws"))
    assert sorted(r.path for r in sel.files) == ["AGENTS.md", "CLAUDE.md"] and not sel.skipped
