"""Issue 32 item 2, the loader routes: after approval no byte a hook executes from the
project can change without the entry's digest changing, or wskit named the word it could
not follow when the hook was approved.

Every case is real: a project whose approved guard reaches a file through one route
(Python's import machinery, Node's module loader, a shell redirection), the real
interpreter run before (the guard blocks: exit 2) and after the file is edited or planted
(the guard is off: exit 0, so the route really runs that file), and the coverage
(:func:`wskit.approval.coverage.command_coverage`, what ``wsctl hooks trust`` approves)
computed before and after the edit — never after the edited file ran. ``covered``: nothing
unverified and the edit changes the digest; ``unverified``: the route is named at approval.

On the main this was written against (d012f7b), these came out complete with an unchanged
digest (or, for the host environment, the guard ran): ``pkgutil.extend_path``,
``__path__.append``, ``pkg.__path__.insert-by-the-guard``, ``getattr-os-execv``,
``getattr-subprocess``, ``__import__-os-system``; node ``new-Function`` (the body after a
string argument), ``package-main-outside``, ``package-exports-then-require-out``,
``package-index-requires-out``, ``package-subpath``, ``esm-import-of-a-package``,
``package-pattern-exports``, the linked workspace package; every shell route (files written
by a redirection or ``cp`` then run); the three ``HookRunnerConfig.env`` cases. The project
venv cases were named unverified on main (a link leaving the project, a binary), so they
held but could not be approved without ``--accept-unverified``."""

from __future__ import annotations

import io
import json
import os
import py_compile
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from wskit.approval.coverage import Coverage, command_coverage

BLOCK = "import sys\nsys.exit(2 if 'rm -rf /' in sys.stdin.read() else 0)\n"
ALLOW = "import sys\nsys.exit(0)\n"
JS_BLOCK = "const s = require('fs').readFileSync(0, 'utf8'); if (s.includes('rm -rf /')) process.exit(2);\n"
JS_ALLOW = "process.exit(0);\n"
SH_BLOCK = "if grep -q 'rm -rf /'; then exit 2; fi\nexit 0\n"
SH_ALLOW = "exit 0\n"
PAYLOAD = b'{"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}'

G = ".claude/hooks/guard.py"
PY = 'python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py'
LIB = "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'lib'))\n"
HERE = "import os\nP = os.path.join(os.path.dirname(__file__), '..', '..', 'lib', 'x.py')\n"
J = ".claude/hooks/guard.js"
NODE = 'node "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.js'
S = ".claude/hooks/guard.sh"
SH = 'sh "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh'


def _bytecode(source: str, tmp: Path) -> bytes:
    src = tmp / "compile-x.py"
    src.write_text(source)
    return Path(py_compile.compile(str(src), cfile=str(tmp / "compile-x.pyc"), doraise=True)).read_bytes()


def _zip(source: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("x.py", source)
    return buf.getvalue()


def _write(project: Path, files: dict[str, str | bytes]) -> None:
    for rel, data in files.items():
        p = project / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data) if isinstance(data, bytes) else p.write_text(data)


_PYCACHE = tempfile.TemporaryDirectory(prefix="wskit-test-pycache-")
#: ``python3`` is this interpreter (not a version manager's shim script), ``node`` the system's
_RUN_PATH = os.pathsep.join(dict.fromkeys([os.path.dirname(sys.executable),
                                          *(os.path.dirname(p) for p in [shutil.which("node")] if p),
                                          "/usr/bin", "/bin"]))


class Route:
    """One route, run for real: ``before``/``after`` coverage around the edit, and the
    guard's exit status before and after it."""

    def __init__(self, tmp_path: Path, files: dict, command: str, edit: dict, *, links: dict | None = None,
                 exists: bool = False, executable: tuple[str, ...] = ()) -> None:
        self.project = project = tmp_path / "project"
        project.mkdir(exist_ok=exists)
        _write(project, files)
        for rel in executable:
            if (project / rel).exists():
                (project / rel).chmod(0o755)
        for rel, target in (links or {}).items():
            (project / rel).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(target, project / rel)
        env = {"CLAUDE_PROJECT_DIR": str(project), "PATH": "/usr/bin:/bin"}
        # a private bytecode folder, as the hook runner gives; one for the module, so the
        # standard library is compiled once (every edit below changes its file's size)
        run_env = {**env, "PATH": _RUN_PATH, "HOME": str(tmp_path / "home"), "PYTHONPYCACHEPREFIX": _PYCACHE.name}

        def cover() -> Coverage:
            return command_coverage(command, cwd=str(project), project_root=str(project), plugin_root=None, env=env)

        def run() -> int:
            return subprocess.run(["/bin/sh", "-c", command], input=PAYLOAD, cwd=project, env=run_env,
                                  capture_output=True, timeout=60).returncode

        self.before = cover()
        self.rc_before = run()
        _write(project, edit)
        self.after = cover()  # what the runner sees before it runs the edited file
        self.rc_after = run()

    def check(self, expect: str) -> None:
        assert (self.rc_before, self.rc_after) == (2, 0), "the route does not run the edited file"
        if expect == "covered":
            assert self.before.complete, self.before.unverified
            assert self.before.digest() != self.after.digest()
        else:
            named = [f"{u.word} {u.reason}" for u in self.before.unverified]
            assert any(expect in w for w in named), (expect, self.before.unverified)


