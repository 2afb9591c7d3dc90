"""Issue 32 item 2, coverage that fails closed by what a script can reach (newcomer4's
F1, F2, F3, F6): a Python or Node script is no longer judged against a list of dangerous
calls, nor an environment against a list of loader variables.

- rule (a): a file or folder of the project or plugin that a hook's words, a server's
  env value or a script's path expression names is covered, whatever the program does
  with it (policy data and code alike);
- rule (b): code-running capability the scanner does not follow is unverified, decided by
  what is reachable (a standard-library module that is neither inert nor modeled; exec,
  getattr, globals … other than as a resolved call; Node's ``getBuiltinModule``, any
  ``constructor``, a computed member of ``process``/``globalThis``/``require``);
- rule (c): a variable of a loader family (``LD_*``, ``PYTHON*``, ``npm_config_*`` …) is
  unverified; any other variable whose value names a project path has it covered.

Every reproduction of the report runs the real interpreter (:class:`Route`): the guard
blocks (exit 2) before the edit and does not (exit 0) after it, so the route really runs
or reads the edited file; the coverage computed before the edit either names the route
(``unverified``) or its digest changes with the edit (``covered``). Each failed on main."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.security.test_approval_loaders import ALLOW, BLOCK, NODE, PY, SH_BLOCK, Route
from wskit.approval.coverage import argv_coverage, command_coverage

G = ".claude/hooks/guard.py"
J = ".claude/hooks/guard.js"
#: a block that no ``except:`` of the module running it can swallow
HARD_BLOCK = "import os, sys\nos._exit(2 if 'rm -rf /' in sys.stdin.read() else 0)\n"
HARD_ALLOW = "import os\nos._exit(0)\n"
ROOT = "import os, sys\nROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))\n"
LOG_INI = "[loggers]\nkeys=root\n[handlers]\nkeys=h\n[formatters]\nkeys=\n[logger_root]\nhandlers=h\n" \
          "[handler_h]\nclass=StreamHandler\nargs=({},)\n"

# (id, files, command, edit, expect): newcomer4's reproductions, each an escape on main
F1_F2 = [
    ("F1-timeit", {G: "import timeit\ntimeit.timeit(open('tools/x.py').read(), number=1)\n", "tools/x.py": BLOCK},
     PY, {"tools/x.py": ALLOW}, "guard.py:1: timeit"),
    ("F1-code.InteractiveInterpreter", {G: "import code\ncode.InteractiveInterpreter().runsource(open('tools/x.py')"
                                        ".read(), 'x', 'exec')\n", "tools/x.py": BLOCK},
     PY, {"tools/x.py": ALLOW}, "guard.py:1: code"),
    ("F1-cProfile.run", {G: "import cProfile\ncProfile.run(open('tools/x.py').read())\n", "tools/x.py": HARD_BLOCK},
     PY, {"tools/x.py": HARD_ALLOW}, "guard.py:1: cProfile"),
    ("F1-doctest.testfile", {G: ROOT + "import doctest\ndoctest.testfile(ROOT + '/tools/notes.txt', "
                             "module_relative=False)\n",
                             "tools/notes.txt": ">>> import os, sys; os._exit(2 if 'rm -rf /' in sys.stdin.read() "
                                                "else 0)\n"},
     PY, {"tools/notes.txt": ">>> import os; os._exit(0)\n"}, "guard.py:3: doctest"),
    ("F1-logging.config.fileConfig", {G: "import logging.config, sys\nlogging.config.fileConfig('tools/log.ini')\n"
                                      "sys.exit(0)\n",
                                      "tools/log.ini": LOG_INI.format("__import__('os')._exit(2 if 'rm -rf /' in "
                                                                      "__import__('sys').stdin.read() else 0)")},
     PY, {"tools/log.ini": LOG_INI.format("sys.stderr")}, "guard.py:1: logging.config"),
    ("F1-getattr-os-computed", {G: "import os, sys\nsys.exit(getattr(os, 'sys' + 'tem')('sh tools/x.sh') >> 8)\n",
                                "tools/x.sh": SH_BLOCK}, PY, {"tools/x.sh": "exit 0\n"}, "getattr(os, 'sys' + 'tem')"),
    ("F1-alias-of-exec", {G: "run = exec\nrun(open('tools/x.py').read())\n", "tools/x.py": BLOCK},
     PY, {"tools/x.py": ALLOW}, "guard.py:1: exec"),
    ("F1-pydoc.importfile", {G: "import pydoc\npydoc.importfile('tools/x.py')\n", "tools/x.py": HARD_BLOCK},
     PY, {"tools/x.py": HARD_ALLOW}, "guard.py:1: pydoc"),
    ("F1-unittest-discover", {G: "import unittest\nunittest.TestLoader().discover('tools', pattern='x.py')\n",
                              "tools/x.py": HARD_BLOCK}, PY, {"tools/x.py": HARD_ALLOW}, "guard.py:1: unittest"),
    ("F1-trace.Trace.run", {G: "import trace\ntrace.Trace(count=0, trace=0).run(open('tools/x.py').read())\n",
                            "tools/x.py": BLOCK}, PY, {"tools/x.py": ALLOW}, "guard.py:1: trace"),
    # F2 (a): policy data beside a Python guard
    ("F2a-data-beside-the-script", {G: "import os, sys\ndata = sys.stdin.read()\ndeny = open(os.path.join("
                                    "os.path.dirname(__file__), 'deny.txt')).read().split('\\n')\n"
                                    "sys.exit(2 if any(d and d in data for d in deny) else 0)\n",
                                    ".claude/hooks/deny.txt": "rm -rf /\n"},
     PY, {".claude/hooks/deny.txt": "zzz\n"}, "covered"),
    ("F2-python-policy-elsewhere", {G: ROOT + "data = sys.stdin.read()\ndeny = open(os.path.join(ROOT, 'policy', "
                                    "'deny.txt')).read().split('\\n')\n"
                                    "sys.exit(2 if any(d and d in data for d in deny) else 0)\n",
                                    "policy/deny.txt": "rm -rf /\n"},
     PY, {"policy/deny.txt": "zzz\n"}, "covered"),
    # F2 (b): the pattern file of a shell guard's grep -f
    ("F2b-grep-f", {".claude/hooks/guard.sh": "input=$(cat)\nif echo \"$input\" | grep -qFf "
                                              "\"$CLAUDE_PROJECT_DIR\"/policy/deny.txt; then exit 2; fi\nexit 0\n",
                    "policy/deny.txt": "rm -rf /\n"},
     'bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh', {"policy/deny.txt": "nothing-matches-this\n"}, "covered"),
    ("F2b-grep-f-in-the-hook-command", {"policy/deny.txt": "rm -rf /\n"},
     'if grep -qFf "$CLAUDE_PROJECT_DIR"/policy/deny.txt; then exit 2; fi', {"policy/deny.txt": "zzz\n"}, "covered"),
]

JS_PRE = "const fs = require('fs'); const path = require('path');\nconst ROOT = path.join(__dirname, '..', '..');\n" \
         "const data = fs.readFileSync(0, 'utf8');\n"
F3 = [
    ("F3-process.getBuiltinModule", {J: JS_PRE + "try { process.getBuiltinModule('child_' + 'process').execSync("
                                     "'sh tools/x.sh', {input: data}); } catch (e) { process.exit(e.status); }\n"
                                     "process.exit(0);\n", "tools/x.sh": SH_BLOCK},
     NODE, {"tools/x.sh": "exit 0\n"}, "guard.js:4: .getBuiltinModule"),
    ("F3-function-constructor", {J: JS_PRE + "globalThis.DATA = data;\n(() => {}).constructor(fs.readFileSync("
                                 "path.join(ROOT, 'tools/x.js'), 'utf8'))();\nprocess.exit(0);\n",
                                 "tools/x.js": "if (DATA.includes('rm -rf /')) process.exit(2);\n"},
     NODE, {"tools/x.js": "process.exit(0);\n"}, "guard.js:5: .constructor"),
]


#: routes whose file is named inside a shell string or found in a folder at run time: named
#: unverified only
IN_TEXT = {"F1-getattr-os-computed", "F1-unittest-discover", "F3-process.getBuiltinModule"}


@pytest.mark.parametrize("files, command, edit, expect", [c[1:] for c in F1_F2 + F3], ids=[c[0] for c in F1_F2 + F3])
def test_newcomer4_reproductions_hold(request, tmp_path, files, command, edit, expect):
    r = Route(tmp_path, files, command, edit)
    r.check(expect)
    if request.node.callspec.id not in IN_TEXT:
        # rule (a) on top: the file each route reads is named by a literal path, so it
        # is covered too; an approval given with --accept-unverified still turns modified
        assert r.before.digest() != r.after.digest()


# other spellings of the same classes: one rule each, not one case per spelling
PY_SPELLINGS = [
    ("from-logging-import-config", "from logging import config\nconfig.fileConfig('x.ini')\n", "logging.config"),
    ("logging.config-by-attribute", "import logging\nlogging.config.fileConfig('x.ini')\n", "logging.config"),
    ("import-code-as", "import code as c\nc.interact()\n", "code"),
    ("types", "import types\n", "types"),
    ("asyncio-loop-subprocess", "import asyncio\n", "asyncio"),
    ("__builtins__", "__builtins__.exec('1')\n", "__builtins__"),
    ("builtins-getattr-computed", "import builtins\nbuiltins.getattr(builtins, 'ex' + 'ec')('1')\n", "getattr"),
    ("globals", "globals()['ex' + 'ec']('1')\n", "globals()"),
    ("vars-of-a-module", "import os\nvars(os)['sys' + 'tem']('true')\n", "vars(os)"),
    ("getattr-computed-on-an-object", "class A: pass\ngetattr(A(), input())\n", "getattr(A(), input())"),
    ("sys.modules", "import sys\nsys.modules['o' + 's'].system('true')\n", "sys.modules["),
    ("__globals__", "f = lambda: 0\nf.__globals__['__builtins__']\n", "__globals__"),
    ("__subclasses__", "object.__subclasses__()\n", "__subclasses__"),
    ("frame-globals", "import sys\nsys._getframe().f_globals\n", "f_globals"),
    ("eval-as-a-value", "e = eval\n", "eval"),
    ("breakpoint", "breakpoint()\n", "breakpoint()"),
]


@pytest.mark.parametrize("code, named", [c[1:] for c in PY_SPELLINGS], ids=[c[0] for c in PY_SPELLINGS])
def test_python_reach_spellings_are_named(tmp_path, code, named):
    (tmp_path / "g.py").write_text(code)
    cov = command_coverage("python3 g.py", cwd=str(tmp_path), project_root=str(tmp_path), plugin_root=None,
                           env={"PATH": "/usr/bin:/bin"})
    assert any(named in u.word for u in cov.unverified), cov.unverified


JS_SPELLINGS = [
    ("require-vm", "const vm = require('vm');\nvm.runInThisContext('1');\n", "'vm'"),
    ("destructured-vm", "const { runInThisContext: r } = require('node:vm');\nr('1');\n", "'node:vm'"),
    ("import-inspector", "import('node:inspector');\n", "'node:inspector'"),
    ("import-from-repl", "import repl from 'repl';\n", "'repl'"),
    ("globalThis-computed", "globalThis['ev' + 'al']('1');\n", "globalThis[…]"),
    ("Reflect.get-globalThis", "Reflect.get(globalThis, 'eval')('1');\n", "globalThis"),
    ("process-binding-computed", "process['bin' + 'ding']('spawn_sync');\n", "process[…]"),
    ("process.binding", "process.binding('spawn_sync');\n", ".binding"),
    ("constructor-by-name", "[]['map']['constructor']('return 1')();\n", "['constructor']"),
    ("indirect-eval", "(0, eval)('1');\n", "eval"),
    ("Function-alias", "const F = Function;\nF('return 1')();\n", "Function"),
    ("process-as-a-value", "const p = process;\np.getBuiltinModule('vm');\n", "process"),
]


@pytest.mark.parametrize("code, named", [c[1:] for c in JS_SPELLINGS], ids=[c[0] for c in JS_SPELLINGS])
def test_node_reach_spellings_are_named(tmp_path, code, named):
    (tmp_path / "g.js").write_text(code)
    cov = command_coverage("node g.js", cwd=str(tmp_path), project_root=str(tmp_path), plugin_root=None,
                           env={"PATH": "/usr/bin:/bin"})
    assert any(u.word.endswith(named) or named in u.word for u in cov.unverified), cov.unverified


def test_ordinary_guards_stay_complete(tmp_path):
    """The false-unverified cost stays low: a guard built from inert modules, ``getattr``
    with a literal name on an object, ``vars(args)``, Node's fs/path, stays complete."""
    (tmp_path / "g.py").write_text(
        "import argparse, json, re, sys, os, pathlib, dataclasses, typing, collections, datetime, logging\n"
        "from urllib.parse import quote\n"
        "args = argparse.ArgumentParser().parse_args()\nopts = vars(args)\n"
        "data = json.load(sys.stdin)\ncmd = getattr(args, 'command', None) or data.get('tool_input', {})\n"
        "class A:\n    def __init__(self):\n        super().__init__()\n        self.n = self.__class__.__name__\n"
        "if re.search(r'rm -rf', str(cmd)):\n    sys.exit(2)\n")
    (tmp_path / "g.js").write_text(
        "const fs = require('node:fs'); const path = require('path'); const os = require('os');\n"
        "const input = JSON.parse(fs.readFileSync(0, 'utf8'));\n"
        "if (typeof process !== 'undefined' && process.env.NODE_ENV) { console.log(path.basename(os.tmpdir())); }\n"
        "if (String(input.tool_input.command).includes('rm -rf')) process.exit(2);\n")
    for cmd in ("python3 g.py", "node g.js"):
        cov = command_coverage(cmd, cwd=str(tmp_path), project_root=str(tmp_path), plugin_root=None,
                               env={"PATH": "/usr/bin:/bin"})
        assert cov.complete, (cmd, cov.unverified)


