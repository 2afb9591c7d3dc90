"""``wsctl skills list|show|files|validate|install|enable|disable`` and their JSON keys."""

import json
import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.markdown_helpers import skill_md
from wskit.trust import TrustStore


def _ws(make_tree, wskit_home):
    ws = make_tree({
        ".git/HEAD": "ref: refs/heads/main\n",
        ".claude/skills/greet/SKILL.md": skill_md("greet", extra="allowed-tools: Read\narguments: [who]\n",
                                                  body="Hi $who\n"),
        ".claude/skills/greet/ref/a.md": "A",
    })
    TrustStore.for_home(wskit_home).grant(ws)
    return ws


def test_list_show_files(wsctl, make_tree, wskit_home):
    ws = _ws(make_tree, wskit_home)
    data = json.loads(wsctl("skills", "list", str(ws), "--json").output)
    row = next(s for s in data["skills"] if s["name"] == "greet")
    assert set(row) == {"id", "name", "description", "scope", "path", "plugin"}
    assert row["path"] == ".claude/skills/greet/SKILL.md"
    shown = json.loads(wsctl("skills", "show", "greet", str(ws), "--args", "Bob", "--json").output)
    assert shown["content"] == "Hi Bob\n" and shown["allowed_tools"] == ["Read"] and shown["id"] == "project:greet"
    assert {"slug", "name", "description", "file", "content", "content_hash", "cached", "scope", "path"} <= set(shown)
    ref = json.loads(wsctl("skills", "show", "greet", str(ws), "--file", "ref/a.md", "--json").output)
    assert ref["content"] == "A"
    files = json.loads(wsctl("skills", "files", "greet", str(ws), "--json").output)
    assert files == {"slug": "greet", "name": "greet", "files": ["SKILL.md", "ref/a.md"], "file_count": 2,
                     "has_attachments": True, "skipped": []}
    bad = wsctl("skills", "show", "greet", str(ws), "--file", "../../x")
    assert bad.exit_code == 1 and "error:" in bad.output and "path-escape" in bad.output
    human = wsctl("skills", "show", "greet", str(ws))
    assert human.exit_code == 0 and "Hi $who" not in human.output and "Hi \n" in human.output


def test_validate_json_and_exit_status(wsctl, tmp_path):
    d = tmp_path / "other-name"
    d.mkdir()
    (d / "SKILL.md").write_text(skill_md("my-skill"))
    lenient = wsctl("skills", "validate", str(d), "--json")
    assert lenient.exit_code == 0
    assert json.loads(lenient.output)["valid"] is True
    strict = wsctl("skills", "validate", str(d), "--strict", "--json")
    assert strict.exit_code == 1
    data = json.loads(strict.output)
    assert set(data) == {"valid", "errors", "warnings"} and data["valid"] is False
    assert data["errors"][0] == {"path": str(d / "SKILL.md"), "line": 2, "code": "skill-name-mismatch",
                                 "message": "name 'my-skill' differs from its folder 'other-name'"}
    assert "invalid (strict)" in wsctl("skills", "validate", str(d), "--strict").output


def test_validate_prints_diagnostics_with_the_common_printer(wsctl, tmp_path, capsys):
    """The human diagnostics of ``skills validate`` are those of every command
    (print_diag_dicts), errors then warnings; ``--json`` keeps its own keys."""
    from wskit.cli.context import print_diag_dicts

    d = tmp_path / "other-name"
    d.mkdir()
    (d / "SKILL.md").write_text(skill_md("my-skill", extra="foo: 1\n"))
    strict = wsctl("skills", "validate", str(d), "--strict")
    data = json.loads(wsctl("skills", "validate", str(d), "--strict", "--json").output)
    assert strict.exit_code == 1 and len(data["errors"]) == 2 and "level" not in data["errors"][0]
    capsys.readouterr()
    print_diag_dicts([{**e, "level": "error"} for e in data["errors"]])
    expected = capsys.readouterr().out
    assert strict.output == f"{d}/SKILL.md: invalid (strict)\n{expected}"
    assert "\ndiagnostics (2):\n  error   skill-unknown-field" in strict.output
    lenient = wsctl("skills", "validate", str(d))
    assert lenient.exit_code == 0 and "diagnostics (2):\n  warning skill-unknown-field" in lenient.output
    ok = tmp_path / "my-skill"
    ok.mkdir()
    (ok / "SKILL.md").write_text(skill_md("my-skill"))
    assert wsctl("skills", "validate", str(ok), "--strict").output == f"{ok}/SKILL.md: valid (strict)\n"


