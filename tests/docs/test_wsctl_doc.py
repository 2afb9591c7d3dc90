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


def _headings() -> list[str]:
    return [line.lstrip("#").strip() for line in DOC.splitlines() if re.match(r"#{2,3} ", line)]


def test_the_reference_has_no_duplicate_section():
    seen = _headings()
    assert sorted({h for h in seen if seen.count(h) > 1}) == []
    # one section per command form: a `wsctl X Y` form is the title of one section only
    forms = [m for h in seen for m in re.findall(r"`wsctl ([a-z-]+(?: [a-z-]+)?)", h)]
    assert sorted({f for f in forms if forms.count(f) > 1}) == []


def test_the_reference_follows_a_hosts_path_and_names_every_command():
    import click

    from wskit.cli.app import make_cli

    cli = make_cli()
    commands = set(cli.list_commands(click.Context(cli))) - {"prompts"}  # wskit-example's sample kind
    heads = _headings()
    missing = sorted(c for c in commands if not any(re.search(rf"(?<![\w-]){c}(?![\w-])", h) for h in heads))
    assert missing == []
    # the order the intro announces: look-up, then resources, then the per-call forms,
    # then plugins, workspaces and the commands plugins add
    tops = [h for h in heads if DOC.count(f"\n## {h}\n")]
    order = ["inspect", "snapshot", "trust", "Skills", "rules", "permissions", "Server and hook",
             "Session runtime", "plugins [--timings]", "Content plugins", "workspace", "export", "serve",
             "gemini"]
    assert [next(i for i, h in enumerate(tops) if key in h) for key in order] == list(range(len(order)))