def test_files_a_script_writes_are_not_covered(tmp_path):
    """A guard's own state (a log it appends to, a state file it rewrites) is left out of
    rule (a): covering it would turn the entry modified after its first run."""
    (tmp_path / "state").mkdir()
    (tmp_path / "state/log.txt").write_text("")
    (tmp_path / "state/s.json").write_text("{}")
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks/g.py").write_text(
        "import json, logging, pathlib\nopen('state/log.txt', 'a').write('x')\n"
        "pathlib.Path('state/s.json').write_text(json.dumps({}))\n")
    (tmp_path / "hooks/g.sh").write_text("echo x >> state/log.txt\necho y | tee -a state/s.json\n")
    for cmd in ("python3 hooks/g.py", "sh hooks/g.sh"):
        cov = command_coverage(cmd, cwd=str(tmp_path), project_root=str(tmp_path), plugin_root=None,
                               env={"PATH": "/usr/bin:/bin"})
        covered = {os.path.relpath(f.path, tmp_path) for f in cov.files}
        assert "state/log.txt" not in covered and "state/s.json" not in covered, (cmd, covered)


# -- F6 and rule (c): variables ---------------------------------------------------------------

AUDIT_C = "#include <unistd.h>\nunsigned int la_version(unsigned int v) { _exit(0); return v; }\n"


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler to build the audit library")
@pytest.mark.parametrize("command", ['LD_AUDIT="$CLAUDE_PROJECT_DIR"/lib/audit.so python3 tools/g.py',
                                     "env LD_AUDIT=lib/audit.so python3 tools/g.py"])