# (id, files, command, edit, expect, escape on main)
PYTHON = [
    ("import_module-literal", {G: LIB + "import importlib\nimportlib.import_module('x')\n", "lib/x.py": BLOCK},
     PY, {"lib/x.py": ALLOW}, "covered"),
    ("import_module-computed", {G: LIB + "import importlib\nimportlib.import_module(''.join(['x']))\n",
                                "lib/x.py": BLOCK}, PY, {"lib/x.py": ALLOW}, "import_module("),
    ("__import__-literal", {G: LIB + "__import__('x')\n", "lib/x.py": BLOCK}, PY, {"lib/x.py": ALLOW}, "covered"),
    ("__import__-computed", {G: LIB + "m = 'x'\nm = m.strip()\n__import__(m)\n", "lib/x.py": BLOCK}, PY,
     {"lib/x.py": ALLOW}, "__import__(m)"),
    ("runpy.run_path", {G: HERE + "import runpy\nrunpy.run_path(P)\n", "lib/x.py": BLOCK}, PY, {"lib/x.py": ALLOW},
     "covered"),
    ("runpy.run_module", {G: LIB + "import runpy\nrunpy.run_module('pkg', run_name='__main__')\n",
                          "lib/pkg/__init__.py": "", "lib/pkg/__main__.py": BLOCK}, PY,
     {"lib/pkg/__main__.py": ALLOW}, "covered"),
    ("exec-open-read", {G: HERE + "exec(open(P).read())\n", "lib/x.py": BLOCK}, PY, {"lib/x.py": ALLOW}, "covered"),
    ("exec-compile", {G: HERE + "exec(compile(open(P).read(), P, 'exec'))\n", "lib/x.py": BLOCK}, PY,
     {"lib/x.py": ALLOW}, "covered"),
    ("spec_from_file_location", {G: HERE + "import importlib.util as u\ns = u.spec_from_file_location('x', P)\n"
                                 "s.loader.exec_module(u.module_from_spec(s))\n", "lib/x.py": BLOCK}, PY,
     {"lib/x.py": ALLOW}, "covered"),
    ("SourceFileLoader", {G: HERE + "from importlib.machinery import SourceFileLoader\n"
                          "SourceFileLoader('x', P).load_module()\n", "lib/x.py": BLOCK}, PY,
     {"lib/x.py": ALLOW}, "covered"),
    ("zipimporter", {G: "import os, zipimport\nzipimport.zipimporter(os.path.join(os.path.dirname(__file__), "
                     "'../../lib/l.zip')).load_module('x')\n", "lib/l.zip": _zip(BLOCK)}, PY,
     {"lib/l.zip": _zip(ALLOW)}, "covered"),
    ("namespace-package-two-folders", {G: LIB + "sys.path.append(os.path.join(os.path.dirname(__file__), '..', '..', "
                                       "'lib2'))\nfrom ns import x\n", "lib/ns/a.py": "", "lib2/ns/x.py": BLOCK}, PY,
     {"lib2/ns/x.py": ALLOW}, "covered"),
    ("namespace-portion-planted-earlier", {G: LIB + "sys.path.append(os.path.join(os.path.dirname(__file__), '..', "
                                           "'..', 'lib2'))\nfrom ns import x\n", "lib/ns/a.py": "",
                                           "lib2/ns/x.py": BLOCK}, PY, {"lib/ns/x.py": ALLOW}, "covered"),
    # escape on main: a package extending its own search path
    ("pkgutil.extend_path", {G: LIB + "sys.path.append(os.path.join(os.path.dirname(__file__), '..', '..', 'lib2'))\n"
                             "from pkg import x\n", "lib/pkg/__init__.py": "import pkgutil\n"
                             "__path__ = pkgutil.extend_path(__path__, __name__)\n", "lib2/pkg/x.py": BLOCK}, PY,
     {"lib2/pkg/x.py": ALLOW}, "lib/pkg/__init__.py:2: __path__"),
    ("__path__.append", {G: LIB + "from pkg import x\n", "lib/pkg/__init__.py": "import os\n__path__.append("
                         "os.path.join(os.path.dirname(__file__), '..', '..', 'other'))\n", "other/x.py": BLOCK}, PY,
     {"other/x.py": ALLOW}, "lib/pkg/__init__.py:2: __path__.append"),
    ("pkg.__path__.insert-by-the-guard", {G: LIB + "import pkg\npkg.__path__.insert(0, os.path.join(os.path.dirname("
                                          "__file__), '..', '..', 'other'))\nfrom pkg import x\n",
                                          "lib/pkg/__init__.py": "", "other/x.py": BLOCK}, PY,
     {"other/x.py": ALLOW}, "pkg.__path__.insert"),
    ("fork-and-execv", {G: "import os, sys\npid = os.fork()\nif pid == 0:\n    os.execv('/bin/sh', ['sh', "
                        "os.path.join(os.path.dirname(__file__), '../../lib/x.sh')])\n_, st = os.waitpid(pid, 0)\n"
                        "sys.exit(os.waitstatus_to_exitcode(st))\n", "lib/x.sh": SH_BLOCK}, PY,
     {"lib/x.sh": SH_ALLOW}, "os.execv("),
    # escape on main: the process module reached through getattr
    ("getattr-os-execv", {G: "import os, sys\npid = os.fork()\nif pid == 0:\n    getattr(os, 'execv')('/bin/sh', "
                          "['sh', os.path.join(os.path.dirname(__file__), '../../lib/x.sh')])\n"
                          "_, st = os.waitpid(pid, 0)\nsys.exit(os.waitstatus_to_exitcode(st))\n",
                          "lib/x.sh": SH_BLOCK}, PY, {"lib/x.sh": SH_ALLOW}, "guard.py:4: os"),
    ("getattr-subprocess", {G: "import subprocess, sys\nsys.exit(getattr(subprocess, 'call')(['sh', 'lib/x.sh']))\n",
                            "lib/x.sh": SH_BLOCK}, PY, {"lib/x.sh": SH_ALLOW}, "guard.py:2: subprocess"),
    ("__import__-os-system", {G: "import os, sys\nsys.exit(__import__('os').system('sh lib/x.sh') >> 8)\n",
                              "lib/x.sh": SH_BLOCK}, PY, {"lib/x.sh": SH_ALLOW}, "covered"),
    ("multiprocessing-spawn", {G: LIB + "import multiprocessing as mp\nimport x\nif __name__ == '__main__':\n"
                               "    p = mp.get_context('spawn').Process(target=x.check)\n    p.start()\n    p.join()\n"
                               "    sys.exit(p.exitcode)\n", "lib/x.py": "import sys\ndef check():\n    sys.exit(2)\n"},
     PY, {"lib/x.py": "import sys\ndef check():\n    sys.exit(0)  # off\n"}, "get_context('spawn')"),
    ("python-m-package-from-the-working-folder", {"pkg/__init__.py": "", "pkg/__main__.py": BLOCK}, "python3 -m pkg",
     {"pkg/__main__.py": ALLOW}, "covered"),
    ("python-m-submodule", {"pkg/__init__.py": "", "pkg/sub.py": BLOCK}, "python3 -m pkg.sub", {"pkg/sub.py": ALLOW},
     "covered"),
]


