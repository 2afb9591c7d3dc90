"""wsctl's manners: did-you-mean naming the folder searched and its trust, hints keeping
--home/--host, refusals of a wrong argument, readable marketplace and plugin listings,
colour and progress on a terminal only (NO_COLOR honoured), shell completion of names."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.process_helpers import in_pty
from wskit.trust import TrustStore

WSCTL = [sys.executable, "-m", "wskit"]


def project(make_tree, home, trusted=True):
    ws = make_tree({
        ".git/HEAD": "ref: refs/heads/main\n",
        ".claude/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: PDF\n---\nb\n",
        ".claude/agents/rev.md": "---\nname: reviewer\ndescription: Reviews\n---\nYou review.\n",
        ".claude/commands/ship.md": "---\ndescription: Ship\n---\nShip.\n",
    })
    if trusted:
        TrustStore.for_home(home).grant(ws)
    return ws


def test_unknown_names_suggest_the_nearest_and_say_where_they_looked(make_tree, wskit_home, wsctl) -> None:
    ws = project(make_tree, wskit_home)
    r = wsctl("skills", "show", "pfd", str(ws))
    assert r.exit_code == 1
    assert f"unknown skill 'pfd'; did you mean 'pdf'? [SKILL_NOT_FOUND] (searched {ws} and the user folders; " \
           "the project is trusted)" in r.output
    r = wsctl("agents", "show", "reviewr", str(ws))
    assert "unknown agent 'reviewr'; did you mean 'reviewer'?" in r.output
    r = wsctl("commands", "render", "shp", "-C", str(ws))
    assert "did you mean 'ship'?" in r.output
    r = wsctl("plugins", "show", "pdf", "--path", str(ws))
    assert f"no content plugin 'pdf' (searched {ws}, trusted; found: none)" in r.output


def test_an_untrusted_project_is_named_and_the_hint_keeps_home_and_host(make_tree, wskit_home, wsctl) -> None:
    ws = project(make_tree, wskit_home, trusted=False)
    r = wsctl("--host", "codex", "skills", "show", "pdf", str(ws))
    assert r.exit_code == 1
    assert f"(searched {ws}: untrusted, so only user and plugin resources were loaded; " \
           f"'wsctl --home {wskit_home} --host codex trust grant {ws}' loads the project's)" in r.output
    r = wsctl("--host", "codex", "inspect", str(ws))
    assert f"(run 'wsctl --home {wskit_home} --host codex trust grant {ws}')" in r.output


def test_rules_explain_refuses_a_folder_for_the_file_and_says_untrusted(make_tree, wskit_home, wsctl) -> None:
    ws = project(make_tree, wskit_home, trusted=False)
    (ws / "GEMINI.md").write_text("g\n")
    r = wsctl("rules", "explain", str(ws), str(ws / "GEMINI.md"))
    assert r.exit_code == 2
    assert f"FILE '{ws}' is a folder" in r.output and f"did you mean 'wsctl --home {wskit_home} rules explain {ws / 'GEMINI.md'} {ws}'" \
        in r.output
    r = wsctl("rules", "explain", str(ws / "GEMINI.md"), str(ws))
    assert r.exit_code == 0 and "(untrusted: project rules not read; only user rules apply)" in r.output


def test_marketplace_listing_codes_legend_installable_and_entry_suggestions(tmp_path, wsctl) -> None:
    mk = tmp_path / "mk"
    (mk / "plugins" / "tool" / ".claude-plugin").mkdir(parents=True)
    (mk / "plugins" / "tool" / ".claude-plugin" / "plugin.json").write_text('{"name": "tool"}')
    (mk / ".claude-plugin").mkdir()
    long = "A tool that does a great many things and explains them at a length no table should show"
    (mk / ".claude-plugin" / "marketplace.json").write_text(json.dumps({"name": "mk", "owner": {"name": "Me"},
        "plugins": [{"name": "tool", "source": "./plugins/tool", "description": long},
                    {"name": "net", "source": {"source": "github", "repo": "a/b"}},
                    {"name": "web", "source": {"source": "url", "url": "https://x"}}]}))
    out = wsctl("marketplace", "list", str(mk)).output
    assert out.splitlines()[0] == "mk (Me): 3 plugins, 1 installable"
    assert "no: needs-fetch" in out and out.count("the host must fetch it") == 1  # one legend line
    assert "A tool that does a great many things and explains…" in out and long not in out
    only = wsctl("marketplace", "list", str(mk), "--installable").output
    assert "net" not in only and "1 of 3 plugins installable" in only
    data = json.loads(wsctl("marketplace", "list", str(mk), json=True).output)
    assert data["plugins"][1]["reason_code"] == "needs-fetch" and data["plugins"][0]["description"] == long
    r = wsctl("marketplace", "show", str(mk), "tol")
    assert r.exit_code == 1 and "has no plugin 'tol'; did you mean 'tool'?" in r.output


def test_plugins_show_labels_kinds_and_hooks_by_event(tmp_path, wsctl, make_tree) -> None:
    p = tmp_path / "demo"
    (p / ".claude-plugin").mkdir(parents=True)
    (p / ".claude-plugin" / "plugin.json").write_text('{"name": "demo", "version": "1.0.0"}')
    (p / "skills" / "s").mkdir(parents=True)
    (p / "skills" / "s" / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\nb\n")
    (p / "hooks").mkdir()
    (p / "hooks" / "hooks.json").write_text(json.dumps({"hooks": {"PostToolUse": [
        {"matcher": "Write", "hooks": [{"type": "command", "command": "fmt.sh"}]}]}}))
    ws = make_tree({"x": "y"})
    out = wsctl("--plugin-dir", str(p), "plugins", "show", "demo", "--path", str(ws)).output
    assert "  - skill       plugin:demo:s" in out
    assert "  - hook        PostToolUse Write: fmt.sh" in out


def _in_pty(argv, env) -> str:
    """Run argv with stdout and stderr on a pseudo-terminal; what it printed."""
    return in_pty(argv, env)[0]


def _env(home: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "WSKIT_HOME", "WSKIT_HOST")}
    return {**env, "HOME": str(home), **extra}


def test_errors_are_coloured_on_a_terminal_only(make_tree, wskit_home) -> None:
    ws = project(make_tree, wskit_home)
    argv = [*WSCTL, "--home", str(wskit_home), "skills", "show", "nope", str(ws)]
    tty = _in_pty(argv, _env(wskit_home))
    assert "\x1b[31m\x1b[1merror:\x1b[0m unknown skill 'nope'" in tty
    plain = _in_pty(argv, _env(wskit_home, NO_COLOR="1"))
    assert "error: unknown skill 'nope'" in plain and "\x1b[31m" not in plain and "\x1b[1m" not in plain
    piped = subprocess.run(argv, capture_output=True, text=True, env=_env(wskit_home), timeout=60)
    assert piped.stderr.startswith("error: unknown skill 'nope'") and "\x1b[" not in piped.stderr


def test_progress_shows_on_a_terminal_and_nowhere_else(tmp_path) -> None:
    code = "import time\nfrom wskit.cli.context import progress\nwith progress('walking a huge tree', delay=0):\n" \
           "    time.sleep(0.8)\nprint('done')\n"
    argv = [sys.executable, "-c", code]
    tty = _in_pty(argv, _env(tmp_path))
    assert "walking a huge tree… 0 s" in tty and "\r\x1b[K" in tty and tty.rstrip().endswith("done")
    piped = subprocess.run(argv, capture_output=True, text=True, env=_env(tmp_path), timeout=60)
    assert piped.stdout == "done\n" and piped.stderr == ""


def test_shell_completion_offers_the_workspace_names(make_tree, wskit_home) -> None:
    ws = project(make_tree, wskit_home)
    env = _env(wskit_home, COMP_WORDS=f"wsctl --home {wskit_home} skills show p", COMP_CWORD="5",
               _WSCTL_COMPLETE="bash_complete")
    done = subprocess.run([str(Path(sys.executable).parent / "wsctl")], capture_output=True, text=True, env=env,
                          cwd=ws, timeout=60)
    assert done.stdout.splitlines() == ["plain,pdf", "plain,project:pdf"]
    env.update(COMP_WORDS=f"wsctl --home {wskit_home} agents show ", _WSCTL_COMPLETE="zsh_complete")
    done = subprocess.run([str(Path(sys.executable).parent / "wsctl")], capture_output=True, text=True, env=env,
                          cwd=ws, timeout=60)
    assert "reviewer" in done.stdout.splitlines()
    script = subprocess.run([str(Path(sys.executable).parent / "wsctl")], capture_output=True, text=True,
                            env=_env(wskit_home, _WSCTL_COMPLETE="fish_source"), timeout=60)
    assert "complete --no-files --command wsctl" in script.stdout