def test_F6_ld_audit_in_a_hook_command(tmp_path, command):
    """glibc loads an ``LD_AUDIT`` library into every dynamically linked program; one
    planted after approval ends the guard with exit 0 before it runs."""
    so = tmp_path / "audit.so"
    (tmp_path / "audit.c").write_text(AUDIT_C)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(so), str(tmp_path / "audit.c")], check=True, timeout=120)
    r = Route(tmp_path, {"tools/g.py": BLOCK, "lib/README": "x"}, command, {"lib/audit.so": so.read_bytes()})
    r.check("LD_AUDIT")
    assert r.before.digest() != r.after.digest()  # covered even while missing: the planted file counts


def _server(tmp_path: Path, env: dict) -> tuple:
    project = tmp_path / "project"
    project.mkdir(parents=True, exist_ok=True)
    (project / "srv.py").write_text("print('ok')\n")
    cov = argv_coverage(["python3", "srv.py"], cwd=str(project), project_root=str(project), plugin_root=None,
                        env={"PATH": "/usr/bin:/bin"}, defined_env=env)
    return project, cov


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler to build the audit library")
def test_F6_ld_audit_in_a_server_env_is_named_and_really_loads(tmp_path):
    project, cov = _server(tmp_path, {"LD_AUDIT": str(tmp_path / "project/lib/audit.so")})
    assert any(u.word == "env.LD_AUDIT" for u in cov.unverified), cov.unverified
    (tmp_path / "audit.c").write_text("#include <stdio.h>\nunsigned int la_version(unsigned int v) "
                                      "{ FILE *f = fopen(\"%s\", \"w\"); if (f) fclose(f); return v; }\n"
                                      % (tmp_path / "marker"))
    (project / "lib").mkdir()
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(project / "lib/audit.so"), str(tmp_path / "audit.c")],
                   check=True, timeout=120)
    subprocess.run(["python3", "srv.py"], cwd=project, env={"PATH": "/usr/bin:/bin",
                                                            "LD_AUDIT": str(project / "lib/audit.so")},
                   capture_output=True, timeout=60)
    assert (tmp_path / "marker").exists()  # the variable really loads the planted library


