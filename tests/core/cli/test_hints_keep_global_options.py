"""Every ``'wsctl …'`` hint in human output repeats the global options typed
(``--home``, ``--host``, ``--managed-settings``, each ``--plugin-dir``) and names a real
path, never the literal ``PATH`` (docs/wsctl.md, "Messages"): the trust status, the
Gemini memory warning, inspect's hook approval line and ``hooks run``'s note, each in a
real ``wsctl`` process (its installed plugins included)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


def _run(*args: str, cwd) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WSKIT_")}
    return subprocess.run([sys.executable, "-m", "wskit", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def layout(tmp_path):
    home, project, plug = tmp_path / "h", tmp_path / "p", tmp_path / "pl"
    project.mkdir()
    (plug / ".claude-plugin").mkdir(parents=True)
    (plug / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "pl", "version": "1.0.0"}))
    (plug / "hooks").mkdir()
    (plug / "hooks" / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}))
    return home, project, plug


def test_trust_and_gemini_hints_keep_home_and_host_and_name_the_folder(layout):
    home, project, _ = layout
    status = _run("--home", str(home), "trust", "status", str(project), cwd=project)
    assert f"(run 'wsctl --home {home} trust grant {project}')" in status.stdout, status.stdout
    pytest.importorskip("wskit_gemini")
    memory = _run("--home", str(home), "--host", "gemini", "gemini", "memory", cwd=project)
    assert f"(run 'wsctl --home {home} --host gemini trust grant {project}')" in memory.stderr, memory.stderr
    assert "PATH" not in status.stdout + memory.stderr


def test_hook_approval_hints_keep_home_and_plugin_dir(layout):
    home, project, plug = layout
    glob = f"--home {home} --plugin-dir {plug}"
    inspect = _run("--home", str(home), "--plugin-dir", str(plug), "inspect", cwd=project)
    assert f"review with 'wsctl {glob} hooks status {project}'" in inspect.stdout, inspect.stdout
    assert f"approve with 'wsctl {glob} hooks trust --digest sha256:" in inspect.stdout
    run = _run("--home", str(home), "--plugin-dir", str(plug), "hooks", "run", "PreToolUse", "--tool", "Bash",
               cwd=project)
    assert f"('wsctl {glob} hooks status {project}' shows each and how to approve it)" in run.stderr, run.stderr
    # the hint runs as printed: it lists the hook the note is about
    listed = _run("--home", str(home), "--plugin-dir", str(plug), "hooks", "list", str(project), cwd=project)
    assert listed.stdout.splitlines()[-1].split() == ["PreToolUse", "Bash", "command", "true", "pl"], listed.stdout


def test_a_hint_gets_the_options_once():
    """safe_text applies them to text that already has them: nothing is doubled."""
    import click
    from click.testing import CliRunner

    from wskit.cli.context import safe_text, with_global_args

    @click.command()
    @click.option("--home")
    @click.option("--host")
    def probe(home, host):
        click.echo(safe_text(with_global_args("run 'wsctl trust grant /x' or `wsctl inspect`")))

    res = CliRunner().invoke(probe, ["--host", "h2", "--home", "/h"])
    assert res.output.strip() == "run 'wsctl --home /h --host h2 trust grant /x' or `wsctl --home /h --host h2 inspect`"


def test_text_from_files_is_shown_as_written(tmp_path, wsctl):
    """A ``'wsctl …'`` written in a skill, an agent or a description is the author's text:
    shown exactly, never given this run's options (only wskit's own hints get them)."""
    from wskit.testing import write_tree

    ws = write_tree(tmp_path / "ws", {
        ".git/HEAD": "ref: refs/heads/main\n",
        ".claude/skills/demo/SKILL.md": "---\nname: demo\ndescription: Run 'wsctl rules' first.\n---\n"
                                        "Then run 'wsctl trust grant .' and `wsctl inspect`.\n",
        ".claude/agents/helper.md": "---\nname: helper\ndescription: Uses 'wsctl skills list'.\n---\nPrompt.\n",
    })
    assert wsctl("trust", "grant", str(ws)).exit_code == 0
    shown = wsctl("skills", "show", "demo", str(ws)).output
    assert "Then run 'wsctl trust grant .' and `wsctl inspect`." in shown
    assert "Run 'wsctl rules' first." in shown and "--home" not in shown
    listed = wsctl("skills", "list", str(ws)).output
    assert "'wsctl rules'" in listed and "--home" not in listed
    agent = wsctl("agents", "show", "helper", str(ws)).output
    assert "Uses 'wsctl skills list'." in agent and "--home" not in agent


def test_the_marketplace_listing_hint_keeps_home(tmp_path, wsctl):
    mk = tmp_path / "mk"
    (mk / ".claude-plugin").mkdir(parents=True)
    (mk / ".claude-plugin" / "marketplace.json").write_text(json.dumps({
        "name": "mine", "owner": {"name": "Me"},
        "plugins": [{"name": "far", "source": {"source": "github", "repo": "o/r"}}]}))
    out = wsctl("marketplace", "list", str(mk)).output
    assert "('wsctl --home " in out and "marketplace show DIR NAME': the whole reason)" in out