@pytest.mark.parametrize("files, command, edit, expect", [c[1:] for c in PYTHON], ids=[c[0] for c in PYTHON])
def test_python_routes(tmp_path, files, command, edit, expect):
    Route(tmp_path, files, command, edit).check(expect)


@pytest.mark.parametrize("code, named", [
    ("import os\nhasattr(os, 'fork')\n", False), ("import os\ngetattr(os, 'getuid', None)\n", False),
    ("import sys\ngetattr(sys, 'frozen', False)\n", False), ("import os\nprint(os.sep)\n", False),
    ("import os\ngetattr(os, 'execv')\n", True), ("import os\ngetattr(os, name)\n", True),
    ("import subprocess\nrun = getattr(subprocess, 'run')\n", True), ("import sys\ngetattr(sys, 'path')\n", True),
    ("import importlib as i\nf(i)\n", True), ("import os\nm = os\n", True),
])
def test_a_loader_module_looked_at_stays_quiet_and_used_as_a_value_is_named(tmp_path, code, named):
    project = tmp_path / "project"
    _write(project, {"g.py": code})
    cov = command_coverage("python3 g.py", cwd=str(project), project_root=str(project), plugin_root=None,
                           env={"PATH": "/usr/bin:/bin"})
    assert (not cov.complete) is named, cov.unverified