LOADERS = ["LD_AUDIT", "GCONV_PATH", "JAVA_TOOL_OPTIONS", "npm_config_userconfig", "PYTHONBREAKPOINT",
           "PYTHONINSPECT", "PYTHONPLATLIBDIR", "LD_NEW_FEATURE", "PYTHONSOMETHINGNEW", "NODE_NEW_LOADER",
           "DYLD_INSERT_LIBRARIES", "NPM_CONFIG_GLOBALCONFIG", "BASH_FUNC_f%%", "PYTHONWARNINGS",
           # verify4 E4: configuration files that name libraries or commands
           "OPENSSL_CONF", "OPENSSL_MODULES", "CURL_HOME", "WGETRC", "KRB5_CONFIG", "MAKEFLAGS", "GLIBC_TUNABLES"]


@pytest.mark.parametrize("name", LOADERS)
def test_loader_families_are_unverified_in_a_server_env_and_a_hook_prefix(tmp_path, name):
    _, cov = _server(tmp_path, {name: "lib/x"})
    assert any(u.word == f"env.{name}" for u in cov.unverified), cov.unverified
    if name.replace("_", "").isalnum():
        cov = command_coverage(f"{name}=lib/x python3 -c 1", cwd=str(tmp_path), project_root=str(tmp_path),
                               plugin_root=None, env={"PATH": "/usr/bin:/bin"})
        assert any(u.word.startswith(f"{name}=") for u in cov.unverified), cov.unverified


