"""The worked example of docs/rules.md §7, checked statement by statement."""

from __future__ import annotations

import pytest

from wskit.builtin_plugins.rules import RuleProvenanceMismatch, RulesRequired
from wskit.session import snapshot

EXAMPLE = {
    "CLAUDE.md": "Run the tests with make test.",
    "AGENTS.md": "Old agent notes.",
    "AGENTS.override.md": "Agent notes: see @docs/agents.md",
    "docs/agents.md": "Never push to main.",
    "src/api/AGENTS.md": "API handlers return JSON.",
    "src/api/.claude/rules/ts.md": "---\npaths: \"*.{ts,tsx}\"\n---\nUse zod for input.\n",
    "web/AGENTS.md": "Web uses React.",
}


def test_worked_example(rules_ws, tmp_path):
    ws = rules_ws(EXAMPLE, home_files={".claude/CLAUDE.md": "Answer in English."})
    s = snapshot(ws)
    static = s.rules.static()
    assert [r.display_path for r in static.files] == ["~/.claude/CLAUDE.md", "CLAUDE.md", "AGENTS.override.md"]
    assert static.files[2].body == "Agent notes: see Never push to main."
    d = s.check_invocation("Edit", "write", ["src/api/users.ts"])
    assert isinstance(d, RulesRequired)
    assert [r.path for r in d.rules.files] == ["src/api/AGENTS.md", "src/api/.claude/rules/ts.md"]
    s.mark_delivered(d.rules)
    assert s.check_invocation("Edit", "write", ["src/api/users.ts"]).proceed
    delivered = {s.rules.catalog.get(i).path for i in s.rules.delivered_ids}
    assert "web/AGENTS.md" not in delivered and "src/api/AGENTS.md" in delivered
    ext = s.state().extensions["rules"]
    (tmp_path / "ws" / "src/api/AGENTS.md").write_text("API handlers return JSON, always.")
    with pytest.raises(RuleProvenanceMismatch, match=r"project rule provenance mismatch: src/api/AGENTS.md \(changed\)"):
        snapshot(rules_ws({})).rules.resume(ext, "strict")
    res = snapshot(rules_ws({})).rules.resume(ext, "refresh")
    assert res.contextual.files[0].body == "API handlers return JSON, always."
    assert [(x["path"], x["change"]) for x in res.drift] == [("src/api/AGENTS.md", "changed")]


def test_state_pins_static_digest_without_rule_traffic(rules_ws):
    s = snapshot(rules_ws(EXAMPLE))
    ext = s.state().extensions["rules"]
    assert ext["delivered"] == [] and len(ext["static_digest"]) == 64