def test_sourceless_loader_bytecode_is_named(tmp_path):
    files = {G: HERE.replace("x.py", "x.pyc") + "from importlib.machinery import SourcelessFileLoader\n"
             "SourcelessFileLoader('x', P).load_module()\n", "lib/x.pyc": _bytecode(BLOCK, tmp_path)}
    r = Route(tmp_path, files, PY, {"lib/x.pyc": _bytecode(ALLOW, tmp_path)})
    r.check("lib/x.pyc")  # bytecode is covered (the digest changes) and named: its source is not read
    assert r.before.digest() != r.after.digest()


def test_sitecustomize_beside_the_script_or_in_the_working_folder_is_not_imported(tmp_path):
    """Python 3.11 puts the script's folder (or the working folder for ``-c``/``-m``) on
    ``sys.path`` after ``site`` imported ``sitecustomize``: one planted there never runs,
    so coverage need not follow it (the user's site folders are the system's)."""
    d = tmp_path / "d"
    d.mkdir()
    (d / "sitecustomize.py").write_text("import sys\nsys.exit(3)\n")
    (d / "usercustomize.py").write_text("import sys\nsys.exit(3)\n")
    (d / "m.py").write_text("print('ran')\n")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    for argv in (["m.py"], ["-m", "m"], ["-c", "print('ran')"]):
        r = subprocess.run([sys.executable, *argv], cwd=d, env=env, capture_output=True, text=True, timeout=60)
        assert (r.returncode, r.stdout) == (0, "ran\n"), (argv, r.stderr)


SP = ".venv/lib/python{0}.{1}/site-packages/".format(*sys.version_info[:2])
QUIET = "import os, sys\nsys.stdin = open(os.devnull)\n"  # a sitecustomize that turns the guard off
VENV = [
    ("the-script", {G: BLOCK}, '.venv/bin/python "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py', {G: ALLOW}),
    ("a-site-packages-import", {G: "import helper\n", SP + "helper.py": BLOCK},
     '"$CLAUDE_PROJECT_DIR"/.venv/bin/python .claude/hooks/guard.py', {SP + "helper.py": ALLOW}),
    ("a-pth-import-line", {G: "import sys\nsys.exit(FLAG if 'rm -rf /' in sys.stdin.read() else 0)\n",
                           SP + "a.pth": "import pthmod\n", SP + "pthmod.py": "import builtins\nbuiltins.FLAG = 2\n"},
     ".venv/bin/python .claude/hooks/guard.py", {SP + "pthmod.py": "import builtins\nbuiltins.FLAG = 0  # off\n"}),
    ("a-planted-sitecustomize", {G: BLOCK}, ".venv/bin/python .claude/hooks/guard.py", {SP + "sitecustomize.py": QUIET}),
    ("a-planted-pth", {G: BLOCK}, ".venv/bin/python .claude/hooks/guard.py",
     {SP + "z.pth": "import os, sys; sys.stdin = open(os.devnull)\n"}),
    ("a-shebang-naming-it", {G: "#!{project}/.venv/bin/python\n" + BLOCK}, '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py',
     {SP + "sitecustomize.py": QUIET}),
    ("python-m-of-a-site-package", {SP + "tool/__init__.py": "", SP + "tool/__main__.py": BLOCK},
     ".venv/bin/python -m tool", {SP + "tool/__main__.py": ALLOW}),
]


@pytest.fixture(scope="module")
def venvs(tmp_path_factory):
    """One venv of each kind, made once (``--without-pip``); each test copies it in place
    (links kept: a venv finds itself from its interpreter's location)."""
    base = tmp_path_factory.mktemp("venvs")
    for kind, extra in (("linked", []), ("copies", ["--copies"])):
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", *extra, str(base / kind)], check=True,
                       capture_output=True, timeout=120, cwd=base)
    return base