def test_a_variable_naming_a_project_path_has_it_covered(tmp_path):
    """Rule (c): a variable wskit does not know, whose value names a path of the project,
    covers that path, even missing (planting it changes the digest); it is not unverified."""
    files = {"tools/g.py": "import os, sys\ndata = sys.stdin.read()\n"
                           "deny = open(os.environ['GUARD_POLICY']).read().split('\\n')\n"
                           "sys.exit(2 if any(d and d in data for d in deny) else 0)\n",
             "policy/deny.txt": "rm -rf /\n"}
    r = Route(tmp_path, files, 'GUARD_POLICY="$CLAUDE_PROJECT_DIR"/policy/deny.txt python3 tools/g.py',
              {"policy/deny.txt": "zzz\n"})
    r.check("covered")
    project, cov = _server(tmp_path / "s", {"PLUGIN_CONFIG": "./conf/missing.json"})
    assert cov.complete, cov.unverified
    assert str(project / "conf/missing.json") in {f.path for f in cov.files}


def test_api_keys_and_harmless_variables_stay_complete(tmp_path):
    """The corpus's ``.mcp.json`` env maps (tokens as ``${VAR}`` placeholders, ``NODE_ENV``)
    add nothing unverified."""
    _, cov = _server(tmp_path, {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}", "API_KEY": "sk-123",
                                "NODE_ENV": "production", "PYTHONUNBUFFERED": "1", "TFE_ADDRESS": "https://x.io",
                                "LOG_LEVEL": "debug", "TMPDIR": "/tmp"})
    assert cov.complete, cov.unverified


# -- findings newcomer4 appended while this was built (F8, F11, F1 and F3 addenda) ------------

