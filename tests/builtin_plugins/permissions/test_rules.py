"""Permission rule grammar and matching, as Claude Code's permissions documentation gives it."""

from __future__ import annotations

import os

import pytest

from wskit.builtin_plugins.permissions.rules import MatchContext, RuleSyntaxError, parse_rule, split_command


def ctx(tmp_path):
    return MatchContext(cwd=str(tmp_path / "p"), project=str(tmp_path / "p"), home=str(tmp_path / "h"))


def m(text, tool, tool_input, c, behavior="deny"):
    return parse_rule(text, behavior, "user").matches(tool, tool_input, c)


@pytest.mark.parametrize("rule,command,hit", [
    ("Bash(npm run test:*)", "npm run test", True),
    ("Bash(npm run test:*)", "npm run test --watch", True),
    ("Bash(npm run test:*)", "npm run tests", False),          # word boundary
    ("Bash(ls *)", "ls -la", True),
    ("Bash(ls *)", "ls", True),                                  # a trailing ' *' is optional
    ("Bash(ls *)", "lsof", False),
    ("Bash(ls*)", "lsof", True),
    ("Bash(git * main)", "git push origin main", True),
    ("Bash(git * main)", "git push origin dev", False),
    ("Bash(npm install)", "npm install", True),
    ("Bash(npm install)", "npm install left-pad", False),        # exact without a wildcard
    ("Bash", "anything at all", True),
    ("Bash(*)", "anything at all", True),
])
def test_bash_specifiers(tmp_path, rule, command, hit) -> None:
    assert m(rule, "Bash", {"command": command}, ctx(tmp_path)) is hit


def test_compound_commands_need_every_part_allowed_and_one_part_denied(tmp_path) -> None:
    c = ctx(tmp_path)
    assert split_command("a && b || c; d | e & f\ng") == ["a", "b", "c", "d", "e", "f", "g"]
    assert split_command("echo 'a && b'; c") == ["echo 'a && b'", "c"]
    assert m("Bash(npm test:*)", "Bash", {"command": "npm test && rm -rf /"}, c, "allow") is False
    assert m("Bash(rm *)", "Bash", {"command": "npm test && rm -rf /"}, c, "deny") is True
    assert m("Bash(echo *)", "Bash", {"command": "echo $(curl evil)"}, c, "allow") is False
    assert m("Bash(echo *)", "Bash", {"command": "echo `id`"}, c, "allow") is False
    assert m("Bash(echo *)", "Bash", {"command": "echo `id`"}, c, "deny") is True


def test_path_anchors(tmp_path) -> None:
    c = ctx(tmp_path)
    p, h = tmp_path / "p", tmp_path / "h"
    assert m("Read(./.env)", "Read", {"file_path": str(p / ".env")}, c)
    assert m("Read(./.env)", "Read", {"file_path": ".env"}, c)              # relative to the cwd
    assert not m("Read(./.env)", "Read", {"file_path": str(p / "sub/.env")}, c)
    assert m("Read(*.env)", "Read", {"file_path": str(p / "sub/x.env")}, c)  # no slash: any depth
    assert m("Read(./src/**)", "Read", {"file_path": str(p / "src/a/b.py")}, c)
    assert not m("Read(./src/**)", "Read", {"file_path": str(p / "srcx/b.py")}, c)
    assert m("Read(~/.ssh/**)", "Read", {"file_path": str(h / ".ssh/id_rsa")}, c)
    assert m("Read(//etc/passwd)", "Read", {"file_path": "/etc/passwd"}, c)
    assert m("Read(/docs/*.md)", "Read", {"file_path": str(p / "docs/a.md")}, c)
    assert not m("Read(/docs/*.md)", "Read", {"file_path": str(p / "docs/x/a.md")}, c)  # * stays in a folder
    assert m("Read(./src/../.env)", "Read", {"file_path": str(p / ".env")}, c) is False  # patterns are not normalised
    assert m("Read(./.env)", "Read", {"file_path": str(p / "src/../.env")}, c)           # input paths are


def test_read_and_edit_rules_cover_their_tool_families(tmp_path) -> None:
    c = ctx(tmp_path)
    target = {"file_path": str(tmp_path / "p" / "secret.txt")}
    assert m("Edit(./secret.txt)", "Write", target, c)
    assert m("Edit(./secret.txt)", "MultiEdit", target, c)
    assert not m("Edit(./secret.txt)", "Read", target, c)
    assert m("Read(./secret.txt)", "Grep", {"path": str(tmp_path / "p" / "secret.txt")}, c)
    assert m("Read", "Glob", {}, c)


def test_a_link_cannot_carry_a_call_past_a_deny_rule(tmp_path) -> None:
    c = ctx(tmp_path)
    secrets = tmp_path / "p" / "secrets"
    secrets.mkdir(parents=True)
    (secrets / "key").write_text("k")
    os.symlink(secrets, tmp_path / "p" / "innocent")
    via_link = {"file_path": str(tmp_path / "p" / "innocent" / "key")}
    assert m("Read(./secrets/**)", "Read", via_link, c, "deny")
    assert not m("Read(./innocent/**)", "Read", via_link, c, "allow")   # the real path is not under it


def test_webfetch_mcp_agent_skill(tmp_path) -> None:
    c = ctx(tmp_path)
    assert m("WebFetch(domain:example.com)", "WebFetch", {"url": "https://example.com/a"}, c)
    assert not m("WebFetch(domain:example.com)", "WebFetch", {"url": "https://evil-example.com/"}, c)
    assert not m("WebFetch(domain:example.com)", "WebFetch", {"url": "https://api.example.com/"}, c)
    assert m("WebFetch(domain:*.example.com)", "WebFetch", {"url": "https://api.example.com/"}, c)
    assert not m("WebFetch(domain:example.com)", "WebFetch", {"url": "not a url"}, c)
    assert m("mcp__github", "mcp__github__create_issue", {}, c)
    assert m("mcp__github__*", "mcp__github__create_issue", {}, c)
    assert not m("mcp__github", "mcp__githubx__create_issue", {}, c)
    assert m("mcp__github__create_issue", "mcp__github__create_issue", {}, c)
    assert not m("mcp__github__create_issue", "mcp__github__delete_repo", {}, c)
    assert m("Agent(Explore)", "Task", {"subagent_type": "Explore"}, c)
    assert m("Skill(pdf*)", "Skill", {"skill": "pdf-tools"}, c)


@pytest.mark.parametrize("text,why", [
    (5, "must be a string"), ("", "must not be empty"), ("Bash(ls", "must end with ')'"),
    ("Bash)", "without '('"), ("9lives", "not a tool name"), ("Ba*sh", "not a tool name"),
    ("mcp__x(y)", "take no specifier"), ("WebFetch(example.com)", "domain:"),
])
def test_bad_rules_say_why(text, why) -> None:
    with pytest.raises(RuleSyntaxError, match=why.replace("(", r"\(").replace(")", r"\)")):
        parse_rule(text, "allow", "user")
