"""docs/wsctl.md says what wsctl prints: the ``hooks run`` first line and every reason a
rule can be ``skipped`` for (the user found both out of date)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "wsctl.md").read_text()


def test_every_skipped_rule_reason_is_documented():
    code = "".join(p.read_text() for p in (REPO / "builtin_plugins" / "rules").glob("*.py"))
    reasons = set(re.findall(r'SkippedRule\(\w+, "([a-z-]+)"', code))
    assert {"over-budget", "cut", "shadowed", "inlined"} <= reasons
    sentence = DOC[DOC.index("`reason` is `over-budget`"):][:800]
    assert all(f"`{r}`" in sentence for r in reasons), reasons


def test_hooks_run_first_line_is_documented_as_printed(wsctl, make_tree):
    ws = make_tree({".git/HEAD": "ref: refs/heads/main\n"})
    out = wsctl("hooks", "run", "PreToolUse", str(ws), "--tool", "Bash").stdout.splitlines()[0]
    assert out == "PreToolUse: allowed (0 hook(s))"
    assert "The first line is `EVENT: VERDICT (N hook(s))`" in DOC
