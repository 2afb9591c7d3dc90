"""wsctl prints text strangers wrote: it must not pass terminal escapes through.

A description can carry ESC through a YAML escape (``"\\e[2J"``) and a file
name can hold any byte but '/' and NUL; printed raw, they rewrite the
terminal (clear screen, set the title, fake lines). Human output shows them
escaped; ``--json`` output is JSON (escaped by the encoder).
"""

from __future__ import annotations

import json

from tests.conftest import skill_md
from wskit.trust import TrustStore

HOSTILE_DESC = '"Looks fine\\e]0;pwned\\a\\e[2J\\u202eevil\\nfake line"'


def _workspace(make_tree, home):
    ws = make_tree({
        ".git/HEAD": "ref: refs/heads/main\n",
        ".claude/skills/shady/SKILL.md": f"---\ndescription: {HOSTILE_DESC}\n---\n",
        ".claude/skills/good/SKILL.md": skill_md("good"),
    })
    bad_dir = ws / ".claude" / "skills" / "x\x1b[31mred\nfake"
    bad_dir.mkdir()
    (bad_dir / "SKILL.md").write_text(skill_md("x"))
    TrustStore.for_home(home).grant(ws)
    return ws


def test_human_output_has_no_raw_control_characters(wsctl, make_tree, wskit_home):
    ws = _workspace(make_tree, wskit_home)
    for args in (("skills", "list", str(ws)), ("inspect", str(ws))):
        result = wsctl(*args)
        assert result.exit_code == 0, result.output
        out = result.output
        assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out, repr(out)
        assert not any(line.startswith("fake") for line in out.splitlines()), repr(out)
        assert "good" in out


def test_json_output_is_one_document_with_escapes_intact(wsctl, make_tree, wskit_home):
    ws = _workspace(make_tree, wskit_home)
    result = wsctl("skills", "list", str(ws), json=True)
    assert result.exit_code == 0
    data = json.loads(result.output)
    by_name = {s["name"]: s for s in data["skills"]}
    assert "\x1b" in by_name["shady"]["description"]  # the value itself is not altered
    assert "good" in by_name
    codes = {d["code"] for d in data["diagnostics"]}
    assert {"hidden-characters", "skill-name-invalid"} <= codes
    assert "\x1b" not in result.output  # JSON escapes it as \u001b