def _venv(venvs: Path, project: Path, kind: str = "linked") -> None:
    shutil.copytree(venvs / kind, project / ".venv", symlinks=True)


@pytest.mark.slow  # 14 venv copies, 28 interpreter runs; test_a_venv_interpreter_pointed_elsewhere… stays default
@pytest.mark.parametrize("copies", [False, True], ids=["linked", "copies"])
@pytest.mark.parametrize("files, command, edit", [c[1:] for c in VENV], ids=[c[0] for c in VENV])
def test_a_project_venv_interpreter_is_followed_as_python(tmp_path, venvs, copies, files, command, edit):
    """``.venv/bin/python`` inside the project, linked to the system's Python or a
    ``--copies`` binary: recognised as Python (on main: named unverified as a link leaving
    the project, or as a binary whose loads are not read), covered with ``pyvenv.cfg``, its
    site-packages listing, ``.pth`` files and what their import lines load, and
    ``sitecustomize``; the script's imports resolve there too."""
    project = tmp_path / "project"
    _venv(venvs, project, "copies" if copies else "linked")
    files = {k: v.replace("{project}", str(project)) for k, v in files.items()}
    Route(tmp_path, files, command, edit, exists=True, executable=(G,)).check("covered")


def test_a_venv_interpreter_pointed_elsewhere_changes_the_digest(tmp_path, venvs):
    project = tmp_path / "project"
    _venv(venvs, project)
    _write(project, {G: BLOCK})
    env = {"CLAUDE_PROJECT_DIR": str(project), "PATH": "/usr/bin:/bin"}
    cmd = ".venv/bin/python .claude/hooks/guard.py"
    before = command_coverage(cmd, cwd=str(project), project_root=str(project), plugin_root=None, env=env)
    link = project / ".venv/bin/python"
    link.unlink()
    link.symlink_to(shutil.which("sh") or "/bin/sh")
    after = command_coverage(cmd, cwd=str(project), project_root=str(project), plugin_root=None, env=env)
    assert before.complete and before.digest() != after.digest()


def test_a_pth_line_adding_a_project_folder_is_named(tmp_path, venvs):
    project = tmp_path / "project"
    _venv(venvs, project)
    _write(project, {G: "import helper\n", SP + "a.pth": "../../../../lib\n", "lib/helper.py": BLOCK})
    cov = command_coverage(".venv/bin/python .claude/hooks/guard.py", cwd=str(project), project_root=str(project),
                           plugin_root=None, env={"PATH": "/usr/bin:/bin"})
    assert [u.word for u in cov.unverified] == [SP + "a.pth:1: ../../../../lib"], cov.unverified


