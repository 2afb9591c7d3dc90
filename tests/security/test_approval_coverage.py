"""Issue 32 item 2: coverage that fails closed. For every spelling, after approval an edit
of a project or plugin file the command executes changes the coverage digest (the entry
becomes ``modified``), or at approval the word it cannot follow is listed as unverified
with its reason. On the old main (``hooks.trust.referenced_files``, shell words split by
guessing) the edited script in ``cd scripts && sh ./guard.sh`` and ``sh scripts/guar[d].sh``
was recorded as ``missing`` and the edit went unnoticed; ``$VAR``, globs and ``find -exec``
were skipped without a word; the executable bit was not in the digest."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.security.approval_coverage_helpers import Layout, make_layout


@pytest.fixture
def lay(tmp_path: Path) -> Layout:
    return make_layout(tmp_path)


def _edit(path: Path) -> None:
    path.write_bytes(path.read_bytes() + b"rm -rf ~\n")


# command -> the file (relative to the base) whose edit must change the digest
EDITS = [
    ("cd scripts && sh ./guard.sh", "project/scripts/guard.sh"),
    ("cd scripts && sh ./guard.sh", "project/scripts/lib.sh"),           # what the script sources beside it
    ("cd scripts; ./guard.sh", "project/scripts/guard.sh"),
    ("cd scripts || exit 1; ./guard.sh", "project/scripts/guard.sh"),
    ("(cd scripts && ./guard.sh) && true", "project/scripts/guard.sh"),     # subshell
    ("{ cd scripts; ./guard.sh; }", "project/scripts/guard.sh"),            # group
    ("sh scripts/guard.sh", "project/scripts/guard.sh"),
    ("sh ./scripts/../scripts/guard.sh", "project/scripts/guard.sh"),
    ('"$CLAUDE_PROJECT_DIR"/scripts/guard.sh', "project/scripts/guard.sh"),
    ("${CLAUDE_PROJECT_DIR}/scripts/guard.sh", "project/scripts/guard.sh"),
    ("sh ${CLAUDE_PLUGIN_ROOT}/hooks/run.sh", "plugin/hooks/run.sh"),
    ("bash -e -o pipefail scripts/guard.sh arg", "project/scripts/guard.sh"),
    ("sh -c 'cd scripts; sh guard.sh'", "project/scripts/guard.sh"),
    ("bash -c \"sh -c 'sh scripts/guard.sh'\"", "project/scripts/guard.sh"),  # nested -c
    ("eval 'sh scripts/guard.sh'", "project/scripts/guard.sh"),
    (". ./scripts/lib.sh", "project/scripts/lib.sh"),                      # sourcing
    ("source scripts/lib.sh && true", "project/scripts/lib.sh"),
    ("sh < scripts/guard.sh", "project/scripts/guard.sh"),                  # script from a redirection
    ("sh <<EOF\n./scripts/guard.sh\nEOF\n", "project/scripts/guard.sh"),    # here-document script
    ("sh <<< './scripts/guard.sh'", "project/scripts/guard.sh"),
    ("echo $(./scripts/guard.sh)", "project/scripts/guard.sh"),            # command substitution
    ("cat <(./scripts/guard.sh)", "project/scripts/guard.sh"),             # process substitution
    ("jq -r .tool_input | ./scripts/guard.sh | grep x", "project/scripts/guard.sh"),  # pipeline
    ("if true; then ./scripts/guard.sh; fi", "project/scripts/guard.sh"),
    ("for f in a b; do ./scripts/guard.sh; done", "project/scripts/guard.sh"),
    ("f() { ./scripts/guard.sh; }; f", "project/scripts/guard.sh"),
    ("function f { ./scripts/guard.sh; }; f", "project/scripts/guard.sh"),
    ("while ./scripts/guard.sh; do :; done", "project/scripts/guard.sh"),
    ("a |& ./scripts/guard.sh", "project/scripts/guard.sh"),
    ("! ./scripts/guard.sh 2>/dev/null", "project/scripts/guard.sh"),
    ("./scripts/guard.sh > out.log 2>&1 &", "project/scripts/guard.sh"),
    ("timeout 5 nice -n 3 env A=1 sh scripts/guard.sh", "project/scripts/guard.sh"),
    ("env -C scripts sh guard.sh", "project/scripts/guard.sh"),
    ("exec ./scripts/guard.sh", "project/scripts/guard.sh"),
    ("find . -name x -exec sh scripts/guard.sh {} \\;", "project/scripts/guard.sh"),
    ("python3 hooks/check.py", "project/hooks/check.py"),
    ("python3 hooks/check.py", "project/hooks/helper.py"),                 # sibling module
    ("python3 -u -B hooks/check.py", "project/hooks/helper.py"),
    ("cd hooks && python3 -m helper", "project/hooks/helper.py"),           # python -m
    ("python3 -c 'import helper'", None),                                   # see the test below
    ("node tools/x.js", "project/tools/lib.js"),                            # sibling module
    ("node --require ./tools/lib.js -e 1", "project/tools/lib.js"),
    ("awk -f scripts/lib.sh", "project/scripts/lib.sh"),                    # a program file
    ("/bin/sh scripts/guard.sh", "project/scripts/guard.sh"),               # interpreters named by a path
    ("/usr/bin/env python3 hooks/check.py", "project/hooks/helper.py"),
    ("/usr/bin/env -i PATH=/bin bash scripts/guard.sh", "project/scripts/guard.sh"),
    ("X=$(./scripts/guard.sh) && echo ok", "project/scripts/guard.sh"),    # substitution in an assignment
    ("trap './scripts/guard.sh' EXIT", "project/scripts/guard.sh"),
]


@pytest.mark.parametrize("command, edited", [e for e in EDITS if e[1]])
def test_an_edit_of_what_the_command_executes_changes_the_digest(lay, command, edited):
    before = lay.cov(command)
    assert edited in lay.rel(before), (command, lay.rel(before), before.unverified)
    _edit(lay.project.parent / edited)
    after = lay.cov(command)
    assert after.digest() != before.digest()


def test_the_executable_bit_is_in_the_digest(lay):
    before = lay.cov("./scripts/guard.sh")
    assert [f.executable for f in before.files if f.path.endswith("guard.sh")] == [True]
    os.chmod(lay.project / "scripts/guard.sh", 0o644)
    assert lay.cov("./scripts/guard.sh").digest() != before.digest()
    os.chmod(lay.project / "scripts/guard.sh", 0o755)
    assert lay.cov("./scripts/guard.sh").digest() == before.digest()


@pytest.mark.parametrize("command, created", [
    ("sh scripts/later.sh", "project/scripts/later.sh"),                    # covered as missing
    ("cd scripts; ./later.sh", "project/later.sh"),                        # cd may fail: both folders
    ("sh scripts/guard.sh", "project/scripts/new.sh"),                      # a new file beside the script
    ("python3 hooks/check.py", "project/hooks/json.py"),                   # shadows a standard module
    ("python3 -c 'import json'", "project/json.py"),
    ("python3 -m json.tool", "project/json.py"),                           # shadows the standard library
    ("python3 -m json.tool", "project/json/__init__.py"),
    ("python3 - <<'EOF'\nimport json\nEOF\n".replace("'", ""), "project/json.py"),   # a here-document script
    ("${CLAUDE_PLUGIN_ROOT}/hooks/missing.sh", "plugin/hooks/missing.sh"),
    ("node tools/x.js", "project/node_modules/lodash/index.js"),          # require('lodash') from a parent
    ("node tools/x.js", "project/package.json"),                          # "type", "imports"
])
def test_a_file_created_later_changes_the_digest(lay, command, created):
    before = lay.cov(command)
    assert not before.unverified, before.unverified
    path = lay.project.parent / created
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("import os; os.system('evil')\n")
    assert lay.cov(command).digest() != before.digest()


def test_missing_is_in_the_digest_and_files_python_does_not_import_are_not(lay):
    c = lay.cov("sh scripts/later.sh")
    assert [(f.path.endswith("later.sh"), f.digest) for f in c.files] == [(True, None)]
    before = lay.cov("python3 -c 'import json'")
    (lay.project / "NOTES.md").write_text("x")           # not importable: no change
    (lay.project / "docs").mkdir()                      # a namespace package never shadows
    assert lay.cov("python3 -c 'import json'").digest() == before.digest()


@pytest.mark.parametrize("command, word, reason", [
    ("sh scripts/guar[d].sh", "scripts/guar[d].sh", "glob pattern"),
    ("sh scripts/*.sh", "scripts/*.sh", "glob pattern"),
    ("sh scripts/{guard,lib}.sh", "scripts/{guard,lib}.sh", "brace expansion"),
    ("sh ~/guard.sh", "~/guard.sh", "tilde expansion"),
    ("sh $VAR/guard.sh", "$VAR/guard.sh", "variable $VAR"),
    ('sh "${HOOKS}/guard.sh"', '"${HOOKS}/guard.sh"', "variable $HOOKS"),
    ("$RUNNER scripts/guard.sh", "$RUNNER", "variable $RUNNER"),
    ("echo $HOME", "$HOME", "variable $HOME"),
    ("find scripts -name '*.sh' -exec sh {} \\;", "{}", "a file find chooses"),
    ("find scripts -name '*.sh' -execdir sh guard.sh \\;", "guard.sh", "cd to a folder decided at run time"),
    ("cd $DIR && ./guard.sh", "$DIR", "variable $DIR"),
    ("cd $DIR && ./guard.sh", "./guard.sh", "relative path after cd"),
    ("cd - && ./guard.sh", "-", "cd to a folder decided at run time"),
    ("cat scripts/guard.sh | sh", "sh", "reads its program from standard input"),
    ("sh", "sh", "reads its program from standard input"),
    ('bash -c "$(cat scripts/guard.sh)"', '"$(cat scripts/guard.sh)"', "command substitution"),
    ("ls scripts | xargs sh", "<words xargs reads>", "xargs reads"),
    ("ls | xargs -I{} sh {}", "-I{}", "xargs puts words"),
    ("[[ -f x ]] && sh scripts/guard.sh", "[[ -f x ]] && sh scripts/guard.sh", "the whole command"),
    ("time sh scripts/guard.sh", "time sh scripts/guard.sh", "the whole command"),
    ("select x in a; do sh scripts/guard.sh; done", "select x in a; do sh scripts/guard.sh; done", "the whole command"),
    ("for ((i=0;i<3;i++)); do sh scripts/guard.sh; done", "for ((i=0;i<3;i++)); do sh scripts/guard.sh; done",
     "the whole command"),
    ("echo ${x:-$(./scripts/guard.sh)}", "${x:-$(./scripts/guard.sh)}", "parameter expansion"),
    ("sh scripts/guard.sh {'${'", "sh scripts/guard.sh {'${'", "bad substitution"),  # hung bashlex 0.18
    ("case x in a) sh scripts/guard.sh;; esac", "case x in a) sh scripts/guard.sh;; esac", "the whole command"),
    ("PATH=./scripts:$PATH guard.sh", "PATH=./scripts:$PATH", "variable $PATH"),
    ("PATH=./scripts guard.sh", "PATH=./scripts", "assigning PATH"),
    ("PYTHONPATH=. python3 -c 1", "PYTHONPATH=.", "assigning PYTHONPATH"),
    ("node -e 'require(\"./tools/x\")'", "node -e", "inline code"),
    ("uv run hooks/check.py", "uv run hooks/check.py", "pyproject.toml"),
    ("npx eslint .", "npx eslint .", "node_modules/.bin"),
    ("npm run lint", "npm run lint", "package.json scripts"),
    ("make lint", "make lint", "Makefile"),
    ("git diff --name-only", "git diff --name-only", "repository's configuration"),
    ("my-linter --fix", "my-linter", "wskit does not know"),
    ("popd; ./x", "popd", "chosen at run time"),
    ("env -S 'sh x'", "-S", "env -S"),
    ("cat scripts/guard.sh | sh -s arg", "sh", "reads its program from standard input"),
    ("/usr/local/bin/mytool --check", "/usr/local/bin/mytool", "outside the project that wskit does not know"),
    ("node --inspect-port 9229 tools/x.js", "node --inspect-port", "may take a value"),
    ("perl -I lib x.pl", "perl -I", "not followed"),
    ("python3 $(echo hooks/check.py)", "$(echo hooks/check.py)", "runs a script decided"),
    ("alias g=./scripts/guard.sh; g", "alias", "wskit does not know"),
    ("export PATH=./scripts; guard.sh", "PATH=./scripts", "assigning PATH"),
    ("declare -x BASH_ENV=./scripts/lib.sh; bash -c true", "BASH_ENV=./scripts/lib.sh", "assigning BASH_ENV"),
    ("sed 's/.*/.\\/scripts\\/guard.sh/e' f", "'s/.*/.\\/scripts\\/guard.sh/e'", "sed script that runs"),
    ("sed -e '1e ./scripts/guard.sh' f", "'1e ./scripts/guard.sh'", "sed script that runs"),
    ("awk 'BEGIN { system(\"./scripts/guard.sh\") }'", "'BEGIN { system(\"./scripts/guard.sh\") }'", "runs commands"),
    ("sort --compress-program=./scripts/guard.sh f", "--compress-program=./scripts/guard.sh", "runs a program"),
    ("hash -p ./scripts/guard.sh ls; ls", "hash", "wskit does not know"),
    ("tar -I ./scripts/guard.sh -xf a.tar", "tar", "wskit does not know"),
])

def test_what_cannot_be_followed_is_listed_with_the_reason(lay, command, word, reason):
    c = lay.cov(command)
    assert any(u.word == word and reason in u.reason for u in c.unverified), c.unverified


@pytest.mark.parametrize("command", ["jq -r '.tool_input.command' | grep -q 'rm -rf' && exit 2 || exit 0",
                                     "echo '{\"decision\": \"block\"}'", "cat > /dev/null; exit 0",
                                     "printf '%s' \"$CLAUDE_PROJECT_DIR\" >> /tmp/log"])
def test_commands_that_execute_nothing_of_the_project_are_complete(lay, command):
    c = lay.cov(command)
    assert c.unverified == () and c.files == ()


def test_output_redirections_are_not_covered(lay):
    c = lay.cov("./scripts/guard.sh > log.txt 2>> err.txt")
    assert not any(f.path.endswith((".txt",)) for f in c.files)
    (lay.project / "log.txt").write_text("written by the hook")
    assert lay.cov("./scripts/guard.sh > log.txt 2>> err.txt").digest() == c.digest()


def test_links_inside_are_followed_outside_unverified(lay, tmp_path):
    os.symlink("guard.sh", lay.project / "scripts/run.sh")
    c = lay.cov("sh scripts/run.sh")
    (run,) = [f for f in c.files if f.path.endswith("run.sh")]
    assert run.target == str(lay.project / "scripts/guard.sh") and run.digest
    _edit(lay.project / "scripts/guard.sh")
    assert lay.cov("sh scripts/run.sh").digest() != c.digest()
    before = lay.cov("sh scripts/run.sh")
    os.remove(lay.project / "scripts/run.sh")
    os.symlink("lib.sh", lay.project / "scripts/run.sh")          # retargeted
    assert lay.cov("sh scripts/run.sh").digest() != before.digest()
    outside = tmp_path / "elsewhere.sh"
    outside.write_text("exit 0\n")
    os.symlink(outside, lay.project / "scripts/out.sh")
    c = lay.cov("sh scripts/out.sh")
    assert any("link" in u.reason and "outside" in u.reason for u in c.unverified), c.unverified
    os.symlink(lay.project / "scripts", lay.project / "linked")   # a linked folder
    c = lay.cov("sh linked/guard.sh")
    assert str(lay.project / "scripts/guard.sh") in {f.target for f in c.files}


def test_a_hard_linked_script_is_unverified(lay):
    os.link(lay.project / "scripts/guard.sh", lay.project / "hard.sh")
    c = lay.cov("sh hard.sh")
    assert any("hardlink" in u.reason for u in c.unverified), c.unverified


def test_a_large_folder_beside_a_script_is_unverified_not_skipped(lay):
    from wskit.approval.coverage import MAX_FOLDER_FILES

    big = lay.project / "big"
    big.mkdir()
    for i in range(MAX_FOLDER_FILES + 1):
        (big / f"f{i}.sh").write_text("")
    c = lay.cov("sh big/f0.sh")
    assert any(f"more than {MAX_FOLDER_FILES} files" in u.reason for u in c.unverified)


def test_system_programs_are_not_the_projects(lay):
    c = lay.cov("/usr/bin/env python3 -c 1 && /bin/sh -c 'exit 0'", cwd=Path("/"))
    assert c.files == () and c.unverified == ()


@pytest.mark.parametrize("argv, edited", [
    (["sh", "./scripts/guard.sh"], "project/scripts/guard.sh"),
    (["node", "${CLAUDE_PROJECT_DIR}/tools/x.js", "--stdio"], "project/tools/lib.js"),
    (["${CLAUDE_PLUGIN_ROOT}/hooks/run.sh"], "plugin/hooks/run.sh"),
    (["python3", "hooks/check.py"], "project/hooks/helper.py"),
])
def test_server_argv_coverage(lay, argv, edited):
    before = lay.argv(argv)
    assert not before.unverified
    _edit(lay.project.parent / edited)
    assert lay.argv(argv).digest() != before.digest()


@pytest.mark.parametrize("argv, word", [
    (["npx", "-y", "@modelcontextprotocol/server-filesystem"], "npx -y @modelcontextprotocol/server-filesystem"),
    (["${SERVER_HOME}/bin/srv"], "${SERVER_HOME}/bin/srv"),
    (["sh", "-c", "sh $X"], "sh $X"),
    (["uv", "run", "server.py"], "uv run server.py"),
])
def test_server_argv_unverified(lay, argv, word):
    c = lay.argv(argv)
    assert any(u.word == word for u in c.unverified), c.unverified


def test_a_whole_variable_argument_of_a_server_is_a_value_unless_executed(lay):
    c = lay.argv(["sh", "./scripts/guard.sh", "--token", "${API_TOKEN}"])
    assert c.unverified == ()
    assert any(u.word == "${SERVER}" for u in lay.argv(["node", "${SERVER}", "--stdio"]).unverified)
    assert any(u.word == "${BIN}" for u in lay.argv(["${BIN}", "--stdio"]).unverified)
    assert any(u.word == "--root=${ROOT}" for u in lay.argv(["sh", "./scripts/guard.sh", "--root=${ROOT}"]).unverified)


def test_argv_elements_are_not_globbed_or_split(lay):
    c = lay.argv(["sh", "scripts/guard.sh *"])        # one word: a file named so, missing
    assert [f.digest for f in c.files if f.path.endswith("guard.sh *")] == [None]


@pytest.mark.parametrize("env, word", [
    ({"BASH_ENV": "./scripts/lib.sh"}, "$BASH_ENV"),
    ({"PYTHONPATH": "."}, "$PYTHONPATH"),
    ({"NODE_OPTIONS": "--require ./x.js"}, "$NODE_OPTIONS"),
    ({"PATH": "./scripts:/usr/bin"}, "$PATH"),
    ({"PATH": "{project}/node_modules/.bin:/usr/bin"}, "$PATH"),
])
def test_an_environment_that_makes_programs_load_project_files_is_unverified(lay, env, word):
    lay.env.update({k: v.format(project=lay.project) for k, v in env.items()})
    c = lay.cov("jq -r .x")
    assert any(u.word == word for u in c.unverified), c.unverified
