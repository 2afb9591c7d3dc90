"""No name or path reaches the terminal raw: a project folder whose name holds escape
sequences (set the window title, clear the screen, set the clipboard with OSC 52, a
right-to-left override) is printed escaped by every command, in its listings, its
messages and its errors.

It used to reach ``hooks status``, ``workspace attach`` and ``skills show`` errors raw.
The guard is one mechanism, not a per-command fix: every ``wsctl`` command runs with
its standard streams behind :class:`wskit.cli.context.EscapingStream`, and click's own
errors and ``WsctlError`` are printed through :func:`wskit.cli.shown_message`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from wskit.trust import TrustStore

#: what must never reach a terminal: C0 (but tab and line feed), DEL, C1, bidi overrides
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
NAME = "proj\x1b]0;pwned\x07\x1b[2J\x1b]52;c;cHduZWQ=\x07\u202eevil"

HOOKS = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh ./g.sh"}]}]}}


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch) -> Path:
    """A project named with escape sequences, holding a skill, hooks, an MCP server, rules."""
    p = tmp_path / NAME
    (p / ".git").mkdir(parents=True)
    (p / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (p / ".claude" / "skills" / "s").mkdir(parents=True)
    (p / ".claude" / "skills" / "s" / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\nbody\n")
    (p / ".claude" / "settings.json").write_text(json.dumps(HOOKS))
    (p / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": {"command": "sh", "args": ["./srv.sh"]}}}))
    (p / "CLAUDE.md").write_text("rules\n")
    monkeypatch.chdir(p)
    return p


COMMANDS = [
    ("inspect", "."), ("inspect", "{P}/missing"),
    ("hooks", "status"), ("hooks", "list"), ("hooks", "run", "PreToolUse", "--tool", "Bash"),
    ("hooks", "trust", "."),
    ("skills", "list"), ("skills", "show", "nope"), ("skills", "show", "s"), ("skills", "validate", "{P}/.claude/skills/s"),
    ("skills", "files", "s"),
    ("rules", "explain", "{P}/x.py"),
    ("mcp", "list"), ("mcp", "check", "srv"),
    ("lsp", "list"),
    ("commands", "list"), ("commands", "render", "nope"),
    ("agents", "list"), ("agents", "show", "nope"),
    ("styles", "list"), ("styles", "show", "nope"),
    ("plugins", "list"), ("plugins", "validate", "."), ("plugins", "show", "nope"),
    ("plugins", "install", "x@m", "--from", "{P}/nowhere"),
    ("trust", "status", "."), ("trust", "list"), ("trust", "revoke", "."), ("trust", "grant", "."),
    ("permissions", "list"), ("permissions", "check", "Bash", "ls"),
    ("workspace", "attach", "."), ("workspace", "state"), ("workspace", "switch", "--path", "."),
    ("workspace", "detach", "nope"),
    ("worktree", "create", "nope", "b", "HEAD"),
    ("ref", "resolve", "{P}/x"),
    ("marketplace", "list"),
    ("snapshot", "."),
]


@pytest.mark.parametrize("trusted", [False, True], ids=["untrusted", "trusted"])
@pytest.mark.parametrize("argv", COMMANDS, ids=[" ".join(c) for c in COMMANDS])
def test_no_command_prints_a_name_raw(argv, trusted, hostile, wsctl, wskit_home):
    if trusted:
        TrustStore.for_home(wskit_home).grant(hostile)
    args = [a.replace("{P}", str(hostile)) for a in argv]
    res = wsctl(*args)
    out = res.stdout + res.stderr
    assert "Traceback" not in out, out
    assert not RAW.search(out), (args, out)


def test_the_name_is_shown_escaped_not_dropped(hostile, wsctl, wskit_home):
    """Escaped, never silently dropped: the user can still see which folder it is."""
    TrustStore.for_home(wskit_home).grant(hostile)
    out = wsctl("inspect", ".").stdout
    assert "proj\\x1b]0;pwned\\x07\\x1b[2J" in out and "\\u202eevil" in out


def test_json_output_is_unchanged_and_valid(hostile, wsctl, wskit_home):
    """--json keeps its own escapes: the document parses and holds the real name."""
    TrustStore.for_home(wskit_home).grant(hostile)
    res = wsctl("inspect", ".", json=True)
    data = json.loads(res.stdout)
    assert data["workspace"]["source_root"] == str(hostile)


def test_a_usage_error_naming_a_path_is_escaped_through_main(hostile, capsys):
    """click's own errors (a --from folder that does not exist), printed by ``main``."""
    from wskit.cli import main

    rc = main(["--home", str(hostile.parent / "home"), "plugins", "install", "x@m", "--from",
               str(hostile / "nowhere\x1b[2J")])
    captured = capsys.readouterr()
    assert rc != 0
    assert not RAW.search(captured.out + captured.err), captured.err
    assert "\\x1b[2J" in captured.err


def test_colour_of_paint_still_reaches_a_terminal():
    """The guard keeps wskit's own colour sequences and nothing else."""
    import io

    from wskit.cli.context import EscapingStream

    raw = io.StringIO()
    EscapingStream(raw).write("\x1b[31m\x1b[1merror:\x1b[0m name\x1b]0;t\x07\x1b[8m\r\n")
    assert raw.getvalue() == "\x1b[31m\x1b[1merror:\x1b[0m name\\x1b]0;t\\x07\\x1b[8m\\x0d\n"
    EscapingStream(raw).writelines(["\x1b[2J\n"])
    print("\x9b2J", file=EscapingStream(raw))
    assert raw.getvalue().endswith("\\x1b[2J\n\\x9b2J\n")