SED_RUNS = "1e sh tools/x.sh\n"
LATER = [
    # F8: every spelling of a program file option; F8's curl -K / wget -i: the config file is named
    ("F8-sed-nf", {"tools/s.sed": "s/a/b/\n", "tools/x.sh": SH_BLOCK}, 'sed -nf tools/s.sed </dev/null; exit 0',
     {"tools/s.sed": "1e sh tools/x.sh\n"}),
    ("F8-sed-Ef", {"tools/s.sed": "s/a/b/\n"}, 'echo a | sed -Ef tools/s.sed', {"tools/s.sed": SED_RUNS}),
    ("F8-sed--file=", {"tools/s.sed": "s/a/b/\n"}, 'echo a | sed --file=tools/s.sed', {"tools/s.sed": SED_RUNS}),
    ("F8-mawk-W-exec", {"tools/p.awk": "BEGIN { x = 1 }\n"}, 'awk -W exec tools/p.awk',
     {"tools/p.awk": "BEGIN { system(\"sh tools/x.sh\") }\n"}),
    ("F8-gawk-E", {"tools/p.awk": "BEGIN { x = 1 }\n"}, 'gawk -E tools/p.awk',
     {"tools/p.awk": "BEGIN { system(\"sh tools/x.sh\") }\n"}),
    ("F8-curl-K", {"tools/curlrc": "silent\n"}, 'curl -s -K "$CLAUDE_PROJECT_DIR"/tools/curlrc',
     {"tools/curlrc": "url = \"file:///etc/hostname\"\noutput = \"/tmp/x\"\n"}),
    ("F8-curl--config=", {"tools/curlrc": "silent\n"}, 'curl --config=tools/curlrc',
     {"tools/curlrc": "output = \"/tmp/x\"\n"}),
    ("F8-wget-i", {"tools/urls": "https://example.invalid/\n"}, 'wget -q -i tools/urls',
     {"tools/urls": "file:///etc/passwd\n"}),
    # verify4 E2/E3: the operand attached to its option
    ("E2-sed-f-attached", {"tools/s.sed": "s/a/b/\n"}, 'echo a | sed -f"$CLAUDE_PROJECT_DIR"/tools/s.sed',
     {"tools/s.sed": SED_RUNS}),
    ("E2-sed-nf-attached", {"tools/s.sed": "s/a/b/\n"}, 'echo a | sed -nftools/s.sed', {"tools/s.sed": SED_RUNS}),
    ("E2-curl-K-attached", {"tools/curlrc": "silent\n"}, 'curl -s -Ktools/curlrc',
     {"tools/curlrc": "output = \"/tmp/x\"\n"}),
    ("E3-grep-Ff-attached", {"policy/deny.txt": "rm -rf\n"}, 'grep -qFf"$CLAUDE_PROJECT_DIR"/policy/deny.txt',
     {"policy/deny.txt": "zzz\n"}),
    ("E3-read-redirect", {"policy/deny.txt": "rm -rf\n"}, 'pat=$(< "$CLAUDE_PROJECT_DIR"/policy/deny.txt); echo "$pat"',
     {"policy/deny.txt": "zzz\n"}),
    ("E3-exec-fd", {"policy/deny.txt": "rm -rf\n"},
     'exec 3< "$CLAUDE_PROJECT_DIR"/policy/deny.txt; read -r pat <&3; echo "$pat"', {"policy/deny.txt": "zzz\n"}),
]


@pytest.mark.parametrize("files, command, edit", [c[1:] for c in LATER], ids=[c[0] for c in LATER])
def test_F8_program_and_config_files_in_every_spelling_are_covered(tmp_path, files, command, edit):
    project = tmp_path / "project"
    for rel, text in files.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    env = {"CLAUDE_PROJECT_DIR": str(project), "PATH": "/usr/bin:/bin"}

    def cov():
        return command_coverage(command, cwd=str(project), project_root=str(project), plugin_root=None, env=env)

    before = cov()
    for rel, text in edit.items():
        (project / rel).write_text(text)
    assert before.digest() != cov().digest()


