"""The allowed-tools selector grammar and ToolPolicy (reference/holon-sakura.md B4)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wskit.builtin_plugins.skills.tools import SelectorError, ToolPolicy, parse_command, parse_selector, parse_selectors


@pytest.mark.parametrize("text,tool,argv,prefix", [
    ("Read", "read_file", None, False),
    ("Bash", "run_command", None, False),
    ("Shell", "run_command", None, False),
    ("write_file", "write_file", None, False),
    ("mcp.server:tool-x", "mcp.server:tool-x", None, False),
    ("Shell(git status)", "run_command", ("git", "status"), False),
    ("Bash(git status:*)", "run_command", ("git", "status"), True),
    ("Bash(git *)", "run_command", ("git",), True),
    ("Bash(git:*)", "run_command", ("git",), True),
    ("Bash(npm run 'build all')", "run_command", ("npm", "run", "build all"), False),
])
def test_valid_selectors(text, tool, argv, prefix):
    s = parse_selector(text)
    assert (s.tool, s.argv, s.prefix) == (tool, argv, prefix)


@pytest.mark.parametrize("text", [
    "Read(foo/**)", "Bash(git* status)", "Bash(git status && id)", "*", "Bash()", "Bash(:*)",
    "Bash(echo $HOME)", "Bash(cat ~/.ssh/id_rsa)", "Bash(ls > out)", "Bash(a | b)", "Bash(a; b)",
    "Bash(echo `id`)", "Bash(echo \"unterminated)", "Bash(FOO=1 make)", "Bash(-rf x)", "Bash(a\nb)",
    "Bash(ls [ab])", "Bash(ls x?)", "Bash({a,b})", "9tool", "Write(x)", 5, None, True,
])
def test_invalid_selectors(text):
    with pytest.raises(SelectorError):
        parse_selector(text)


def test_values_absent_empty_and_json():
    assert parse_selectors(None) is None
    assert parse_selectors("") is None
    assert parse_selectors([]) == ()
    assert [s.tool for s in parse_selectors('["Read", "Bash(git status)"]')] == ["read_file", "run_command"]
    assert [s.text for s in parse_selectors("Read, Bash(git status:*) write_file")] == [
        "Read", "Bash(git status:*)", "write_file"]
    with pytest.raises(SelectorError):
        parse_selectors({"Read": True})
    with pytest.raises(SelectorError):
        parse_selectors("[not json")


@pytest.mark.parametrize("command,allowed", [
    ("git status", True),
    ("git status --short", True),
    ("git  status", True),
    ("git log", False),
    ("git status && id", False),
    ("git status; id", False),
    ("git status | cat", False),
    ("git status > f", False),
    ("git status $(id)", False),
    ("git status `id`", False),
    ("git status\nid", False),
    ("git status ~", False),
    ("git status *", False),
    ("gitx status", False),
])
def test_prefix_selector_table(command, allowed):
    policy = ToolPolicy.from_value("Bash(git status:*)")
    assert policy.check("run_command", command).allowed is allowed


def test_exact_selector_needs_equal_argv():
    policy = ToolPolicy.from_value(["Shell(git status)"])
    assert policy.check("Bash", "git status")
    assert not policy.check("run_command", "git status --short")
    assert "not in allowed-tools" in policy.check("run_command", "git diff").reason


def test_bare_names_aliases_and_visibility():
    policy = ToolPolicy.from_value("Read Bash(git:*)")
    assert policy.check("read_file")
    assert policy.check("Read")
    assert not policy.check("write_file")
    assert policy.check("run_command")  # schema projection: a command selector makes the tool visible
    assert policy.check("run_command", "git push")
    assert not policy.check("run_command", "rm -rf /")
    bare = ToolPolicy.from_value("Bash")
    assert bare.check("run_command", "anything at all")


def test_empty_list_denies_all_but_workflow_tools():
    policy = ToolPolicy.from_value([])
    assert not policy.check("read_file")
    assert not policy.check("run_command", "ls")
    assert policy.check("use_skill") and policy.check("finish_task")


def test_intersection_of_clauses_and_invalid_clause_denies():
    policy = ToolPolicy.from_clauses([("a", ["Read", "Bash(git:*)"]), ("b", ["Bash(git status)"])])
    assert policy.check("run_command", "git status")
    assert not policy.check("run_command", "git log")
    assert not policy.check("read_file")
    broken = ToolPolicy.from_clauses([("c", ["Read", "Read(x/**)"])])
    assert not broken.check("read_file")
    assert "denies every tool" in broken.check("read_file").reason
    assert (ToolPolicy.from_value("Read") & ToolPolicy.from_value("write_file")).check("read_file").allowed is False


def test_parse_command_literal():
    assert parse_command("git commit -m 'a b'") == ("git", "commit", "-m", "a b")
    assert parse_command("echo $X") is None
    assert parse_command("") is None


_OPS = st.sampled_from(list(";&|<>$`\\(){}*?[]~\r\n"))


@settings(max_examples=200, deadline=None)
@given(head=st.text(alphabet="abcdefgh -", max_size=12), op=_OPS, tail=st.text(max_size=12))
def test_a_command_with_shell_syntax_never_matches(head, op, tail):
    command = f"git {head}{op}{tail}"
    for selector in ("Bash(git:*)", "Bash(git *)", f"Shell(git {head.strip() or 'x'})"):
        try:
            policy = ToolPolicy.from_value([selector])
        except SelectorError:
            continue
        assert not policy.check("run_command", command).allowed