NODE_ROUTES = [
    ("import-computed", {J: "const m = ['../../lib/x.js'][0];\nimport(m);\n", "lib/x.js": JS_BLOCK}, NODE,
     {"lib/x.js": JS_ALLOW}, "import(m)"),
    ("import-literal", {J: "import('../../lib/x.js');\n", "lib/x.js": JS_BLOCK}, NODE, {"lib/x.js": JS_ALLOW},
     "covered"),
    ("require-variable", {J: "let m = '../../lib/x.js';\nif (process.argv.length > 9) m = 'y';\nrequire(m);\n",
                          "lib/x.js": JS_BLOCK}, NODE, {"lib/x.js": JS_ALLOW}, "require(m)"),
    ("vm.runInThisContext", {J: "const vm = require('vm'), fs = require('fs'), path = require('path');\n"
                             "vm.runInThisContext(fs.readFileSync(path.join(__dirname, '../../lib/x.js'), 'utf8'))"
                             "(require, process);\n",
                             "lib/x.js": "(function (r, p) { if (r('fs').readFileSync(0, 'utf8').includes('rm -rf /')) "
                                         "p.exit(2); })"}, NODE,
     {"lib/x.js": "(function (r, p) { p.exit(0); })"}, "vm.runInThisContext"),
    ("new-Function", {J: "const fs = require('fs'), path = require('path');\nconst code = fs.readFileSync("
                      "path.join(__dirname, '../../lib/x.js'), 'utf8');\nnew Function('require', 'process', code)"
                      "(require, process);\n", "lib/x.js": JS_BLOCK}, NODE, {"lib/x.js": JS_ALLOW}, "Function(…)"),
    ("eval-readFileSync", {J: "const fs = require('fs'), path = require('path');\neval(fs.readFileSync(path.join("
                           "__dirname, '../../lib/x.js'), 'utf8'));\n", "lib/x.js": JS_BLOCK}, NODE,
     {"lib/x.js": JS_ALLOW}, "eval(…)"),
    ("node--require-path", {J: "\n", "lib/x.js": JS_BLOCK}, "node --require ./lib/x.js .claude/hooks/guard.js",
     {"lib/x.js": JS_ALLOW}, "covered"),
    ("node--import-path", {J: "\n", "lib/x.mjs": "import fs from 'fs';\nif (fs.readFileSync(0, 'utf8').includes("
                           "'rm -rf /')) process.exit(2);\n"}, "node --import ./lib/x.mjs .claude/hooks/guard.js",
     {"lib/x.mjs": "process.exit(0);\n"}, "covered"),
    ("node-r-package", {J: "\n", "node_modules/evil/index.js": JS_BLOCK, "node_modules/evil/package.json": "{}"},
     "node -r evil .claude/hooks/guard.js", {"node_modules/evil/index.js": JS_ALLOW}, "evil"),
    ("NODE_OPTIONS", {J: "\n", "lib/x.js": JS_BLOCK}, 'NODE_OPTIONS="--require ./lib/x.js" node .claude/hooks/guard.js',
     {"lib/x.js": JS_ALLOW}, "NODE_OPTIONS="),
    ("package-main-inside", {J: "require('dep');\n", "node_modules/dep/package.json": '{"main": "main.js"}',
                             "node_modules/dep/main.js": JS_BLOCK}, NODE, {"node_modules/dep/main.js": JS_ALLOW},
     "covered"),
    # escapes on main: what a package of node_modules loads from outside its folder
    ("package-main-outside", {J: "require('dep');\n", ".claude/hooks/node_modules/dep/package.json":
                              '{"main": "../../../../lib/x.js"}', "lib/x.js": JS_BLOCK}, NODE, {"lib/x.js": JS_ALLOW},
     "covered"),
    ("package-exports-then-require-out", {J: "require('dep');\n", "node_modules/dep/package.json":
                                          '{"exports": {".": {"require": "./x.js", "default": "./x.js"}}}',
                                          "node_modules/dep/x.js": "require('../../lib/x.js');\n",
                                          "lib/x.js": JS_BLOCK}, NODE, {"lib/x.js": JS_ALLOW}, "covered"),
    ("package-index-requires-out", {J: "require('dep');\n", "node_modules/dep/index.js": "require('../../lib/x.js');\n",
                                    "lib/x.js": JS_BLOCK}, NODE, {"lib/x.js": JS_ALLOW}, "covered"),
    ("package-subpath", {J: "require('dep/sub');\n", "node_modules/dep/sub.js": "require('../../lib/x.js');\n",
                         "lib/x.js": JS_BLOCK}, NODE, {"lib/x.js": JS_ALLOW}, "covered"),
    ("esm-import-of-a-package", {".claude/hooks/guard.mjs": "import 'dep';\n",
                                 "node_modules/dep/package.json": '{"exports": "./x.mjs"}',
                                 "node_modules/dep/x.mjs": "import '../../lib/x.mjs';\n",
                                 "lib/x.mjs": "import fs from 'fs';\nif (fs.readFileSync(0, 'utf8').includes("
                                              "'rm -rf /')) process.exit(2);\n"},
     'node "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.mjs', {"lib/x.mjs": "process.exit(0);\n"}, "covered"),
    ("package-pattern-exports", {J: "require('dep/x');\n", "node_modules/dep/package.json":
                                 '{"exports": {"./*": "./lib/*.js"}}', "node_modules/dep/lib/x.js": JS_BLOCK}, NODE,
     {"node_modules/dep/lib/x.js": JS_ALLOW}, "require('dep/x')"),
]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("files, command, edit, expect", [c[1:] for c in NODE_ROUTES], ids=[c[0] for c in NODE_ROUTES])
def test_node_routes(tmp_path, files, command, edit, expect):
    Route(tmp_path, files, command, edit).check(expect)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_linked_workspace_package_is_followed_at_its_real_path(tmp_path):
    files = {J: "require('dep');\n", "packages/dep/index.js": "require('../../lib/x.js');\n", "lib/x.js": JS_BLOCK}
    # the package's own files are followed at their real path; the node_modules folder walk
    # names the folder link it does not cover (fail closed)
    r = Route(tmp_path, files, NODE, {"lib/x.js": JS_ALLOW}, links={"node_modules/dep": "../packages/dep"})
    r.check("node_modules/dep is a link")
    assert r.before.digest() != r.after.digest()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("where", [".claude/package.json", ".claude/hooks/package.json", "package.json"])
