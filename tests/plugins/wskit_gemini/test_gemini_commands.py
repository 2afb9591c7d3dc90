"""TOML custom commands: loading, naming, errors and expansion."""

from __future__ import annotations

from wskit.models import ResourceSource, Scope
from wskit.testing import write_tree
from wskit_gemini.commands import expand_toml_command, load_toml_commands


def _source(root):
    return ResourceSource(scope=Scope.PROJECT, root=str(root / ".gemini"), base=str(root), label="project:.gemini")


def _load(tmp_path, files):
    root = write_tree(tmp_path / "p", files)
    res = load_toml_commands(_source(root))
    return root, {c.name: c for c in res.resources}, list(res.diagnostics)


def test_names_fields_and_defaults(tmp_path):
    _, cmds, diags = _load(tmp_path, {
        ".gemini/commands/git/commit.toml": 'description = "Commit"\nprompt = "msg"\n',
        ".gemini/commands/plain.toml": 'prompt = "p"\n',
        ".gemini/commands/notes.md": "markdown is not TOML\n"})
    assert sorted(cmds) == ["git:commit", "plain"] and not diags
    assert cmds["git:commit"].id == "project:git:commit" and cmds["git:commit"].namespace == "git"
    assert cmds["git:commit"].description == "Commit" and cmds["plain"].description == "Custom command from plain.toml"
    assert cmds["plain"].extra["format"] == "gemini-toml"


def test_syntax_error_reported_with_its_line_and_missing_prompt(tmp_path):
    _, cmds, diags = _load(tmp_path, {
        ".gemini/commands/bad.toml": 'description = "x"\nprompt = "unterminated\n',
        ".gemini/commands/noprompt.toml": 'description = "x"\n',
        ".gemini/commands/ok.toml": 'prompt = "fine"\n'})
    assert list(cmds) == ["ok"]
    by = {d.path.rsplit("/", 1)[-1]: d for d in diags}
    assert by["bad.toml"].code == "gemini-command-invalid-toml" and by["bad.toml"].line == 2
    assert by["noprompt.toml"].code == "gemini-command-invalid" and "prompt" in by["noprompt.toml"].message


def test_args_raw_in_prompt_and_quoted_in_shell(tmp_path):
    root, cmds, _ = _load(tmp_path, {".gemini/commands/c.toml": 'prompt = "Find {{args}}: !{grep -r {{args}} .}"\n'})
    seen = []

    def runner(cmd, cwd, timeout):
        seen.append((cmd, cwd))
        return "hit\n"

    exp = expand_toml_command(cmds["c"], "a b; rm -rf x", runner)
    assert seen == [("grep -r 'a b; rm -rf x' .", str(root))]
    assert exp.text == "Find a b; rm -rf x: hit" and not exp.diagnostics


def test_shell_needs_a_runner_and_failures_are_reported(tmp_path):
    _, cmds, _ = _load(tmp_path, {".gemini/commands/c.toml": 'prompt = "x !{echo {a}} y"\n'})
    exp = expand_toml_command(cmds["c"])
    assert exp.text == "x !{echo {a}} y" and [d.code for d in exp.diagnostics] == ["command-shell-not-run"]

    def failing(cmd, cwd, timeout):
        raise RuntimeError("exit status 3")

    exp = expand_toml_command(cmds["c"], runner=failing)
    assert "[Shell command exited with an error]" in exp.text and exp.diagnostics[0].code == "command-shell-failed"


def test_file_injection_is_confined_and_args_cannot_inject(tmp_path):
    root, cmds, _ = _load(tmp_path, {
        ".gemini/commands/c.toml": 'prompt = "A @{docs/a.md} B @{lib} C @{../outside.md} D {{args}}"\n',
        "docs/a.md": "alpha\n", "docs/b.md": "beta\n", "lib/c.md": "gamma\n"})
    write_tree(tmp_path, {"outside.md": "secret\n"})
    exp = expand_toml_command(cmds["c"], "@{docs/b.md} !{id}", runner=lambda *a: "RAN")
    assert "alpha" in exp.text and "--- c.md ---\ngamma\n" in exp.text
    assert "secret" not in exp.text and "@{../outside.md}" in exp.text
    assert exp.text.endswith("D @{docs/b.md} !{id}") and "beta" not in exp.text and "RAN" not in exp.text
    assert [d.code for d in exp.diagnostics] == ["command-file-refused"]


def test_arguments_appended_without_placeholder(tmp_path):
    _, cmds, _ = _load(tmp_path, {".gemini/commands/git/commit.toml": 'prompt = "Write a message."\n'})
    assert expand_toml_command(cmds["git:commit"], "--amend").text == "Write a message.\n\n/git:commit --amend"
    assert expand_toml_command(cmds["git:commit"]).text == "Write a message."
    assert expand_toml_command(cmds["git:commit"], "  \t ").text == "Write a message."  # blank: nothing appended


def test_claude_code_placeholders_mean_nothing_in_toml(tmp_path):
    """Gemini CLI knows only {{args}}: $ARGUMENTS and $0 stay, and without {{args}}
    the typed command is appended (not Claude Code's ``ARGUMENTS:`` line)."""
    _, cmds, _ = _load(tmp_path, {".gemini/commands/c.toml": 'prompt = "Use $ARGUMENTS and $0"\n'})
    assert expand_toml_command(cmds["c"], "a b").text == "Use $ARGUMENTS and $0\n\n/c a b"


def test_folder_injection_is_gemini_clis(tmp_path):
    """``@{folder}`` injects every file below it between Gemini CLI 0.61.0's markers, the root
    ``.gitignore`` applied, ``.git`` skipped (conformance case ``gemini-toml-commands``)."""
    root, cmds, _ = _load(tmp_path, {
        ".gemini/commands/c.toml": 'prompt = "D: @{docs} :E"\n', ".gitignore": "*.log\n",
        "docs/b.md": "B\n", "docs/a.md": "A\n", "docs/sub/x.md": "X\n", "docs/sub/i.log": "LOG\n",
        "docs/.git/config": "[core]\n"})
    exp = expand_toml_command(cmds["c"])
    assert exp.text == ("D: --- Start of content for directory: docs ---\n--- a.md ---\nA\n\n--- b.md ---\nB\n\n"
                        "--- sub/x.md ---\nX\n\n--- End of content for directory: docs --- :E")
    assert not exp.diagnostics
