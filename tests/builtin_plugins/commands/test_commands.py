"""Custom commands: discovery, naming and expansion (docs/commands.md)."""

import subprocess

from tests.markdown_helpers import load
from wskit.builtin_plugins.commands.expand import SubprocessRunner, expand, split_args, substitute_args
from wskit.builtin_plugins.commands.loader import load_commands
from wskit.models import ResourceSource, Scope

CMD = "---\ndescription: {d}\n---\n{b}"


def test_discovery_subfolders_host_folder_and_agents_folder(make_tree, wskit_home):
    ws = make_tree({
        ".claude/commands/test.md": CMD.format(d="claude test", b="t"),
        ".claude/commands/frontend/test.md": CMD.format(d="frontend test", b="f"),
        ".claude/commands/a/b/c.md": "No frontmatter, first line is the description\nmore",
        ".wskit/commands/test.md": CMD.format(d="host test", b="h"),
        ".agents/commands/ignored.md": CMD.format(d="x", b="x"),
        ".claude/commands/bad:name.md": CMD.format(d="x", b="x"),
        ".claude/commands/notes.txt": "not markdown",
    })
    (wskit_home / ".claude/commands").mkdir(parents=True)
    (wskit_home / ".claude/commands/test.md").write_text(CMD.format(d="user test", b="u"))
    (wskit_home / ".claude/commands/mine.md").write_text(CMD.format(d="user only", b="u"))
    w = load(ws, wskit_home)
    reg = w.registry("command")
    assert reg.get("test").description == "host test"  # host folder wins at the same scope
    assert reg.get("test").id == "project:test"
    sub = reg.get("frontend:test")
    assert (sub.id, sub.namespace, sub.body) == ("project:frontend:test", "frontend", "f")
    assert reg.get("a:b:c").description == "No frontmatter, first line is the description"
    assert reg.get("mine").id == "user:mine"
    assert "ignored" not in reg
    assert any(d.code == "command-name-invalid" and d.path.endswith("bad:name.md") for d in w.diagnostics)
    assert any(d.code == "shadowed" and "user:test" in d.message for d in w.diagnostics)


def test_plugin_commands_are_namespaced(make_tree, tmp_path):
    root = make_tree({"commands/review.md": CMD.format(d="r", b="r"), "commands/git/push.md": "p",
                      "more/extra.md": "e"}, root=tmp_path / "plug")
    res = load_commands(ResourceSource(scope=Scope.PLUGIN, root=str(root), base=str(root), plugin="kit"))
    assert sorted(c.id for c in res.resources) == ["plugin:kit:git:push", "plugin:kit:review"]
    res2 = load_commands(ResourceSource(scope=Scope.PLUGIN, root=str(root), base=str(root), plugin="kit",
                                        components={"command": ("commands", "more")}))
    assert "plugin:kit:extra" in {c.id for c in res2.resources}


def test_frontmatter_fields(make_tree, wskit_home):
    ws = make_tree({".claude/commands/c.md": (
        "---\ndescription: D\nargument-hint: '[file]'\nallowed-tools: Read, Bash(git:*)\nmodel: haiku\n"
        "disable-model-invocation: true\narguments: [file]\ncolor: red\n---\nbody $file\n")})
    c = load(ws, wskit_home).registry("command").get("c")
    assert (c.argument_hint, c.model, c.disable_model_invocation) == ("[file]", "haiku", True)
    assert c.allowed_tools == ("Read", "Bash(git:*)")
    assert c.arguments == ("file",) and c.extra == {"color": "red"}


def test_arguments():
    # 0-based (Claude Code); a missing index stays literal; $10 is index 10 (rules: tests/core/formats/test_argsubst.py)
    assert substitute_args("$ARGUMENTS|$0|$1|$2|$10|${who}|$who|$other", ["a", "b c"], ("x", "who")) == \
        "a b c|a|b c|$2|$10|b c|b c|$other"
    assert split_args("one 'two three'") == ["one", "two three"]
    assert split_args("unbalanced 'quote") == ["unbalanced", "quote"]  # closed at the end, never an error


def _cmd(make_tree, wskit_home, body, files=None):
    ws = make_tree({".claude/commands/x.md": "---\ndescription: x\n---\n" + body, **(files or {})})
    w = load(ws, wskit_home)
    return w, w.registry("command").get("x")


def test_at_file_inside_workspace_only(make_tree, wskit_home, tmp_path):
    (tmp_path / "outside.txt").write_text("OUTSIDE")
    w, cmd = _cmd(make_tree, wskit_home, "See @src/a.py and @../outside.txt and @.env and @no/such.md, mail a@b.com\n",
                  {"src/a.py": "print(1)\n", ".env": "SECRET=1"})
    out = expand(cmd, [], root=w.binding.execution_root)
    assert "```py\nprint(1)\n```" in out.text
    assert "OUTSIDE" not in out.text and "SECRET" not in out.text
    assert "@../outside.txt" in out.text and "@no/such.md" in out.text and "a@b.com" in out.text
    refused = {d.message.split(" ")[0] for d in out.diagnostics if d.code == "command-file-refused"}
    assert refused == {"@../outside.txt", "@.env"}
    # the body starts on file line 4, after _cmd's three-line frontmatter
    assert all(d.path.endswith(".claude/commands/x.md") and d.line == 4 for d in out.diagnostics)


def test_shell_never_runs_without_runner(make_tree, wskit_home):
    w, cmd = _cmd(make_tree, wskit_home, "Status: !`touch ran.txt`\n")
    out = expand(cmd, [], root=w.binding.execution_root)
    assert not (w.binding.execution_root / "ran.txt").exists()
    assert "!`touch ran.txt`" in out.text
    assert [d.code for d in out.diagnostics] == ["command-shell-not-run"]