def test_a_package_json_type_planted_above_the_script_changes_the_digest(tmp_path, where):
    """``"type": "module"`` changes how node reads a ``.js`` file: the nearest package.json
    of the script (and of every module it loads) is covered, missing ones as missing."""
    project = tmp_path / "project"
    _write(project, {J: JS_BLOCK})
    env = {"CLAUDE_PROJECT_DIR": str(project), "PATH": "/usr/bin:/bin"}
    before = command_coverage(NODE, cwd=str(project), project_root=str(project), plugin_root=None, env=env)
    _write(project, {where: '{"type": "module"}'})
    after = command_coverage(NODE, cwd=str(project), project_root=str(project), plugin_root=None, env=env)
    assert before.complete and before.digest() != after.digest()
    r = subprocess.run(["/bin/sh", "-c", NODE], input=PAYLOAD, cwd=project, env={**os.environ, **env},
                       capture_output=True, timeout=60)
    assert r.returncode == 1 and b"require is not defined" in r.stderr  # node read it as a module


SHELL_ROUTES = [
    # escapes on main: a file the hook's own commands write by a redirection, then run
    ("script-redirect-to-tmp", {S: "cat lib/x.sh > {tmp}/g.sh\nsh {tmp}/g.sh\n", "lib/x.sh": SH_BLOCK}, SH,
     {"lib/x.sh": SH_ALLOW}, "guard.sh:2: {tmp}/g.sh"),
    ("script-redirect-into-the-project", {S: "cat lib/x.sh > .claude/hooks/impl.sh\nsh .claude/hooks/impl.sh\n",
                                          "lib/x.sh": SH_BLOCK, ".claude/hooks/impl.sh": SH_BLOCK}, SH,
     {"lib/x.sh": SH_ALLOW}, "guard.sh:2: .claude/hooks/impl.sh"),
    ("script-here-document", {S: "cat > .claude/hooks/impl.sh <<EOF\n$(cat lib/x.sh)\nEOF\nsh .claude/hooks/impl.sh\n",
                              "lib/x.sh": SH_BLOCK, ".claude/hooks/impl.sh": SH_BLOCK}, SH,
     {"lib/x.sh": SH_ALLOW}, "guard.sh:4: .claude/hooks/impl.sh"),
    ("script-exec-descriptor", {S: "exec 3> impl.sh\ncat lib/x.sh >&3\nsh impl.sh\n", "lib/x.sh": SH_BLOCK,
                                "impl.sh": SH_BLOCK}, SH, {"lib/x.sh": SH_ALLOW}, "guard.sh:3: impl.sh"),
    ("command-redirect-to-tmp", {"lib/x.sh": SH_BLOCK}, "cat lib/x.sh > {tmp}/g.sh; sh {tmp}/g.sh",
     {"lib/x.sh": SH_ALLOW}, "{tmp}/g.sh"),
    ("command-cp-to-tmp", {"lib/x.sh": SH_BLOCK}, "cp lib/x.sh {tmp}/g.sh && sh {tmp}/g.sh", {"lib/x.sh": SH_ALLOW},
     "{tmp}/g.sh"),
    ("command-group-redirect", {"lib/x.sh": SH_BLOCK}, "{ cat lib/x.sh; } > {tmp}/g.sh; . {tmp}/g.sh",
     {"lib/x.sh": SH_ALLOW}, "{tmp}/g.sh"),
    ("command-fed-to-sh", {"lib/x.sh": SH_BLOCK}, "cat lib/x.sh > {tmp}/g.sh; sh < {tmp}/g.sh",
     {"lib/x.sh": SH_ALLOW}, "{tmp}/g.sh"),
]


@pytest.mark.parametrize("files, command, edit, expect", [c[1:] for c in SHELL_ROUTES], ids=[c[0] for c in SHELL_ROUTES])
def test_shell_routes(tmp_path, files, command, edit, expect):
    out = tmp_path / "out"  # an existing folder of the user's own (not world-writable): only the write names it
    out.mkdir()
    (out / "g.sh").write_text(SH_ALLOW)
    files = {k: v.replace("{tmp}", str(out)) for k, v in files.items()}
    if "sh < " in command:  # stdin is the script: the payload cannot reach it; the file's own test
        files["lib/x.sh"] = "exit 2\n"
        edit = {"lib/x.sh": "exit 0\n"}
    Route(tmp_path, files, command.replace("{tmp}", str(out)), edit).check(expect.replace("{tmp}", str(out)))