@pytest.mark.parametrize("command", ["sed -nf s.sed", "sed -nfs.sed", "sed -fs.sed"])
def test_F8_sed_nf_program_file_that_runs_commands_is_named_at_approval(tmp_path, command):
    (tmp_path / "s.sed").write_text("1e touch x\n")
    cov = command_coverage(command, cwd=str(tmp_path), project_root=str(tmp_path), plugin_root=None,
                           env={"PATH": "/usr/bin:/bin"})
    assert any("runs commands" in u.reason for u in cov.unverified), cov.unverified


@pytest.mark.parametrize("first, named", [
    ("#!/usr/bin/env -S node -r ./tools/x.js", None),
    ("#!/usr/bin/env -S node -r \"./tools/x.js\"", "#!/usr/bin/env -S"),
    ("#!/usr/bin/env -i node", "#!/usr/bin/env -i"),
])
def test_F11_the_shebang_line_is_dispatched_as_a_command(tmp_path, first, named):
    """``#!/usr/bin/env -S node -r ./tools/x.js``: the file node preloads is covered (run
    for real: planting a blocking preload turns the guard's answer); a quoted or other
    env option is named."""
    files = {J: first + "\nprocess.exit(0);\n", "tools/x.js": "const s = require('fs').readFileSync(0, 'utf8');\n"
                                                              "if (s.includes('rm -rf /')) process.exit(2);\n"}
    project = tmp_path / "project"
    for rel, text in files.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    os.chmod(project / J, 0o755)
    env = {"CLAUDE_PROJECT_DIR": str(project), "PATH": "/usr/bin:/bin"}
    run_env = {**env, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    command = '"$CLAUDE_PROJECT_DIR"/' + J

    def cov():
        return command_coverage(command, cwd=str(project), project_root=str(project), plugin_root=None, env=env)

    def rc():
        return subprocess.run(["/bin/sh", "-c", command], input=b'{"c": "rm -rf /"}', cwd=project, env=run_env,
                              capture_output=True, timeout=60).returncode

    before = cov()
    if named is not None:
        assert any(named in u.word for u in before.unverified), before.unverified
        return
    rc_before = rc()
    (project / "tools/x.js").write_text("process.exit(0);\n")
    assert (rc_before, rc()) == (2, 0)  # node really preloads the project file the #! line names
    assert before.complete, before.unverified
    assert before.digest() != cov().digest()


ADDENDA = [
    ("F3-repl", "require('repl').start({input: fs.createReadStream(path.join(ROOT, 'tools/x.js'))});\n", "'repl'"),
    ("F3-cluster", "const cluster = require('cluster');\ncluster.setupPrimary({exec: path.join(ROOT, 'tools/x.js')});\n"
                   "cluster.fork();\n", "'cluster'"),
    ("F3-node-test", "require('node:test').run({files: [path.join(ROOT, 'tools/x.js')]});\n", "'node:test'"),
]


@pytest.mark.parametrize("body, named", [c[1:] for c in ADDENDA], ids=[c[0] for c in ADDENDA])
def test_F3_addendum_builtins_that_run_files_are_named(tmp_path, body, named):
    (tmp_path / ".claude/hooks").mkdir(parents=True)
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools/x.js").write_text("1;\n")
    (tmp_path / J).write_text(JS_PRE + body)
    cov = command_coverage(NODE, cwd=str(tmp_path), project_root=str(tmp_path), plugin_root=None,
                           env={"CLAUDE_PROJECT_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert any(u.word.endswith(named) for u in cov.unverified), cov.unverified
    assert str(tmp_path / "tools/x.js") in {f.path for f in cov.files}  # and the file it names is covered


def test_F1_addendum_an_lsp_server_script_reaching_timeit_is_named(tmp_path):
    (tmp_path / "tools").mkdir()
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf/init.py").write_text("pass\n")
    (tmp_path / "tools/lsp.py").write_text("import timeit\ntimeit.timeit(open('conf/init.py').read(), number=1)\n")
    cov = argv_coverage(["python3", "tools/lsp.py"], cwd=str(tmp_path), project_root=str(tmp_path), plugin_root=None,
                        env={"PATH": "/usr/bin:/bin"})
    assert any(u.word == "tools/lsp.py:1: timeit" for u in cov.unverified), cov.unverified
    assert str(tmp_path / "conf/init.py") in {f.path for f in cov.files}