def test_shell_through_runner_with_timeout_and_cap(make_tree, wskit_home):
    w, cmd = _cmd(make_tree, wskit_home,
                  "A: !`echo hello $1`\nB: !`sleep 5`\nC: !`head -c 5000 /dev/zero | tr '\\0' x`\nD: !`exit 3`\n")
    out = expand(cmd, ["; touch pwned"], SubprocessRunner(), root=w.binding.execution_root,
                 timeout=0.5, output_cap=1000)
    lines = out.text.splitlines()
    assert lines[0] == "A: hello"  # argument text never reaches the shell
    assert not (w.binding.execution_root / "pwned").exists()
    assert "timed out" in lines[1]
    assert lines[2] == "C: [Error executing 'head -c 5000 /dev/zero | tr '\\0' x': output exceeds 1000 bytes]"
    assert "exit status 3" in lines[3]
    assert sorted(d.code for d in out.diagnostics) == ["command-output-too-large", "command-shell-failed",
                                                       "command-shell-failed"]


def test_custom_runner_receives_root_and_timeout(make_tree, wskit_home):
    seen = []

    def runner(command, cwd, timeout):
        seen.append((command, cwd, timeout))
        if command == "boom":
            raise subprocess.TimeoutExpired(command, timeout)
        return "  out  "

    w, cmd = _cmd(make_tree, wskit_home, "!`ls` and !`boom`")
    out = expand(cmd, None, runner, root=w.binding.execution_root, timeout=7)
    assert out.text.startswith("out and [Error executing 'boom'")
    assert seen == [("ls", str(w.binding.execution_root), 7), ("boom", str(w.binding.execution_root), 7)]


def test_plugin_manifest_component_spellings(make_tree, tmp_path):
    root = make_tree({"custom/one.md": "one", "single/two.md": "two"}, root=tmp_path / "plug2")
    src = ResourceSource(scope=Scope.PLUGIN, root=str(root), base=str(root), plugin="kit",
                         components={"commands": ("./custom", "single/two.md")})
    assert sorted(c.id for c in load_commands(src).resources) == ["plugin:kit:one", "plugin:kit:two"]


def test_hidden_characters_warn_and_long_description_refused(make_tree, tmp_path):
    from wskit.builtin_plugins.commands.loader import MAX_DESCRIPTION

    root = make_tree({
        "commands/bidi.md": CMD.format(d="ok", b="run\nthis \u202etxt.exe"),
        "commands/long.md": CMD.format(d="x" * (MAX_DESCRIPTION + 1), b="b"),
        "commands/longline.md": "y" * 100_000,  # no frontmatter: the first line is the description
        "commands/edge.md": CMD.format(d="z" * MAX_DESCRIPTION, b="b"),
    }, root=tmp_path / "plug")
    res = load_commands(ResourceSource(scope=Scope.PLUGIN, root=str(root), base=str(root), plugin="kit"))
    # a warning keeps the command; a first body line over 100 characters is cut (Claude Code 2.1.332)
    assert sorted(c.name for c in res.resources) == ["bidi", "edge", "longline"]
    assert next(c for c in res.resources if c.name == "longline").description == "y" * 97 + "..."
    hidden = [d for d in res.diagnostics if d.code == "hidden-characters"]
    assert [(d.level, d.line, d.path.endswith("bidi.md")) for d in hidden] == [("warning", 5, True)]
    assert "U+202E" in hidden[0].message
    long = sorted((d.path.rsplit("/", 1)[-1], d.level, d.line) for d in res.diagnostics
                  if d.code == "command-description-too-long")
    assert long == [("long.md", "error", 2)]  # a written description only: a body line is cut to 100


def test_body_diagnostics_name_file_lines_after_the_frontmatter(make_tree, wskit_home):
    """A diagnostic about a body line names the line of the file (7), not the line
    within the body (3), when a frontmatter comes first."""
    ws = make_tree({
        ".claude/commands/x.md": "---\ndescription: d\nallowed-tools: Bash(git status:*)\n---\nintro\n\nSee @.env here\n",
        ".claude/commands/plain.md": "no frontmatter\nSee @.env\n",
    })
    w = load(ws, wskit_home)
    cmd, plain = w.registry("command").get("x"), w.registry("command").get("plain")
    assert (cmd.body_line, plain.body_line) == (5, 1)
    [d] = [d for d in expand(cmd, [], root=w.binding.execution_root).diagnostics if d.code == "command-file-refused"]
    assert d.line == 7
    assert [d.line for d in expand(plain, [], root=w.binding.execution_root).diagnostics] == [2]


def test_arguments_around_embeds_and_appended(make_tree, wskit_home):
    """Placeholders are replaced in the text between embeds (one pass, wskit.formats.argsubst);
    a shell embed never receives arguments, so a body whose only $ARGUMENTS is inside
    one has replaced nothing and gets ``ARGUMENTS:`` appended; so does a body without any."""
    w, cmd = _cmd(make_tree, wskit_home, "A $0 !`echo $ARGUMENTS` B ${ARGUMENTS} @src/a.py $1\n",
                  {"src/a.py": "print(1)\n"})
    out = expand(cmd, "x 'y z'", root=w.binding.execution_root)
    assert out.text.startswith("A x !`echo $ARGUMENTS` B x 'y z' \n```py\nprint(1)\n```\n y z\n")
    assert "ARGUMENTS:" not in out.text
    w, cmd = _cmd(make_tree, wskit_home, "Only !`echo $ARGUMENTS`\n")
    assert expand(cmd, ["a", "b"], root=w.binding.execution_root).text == \
        "Only !`echo $ARGUMENTS`\n\nARGUMENTS: a b\n"
