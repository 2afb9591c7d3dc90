import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, skill_md


@pytest.fixture
def project(make_tree):
    return make_tree({
        ".claude/skills/alpha/SKILL.md": skill_md("alpha", "Alpha skill."),
        ".agents/skills/beta/SKILL.md": skill_md("beta", "Beta skill."),
        ".claude/skills/broken/SKILL.md": "---\nname: broken\n---\n",
    })


def test_inspect_json_contract(wsctl, project, wskit_home):
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    r = wsctl("inspect", str(project), json=True)
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert set(data) == {"workspace", "trust", "hooks", "counts", "resources", "diagnostics"}
    assert set(data["workspace"]) == {"source_root", "execution_root", "cwd", "host"}
    assert data["workspace"]["host"] == "wskit"
    assert data["trust"] == {"state": "trusted", "decided_by": str(project.resolve())}
    assert data["counts"]["skill"] == 3  # 'broken' loads without a description, as in Claude Code
    alpha = next(r for r in data["resources"] if r["id"] == "project:alpha")
    assert alpha == {"kind": "skill", "id": "project:alpha", "name": "alpha", "scope": "project",
                     "path": ".claude/skills/alpha/SKILL.md", "plugin": None}
    diag = next(d for d in data["diagnostics"] if d["code"] == "skill-missing-description")
    assert set(diag) == {"level", "code", "path", "line", "message", "plugin"}
    assert diag["path"] == ".claude/skills/broken/SKILL.md" and diag["level"] == "warning"


def test_inspect_untrusted_says_why(wsctl, project, wskit_home):
    r = wsctl("inspect", str(project))
    assert r.exit_code == 0
    assert "unknown" in r.stdout and f"'wsctl --home {wskit_home} trust grant {project}'" in r.stdout and "skill: 0" in r.stdout
    data = json.loads(wsctl("--json", "inspect", str(project)).stdout)
    assert data["resources"] == [] and data["trust"]["state"] == "unknown"
    assert any(d["code"] == "project-untrusted" for d in data["diagnostics"])


def test_per_command_json_flag(wsctl, project):
    r = wsctl("inspect", str(project), "--json")
    assert json.loads(r.stdout)["counts"]["skill"] == 0


def test_skills_list_json(wsctl, project):
    wsctl("trust", "grant", str(project))
    data = json.loads(wsctl("skills", "list", str(project), json=True).stdout)
    assert [s["id"] for s in data["skills"]] == ["project:alpha", "project:beta", "project:broken"]
    assert data["skills"][2]["description"] == "Skill"  # an empty body: Claude Code's fallback
    assert set(data["skills"][0]) == {"id", "name", "description", "scope", "path", "plugin"}
    assert any(d["code"] == "skill-missing-description" for d in data["diagnostics"])
    human = wsctl("skills", "list", str(project)).stdout
    assert "project:alpha" in human and "Alpha skill." in human


def test_snapshot_writes_state(wsctl, project, tmp_path):
    wsctl("trust", "grant", str(project))
    out = tmp_path / "state.json"
    r = wsctl("snapshot", str(project), "-o", str(out), json=True)
    assert r.exit_code == 0
    meta = json.loads(r.stdout)
    assert meta["resources"] == 3 and meta["file"] == str(out)
    state = json.loads(out.read_text())
    assert state["session_id"] == meta["session_id"] and oct(out.stat().st_mode & 0o777) == "0o600"
    assert {r["id"] for r in state["resources"]} == {"project:alpha", "project:beta", "project:broken"}


def test_plugins_json(wsctl):
    data = json.loads(wsctl("plugins", json=True).stdout)
    names = {p["name"]: p for p in data["plugins"]}
    assert {"skills", "trust", "sources"} <= set(names)
    p = names["skills"]
    assert set(p) == {"name", "version", "distribution", "builtin", "hooks", "error"}
    assert p["builtin"] is True and "wskit_load_skills" in p["hooks"] and p["error"] is None


def test_usage_error_exit_2(wsctl):
    r = wsctl("inspect", "/definitely/not/here")
    assert r.exit_code == 2


def _wsctl_bin() -> str:
    exe = Path(sys.executable).with_name("wsctl")
    if not exe.exists():
        pytest.skip("wsctl console script not installed in this environment")
    return str(exe)


