"""The ``if`` grammar and matching of hook handlers (wskit.builtin_plugins.hooks.conditions)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wskit.builtin_plugins.hooks.conditions import (
    IfRule,
    IfRuleError,
    if_matches,
    parse_if,
    subcommands,
    wildcard_matches,
)


@pytest.mark.parametrize("value,rule", [
    ("Bash", IfRule("Bash")), ("Bash()", IfRule("Bash")), ("Bash(*)", IfRule("Bash")),
    (" Bash(git *) ", IfRule("Bash", "git *")), ("Bash(git commit:*)", IfRule("Bash", "git commit:*")),
    ("Edit(src/**)", IfRule("Edit", "src/**")), ("mcp__db__query(x)", IfRule("mcp__db__query", "x")),
    (r"Bash(echo \(x\))", IfRule("Bash", "echo (x)")),
])
def test_parse(value, rule):
    assert parse_if(value) == rule


@pytest.mark.parametrize("value", ["", "  ", None, 5, ["Bash"], "Bash(git", "Bash(a)b", "Ba sh", "Bash(a(b)",
                                   "tool_input.command matches 'git push'", "tool_name == 'Bash'", "(x)"])
def test_unparsable(value):
    with pytest.raises(IfRuleError):
        parse_if(value)


def m(rule: str, tool: str, **tool_input) -> bool:
    return if_matches(parse_if(rule), tool, tool_input, cwd="/p/sub", project_dir="/p", home="/h")


@pytest.mark.parametrize("rule,tool,tool_input,expected", [
    ("Bash", "Bash", {"command": "anything"}, True),
    ("Bash", "Read", {"file_path": "/p/x"}, False),
    ("Bash(git *)", "Bash", {"command": "git"}, True),
    ("Bash(git *)", "Bash", {"command": "gitk"}, False),
    ("Bash(ls*)", "Bash", {"command": "lsof"}, True),
    ("Bash(npm run build)", "Bash", {"command": "npm run build --x"}, False),
    ("Bash(git commit:*)", "Bash", {"command": "git commit -am 'x'"}, True),
    ("Bash(git push *)", "Bash", {"command": "make && git push origin"}, True),
    ("Bash(git push *)", "Bash", {"command": "echo $(git push)"}, True),
    ("Bash(git push *)", "Bash", {"command": "echo \"git push\""}, False),
    ("Bash(rm *)", "Bash", {"command": "ls\nrm -rf x"}, True),
    ("Bash(git *)", "Bash", {}, False),
    ("Edit(src/**)", "Edit", {"file_path": "/p/sub/src/a/b.py"}, True),   # relative to cwd
    ("Edit(/src/**)", "Edit", {"file_path": "/p/src/a.py"}, True),        # relative to the project
    ("Edit(/src/**)", "Edit", {"file_path": "/p/sub/src/a.py"}, False),
    ("Edit(*.ts)", "Edit", {"file_path": "/p/sub/deep/a.ts"}, True),
    ("Edit(*.ts)", "Edit", {"file_path": "/elsewhere/a.ts"}, False),     # outside the base
    ("Edit(src/**)", "Edit", {"file_path": "/p/sub/src/../../etc/x"}, False),
    ("Read(//etc/**)", "Read", {"file_path": "/etc/passwd"}, True),
    ("Read(~/.ssh/**)", "Read", {"file_path": "/h/.ssh/id_rsa"}, True),
    ("Read(./x/*)", "Read", {"file_path": "x/f"}, True),                  # relative input path
    ("NotebookEdit(*.ipynb)", "NotebookEdit", {"notebook_path": "/p/sub/n.ipynb"}, True),
    ("Grep(/sub/**)", "Grep", {"pattern": "x"}, True),                    # no path: the cwd
    ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://example.com/a"}, True),
    ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://evil.test/example.com"}, False),
    ("mcp__sh__run(git *)", "mcp__sh__run", {"command": "git log"}, True),  # other tools: command, else path
    ("mcp__fs__w(*.md)", "mcp__fs__w", {"path": "/p/sub/a.md"}, True),
    ("mcp__x__y(z)", "mcp__x__y", {"q": "z"}, False),
    ("Task", "Agent", {}, True),
])
def test_matching(rule, tool, tool_input, expected):
    assert m(rule, tool, **tool_input) is expected


def test_subcommands_strip_assignments_and_not_the_whole():
    # Claude Code 2.1.337: Bash(echo a && touch b.txt) does not fire for that very command
    assert subcommands("A=1 B='x y' git push; (cd d && make) | tee l") == ["git push", "cd d", "make", "tee l"]


_plain = st.text(alphabet=st.characters(blacklist_characters="*\\", blacklist_categories=("Cs",)), max_size=30)


@given(_plain)
def test_a_pattern_without_wildcards_matches_exactly_itself(text):
    assert wildcard_matches(text, text)
    assert not wildcard_matches(text, text + "x")


@given(_plain, _plain)
def test_trailing_space_star_is_a_word_prefix(prefix, rest):
    pattern = prefix + " *"
    assert wildcard_matches(pattern, prefix) and wildcard_matches(pattern, prefix + " " + rest)
    assert wildcard_matches(prefix + ":*", prefix + " " + rest)


@pytest.mark.parametrize("raw", [5, True, 1.5, [1], {"a": 1}])
def test_a_non_string_if_is_kept_as_text_the_runner_cannot_read(raw):
    """The loader warns (hook-if-invalid) and the runner treats the kept text as
    unparsable (runs restrict-only): "5" or "true" alone would parse as a tool name,
    so the handler would silently never run."""
    from wskit.builtin_plugins.hooks.conditions import if_unparsable
    from wskit.builtin_plugins.hooks.definitions import _if_condition

    said = []
    text = _if_condition("PreToolUse", 0, {"if": raw}, lambda msg, level, code: said.append((code, level)))
    assert said == [("hook-if-invalid", "warning")]
    assert text.endswith("(not a string)") and if_unparsable(text)