def test_install_enable_disable(wsctl, make_tree, wskit_home, tmp_path):
    ws = _ws(make_tree, wskit_home)
    src = make_tree({"greet/SKILL.md": skill_md("greet", "Admin greet.")}, root=tmp_path / "src")
    out = json.loads(wsctl("skills", "install", str(src / "greet"), "--json").output)
    assert out == {"slug": "greet", "path": str(wskit_home / ".wskit/admin-skills/greet"), "enabled": True}
    listed = json.loads(wsctl("skills", "list", str(ws), "--json").output)["skills"]
    assert next(s for s in listed if s["name"] == "greet")["scope"] == "admin"
    assert json.loads(wsctl("skills", "disable", "greet", "--json").output) == {"slug": "greet", "enabled": False}
    listed = json.loads(wsctl("skills", "list", str(ws), "--json").output)["skills"]
    assert next(s for s in listed if s["name"] == "greet")["scope"] == "project"
    assert json.loads(wsctl("skills", "enable", "greet", "--json").output)["enabled"] is True
    missing = wsctl("skills", "enable", "nope")
    assert missing.exit_code == 1 and "no admin skill" in missing.output


def test_validate_exit_status_through_the_real_entry_point(tmp_path, wskit_home):
    import subprocess
    import sys

    d = tmp_path / "mismatch"
    d.mkdir()
    (d / "SKILL.md").write_text(skill_md("other"))
    run = [sys.executable, "-m", "wskit", "--home", str(wskit_home), "skills", "validate", str(d)]
    assert subprocess.run(run, capture_output=True).returncode == 0
    strict = subprocess.run([*run, "--strict", "--json"], capture_output=True, text=True)
    assert strict.returncode == 1 and json.loads(strict.stdout)["valid"] is False


def test_list_diagnostics_are_about_skills_not_rules(wsctl, make_tree, wskit_home):
    """'skills list' shows the skills' diagnostics, not a rule file's yaml-error."""
    ws = make_tree({
        ".git/HEAD": "ref: refs/heads/main\n",
        ".claude/skills/bad/SKILL.md": "---\nname: bad\ndescription: [unclosed\n---\nx\n",
        ".claude/rules/badyaml.md": "---\npaths: \"unclosed\n---\nx\n",
    })
    TrustStore.for_home(wskit_home).grant(ws)
    diags = json.loads(wsctl("skills", "list", str(ws), "--json").output)["diagnostics"]
    paths = [d["path"] for d in diags]
    assert any(p and p.endswith(".claude/skills/bad/SKILL.md") for p in paths)
    assert not any(p and "rules" in p for p in paths), paths


def test_show_never_drops_arguments(wsctl, make_tree, wskit_home):
    """A body without $ARGUMENTS gets --args appended, never silently dropped, and
    $ARGUMENTS[0] is the first argument, not the whole string and "[0]" (Claude Code's rules)."""
    ws = make_tree({
        ".git/HEAD": "ref: refs/heads/main\n",
        ".claude/skills/plain/SKILL.md": skill_md("plain", body="Do the thing.\n"),
        ".claude/skills/idx/SKILL.md": skill_md("idx", body="first=$0 second=$1 br=$ARGUMENTS[0] lit=\\$1\n"),
        ".claude/skills/idx/run.sh": "echo $1 $ARGUMENTS\n",
    })
    TrustStore.for_home(wskit_home).grant(ws)

    def show(name, *extra):
        return json.loads(wsctl("skills", "show", name, str(ws), *extra, "--json").output)["content"]

    assert show("plain", "--args", "please do X") == "Do the thing.\n\nARGUMENTS: please do X\n"
    assert show("plain") == "Do the thing.\n"
    assert show("idx", "--args", "a b") == "first=a second=b br=a lit=$1\n"
    assert show("idx", "--args", "'a b' c") == "first=a b second=c br=a b lit=$1\n"
    # other files of a skill: $ARGUMENTS and declared names only, nothing appended (Sakura)
    assert show("idx", "--file", "run.sh", "--args", "a b") == "echo $1 a b\n"


_part = st.sampled_from(["a", "b", ".", "..", "", "skills", "x.md", "é"])
_pathish = st.builds(lambda lead, parts, tail: lead + "/".join(parts) + tail,
                     st.sampled_from(["", "/", "//", "./"]), st.lists(_part, max_size=4), st.sampled_from(["", "/", "/."]))


@settings(max_examples=500, deadline=None)
@given(root=_pathish, source_root=st.one_of(_pathish, st.just("/r/p")), path=_pathish, same=st.booleans())
def test_listing_paths_are_display_path(root, source_root, path, same):
    """The listing's shortcut for a skill's path equals display_path of its absolute path."""
    from types import SimpleNamespace

    from wskit.builtin_plugins.skills.bodies import _shown_path
    from wskit.models import display_path

    prov = SimpleNamespace(source_root=root if same else source_root, path=path)
    prov.absolute_str = os.path.join(prov.source_root, path)
    assert _shown_path(root)(prov) == display_path(prov.absolute_str, root)
    assert _shown_path(Path(root))(prov) == display_path(prov.absolute_str, Path(root))  # a binding's root