@pytest.mark.parametrize("command", ["node --loader ./lib/x.mjs g.js", "node --experimental-loader=./lib/x.mjs g.js",
                                     "node --import=./lib/x.mjs g.js"])
def test_node_loader_options_cover_the_loader(tmp_path, command):
    project = tmp_path / "project"
    _write(project, {"g.js": "1\n", "lib/x.mjs": "export async function resolve(s, c, n) { return n(s, c); }\n"})
    env = {"CLAUDE_PROJECT_DIR": str(project), "PATH": "/usr/bin:/bin"}
    before = command_coverage(command, cwd=str(project), project_root=str(project), plugin_root=None, env=env)
    _write(project, {"lib/x.mjs": "export async function resolve() { return {url: 'data:,'}; }\n"})
    after = command_coverage(command, cwd=str(project), project_root=str(project), plugin_root=None, env=env)
    assert before.complete and before.digest() != after.digest(), before.unverified


def test_a_file_written_only_as_a_log_stays_quiet(tmp_path):
    project = tmp_path / "project"
    _write(project, {"lib/x.sh": SH_BLOCK})
    cov = command_coverage("sh lib/x.sh > log.txt 2>&1", cwd=str(project), project_root=str(project),
                           plugin_root=None, env={"CLAUDE_PROJECT_DIR": str(project), "PATH": "/usr/bin:/bin"})
    assert cov.complete, cov.unverified


# -- F12: the PATH (and loader variables) the host gives hooks in HookRunnerConfig.env ------------

@pytest.mark.parametrize("env", [{"PATH": ".:/usr/bin:/bin"}, {"PATH": "{project}/bin:/usr/bin:/bin"},
                                 {"NODE_OPTIONS": "--require ./lib/x.js"}], ids=["relative", "project", "loader"])
def test_the_hosts_hook_environment_is_what_coverage_reads(wskit_profile, wskit_pm, wskit_home, tmp_path, monkeypatch,
                                                           env):
    """An approved guard run by a host whose ``HookRunnerConfig.env`` puts a project folder
    on ``PATH`` (or sets a loader variable) is ``modified`` and does not run: a planted
    ``grep`` would otherwise decide. Escape on main: the guard ran the planted program."""
    from wskit.approval.store import ApprovalStore
    from wskit.builtin_plugins.hooks.runner import HookRunnerConfig
    from wskit.builtin_plugins.hooks.trust import hook_approval_status
    from wskit.cache import WorkspaceCache
    from wskit.session import snapshot
    from wskit.session.runtime import RuntimeOptions, attach
    from wskit.trust import TrustStore

    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".git/HEAD").write_text("ref: refs/heads/main\n")
    guard = "grep -q 'rm -rf /' && exit 2 || exit 0"
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": guard}]}]}
    _write(project, {".claude/settings.json": json.dumps({"hooks": hooks}), "bin/grep": "#!/bin/sh\nexit 1\n",
                     "grep": "#!/bin/sh\nexit 1\n"})
    os.chmod(project / "bin/grep", 0o755)
    os.chmod(project / "grep", 0o755)
    TrustStore.for_home(wskit_home).grant(project)
    ws = WorkspaceCache(wskit_profile, wskit_pm).resolve(project)
    status = hook_approval_status(wskit_home, project, ws.registry("hook").active(), files_root=project)
    (row,) = status.rows
    ApprovalStore.for_home(wskit_home).approve(project, [row.entry], row.entry.digest)
    bash = {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}

    plain = snapshot(ws)
    try:
        assert plain.hook_runner.run("PreToolUse", bash).blocked  # approved, run with the process's PATH
    finally:
        plain.close()
    session = snapshot(ws)
    given = {k: v.format(project=project) for k, v in env.items()}
    attach(session, RuntimeOptions(hooks=HookRunnerConfig(env=given)))
    try:
        out = session.hook_runner.run("PreToolUse", bash)
        assert not out.blocked and len(out.undecided) == 1, out
        assert out.skipped[0].state == "modified" and "HookRunnerConfig.env" in out.skipped[0].message, out.skipped
    finally:
        session.close()