def test_console_script_version_and_error_exit(tmp_path):
    exe = _wsctl_bin()
    out = subprocess.run([exe, "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("wsctl ")
    home = tmp_path / "home"
    (home / ".wskit").mkdir(parents=True)
    (home / ".wskit" / "trust.toml").write_text("oops = [")
    os.chmod(home / ".wskit" / "trust.toml", 0o600)
    r = subprocess.run([exe, "--home", str(home), "trust", "grant", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.startswith("error: ") and "Traceback" not in r.stderr


def test_wsctl_version_imports_only_click():
    code = ("import sys; from wskit.cli import make_cli; "
            "import click.testing as t; r = t.CliRunner().invoke(make_cli(), ['--version']); "
            "print(r.output.strip()); print(sorted(m for m in ('pluggy','pydantic','yaml','wskit.models') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0].startswith("wsctl ") and out[1] == "[]"


def test_plugins_shows_a_plugin_failing_in_a_hook(wsctl, wskit_pm, make_tree):
    import wskit

    class Exploding:
        @wskit.hookimpl
        def wskit_resource_sources(self, binding, profile, trust):
            raise RuntimeError("cannot list sources")

    wskit_pm.register(Exploding(), name="exploding")
    root = make_tree({"README.md": "x"})
    data = json.loads(wsctl("plugins", "--path", str(root), json=True).stdout)
    bad = next(p for p in data["plugins"] if p["name"] == "exploding")
    assert "wskit_resource_sources" in bad["error"] and "cannot list sources" in bad["error"]
    assert next(p for p in data["plugins"] if p["name"] == "skills")["error"] is None


def test_inspect_lists_instruction_files_and_rules(wsctl, make_tree):
    root = make_tree({
        "AGENTS.md": "Be brief.\n",
        "pkg/CLAUDE.md": "Package rules.\n",
        ".claude/rules/py.md": "---\npaths: ['**/*.py']\n---\nUse type hints.\n",
    })
    git(root, "init", "-q")
    wsctl("trust", "grant", str(root))
    data = json.loads(wsctl("inspect", str(root), json=True).stdout)
    rules = sorted(r["path"] for r in data["resources"] if r["kind"] == "rule")
    assert rules == [".claude/rules/py.md", "AGENTS.md", "pkg/CLAUDE.md"]
    assert data["counts"]["rule"] == 3


def test_terminal_escapes_in_descriptions_are_neutralised(wsctl, make_tree):
    root = make_tree({".claude/skills/evil/SKILL.md":
                      '---\nname: evil\ndescription: "ok \\e]52;c;cm0gLXJmIH4K\\a \\x9b31m done"\n---\nx\n'})
    wsctl("trust", "grant", str(root))
    out = wsctl("skills", "list", str(root)).stdout
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
    assert "\\x1b]52" in out and "done" in out
    data = json.loads(wsctl("skills", "list", str(root), json=True).stdout)  # JSON keeps the data exact
    assert "\x1b]52" in data["skills"][0]["description"]


def test_rule_and_bundle_diagnostics_in_human_output_are_escaped(capsys):
    """Diagnostic paths and messages in human output (``wsctl rules`` among others) are
    escaped: raw, a file name holding ESC or a line feed would reach the terminal. Every human
    diagnostic line goes through ``safe_text`` (docs/security.md)."""
    from wskit.cli.context import print_diag_dicts as _print_diags

    _print_diags([{"level": "error", "code": "rule-name-invalid", "path": ".claude/rules/\x1b[31mred\nx.md",
                   "line": None, "message": "bad \x9b31m name"}])
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x9b" not in out
    assert "\\x1b[31mred\\x0ax.md" in out and "bad \\x9b31m name" in out
    assert out.count("\n") == 3  # a blank line, the heading and one diagnostic line: nothing split


def test_bad_host_name_is_a_usage_error_in_plain_words(wsctl, make_tree):
    root = make_tree({"a.md": "x"})
    res = wsctl("--host", "bad host", "inspect", str(root))
    assert res.exit_code == 2
    assert "--host: invalid host name 'bad host'" in res.output
    assert "pydantic" not in res.output and "validation error" not in res.output
