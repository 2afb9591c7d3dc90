"""What a script loads by a path: one scanner per interpreter family (shell, Python, Node).

:func:`scan` reads a script's text (already read, byte-bounded, by the caller) and
answers the files it loads by a path, each a :class:`Load`: the line, the word as
written, what kind of load it is and the path it names (absolute, or relative to the
process's working folder), or, when the path is computed at run time, None with the
reason. Nothing is run, evaluated or imported: the shell text is parsed by ``bashlex``
(:mod:`wskit.formats.shell`), Python by :mod:`ast`, Node by a token scan written for
this; each path expression is read by a small evaluator that knows only literal text
and the script's own location (``$(dirname "$0")``, ``${BASH_SOURCE%/*}``, ``__file__``,
``__dirname``, ``import.meta.url`` …). What it does not know is computed.

The spellings (``docs/hooks.md``, "What a script loads"):

- **shell**: ``source W`` and ``. W`` (also after ``builtin``/``command``, ``then``,
  ``do``, ``!``, ``{``). ``W`` is literal, or starts with one of the script-folder
  spellings (``$(dirname "$0")``, `` `dirname $0` ``, ``$(cd "$(dirname "$0")" && pwd)``,
  ``${BASH_SOURCE%/*}``, ``${0%/*}``, ``$(dirname "$(realpath "$0")")`` …), or uses
  variables assigned such values (every assignment of the name in the script must
  agree, and no ``eval``, ``read``, loop or sourced file may set it). A relative path
  is relative to the working folder; after a ``cd`` in the script it is computed. Every
  other simple command is a ``run`` load (its words read the same way, its ``NAME=``
  assignments, what feeds its stdin) that the caller follows as it follows a hook
  command: one dispatch, where what is not recognised is unverified. Where ``bashlex``
  refuses the script (``[[ ]]``, ``case``, arrays, quoted here-document delimiters …)
  each line is parsed on its own (a here-document's body with its line, a case arm's
  pattern dropped), then split at ``&& || ; | &``; a part the parser still refuses is
  computed (the line could not be read), never skipped, unless it runs nothing (a
  ``[[ ]]`` test, ``case … in``, ``esac`` without a substitution).
- **Python**: ``import a.b``, ``from a import b`` (resolved on ``sys.path``: the
  script's folder and the folders the script adds), ``from . import x`` /
  ``from ..a import b`` (relative to the module's package), ``sys.path.insert/append/
  extend``, ``sys.path[...] =``, ``sys.path +=``, ``site.addsitedir``, ``runpy.run_path``,
  ``runpy.run_module``, ``importlib.import_module``, ``__import__``,
  ``spec_from_file_location``, ``SourceFileLoader``, ``imp.load_source``,
  ``exec``/``eval``/``compile`` of ``open(P).read()`` or ``Path(P).read_text()``
  (code given as a literal is scanned in place); any of these with an argument that
  is not a literal path expression is computed. Programs it starts
  (``subprocess.run([...])``, ``os.system('…')``) are ``argv``/``shell`` loads the caller
  follows; an ``os.environ`` change is a ``setenv`` load; ``pickle.load(open(P))``,
  ``ctypes.CDLL(P)`` are ``data`` loads (covered, not read).
- **Node**: ``require(S)`` (and a function made by ``createRequire``),
  ``import … from S``, ``import S``, ``export … from S``, ``import(S)``; ``S`` a
  string, a template, ``+`` of them, ``__dirname``, ``__filename``,
  ``import.meta.dirname|filename|url``, ``path.join|resolve|dirname|normalize``,
  ``new URL(S, import.meta.url)``, ``fileURLToPath``, or a ``const`` bound once to
  such a value. A bare specifier (``lodash``, ``node:fs``) is resolved from
  ``node_modules`` (covered by the caller). ``eval``, ``new Function``, ``vm.run*``
  of anything but a literal are computed. A script the token scan cannot read (an
  unterminated string, comment or template) is computed as a whole.
"""

from __future__ import annotations

import ast
import os
import re
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

from wskit.formats.shell import ShellSyntaxError, Word, parse, read_word, split_command, walk_substitutions
from wskit.values import FrozenValue, Value

#: Interpreter families :func:`scan` reads.
FAMILIES = ("shell", "python", "node")
#: Longest load word read (a longer one is computed: the script-folder spellings are
#: recognised by fixed patterns over the word).
MAX_WORD_CHARS = 2048
#: Most loads one script may name (more: the rest are computed).
MAX_LOADS_PER_SCRIPT = 2048


class Load(FrozenValue):
    """One load a script makes.

    :ivar line: 1-based line of the script.
    :ivar word: the load as written (shortened).
    :ivar kind: ``"file"`` (a file run in place: a sourced shell file, ``runpy.run_path``,
        ``exec(open(P).read())``), ``"node"`` (a Node module path: extensions and
        ``index`` files are tried), ``"pyfolder"`` (a folder put on ``sys.path``),
        ``"sitedir"`` (``site.addsitedir``: the folder and its ``.pth`` files), ``"data"``
        (a file whose bytes run as code but are not a script: a pickle, a native library),
        ``"pymodule"`` (a dotted module name resolved on ``sys.path``), ``"pyrelative"``
        (``module`` resolved below the folder ``path``), ``"nodebare"`` (a bare Node
        specifier in ``module``: ``node_modules``, a builtin, or a self-reference),
        ``"run"`` (a shell script's simple command, in ``words``/``assigns``: the caller
        follows it as it follows a hook command), ``"cd"`` (the script changes its working
        folder: ``words`` holds each target, dynamic when not a literal), ``"function"``
        (a function the script defines, named in ``word``).
    :ivar path: absolute path, or relative to the working folder; None when computed.
    :ivar module: the dotted module name (``pymodule``, ``pyrelative``).
    :ivar reason: why ``path`` is None.
    :ivar words: ``run``: the command's words, read with the script's known variables
        (``Word.raw`` as written); ``cd``: the targets.
    :ivar assigns: ``run``: its ``NAME=value`` words.
    :ivar stdin: ``run``: what feeds its standard input (``"text:…"``, ``"file:…"``,
        ``"pipe"``, ``"unknown"``), None for the script's own.
    :ivar positional: ``run``: ``$1``/``"$@"`` are the script's own arguments (top level,
        never shifted or set).
    :ivar writes: ``run``: the targets of its output redirections (``> F``, ``>> F``,
        ``&> F``, ``<> F``), read as its words are: files the command writes.
    """

    line: int
    word: str
    kind: str
    path: str | None
    module: str = ""
    reason: str = ""
    words: tuple[Word, ...] = ()
    assigns: tuple[Word, ...] = ()
    stdin: str | None = None
    positional: bool = False
    writes: tuple[Word, ...] = ()


#: shells, Node-like and Python interpreters by program name (shared with :mod:`wskit.approval.coverage`)
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox-sh"})
_NODES = frozenset({"node", "nodejs", "deno", "tsx", "ts-node"})
_PYTHONS = ("python", "python3", "pypy", "pypy3")


def _version_suffix(name: str) -> bool:
    """``python``, ``python3``, ``python3.12``, ``pypy3``: a Python interpreter's name."""
    for p in _PYTHONS:
        if name.startswith(p):
            rest = name[len(p):]
            return all(ch.isdigit() or ch == "." for ch in rest)
    return False


def family_of(by: str, head: bytes) -> str | None:
    """The family of a script run by ``by`` (``"sh"``, ``"python"``, ``"node"``, ``"source"``,
    ``"exec"`` for a file run by its path) whose first bytes are ``head``: the ``#!`` line
    decides for ``"exec"`` (none: the shell runs it, as ``execvp`` does). None: an
    interpreter whose loads are not read (Ruby, Perl …)."""
    if by == "python" or by.startswith(_PYTHONS) and _version_suffix(by):
        return "python"
    if by in _NODES:
        return "node"
    if by in _SHELLS or by in ("source", "rcfile"):
        return "shell"
    if by != "exec":
        return None
    if not head.startswith(b"#!"):
        return "shell"
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return "shell"
    prog = words[0].rsplit("/", 1)[-1]
    if prog == "env":
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        prog = rest[0].rsplit("/", 1)[-1] if rest else ""
    if prog in _SHELLS:
        return "shell"
    if prog.startswith(_PYTHONS) and _version_suffix(prog):
        return "python"
    if prog in _NODES or prog == "bun":
        return "node"
    return None


def scan(text: str, family: str, *, script: str, dollar0: str | None = None,
         known: Mapping[str, str] | None = None, unknown: frozenset[str] = frozenset()) -> list[Load]:
    """The loads of ``text``, a ``family`` script at absolute path ``script``.

    :param dollar0: for a sourced shell file, the path ``$0`` holds (the script the shell
        was started with); default ``script``.
    :param known: variables of the environment the script is run with whose values are
        known (``CLAUDE_PROJECT_DIR`` …); a name the script assigns itself is not taken.
    :param unknown: names whose value the script does not decide alone (a file it
        sources assigns them): never known, nor what is built from them.
    Never raises on any text.
    """
    try:
        if family == "shell":
            found = _Shell(text, script, dollar0 or script, known, unknown).scan()
        elif family == "python":
            found = _Python(script).scan(text)
        elif family == "node":
            found = _Node(text, script).scan()
        else:
            return []
    except RecursionError:
        return [Load(1, os.path.basename(script), "file", None, reason="the script nests too deeply to be read")]
    if len(found) > MAX_LOADS_PER_SCRIPT:
        found = found[:MAX_LOADS_PER_SCRIPT] + [Load(found[MAX_LOADS_PER_SCRIPT].line, "…", "file", None,
                                                     reason=f"more than {MAX_LOADS_PER_SCRIPT} loads")]
    return found


def python_chdir_line(text: str, script: str) -> int | None:
    """The line of the first ``os.chdir``-like call (``os.chdir``, ``os.fchdir``,
    ``contextlib.chdir``, under any alias) in Python ``text``; None when there is none or
    the text does not parse. Used for a module a script loads: its ``chdir`` moves the
    working folder the script's own relative paths are resolved against."""
    if "chdir" not in text:
        return None
    py = _Python(script)
    try:
        tree = ast.parse(text, filename=script)
        py.names(tree)
        return next((n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call)
                     and py.dotted(n.func) in _CHDIR), None)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _bind_once(assigned: Mapping[str, list[Any]], values: dict[str, str], evaluate: Callable[[Any], str | None]) -> None:
    """Put in ``values`` each name of ``assigned`` bound exactly once to an expression
    ``evaluate`` reads (a few rounds, so a name may use an earlier one)."""
    for _ in range(4):
        changed = False
        for name, exprs in assigned.items():
            if name in values or len(exprs) != 1:
                continue
            v = evaluate(exprs[0])
            if v is not None:
                values[name] = v
                changed = True
        if not changed:
            break


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- shell ------------------------------------------------------------------------------

_SRC0 = r'(?:"\$\{?0\}?"|\$\{?0\}?)'
_SRCB = r'(?:"\$\{BASH_SOURCE(?:\[0\])?\}"|\$\{BASH_SOURCE(?:\[0\])?\}|"\$BASH_SOURCE"|\$BASH_SOURCE)'
_SRC = rf"(?P<src>{_SRC0}|{_SRCB})"
_DIRNAME = rf"(?:\$\(\s?dirname (?:-- )?{_SRC}\s?\)|`dirname (?:-- )?{_SRC}`)"
_REAL = rf'(?:\$\(\s?dirname (?:-- )?"?\$\((?:realpath|readlink -f) (?:-- )?{_SRC}\)"?\s?\))'
_DIR_ANY = rf"(?:{_DIRNAME}|{_REAL}|\$\((?:realpath|readlink -f) (?:-- )?\"?{_DIRNAME}\"?\))"
_CDPWD = (rf'\$\(\s?cd (?:-P )?(?:-- )?"?{_DIR_ANY}"?(?: ?(?:&>|>|2>) ?/dev/null(?: 2>&1)?)? ?(?:&&|;) ?'
          r'pwd(?: -P)?\s?\)')
_PCT = r'(?P<pct>\$\{(?:BASH_SOURCE(?:\[0\])?|0)%/\*\})'
#: the spellings of "the folder this script is in", each a fixed pattern over one word
_SCRIPT_DIR = re.compile("|".join(f"(?:{p})" for p in (_CDPWD, _DIR_ANY, _PCT))
                         .replace("(?P<src>", "(?:").replace("(?P<pct>", "(?:"))
_WHICH = re.compile(r"BASH_SOURCE")
_DIR0, _DIRB = "__wskit_dir0", "__wskit_dir_source"
_SHELL_KEYWORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!", "{", "(", "time"})
_CD = frozenset({"cd", "pushd", "popd"})
_ASSIGN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _script_dirs(raw: str) -> str:
    """``raw`` with each script-folder spelling replaced by a placeholder variable."""
    def put(m: re.Match[str]) -> str:
        return "${%s}" % (_DIRB if _WHICH.search(m.group(0)) else _DIR0)
    return _SCRIPT_DIR.sub(put, raw)


class _Shell:
    def __init__(self, text: str, script: str, dollar0: str, seed: Mapping[str, str] | None = None,
                 unknown: frozenset[str] = frozenset()) -> None:
        self.text = text
        self.script = script
        # dirname of a bare name is "." in the shell (``sh -c``'s ``$0`` is ``sh``)
        self.known = {_DIR0: os.path.dirname(dollar0) or ".", _DIRB: os.path.dirname(script) or "."}
        self.seed = dict(seed or {})
        self.assigned: dict[str, list[str]] = {name: ["$(assigned elsewhere)"] for name in unknown}
        #: ``eval`` anywhere: it may assign any variable, so none the script assigns is known
        self.evals = False
        self.sources: list[tuple[int, str]] = []
        self.unreadable: list[tuple[int, str, str]] = []
        self.cd_lines: list[int] = []
        #: each ``cd``'s target as written (None: no operand, ``-``, ``popd``, a line not read)
        self.cd_words: list[str | None] = []
        #: every other simple command: line, words, assignments, stdin, inside a function
        self.runs: list[tuple[int, list[str], list[str], str | None, bool]] = []
        #: the output redirection targets of the command ``self.runs`` holds at each index
        self.outputs: dict[int, list[str]] = {}
        #: ``shift``/``set --``/``getopts``: ``$1``… are no longer the script's arguments as given
        self.shifts = False
        #: the functions the script defines (a call runs the script's own code, walked here)
        self.functions: list[tuple[int, str]] = []
        #: names given a value at run time other than by ``NAME=``/``export`` (``read``,
        #: ``printf -v``, a loop, a name reference): line, the command, the name (None:
        #: a name reference whose target is not literal); coverage names the loader ones
        self.runtime_writes: list[tuple[int, str, str | None]] = []

    def scan(self) -> list[Load]:
        try:
            trees = parse(self.text)
        except ShellSyntaxError:
            self.lines()
        else:
            for t in trees:
                self.walk(t, self.text, 0)
        known = self.variables()
        out = [Load(n, _short(w), "file", None, reason=why) for n, w, why in self.unreadable]
        first_cd = min(self.cd_lines, default=None)
        for n, raw in self.sources:
            w = self.read(raw, known)
            if w.value is None:
                out.append(Load(n, _short(raw), "file", None, reason=", ".join(w.dynamic)))
            elif not os.path.isabs(w.value) and first_cd is not None and first_cd <= n:
                out.append(Load(n, _short(raw), "file", None,
                                reason=f"a relative path after cd on line {first_cd} of the script"))
            else:
                out.append(Load(n, _short(raw), "file", os.path.normpath(w.value)))
        for i, (n, words, assigns, stdin, in_function) in enumerate(self.runs):
            out.append(Load(n, _short(" ".join(words or assigns)), "run", None,
                            words=tuple(self.read(w, known) for w in words),
                            assigns=tuple(self.read(a, known) for a in assigns), stdin=stdin,
                            positional=not in_function and not self.shifts,
                            writes=tuple(self.read(w, known) for w in self.outputs.get(i, ()))))
        out += [Load(n, name, "function", None) for n, name in self.functions]
        out += [Load(n, _short(shown), "setenv", None, module=name) for n, shown, name in self.runtime_writes]
        # the names this file assigns (a file that sources it sees them changed)
        out.append(Load(1, "assigns", "assigns", None, words=tuple(Word(k, k) for k in sorted(self.assigned))))
        if self.cd_lines:
            out.append(Load(first_cd or 1, "cd", "cd", None, words=tuple(
                self.read(w, known) if w is not None else Word("cd", None, ("cd to a folder not read",))
                for w in self.cd_words)))
        return sorted(out, key=lambda x: x.line)

    @staticmethod
    def read(raw: str, known: Mapping[str, str]) -> Word:
        """One word of the script, its script-folder spellings and known variables put in
        (``raw`` kept as written)."""
        if len(raw) > MAX_WORD_CHARS:
            return Word(raw, None, ("the word is too long to be read",))
        w = read_word(_script_dirs(raw), known)
        return Word(raw, w.value, tuple(r.replace(_DIR0, "0").replace(_DIRB, "BASH_SOURCE") for r in w.dynamic))

    def variables(self) -> dict[str, str]:
        """The variables whose every assignment in the script reads to one literal value
        (script-folder spellings and earlier such variables included), and the known
        variables of the environment the script does not assign."""
        known = dict(self.known)
        known.update((k, v) for k, v in self.seed.items() if k not in self.assigned)
        if self.evals:
            return known
        for _ in range(4):
            changed = False
            for name, raws in self.assigned.items():
                if name in known or len(raws) > 8 or any(len(r) > MAX_WORD_CHARS for r in raws):
                    continue
                values = {read_word(_script_dirs(r), known).value for r in raws}
                if len(values) == 1 and None not in values:
                    known[name] = values.pop()  # type: ignore[assignment]
                    changed = True
            if not changed:
                break
        return known

    def line_of(self, src: str, pos: int, base: int) -> int:
        return base + src.count("\n", 0, pos) + 1

    def walk(self, node: Any, src: str, base: int, in_function: bool = False, stdin: str | None = None) -> None:
        kind = getattr(node, "kind", None)
        if kind == "command":
            words: list[str] = []
            assigns: list[str] = []
            outputs: list[str] = []
            for p in node.parts:
                for sub in walk_substitutions(p):
                    self.walk(sub, src, base, in_function)
                raw = src[p.pos[0]:p.pos[1]]
                if p.kind == "assignment":
                    self.assignment(raw)
                    assigns.append(raw)
                elif p.kind == "word":
                    words.append(raw)
                elif p.kind == "redirect":
                    stdin = input_feed(p, src)[0] or stdin
                    target = output_target(p, src)
                    if target is not None:
                        outputs.append(target)
            if outputs:
                self.outputs[len(self.runs)] = outputs
            self.command(words, assigns, self.line_of(src, node.pos[0], base), stdin, in_function)
            if outputs and (not self.runs or self.runs[-1][1] is not words):
                # a command not kept as a run (source, cd, …) still writes its targets
                self.runs.append((self.line_of(src, node.pos[0], base), [], [], None, in_function))
            return
        if kind == "pipeline":  # a stage after the first reads the pipe
            stages = [p for p in node.parts if p.kind not in ("pipe", "reservedword")]
            for i, p in enumerate(stages):
                self.walk(p, src, base, in_function, "pipe" if i else stdin)
            return
        if kind in ("for", "select"):  # its variable takes each word at run time
            names = [p for p in node.parts if p.kind == "word"]
            if names:
                name = src[names[0].pos[0]:names[0].pos[1]]
                self.unknown_var(name)
                self.runtime_write(self.line_of(src, node.pos[0], base), f"{kind} {name} in …", name)
        if kind == "function":
            in_function = True
            names = [p for p in node.parts if p.kind == "word"]
            if names:
                self.functions.append((self.line_of(src, node.pos[0], base), names[0].word))
        for attr in ("parts", "list"):
            for child in getattr(node, attr, None) or []:
                if hasattr(child, "kind"):
                    self.walk(child, src, base, in_function)
        for r in getattr(node, "redirects", None) or []:
            for sub in walk_substitutions(r):
                self.walk(sub, src, base, in_function)

    def runtime_write(self, line: int, shown: str, name: str | None) -> None:
        if name is None or _ASSIGN_NAME.fullmatch(name):
            self.runtime_writes.append((line, shown, name))

    def unknown_var(self, name: str) -> None:
        """``name`` gets a value decided at run time (a loop variable, ``read``)."""
        if _ASSIGN_NAME.fullmatch(name):
            self.assigned.setdefault(name, []).append("$(run time)")

    def assignment(self, raw: str) -> None:
        name, _, value = raw.partition("=")
        name = name.rstrip("+")
        if _ASSIGN_NAME.fullmatch(name):
            self.assigned.setdefault(name, []).append(value if not raw[len(name):].startswith("+") else "$" + name)

    def command(self, words: list[str], assigns: list[str], line: int, stdin: str | None, in_function: bool) -> None:
        i = 0
        while i < len(words) and words[i] in ("builtin", "command"):
            i += 1
        first = read_word(words[i]).value if i < len(words) else None
        if first in ("source", "."):
            if i + 1 < len(words):
                self.sources.append((line, words[i + 1]))
            return
        if first in _CD:
            self.cd_lines.append(line)
            ops = [w for w in words[i + 1:] if not w.startswith("-") or w == "-"]
            self.cd_words.append(ops[0] if ops and first != "popd" and ops[0] != "-" else None)
            return
        if first in ("export", "readonly", "local", "declare", "typeset"):
            for w in words[i + 1:]:
                if "=" in w and not w.startswith("-"):
                    self.assignment(w)
                elif w.startswith("-") and "n" in w:  # a name reference: it may stand for any variable
                    self.evals = True
                    for ref in words[i + 1:]:
                        if not ref.startswith("-"):
                            target = ref.partition("=")[2]
                            literal = read_word(target).value if target else None
                            self.runtime_write(line, f"{first} {w} {ref}",
                                               literal if literal and _ASSIGN_NAME.fullmatch(literal) else None)
        elif first in ("shift", "getopts") or (first == "set" and _sets_positionals(words[i + 1:])):
            self.shifts = True
        if first == "eval":
            self.evals = True
        elif first in _ASSIGNING:  # read X, mapfile X, getopts o X, printf -v X, let X=…: a value from run time
            rest = words[i + 1:]
            for j, w in enumerate(rest):
                name = w.split("=", 1)[0].rstrip("+-")
                self.unknown_var(name)
                # the names it assigns: printf's after -v, the others' operands
                if (rest[j - 1] == "-v") if first == "printf" else (j > 0 or first != "getopts"):
                    if not w.startswith("-"):
                        self.runtime_write(line, f"{first} … {w}", name)
        self.runs.append((line, words, assigns, stdin, in_function))

    def lines(self) -> None:
        """The fallback: each line (continuations joined, a here-document's body with the
        line that opens it) parsed alone; where the parser refuses it, a case arm's
        pattern is dropped, then it is split at ``&& || ; | &`` and each part read
        (:meth:`part`)."""
        n, lines = 0, self.text.split("\n")
        while n < len(lines):
            start, line = n + 1, lines[n]
            while line.endswith("\\") and n + 1 < len(lines):
                n += 1
                line = line[:-1] + lines[n]
            n += 1
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            heredoc = _HEREDOC.search(line)
            if heredoc:
                # the body belongs to this line: read up to the delimiter; a quoted
                # delimiter (which bashlex refuses) is unquoted only to be parsed, and the
                # body then counts as one with expansions (fail closed)
                delim, dash = heredoc.group("d"), heredoc.group("op") == "<<-"
                body = []
                while n < len(lines) and (lines[n].lstrip("\t") if dash else lines[n]) != delim:
                    body.append(lines[n])
                    n += 1
                n += 1
                line = line[:heredoc.start()] + "<<" + ("-" if dash else "") + delim + line[heredoc.end():]
                line = "\n".join([line, *body, delim])
            text = _script_dirs(line)
            if self.parsed(text, start):
                continue
            arm = _CASE_ARM.match(text.strip())
            rest = re.sub(r"\s*;;&?\s*$|\s*;&\s*$", "", text.strip()[arm.end():]) if arm else ""
            if arm and not text.strip().startswith(("[[", "((")) and (not rest or self.parsed(rest, start)):
                continue
            if heredoc:
                self.unreadable.append((start, _short(line), "a here-document the shell parser cannot read"))
                continue
            for part in split_command(text):
                self.part(part, start)

    def parsed(self, text: str, start: int) -> bool:
        """Walk ``text`` (a line at ``start``) when the parser reads it; False when not."""
        try:
            trees = parse(text)
        except ShellSyntaxError:
            return False
        for t in trees:
            self.walk(t, text, start - 1)
        return True

    def part(self, part: str, start: int) -> None:
        """One part of a line of the fallback: parsed and walked when the parser reads it;
        otherwise a case head, a ``[[ ]]``/``(( ))`` test or a keyword without a
        substitution is skipped (it runs nothing), a case arm's pattern is dropped, an
        array assignment makes its variable unknown, and anything else is a line that
        may run code: unverified."""
        words = part.split()
        while words and words[0] in _SHELL_KEYWORDS:
            words.pop(0)
        if not words:
            return
        body = part[part.find(words[0]):]
        arm = _CASE_ARM.match(body)
        if arm and arm.end() < len(body) and words[0] not in ("[[", "((") and "=" not in words[0]:
            self.part(body[arm.end():], start)
            return
        if self.parsed(body, start):
            return
        lead = [w for w in words if w not in ("builtin", "command")]
        substitutes = any(s in _ARITHMETIC.sub("", body) for s in ("$(", "`", "<(", ">("))
        if (lead and lead[0] in ("source", ".")) or _NESTED_SOURCE.search(body):
            self.unreadable.append((start, body, "a line the shell parser cannot read holds source or ."))
        elif lead and lead[0] in _CD:
            self.cd_lines.append(start)
            self.cd_words.append(None)
        elif "=" in words[0] and _ASSIGN_NAME.fullmatch(words[0].split("=", 1)[0]):
            name = words[0].split("=", 1)[0]
            self.assigned.setdefault(name, []).append("$(unreadable)")
            self.runs.append((start, [], [f"{name}=$(unreadable)"], None, False))
            if substitutes:
                self.unreadable.append((start, body, "a line the shell parser cannot read runs a substitution"))
        elif words[0] in ("for", "select") and len(words) > 1:
            self.unknown_var(words[1])
            if substitutes:
                self.unreadable.append((start, body, "a line the shell parser cannot read runs a substitution"))
        elif (words[0] in _NOT_RUN or _CASE_ARM.fullmatch(body.rstrip(";"))) and not substitutes:
            return
        else:
            self.unreadable.append((start, body, "a line the shell parser cannot read; what it runs is not followed"))


def _sets_positionals(args: list[str]) -> bool:
    """``set -- a b`` or ``set a b`` (not ``set -e``, ``set -o pipefail``) replaces ``$1``…"""
    prev = ""
    for a in args:
        if a == "--" or (not a.startswith(("-", "+")) and not (prev[:1] in ("-", "+") and prev.endswith("o"))):
            return True
        prev = a
    return False


def input_feed(r: Any, src: str) -> tuple[str | None, str]:
    """What redirection ``r`` (a ``bashlex`` redirect node of ``src``) feeds to standard
    input: ``"text:<body>"`` (a here-document or here-string with no expansion),
    ``"file:<path>"``, ``"unknown"`` (text or a path decided at run time; the reason is
    the second item), or None (an output redirection or a descriptor duplication)."""
    kind = r.type
    target = r.output if hasattr(r.output, "kind") else None
    if kind in ("<<", "<<-"):
        body = getattr(getattr(r, "heredoc", None), "value", "") or ""
        delim = read_word(src[target.pos[0]:target.pos[1]]).value if target is not None else None
        if delim and body.endswith(delim):
            body = body[: -len(delim)]
        quoted = target is not None and any(q in src[target.pos[0]:target.pos[1]] for q in "'\"\\")
        if not quoted and any(ch in body for ch in "$`"):
            return "unknown", "here-document with expansions"
        return "text:" + body, ""
    if target is None or kind not in ("<", "<>", "<<<"):
        return None, ""
    w = read_word(src[target.pos[0]:target.pos[1]])
    if w.value is None:
        return "unknown", ", ".join(w.dynamic)
    return ("text:" if kind == "<<<" else "file:") + w.value, ""


def output_target(r: Any, src: str) -> str | None:
    """The target of output redirection ``r`` (a ``bashlex`` redirect node of ``src``) as
    written (``> F``, ``>> F``, ``>| F``, ``&> F``, ``&>> F``, ``<> F``), or None: an input
    redirection, or a descriptor duplication (``>&2``)."""
    target = r.output if hasattr(r.output, "kind") else None
    if target is None or r.type not in (">", ">>", ">|", "&>", "&>>", "<>", ">&"):
        return None
    raw = src[target.pos[0]:target.pos[1]]
    return None if r.type == ">&" and (raw.isdigit() or raw == "-") else raw


#: builtins that give variables named among their words a value decided at run time
_ASSIGNING = frozenset({"read", "mapfile", "readarray", "getopts", "printf", "let", "wait"})
#: a here-document operator and its delimiter word (quoted or not)
_HEREDOC = re.compile(r"""(?P<op><<-?)\s*(?P<q>['"]?)\\?(?P<d>[A-Za-z_][A-Za-z0-9_]*)(?P=q)""")
#: ``$(( … ))`` arithmetic holding no command substitution
_ARITHMETIC = re.compile(r"\$\(\((?:[^()$`]|\([^()$`]*\))*\)\)")
#: a case arm's pattern at the start of a part (``a)``, ``*.sh|*.py)``, ``(x)``)
_CASE_ARM = re.compile(r"\(?[^\s()|;&<>=]+(?:\s*\|\s*[^\s()|;&<>]+)*\)\s*")
#: first words of parts that run nothing when no substitution is in them
_NOT_RUN = frozenset({"case", "esac", ";;", "[[", "((", "fi", "done", "}", ")", "then", "else", "do"})


#: ``source``/``.`` at a command position inside a part that did not parse
_NESTED_SOURCE = re.compile(r"(?:^|[\s;&|({`])(?:source|\.)\s")


# -- Python ----------------------------------------------------------------------------

_PATH_FUNCS = {"os.path.dirname": "dirname", "os.path.abspath": "same", "os.path.realpath": "same",
               "os.path.normpath": "same", "os.path.join": "join", "os.fspath": "same", "str": "same",
               "pathlib.Path": "join", "pathlib.PurePath": "join", "pathlib.PosixPath": "join",
               "os.getcwd": "cwd", "os.path.expanduser": "none"}
_PATH_METHODS = {"resolve": "same", "absolute": "same", "joinpath": "join-self", "with_name": "none"}
_SYSPATH_ADD = {"sys.path.insert": 1, "sys.path.append": 0}
_FILE_LOADERS = {"runpy.run_path": 0, "importlib.util.spec_from_file_location": 1,
                 "importlib.machinery.SourceFileLoader": 1, "importlib.machinery.SourcelessFileLoader": 1,
                 "imp.load_source": 1, "imp.load_compiled": 1, "imp.load_package": 1}
#: calls that run code held in a file that is not Python source: ``pickle`` and friends
#: (unpickling runs code), native libraries, zip archives on the import path
_NATIVE = ("ctypes.", "_ctypes.")
_CODE_FILES = frozenset({"pickle.load", "pickle.Unpickler", "_pickle.load", "marshal.load", "shelve.open",
                         "dill.load", "joblib.load", "torch.load", "numpy.load", "ctypes.CDLL", "ctypes.PyDLL",
                         "ctypes.cdll.LoadLibrary", "ctypes.pydll.LoadLibrary", "ctypes.LibraryLoader",
                         "zipimport.zipimporter", "importlib.machinery.ExtensionFileLoader"})
_MODULE_LOADERS = {"importlib.import_module": 0, "__import__": 0, "runpy.run_module": 0,
                   "importlib.__import__": 0, "pkgutil.get_loader": 0}
_CODE_RUNNERS = {"exec", "eval", "builtins.exec", "builtins.eval"}
#: Python calls that start a program from an argv (or one program name)
_PY_RUNS = frozenset({"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output",
                      "subprocess.Popen", "asyncio.create_subprocess_exec"})
#: ... from a shell command line
_PY_RUNS_SHELL = frozenset({"os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput",
                            "asyncio.create_subprocess_shell"})
#: the rest of the program starters: computed (not followed)
_PY_RUNS_PREFIXES = ("os.exec", "os.spawn", "os.posix_spawn", "pty.spawn", "os.startfile", "multiprocessing.")
_CHDIR = {"os.chdir", "os.fchdir", "posix.chdir", "posix.fchdir", "contextlib.chdir"}
#: modules whose functions start programs or load code: followed only as ``mod.func(…)``
#: calls; the module itself used as a value (``getattr(os, name)``, ``m = subprocess``, an
#: argument) is unverified
_LOADER_MODULES = frozenset({
    "sys", "os", "posix", "subprocess", "_posixsubprocess", "importlib", "importlib.util", "importlib.machinery",
    "runpy", "builtins", "__builtins__", "multiprocessing", "ctypes", "pickle", "marshal", "zipimport", "pkgutil",
    "site", "pty", "imp", "asyncio.subprocess"})


class _Python:
    def __init__(self, script: str) -> None:
        self.script = script
        self.aliases: dict[str, str] = {}
        self.values: dict[str, str] = {}
        self.out: list[Load] = []
        #: the line of an ``os.chdir`` anywhere in the script (order is not followed: fail closed)
        self.chdir: int | None = None

    def scan(self, text: str, line0: int = 0) -> list[Load]:
        try:
            tree = ast.parse(text, filename=self.script)
        except (SyntaxError, ValueError, MemoryError) as err:
            line = getattr(err, "lineno", None) or 1
            return [Load(line0 + line, os.path.basename(self.script), "file", None,
                         reason=f"Python cannot parse it ({type(err).__name__})")]
        self.names(tree)
        self.chdir = self.chdir or next((n.lineno + line0 for n in ast.walk(tree) if isinstance(n, ast.Call)
                                         and self.dotted(n.func) in _CHDIR), None)
        for node in ast.walk(tree):
            self.visit(node, text, line0)
        self.import_state(tree, line0)
        self.out.extend(python_reach(self, tree, line0))
        self.out.extend(python_paths(self, tree, line0))
        return self.out

    def import_state(self, tree: ast.AST, line0: int) -> None:
        """The whitelist of the import system's state: ``sys.path`` is followed only where
        it is changed by a recognised spelling (``sys.path.insert/append/extend(…)``,
        ``sys.path[…] =``, ``sys.path =``/``+=``) or only read (``in``, a loop, ``len``);
        any other use of it — bound to another name (``p = sys.path``), passed to a call,
        another method — and any use of ``sys.meta_path``, ``sys.path_hooks``,
        ``sys.modules`` (but a read), ``importlib.machinery``/``zipimport`` internals or
        the ``sys`` module itself as a value (``s = sys``) is unverified."""
        parents: dict[int, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Name, ast.Attribute)):
                continue
            name = self.dotted(node)
            parent = parents.get(id(node))
            if isinstance(parent, ast.Attribute):
                continue  # judged at the longer name
            if isinstance(node, ast.Name) and name in _LOADER_MODULES:
                if self.module_read(node, parent, name):
                    continue
                if name == "sys":
                    self.import_state_use(node, line0, "the sys module used as a value (its path is then changed "
                                                       "where wskit does not see)")
                else:
                    self.import_state_use(node, line0, f"the {name} module used as a value (getattr, an alias, an "
                                                       "argument): what its functions then start or load is not "
                                                       "followed")
                continue
            if name == "__path__" or (name or "").startswith("__path__.") or (name or "").endswith(".__path__") \
                    or ".__path__." in (name or ""):
                # a package's search path (``__path__.append``, ``pkgutil.extend_path``,
                # ``pkg.__path__.insert``): its submodules come from folders wskit does not follow
                if not (isinstance(getattr(node, "ctx", None), ast.Load) and isinstance(
                        parent, (ast.Compare, ast.comprehension, ast.For))):
                    self.import_state_use(node, line0, f"{name} changed or passed on: the package's submodules "
                                                       "then come from folders wskit does not follow")
                continue
            if name not in ("sys.path", "sys.meta_path", "sys.path_hooks", "sys.modules", "sys.path_importer_cache") \
                    and not (name or "").startswith(("sys.path.", "sys.meta_path.", "sys.path_hooks.", "sys.modules.")):
                continue
            base, _, method = (name or "").partition(".")[2].partition(".")
            if base == "path" and method in ("insert", "append", "extend") and isinstance(parent, ast.Call) \
                    and parent.func is node:
                continue  # followed (visit)
            if base == "path" and not method and isinstance(parent, (ast.Assign, ast.AugAssign)) \
                    and node in (getattr(parent, "targets", None) or [getattr(parent, "target", None)]):
                continue  # sys.path = … / += …: followed
            if base == "path" and not method and isinstance(parent, ast.Subscript) and isinstance(node.ctx, ast.Load) \
                    and isinstance(parents.get(id(parent)), ast.Assign) and parent in parents[id(parent)].targets:
                continue  # sys.path[…] = …: followed
            if isinstance(getattr(node, "ctx", None), ast.Load) and not method and (
                    isinstance(parent, (ast.Compare, ast.comprehension, ast.For, ast.Expr))
                    or (isinstance(parent, ast.Call) and node in parent.args
                        and self.dotted(parent.func) in ("len", "print", "list", "tuple", "repr", "str"))
                    or (base == "modules" and isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Load))):
                continue  # read only
            self.import_state_use(node, line0, f"{name} used in a way wskit does not follow (an alias, an argument, "
                                               "another method): what it makes Python import is not covered")

    def module_read(self, node: ast.AST, parent: ast.AST | None, name: str) -> bool:
        """True when loader module ``name`` is only looked at: ``hasattr(os, 'fork')``, or
        ``getattr(os, 'LITERAL'[, default])`` naming a member that neither starts a program
        nor loads code (``getattr(os, 'execv')`` is not a read)."""
        if not isinstance(parent, ast.Call) or not parent.args or parent.args[0] is not node:
            return False
        fn = self.dotted(parent.func)
        if fn == "hasattr":
            return True
        if fn != "getattr" or len(parent.args) < 2 or not isinstance(parent.args[1], ast.Constant) \
                or not isinstance(parent.args[1].value, str):
            return False
        attr = parent.args[1].value
        member = f"{name}.{attr}"
        if name == "sys":  # its import state is what matters (``getattr(sys, 'frozen', False)`` is a read)
            return attr not in ("path", "meta_path", "path_hooks", "modules", "path_importer_cache", "pycache_prefix")
        return name in ("os", "posix", "subprocess", "multiprocessing", "pty", "pickle", "marshal") and not (
            member in _PY_RUNS or member in _PY_RUNS_SHELL or member.startswith(_PY_RUNS_PREFIXES)
            or member in _CODE_FILES or attr.startswith(("exec", "spawn", "posix_spawn", "fork", "system", "popen",
                                                         "Popen", "run", "call", "check_", "load", "Unpickler")))

    def import_state_use(self, node: ast.AST, line0: int, reason: str) -> None:
        self.out.append(Load(line0 + getattr(node, "lineno", 1), _short(ast.unparse(node)), "pymodule", None,
                             reason=reason))

    def names(self, tree: ast.AST) -> None:
        """Import aliases, and the names assigned exactly once to a path expression."""
        assigned: dict[str, list[ast.AST]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.aliases[a.asname] = a.name
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                for a in node.names:
                    self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            assigned.setdefault(n.id, []).append(node.value if isinstance(t, ast.Name) else t)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and isinstance(node.target, ast.Name):
                assigned.setdefault(node.target.id, []).append(
                    node.value if isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value else node)
            elif isinstance(node, (ast.For, ast.With, ast.comprehension)):
                for n in ast.walk(getattr(node, "target", node)):
                    if isinstance(n, ast.Name):
                        assigned.setdefault(n.id, []).extend([n, n])
        _bind_once(assigned, self.values, self.eval)

    def dotted(self, node: ast.AST) -> str | None:
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Call) and parts and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str) and not node.keywords \
                and self.dotted(node.func) in ("__import__", "importlib.import_module", "builtins.__import__"):
            # ``__import__('os').system(…)``: the module's member, as ``os.system(…)``
            return ".".join([node.args[0].value, *reversed(parts)])
        if not isinstance(node, ast.Name):
            return None
        parts.append(self.aliases.get(node.id, node.id))
        name = ".".join(reversed(parts))
        return {"os.path": "os.path", "posixpath": "os.path"}.get(name, name).replace("posixpath.", "os.path.")

    def eval(self, node: ast.AST) -> str | None:
        """A path expression's value (relative: to the working folder), or None."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            if node.id == "__file__":
                return self.script
            return self.values.get(node.id)
        if isinstance(node, ast.JoinedStr):
            parts = [self.eval(v.value if isinstance(v, ast.FormattedValue) else v) for v in node.values]
            return None if None in parts else "".join(parts)  # type: ignore[arg-type]
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Div)):
            a, b = self.eval(node.left), self.eval(node.right)
            if a is None or b is None:
                return None
            return a + b if isinstance(node.op, ast.Add) else os.path.join(a, b)
        if isinstance(node, ast.Attribute):
            const = {"os.pardir": "..", "os.curdir": ".", "os.sep": "/"}.get(self.dotted(node) or "")
            if const is not None:
                return const
            base = self.eval(node.value)
            if base is not None and node.attr == "parent":
                return os.path.dirname(os.path.normpath(base))
            return None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "parents":
            base = self.eval(node.value.value)
            idx = node.slice
            if base is not None and isinstance(idx, ast.Constant) and isinstance(idx.value, int) and 0 <= idx.value < 32:
                p = os.path.normpath(base)
                for _ in range(idx.value + 1):
                    p = os.path.dirname(p)
                return p
            return None
        if isinstance(node, ast.Call):
            if node.keywords and not (isinstance(node.func, ast.Name) and node.func.id == "str"):
                return None
            if isinstance(node.func, ast.Attribute) and node.func.attr in _PATH_METHODS \
                    and self.dotted(node.func) not in _PATH_FUNCS:
                how = _PATH_METHODS[node.func.attr]
                base = self.eval(node.func.value)
                if base is None or how == "none":
                    return None
                if how == "same" and not node.args:
                    return base
                args = [self.eval(a) for a in node.args]
                return None if None in args else os.path.join(base, *args)  # type: ignore[arg-type]
            how = _PATH_FUNCS.get(self.dotted(node.func) or "") or _PATH_FUNCS.get(
                "pathlib." + (self.dotted(node.func) or ""))
            if how is None or how == "none":
                return None
            if how == "cwd":
                return "." if not node.args else None
            args = [self.eval(a) for a in node.args]
            if None in args or not args:
                return None
            if how == "dirname":
                return os.path.dirname(os.path.normpath(args[0])) if len(args) == 1 else None  # type: ignore[arg-type]
            if how == "same":
                return args[0] if len(args) == 1 else None
            return os.path.join(*args)  # type: ignore[arg-type]
        return None

    def add(self, node: ast.AST, kind: str, arg: ast.AST | None, what: str) -> None:
        line = getattr(node, "lineno", 1)
        word = _short(ast.unparse(node) if hasattr(ast, "unparse") else what)
        value = self.eval(arg) if arg is not None else None
        if value is None:
            self.out.append(Load(line, word, kind, None, reason=f"{what} of a path computed when the script runs"))
        elif self.chdir is not None and kind != "pymodule" and not os.path.isabs(value):
            # Python resolves it against the working folder, which the script changes
            self.out.append(Load(line, word, kind, None,
                                 reason=f"{what}: a relative path after os.chdir on line {self.chdir}"))
        elif kind in ("pymodule",):
            self.out.append(Load(line, word, kind, None, module=value) if _module_name(value)
                            else Load(line, word, kind, None, reason=f"{what} of {value!r}, not a module name"))
        else:
            self.out.append(Load(line, word, kind, os.path.normpath(value)))

    def visit(self, node: ast.AST, text: str, line0: int) -> None:
        if isinstance(node, ast.Import):
            for a in node.names:
                self.out.append(Load(line0 + node.lineno, f"import {a.name}", "pymodule", None, module=a.name))
            return
        if isinstance(node, ast.ImportFrom):
            names = [a.name for a in node.names if a.name != "*"]
            if node.level:
                base = os.path.dirname(self.script)
                for _ in range(node.level - 1):
                    base = os.path.dirname(base)
                mods = [node.module] if node.module else []
                mods += [f"{node.module}.{n}" if node.module else n for n in names]
                for m in mods:
                    self.out.append(Load(line0 + node.lineno, _short(f"from {'.' * node.level}{node.module or ''} "
                                                                     f"import {', '.join(names) or '*'}"),
                                         "pyrelative", base, module=m))
            elif node.module:
                for m in [node.module] + [f"{node.module}.{n}" for n in names]:
                    self.out.append(Load(line0 + node.lineno, f"from {node.module} import …", "pymodule", None,
                                         module=m))
            return
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                tgt = t.value if isinstance(t, ast.Subscript) else t
                if self.dotted(tgt) == "sys.path":
                    self.folders(node, node.value, "assigning sys.path")
                elif isinstance(t, ast.Subscript) and self.dotted(t.value) == "os.environ":
                    self.setenv(node, t.slice, line0)
            return
        if not isinstance(node, ast.Call):
            return
        name = self.dotted(node.func) or ""
        if name in _PY_RUNS or name in _PY_RUNS_SHELL or name.startswith(_PY_RUNS_PREFIXES):
            self.runs(node, name, line0)
        elif name in ("os.putenv", "os.environ.setdefault") and node.args:
            self.setenv(node, node.args[0], line0)
        elif name == "os.environ.update":
            self.environ_update(node, node.args[0] if node.args else None, line0)
        elif name in _SYSPATH_ADD:
            i = _SYSPATH_ADD[name]
            self.add(node, "pyfolder", node.args[i] if len(node.args) > i else None, name)
        elif name == "sys.path.extend":
            self.folders(node, node.args[0] if node.args else None, name)
        elif name == "site.addsitedir":
            self.add(node, "sitedir", node.args[0] if node.args else None, name)
        elif name in _FILE_LOADERS:
            i = _FILE_LOADERS[name]
            arg = node.args[i] if len(node.args) > i else next(
                (k.value for k in node.keywords if k.arg in ("path", "location", "pathname", "path_name")), None)
            self.add(node, "file", arg, name)
        elif name in _MODULE_LOADERS:
            arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "name"), None)
            self.add(node, "pymodule", arg, name)
        elif name in _CODE_RUNNERS or name == "compile":
            self.code(node, name, text, line0)
        elif name in _CODE_FILES:
            arg = node.args[0] if node.args else None
            if name.startswith(_NATIVE) and isinstance(arg, ast.Constant) and isinstance(arg.value, str) \
                    and "/" not in arg.value:
                return  # a library the system's loader finds by name (``libc.so.6``)
            if isinstance(arg, ast.Call) and self.dotted(arg.func) in ("open", "io.open", "builtins.open") and arg.args:
                arg = arg.args[0]  # pickle.load(open(P, "rb"))
            self.add(node, "data", arg, name)

    def setenv(self, node: ast.AST, key: ast.AST, line0: int) -> None:
        """``os.environ[K] = …``, ``os.putenv(K, …)``: a ``setenv`` load naming ``K``
        (empty when computed); the caller decides whether it changes what programs load."""
        k = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else ""
        self.out.append(Load(line0 + getattr(node, "lineno", 1), _short(ast.unparse(node)), "setenv", None, module=k))

    def environ_update(self, node: ast.AST, value: ast.AST | None, line0: int) -> None:
        if isinstance(value, ast.Dict) and None not in value.keys:
            for k in value.keys:
                self.setenv(node, k, line0)  # type: ignore[arg-type]
        else:
            self.out.append(Load(line0 + getattr(node, "lineno", 1), _short(ast.unparse(node)), "setenv", None))

    def runs(self, node: ast.Call, name: str, line0: int) -> None:
        """A program the script starts (``subprocess.*``, ``os.system``, ``os.popen``,
        ``asyncio.create_subprocess_*``): an ``argv`` load (its words, each read by the path
        evaluator) or a ``shell`` load (literal shell text in ``words[0]``), its working
        folder in ``path`` (``""``: the script's; None: computed); any other form of
        ``os.exec*``/``os.spawn*``/``pty.spawn`` is computed."""
        line = line0 + node.lineno
        shown = _short(ast.unparse(node))
        kw = {k.arg: k.value for k in node.keywords}
        if None in kw:  # **kwargs
            self.out.append(Load(line, shown, "file", None, reason=f"{name} with arguments computed when the script runs"))
            return
        cwd: str | None = ""
        if "cwd" in kw:
            cwd = self.eval(kw["cwd"])
        elif self.chdir is not None:
            cwd = None
        if "env" in kw and not self.safe_env(kw["env"], line0, node):
            self.out.append(Load(line, shown, "file", None,
                                 reason=f"{name} with an environment computed when the script runs"))
        if "executable" in kw or "preexec_fn" in kw:
            self.out.append(Load(line, shown, "file", None, reason=f"{name} with executable= or preexec_fn="))
            return
        first = node.args[0] if node.args else kw.get("args") or kw.get("cmd")
        shell = name in _PY_RUNS_SHELL or (isinstance(kw.get("shell"), ast.Constant) and kw["shell"].value is True)
        if name in _PY_RUNS and first is not None:
            if name == "asyncio.create_subprocess_exec":
                elts = list(node.args)
            elif isinstance(first, (ast.List, ast.Tuple)) and not shell:
                elts = list(first.elts)
            elif not shell:
                elts = [first]
            else:
                elts = []
            if elts and not any(isinstance(e, ast.Starred) for e in elts):
                # ``sys.executable``: the interpreter running the script itself
                words = tuple(Word(_short(ast.unparse(e), 200), v, () if v is not None else (
                    "a word computed when the script runs",)) for e in elts
                    for v in ["python3" if self.dotted(e) == "sys.executable" else self.eval(e)])
                self.out.append(Load(line, shown, "argv", cwd, words=words))
                return
        if shell and first is not None and name not in ("asyncio.create_subprocess_exec",):
            text = self.eval(first) if isinstance(first, (ast.Constant, ast.JoinedStr, ast.BinOp)) else None
            if text is not None:
                self.out.append(Load(line, shown, "shell", cwd, words=(Word(shown, text),)))
                return
        self.out.append(Load(line, shown, "file", None, reason=f"{name} runs a program decided when the script runs"))

    def safe_env(self, env: ast.AST, line0: int, node: ast.AST) -> bool:
        """``env=`` of a program the script starts: a dict literal (its keys become
        ``setenv`` loads; ``**os.environ`` allowed) or ``os.environ``/``os.environ.copy()``."""
        if self.dotted(env) == "os.environ" or (isinstance(env, ast.Call) and self.dotted(env.func) == "os.environ.copy"):
            return True
        if not isinstance(env, ast.Dict):
            return False
        for k, v in zip(env.keys, env.values):
            if k is None:
                if self.dotted(v) != "os.environ":
                    return False
            else:
                self.setenv(node, k, line0)
        return True

    def folders(self, node: ast.AST, value: ast.AST | None, what: str) -> None:
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            for side in (value.left, value.right):
                if self.dotted(side) != "sys.path":
                    self.folders(node, side, what)
            return
        if isinstance(value, (ast.List, ast.Tuple)):
            for e in value.elts:
                self.add(node, "pyfolder", e, what)
            return
        self.add(node, "pyfolder", None, what)

    def code(self, node: ast.Call, name: str, text: str, line0: int) -> None:
        """``exec``/``eval``/``compile``: literal code is scanned here; the text of a file
        (``open(P).read()``, ``Path(P).read_text()``) is a load of P; anything else is computed."""
        arg = node.args[0] if node.args else None
        if isinstance(arg, ast.Call) and self.dotted(arg.func) == "compile":
            return  # the inner compile() is visited on its own
        if isinstance(arg, ast.Constant) and isinstance(arg.value, (str, bytes)):
            if name == "eval" or isinstance(arg.value, bytes):
                return
            inner = _Python(self.script)
            inner.chdir = self.chdir
            inner.aliases, inner.values = dict(self.aliases), dict(self.values)
            self.out.extend(inner.scan(arg.value, line0 + node.lineno - 1))
            return
        src = None
        if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute):
            meth, obj = arg.func.attr, arg.func.value
            if meth in ("read", "read_text", "read_bytes") and not arg.args:
                if isinstance(obj, ast.Call) and self.dotted(obj.func) in ("open", "io.open", "codecs.open",
                                                                            "builtins.open") and obj.args:
                    src = obj.args[0]
                elif meth in ("read_text", "read_bytes"):
                    src = obj
        if src is not None:
            self.add(node, "file", src, f"{name}(…read())")
            return
        self.out.append(Load(node.lineno + line0, _short(ast.unparse(node)), "file", None,
                             reason=f"{name} of code computed when the script runs"))


def _module_name(text: str) -> bool:
    return bool(text) and all(p.isidentifier() for p in text.split("."))


# -- Python: what a script can reach, and the files it names --------------------------------

#: standard-library modules that can neither run code given as text nor start programs:
#: importing any other standard-library module (``timeit``, ``code``, ``doctest``,
#: ``cProfile``, ``trace``, ``pydoc``, ``unittest``, ``logging.config``, ``types``,
#: ``asyncio`` …) makes the script unverified (:func:`python_reach`); the modules wskit
#: models precisely (:data:`_PY_MODELED`) keep their own rules
_PY_INERT = frozenset("""
    __future__ abc argparse array ast atexit base64 binascii bisect bz2 calendar cmath codecs colorsys
    contextvars copy copyreg csv dataclasses datetime decimal difflib enum errno faulthandler fcntl
    filecmp fnmatch fractions functools getopt getpass glob graphlib grp gzip hashlib heapq hmac
    io ipaddress itertools keyword locale logging logging.handlers lzma math mimetypes numbers operator
    optparse pathlib pprint pwd queue random re reprlib resource secrets select selectors shlex shutil
    signal socket ssl stat statistics string stringprep struct sysconfig tarfile tempfile termios
    textwrap threading time tomllib tracemalloc tty typing unicodedata uuid warnings weakref zipfile
    zlib zoneinfo http http.client http.cookies http.cookiejar os.path posixpath ntpath genericpath
""".split())
#: standard-library packages every submodule of which is inert
_PY_INERT_PACKAGES = frozenset({"collections", "json", "email", "html", "xml", "urllib", "encodings",
                                "zoneinfo", "concurrent"})
#: modules whose code-running functions the scanner follows one by one (``os.system``,
#: ``subprocess.run``, ``importlib.import_module``, ``runpy``, ``pickle.load`` …)
_PY_MODELED = frozenset({"sys", "os", "posix", "subprocess", "_posixsubprocess", "importlib", "runpy", "builtins",
                         "multiprocessing", "ctypes", "_ctypes", "pickle", "_pickle", "marshal", "zipimport", "site",
                         "pty", "imp", "shelve", "contextlib"})
#: built-in functions that run code, reach any global or module by a name computed at run time
_PY_REACH_NAMES = frozenset({"exec", "eval", "compile", "__import__", "getattr", "setattr", "delattr", "globals",
                             "locals", "vars", "breakpoint"})
#: special attributes that read as data; any other ``__x__`` attribute (``__globals__``,
#: ``__subclasses__``, ``__dict__``, ``__code__``, ``__builtins__`` …) reaches code
_PY_DATA_DUNDERS = frozenset({
    "__name__", "__qualname__", "__doc__", "__file__", "__class__", "__module__", "__version__", "__init__",
    "__all__", "__enter__", "__exit__", "__aenter__", "__aexit__", "__iter__", "__next__", "__len__", "__str__",
    "__repr__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__annotations__",
    "__slots__", "__members__", "__contains__", "__getitem__", "__setitem__", "__delitem__", "__new__",
    "__post_init__", "__bool__", "__path__", "__main__"})
#: attributes of frames, generators and tracebacks that hold a frame's globals or builtins
_PY_FRAME_ATTRS = frozenset({"f_globals", "f_builtins", "f_locals", "f_back", "tb_frame", "gi_frame", "cr_frame",
                             "ag_frame", "gi_code", "cr_code", "f_code"})
_SUBMODULES: dict[str, frozenset[str]] = {}


def _stdlib_submodules(package: str) -> frozenset[str]:
    """The submodule names of standard-library package ``package`` (found on disk, never
    imported beyond the package's parents); empty for a plain module."""
    if package not in _SUBMODULES:
        import importlib.util
        import pkgutil
        found: frozenset[str] = frozenset()
        try:
            spec = importlib.util.find_spec(package)
            if spec is not None and spec.submodule_search_locations:
                found = frozenset(m.name for m in pkgutil.iter_modules(list(spec.submodule_search_locations)))
        except (ImportError, ValueError, AttributeError):
            pass
        _SUBMODULES[package] = found
    return _SUBMODULES[package]


def _py_stdlib_reach(module: str) -> bool:
    """True when ``module`` (dotted) is a standard-library module that may run code given
    as text or start programs and that the scanner does not model: neither inert
    (:data:`_PY_INERT`, :data:`_PY_INERT_PACKAGES`) nor modeled (:data:`_PY_MODELED`)."""
    import sys
    top = module.split(".")[0]
    if top not in sys.stdlib_module_names or top in _PY_MODELED or top in _PY_INERT_PACKAGES:
        return False
    return module not in _PY_INERT


def python_reach(py: _Python, tree: ast.AST, line0: int) -> list[Load]:
    """The code-running capability a Python script can reach and the scanner does not
    follow, decided by what is reachable, not by a list of dangerous calls:

    - an import of a standard-library module that is neither inert nor modeled
      (:func:`_py_stdlib_reach`), by ``import``, ``from … import`` or an attribute path
      (``logging.config.fileConfig`` after ``import logging``);
    - ``exec``/``eval``/``compile``/``__import__``/``getattr``/``setattr``/``delattr``/
      ``globals``/``locals``/``vars``/``breakpoint`` used other than as a call the scanner
      resolves (``run = exec``; ``getattr(os, computed)``; ``getattr(x, name)`` with a name
      computed at run time or naming a special attribute; ``globals()``; ``vars()`` of a
      module);
    - ``__builtins__``, ``__loader__``, ``__spec__``; a special attribute that is not data
      (``__globals__``, ``__subclasses__``, ``__dict__``); a frame's globals
      (``f_globals``, ``tb_frame``); a module taken out of ``sys.modules``.

    Each is a computed ``file`` load: the caller names it unverified."""
    out: list[Load] = []
    seen: set[tuple[int, str]] = set()
    parents: dict[int, ast.AST] = {}
    modules: set[str] = set()
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
        if isinstance(node, ast.Import):
            modules.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            modules.update(a.asname or a.name for a in node.names)

    def flag(node: ast.AST, word: str, reason: str) -> None:
        line = line0 + getattr(node, "lineno", 1)
        if (line, word) not in seen:
            seen.add((line, word))
            out.append(Load(line, _short(word), "file", None, reason=reason))

    def reach(node: ast.AST, module: str) -> None:
        flag(node, module, f"{module} is a standard-library module that can run code given as text or start "
                           "programs, and wskit does not follow what it runs")

    def name_of(node: ast.AST) -> str:
        d = py.dotted(node) or ""
        for prefix in ("builtins.", "__builtins__."):
            if d.startswith(prefix):
                return d[len(prefix):]
        return d

    def is_module(node: ast.AST) -> bool:
        d = py.dotted(node)
        return d is not None and (d.split(".")[0] in modules or d.split(".")[0] in _PY_MODELED) \
            or (isinstance(node, ast.Call) and name_of(node.func) in ("__import__", "importlib.import_module"))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if _py_stdlib_reach(a.name):
                    reach(node, a.name)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if _py_stdlib_reach(node.module):
                reach(node, node.module)
            for a in node.names:
                full = f"{node.module}.{a.name}"
                if a.name in _stdlib_submodules(node.module) and _py_stdlib_reach(full):
                    reach(node, full)
        elif isinstance(node, ast.Attribute):
            attr = node.attr
            if attr.startswith("__") and attr.endswith("__") and attr not in _PY_DATA_DUNDERS:
                flag(node, ast.unparse(node), f"the special attribute {attr} reaches code or globals "
                                              "(functions, modules, builtins) wskit does not follow")
            elif attr in _PY_FRAME_ATTRS:
                flag(node, ast.unparse(node), f"{attr} reaches a frame's globals or builtins; what it then "
                                              "runs is not followed")
            parent = parents.get(id(node))
            if isinstance(parent, ast.Attribute):
                continue  # judged at the longer name
            d = py.dotted(node) or ""
            parts = d.split(".")
            for k in range(2, len(parts)):
                pkg, sub = ".".join(parts[:k - 1]), parts[k - 1]
                if sub in _stdlib_submodules(pkg) and _py_stdlib_reach(f"{pkg}.{sub}"):
                    reach(node, f"{pkg}.{sub}")
                    break
        elif isinstance(node, ast.Subscript) and py.dotted(node.value) == "sys.modules" \
                and isinstance(node.ctx, ast.Load):
            flag(node, ast.unparse(node), "a module taken out of sys.modules: what its functions run is not "
                                          "followed")
        if not isinstance(node, (ast.Name, ast.Attribute)):
            continue
        if isinstance(node, ast.Name) and node.id in ("__builtins__", "__loader__", "__spec__"):
            flag(node, node.id, f"{node.id} reaches every built-in function or the module loader")
            continue
        d = name_of(node)
        if d not in _PY_REACH_NAMES:
            continue
        parent = parents.get(id(node))
        call = parent if isinstance(parent, ast.Call) and parent.func is node else None
        if call is None:
            flag(node, ast.unparse(node), f"{d} used other than as a direct call (an alias, an argument): the "
                                          "code it runs is not followed")
        elif d in ("globals", "locals", "breakpoint") or (d == "vars" and (not call.args or is_module(call.args[0]))):
            flag(node, ast.unparse(call), f"{d}() reaches every global of the script (modules, built-in "
                                          "functions) by a name computed at run time")
        elif d in ("getattr", "setattr", "delattr"):
            key = call.args[1] if len(call.args) > 1 else None
            literal = isinstance(key, ast.Constant) and isinstance(key.value, str)
            if not literal:
                flag(node, ast.unparse(call), f"{d} of a name computed when the script runs: what it reaches "
                                              "is not followed")
            elif (key.value.startswith("__") and key.value not in _PY_DATA_DUNDERS) \
                    or key.value in _PY_FRAME_ATTRS:  # type: ignore[union-attr]
                # a module's member by a literal name is judged as the member itself (import_state)
                flag(node, ast.unparse(call), f"{d} of a special attribute: what it reaches is not followed")
    return out


#: calls whose path argument the script writes, by position (its own state, not covered)
_PY_WRITE_CALLS = {"os.remove": (0,), "os.unlink": (0,), "os.makedirs": (0,), "os.mkdir": (0,), "os.rmdir": (0,),
                   "os.rename": (0, 1), "os.replace": (0, 1), "os.truncate": (0,), "os.utime": (0,),
                   "shutil.copy": (1,), "shutil.copy2": (1,), "shutil.copyfile": (1,), "shutil.copytree": (1,),
                   "shutil.move": (0, 1), "shutil.rmtree": (0,), "logging.FileHandler": (0,),
                   "logging.handlers.RotatingFileHandler": (0,), "logging.handlers.TimedRotatingFileHandler": (0,),
                   "logging.handlers.WatchedFileHandler": (0,), "logging.basicConfig": (), "sqlite3.connect": (0,),
                   "shelve.open": (0,), "dbm.open": (0,)}
_PY_WRITE_METHODS = frozenset({"write_text", "write_bytes", "touch", "mkdir", "unlink", "rmdir", "rename", "replace",
                               "symlink_to", "hardlink_to"})
_OPEN = frozenset({"open", "io.open", "builtins.open", "codecs.open"})


def python_paths(py: _Python, tree: ast.AST, line0: int) -> list[Load]:
    """Every path expression of a Python script whose value the path evaluator knows
    (``'tools/x.py'``, ``os.path.join(os.path.dirname(__file__), 'deny.txt')``,
    ``ROOT / 'policy'``) as a ``path`` load: the caller covers each one that names a file
    or folder of the project or plugin, whatever the script does with it (reads its
    policy, runs it through ``timeit``). The outermost known expression is taken (a
    folder built on the way is not); a path the script writes (``open(P, 'w')``,
    ``Path(P).write_text``, ``os.replace``, a log handler's file) is its own state and is
    left out."""
    writes: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = py.dotted(node.func) or ""
        attr = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        targets: list[ast.AST] = []
        if name in _OPEN or attr == "open":
            kw = {k.arg: k.value for k in node.keywords}
            if name in _OPEN:  # open(P, mode)
                target, mode = (node.args[0] if node.args else kw.get("file")), (
                    node.args[1] if len(node.args) > 1 else kw.get("mode"))
            else:  # Path(P).open(mode)
                target, mode = node.func.value, node.args[0] if node.args else kw.get("mode")  # type: ignore[attr-defined]
            if target is not None and isinstance(mode, ast.Constant) and isinstance(mode.value, str) \
                    and set(mode.value) & set("wax+"):
                targets.append(target)
        elif attr in _PY_WRITE_METHODS:
            targets.append(node.func.value)  # type: ignore[attr-defined]
            targets.extend(node.args[:1] if attr in ("rename", "replace") else [])
        elif name in _PY_WRITE_CALLS:
            targets.extend(node.args[i] for i in _PY_WRITE_CALLS[name] if i < len(node.args))
            targets.extend(k.value for k in node.keywords if k.arg in ("filename", "database"))
        for t in targets:
            v = py.eval(t)
            if v is not None:
                writes.add(os.path.normpath(v))
    out: list[Load] = []
    seen: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.expr) and not (isinstance(node, ast.Constant) and not isinstance(node.value, str)):
            v = py.eval(node)
            if v is not None:
                if v and len(v) <= 1024 and "\n" not in v and "\0" not in v and "://" not in v \
                        and os.path.normpath(v) not in writes and v not in seen:
                    seen.add(v)
                    out.append(Load(line0 + getattr(node, "lineno", 1), _short(v), "path", os.path.normpath(v)))
                return
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


# -- Node --------------------------------------------------------------------------------

_PUNCT_BEFORE_REGEX = set("(,=:[!&|?{};+-*%<>~^")
_KEYWORDS_BEFORE_REGEX = {"return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case",
                          "do", "else", "yield", "await"}
_RUNNERS_JS = {"eval", "Function", "vm.runInThisContext", "vm.runInNewContext", "vm.runInContext", "vm.Script",
               "vm.compileFunction", "vm.SourceTextModule"}


class _JsError(Exception):
    pass


class _Tok(Value):
    kind: str   # "id", "str", "tpl", "punct", "num", "regex"
    value: Any
    line: int


class _Node:
    def __init__(self, text: str, script: str) -> None:
        self.text = text
        self.script = script
        self.out: list[Load] = []
        self.requires = {"require"}
        self.path_mods = {"path"}
        self.consts: dict[str, list[list[_Tok]]] = {}
        self.values: dict[str, str] = {}

    # tokens
    def tokens(self) -> list[_Tok]:
        t, n, i, line = self.text, len(self.text), 0, 1
        out: list[_Tok] = []
        if t.startswith("#!"):
            i = t.find("\n") if "\n" in t else n
        while i < n:
            c = t[i]
            if c == "\n":
                line += 1
                i += 1
            elif c.isspace():
                i += 1
            elif t.startswith("//", i) or (t.startswith("<!--", i)):
                j = t.find("\n", i)
                i = n if j < 0 else j
            elif t.startswith("/*", i):
                j = t.find("*/", i + 2)
                if j < 0:
                    raise _JsError(f"an unterminated comment on line {line}")
                line += t.count("\n", i, j)
                i = j + 2
            elif c in "'\"":
                j, buf = i + 1, []
                while j < n and t[j] != c:
                    if t[j] == "\\" and j + 1 < n:
                        buf.append(_JS_ESCAPES.get(t[j + 1], t[j + 1]) if t[j + 1] not in "xu0123456789" else "\0")
                        line += t[j + 1] == "\n"
                        j += 2
                        continue
                    if t[j] == "\n":
                        raise _JsError(f"an unterminated string on line {line}")
                    buf.append(t[j])
                    j += 1
                if j >= n:
                    raise _JsError(f"an unterminated string on line {line}")
                out.append(_Tok("str", "".join(buf), line))
                i = j + 1
            elif c == "`":
                tok, i, line = self.template(i, line)
                out.append(tok)
            elif c.isalpha() or c in "_$" or ord(c) > 127:
                j = i + 1
                while j < n and (t[j].isalnum() or t[j] in "_$" or ord(t[j]) > 127):
                    j += 1
                out.append(_Tok("id", t[i:j], line))
                i = j
            elif c.isdigit():
                j = i + 1
                while j < n and (t[j].isalnum() or t[j] in "._"):
                    j += 1
                out.append(_Tok("num", t[i:j], line))
                i = j
            elif c == "/" and self.regex_allowed(out):
                j, cls = i + 1, False
                while j < n:
                    if t[j] == "\\":
                        j += 2
                        continue
                    if t[j] == "\n":
                        raise _JsError(f"an unterminated regular expression on line {line}")
                    if t[j] == "[":
                        cls = True
                    elif t[j] == "]":
                        cls = False
                    elif t[j] == "/" and not cls:
                        break
                    j += 1
                if j >= n:
                    raise _JsError(f"an unterminated regular expression on line {line}")
                j += 1
                while j < n and t[j].isalpha():
                    j += 1
                out.append(_Tok("regex", None, line))
                i = j
            else:
                three = t[i:i + 3]
                p = three if three in ("...", "===", "!==", "**=", "<<=", ">>=", "?.(") else t[i:i + 2] if t[i:i + 2] in (
                    "=>", "==", "!=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "<=", ">=") else c
                out.append(_Tok("punct", p, line))
                i += len(p)
        return out

    def template(self, i: int, line: int) -> tuple[_Tok, int, int]:
        """A template literal from ``text[i] == '`'``: its parts, each a string or the
        token list of a ``${…}``."""
        t, n = self.text, len(self.text)
        parts: list[Any] = []
        buf: list[str] = []
        j = i + 1
        start = line
        while j < n:
            c = t[j]
            if c == "\\" and j + 1 < n:
                buf.append(_JS_ESCAPES.get(t[j + 1], t[j + 1]))
                line += t[j + 1] == "\n"
                j += 2
            elif c == "`":
                parts.append("".join(buf))
                return _Tok("tpl", parts, start), j + 1, line
            elif t.startswith("${", j):
                parts.append("".join(buf))
                buf = []
                depth, k = 1, j + 2
                while k < n and depth:
                    if t[k] in "'\"`":
                        q = t[k]
                        k += 1
                        while k < n and t[k] != q:
                            k += 2 if t[k] == "\\" else 1
                    elif t[k] == "{":
                        depth += 1
                    elif t[k] == "}":
                        depth -= 1
                    k += 1
                if depth:
                    break
                sub = _Node(t[j + 2:k - 1], self.script)
                parts.append(sub.tokens())
                line += t.count("\n", j, k)
                j = k
            else:
                line += c == "\n"
                buf.append(c)
                j += 1
        raise _JsError(f"an unterminated template on line {start}")

    @staticmethod
    def regex_allowed(out: list[_Tok]) -> bool:
        if not out:
            return True
        last = out[-1]
        if last.kind == "punct":
            return last.value not in (")", "]", "}") and (last.value[-1] in _PUNCT_BEFORE_REGEX or last.value in (
                "=>", "&&", "||", "??", "==", "===", "!=", "!==", "<=", ">="))
        return last.kind == "id" and last.value in _KEYWORDS_BEFORE_REGEX

    # scanning
    def scan(self) -> list[Load]:
        try:
            toks = self.tokens()
        except _JsError as err:
            return [Load(1, os.path.basename(self.script), "node", None, reason=f"the token scan cannot read it: {err}")]
        self.bindings(toks)
        # the module API's register() (loader hooks) may be imported by name
        module_api = any(t.kind == "str" and t.value in ("module", "node:module") for t in toks)
        for i, tok in enumerate(toks):
            self.at(toks, i, tok)
            self.loader_use(toks, i, tok)
            if tok.kind == "str" and tok.value in ("child_process", "node:child_process"):
                self.out.append(Load(tok.line, _short(f"'{tok.value}'"), "node", None,
                                     reason="starts programs through child_process; what they run is not followed"))
            elif tok.kind == "id" and tok.value == "Worker" and i and toks[i - 1].value == "new" \
                    and i + 1 < len(toks) and toks[i + 1].value == "(":
                self.worker(toks, i + 1, tok.line)
            elif tok.kind == "id" and i + 1 < len(toks) and toks[i + 1].value == "(" and (
                    (i >= 2 and toks[i - 1].value in (".", "?.") and (f"{toks[i - 2].value}.{tok.value}" in _JS_CODE_MEMBERS
                                                                      or tok.value in ("_load", "_compile")))
                    or (tok.value == "register" and module_api)):  # an alias of the module API too: fail closed
                self.out.append(Load(tok.line, f"{tok.value}(…)", "node", None,
                                     reason=f"{tok.value} loads code wskit does not follow"))
        self.out.extend(node_reach(self, toks))
        self.out.extend(node_paths(self, toks))
        return self.out

    def loader_use(self, toks: list[_Tok], i: int, tok: _Tok) -> None:
        """The whitelist of Node's loader: a ``require`` (or a name bound to
        ``createRequire``) is followed only as a direct call ``require(…)`` or
        ``require.resolve(…)``; any other use — aliased (``const r = require``),
        ``require.call``/``apply``/``bind``, ``require.cache``/``extensions``, passed as a
        value — and ``X.require(…)`` (``module.require``, ``process.mainModule.require``),
        ``module.paths``, ``module.constructor``, ``mainModule``, ``Module._*`` and
        ``globalPaths`` are unverified."""
        if tok.kind != "id":
            return
        prev = toks[i - 1].value if i else None
        nxt = toks[i + 1].value if i + 1 < len(toks) else None
        member = prev in (".", "?.")
        why = None
        if tok.value in self.requires and not member:
            if nxt == "(" or (nxt in (".", "?.") and i + 2 < len(toks) and toks[i + 2].value in ("resolve", "main")):
                return
            if nxt == "=" and tok.value != "require":
                return  # the binding itself: ``const req = createRequire(import.meta.url)``
            if nxt == ":" or (prev in ("function", "const", "let", "var") and tok.value == "require"):
                why = "require declared or used as a value"
            else:
                why = "require used other than as a direct call (an alias, .call, .cache, an argument)"
        elif member and tok.value == "require":
            why = "a require reached through another object (module.require, mainModule.require)"
        elif member and i >= 2 and toks[i - 2].value in ("module", "Module") and (
                tok.value in ("paths", "constructor", "globalPaths", "children", "parent")
                or tok.value.startswith("_")):
            why = f"module.{tok.value} changes what require loads"
        elif tok.value in ("mainModule", "globalPaths"):
            why = f"{tok.value} reaches the module loader"
        if why is not None:
            word = f"{toks[i - 2].value}.{tok.value}" if member and i >= 2 and isinstance(toks[i - 2].value, str) \
                else tok.value
            self.out.append(Load(tok.line, _short(word), "node", None, reason=f"{why}; what it loads is not followed"))

    def worker(self, toks: list[_Tok], i: int, line: int) -> None:
        """``new Worker(S)``: runs module ``S``, a relative string resolved against the
        working folder (not the script's); a URL from ``import.meta.url`` as for ``import()``."""
        first, count = self.args(toks, i)
        v = self.value(first) if first else None
        if count > 1:  # options: execArgv (--require …), env (NODE_OPTIONS), eval: true
            self.out.append(Load(line, "new Worker(…, options)", "node", None,
                                 reason="Worker options (execArgv, env, eval) are not followed"))
        if v is None:
            self.out.append(Load(line, "new Worker(…)", "node", None, reason="a module path computed when the script runs"))
        elif v.startswith("file://") or os.path.isabs(v):
            self.specifier(v, line, f"new Worker({v!r})")
        else:
            self.out.append(Load(line, _short(f"new Worker({v!r})"), "node", os.path.normpath(v)))

    def bindings(self, toks: list[_Tok]) -> None:
        """``const NAME = expr`` / ``NAME = expr``: every assignment of each name, and the
        names bound to ``createRequire(…)`` or ``require('path')``."""
        for i, tok in enumerate(toks):
            if tok.kind == "id" and i + 1 < len(toks) and toks[i + 1].value == "=" and toks[i + 1].kind == "punct" \
                    and not (i > 0 and toks[i - 1].value in (".", "?.")):
                expr = self.expression_tokens(toks, i + 2)
                self.consts.setdefault(tok.value, []).append(expr)
                ids = [x.value for x in expr if x.kind == "id"]
                if "createRequire" in ids:
                    self.requires.add(tok.value)
                if ids[:1] == ["require"] and len(expr) == 4 and expr[2].kind == "str" \
                        and expr[2].value in ("path", "node:path", "path/posix", "node:path/posix"):
                    self.path_mods.add(tok.value)
            elif tok.kind == "id" and i + 1 < len(toks) and toks[i + 1].kind == "punct" \
                    and toks[i + 1].value in ("+=", "-=", "++", "--") or (tok.kind == "punct" and tok.value in ("++", "--")
                                                                          and i + 1 < len(toks) and toks[i + 1].kind == "id"):
                name = tok.value if tok.kind == "id" else toks[i + 1].value
                self.consts.setdefault(name, []).extend([[], []])
        _bind_once(self.consts, self.values, self.value)

    @staticmethod
    def expression_tokens(toks: list[_Tok], i: int) -> list[_Tok]:
        """The tokens of one expression from ``i`` to a ``;``, ``,`` or newline-ended
        statement at depth 0."""
        out: list[_Tok] = []
        depth = 0
        while i < len(toks):
            t = toks[i]
            if t.kind == "punct":
                if t.value in ("(", "[", "{"):
                    depth += 1
                elif t.value in (")", "]", "}"):
                    if depth == 0:
                        break
                    depth -= 1
                elif t.value in (";", ",") and depth == 0:
                    break
            elif depth == 0 and out and t.line != out[-1].line and t.kind == "id" \
                    and (out[-1].kind != "punct" or out[-1].value in (")", "]")):
                break  # a new statement on the next line (no semicolon)
            out.append(t)
            i += 1
        return out

    def args(self, toks: list[_Tok], i: int) -> tuple[list[_Tok], int]:
        """The tokens of the first argument of a call whose ``(`` is ``toks[i]``, and the
        number of arguments."""
        depth, j, first, count = 0, i, [], 1
        while j < len(toks):
            t = toks[j]
            if t.kind == "punct" and t.value in ("(", "[", "{"):
                depth += 1
                if depth == 1:
                    j += 1
                    continue
            elif t.kind == "punct" and t.value in (")", "]", "}"):
                depth -= 1
                if depth == 0:
                    break
            elif t.kind == "punct" and t.value == "," and depth == 1:
                count += 1
            if depth >= 1 and count == 1:
                first.append(t)
            j += 1
        return first, count

    def value(self, expr: list[_Tok]) -> str | None:
        """The string an expression's tokens evaluate to, or None (see the module doc)."""
        parts: list[str] = []
        cur: list[_Tok] = []
        depth = 0
        for t in expr + [_Tok("punct", "+", 0)]:
            if t.kind == "punct" and t.value in ("(", "["):
                depth += 1
            elif t.kind == "punct" and t.value in (")", "]"):
                depth -= 1
            if t.kind == "punct" and t.value == "+" and depth == 0:
                v = self.term(cur)
                if v is None:
                    return None
                parts.append(v)
                cur = []
            else:
                cur.append(t)
        return "".join(parts) if parts else None

    def term(self, toks: list[_Tok]) -> str | None:
        if not toks:
            return None
        vals = [t.value for t in toks]
        if len(toks) == 1:
            t = toks[0]
            if t.kind == "str":
                return t.value
            if t.kind == "tpl":
                out = []
                for p in t.value:
                    v = p if isinstance(p, str) else self.value(p)
                    if v is None:
                        return None
                    out.append(v)
                return "".join(out)
            if t.kind == "id":
                if t.value == "__dirname":
                    return os.path.dirname(self.script)
                if t.value == "__filename":
                    return self.script
                return self.values.get(t.value)
            return None
        if vals[0] == "(" and vals[-1] == ")":
            return self.value(toks[1:-1])
        if vals[:4] == ["import", ".", "meta", "."] and len(vals) == 5:
            return {"dirname": os.path.dirname(self.script), "filename": self.script,
                    "url": "file://" + urllib.parse.quote(self.script)}.get(vals[4])
        if vals[0] == "new" and len(vals) > 3 and vals[1] == "URL" and vals[2] == "(" and vals[-1] == ")":
            a, b = self.call_args(toks[2:])
            if a is None or b is None or not b.startswith("file://"):
                return None
            return urllib.parse.urljoin(b, urllib.parse.quote(a))
        if vals[-1] != ")":
            if vals[-2:] in (["." , "pathname"], [".", "href"]):
                return self.term(toks[:-2])
            return None
        open_at = vals.index("(")
        callee = ".".join(str(v) for v in vals[:open_at] if v != ".")
        args = self.all_args(toks[open_at:])
        if args is None:
            return None
        mod, _, fn = callee.rpartition(".")
        if callee in ("fileURLToPath", "url.fileURLToPath") and len(args) == 1:
            return urllib.parse.unquote(args[0][len("file://"):]) if args[0].startswith("file://") else None
        if callee == "String" and len(args) == 1:
            return args[0]
        if mod in self.path_mods or (not mod and fn in ("join", "resolve", "dirname", "normalize")):
            if fn == "join" and args:
                return os.path.normpath(os.path.join(*args))
            if fn == "resolve" and args:
                # node resolves a relative result against the working folder, not the script's
                got = os.path.normpath(os.path.join(*args))
                return got if os.path.isabs(got) else None
            if fn == "dirname" and len(args) == 1:
                return os.path.dirname(args[0])
            if fn == "normalize" and len(args) == 1:
                return os.path.normpath(args[0])
        return None

    def call_args(self, toks: list[_Tok]) -> tuple[str | None, str | None]:
        got = self.all_args(toks)
        if got is None or len(got) != 2:
            return None, None
        return got[0], got[1]

    def all_args(self, toks: list[_Tok]) -> list[str] | None:
        """The values of the arguments of ``( … )`` (``toks`` from the ``(`` to the ``)``)."""
        if not toks or toks[0].value != "(" or toks[-1].value != ")":
            return None
        inner = toks[1:-1]
        out, cur, depth = [], [], 0
        for t in inner + [_Tok("punct", ",", 0)]:
            if t.kind == "punct" and t.value in ("(", "[", "{"):
                depth += 1
            elif t.kind == "punct" and t.value in (")", "]", "}"):
                depth -= 1
            if t.kind == "punct" and t.value == "," and depth == 0:
                if cur:
                    v = self.value(cur)
                    if v is None:
                        return None
                    out.append(v)
                cur = []
            else:
                cur.append(t)
        return out

    def at(self, toks: list[_Tok], i: int, tok: _Tok) -> None:
        prev = toks[i - 1] if i else None
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        member = prev is not None and prev.kind == "punct" and prev.value in (".", "?.")
        if tok.kind == "id" and tok.value in self.requires and nxt is not None and nxt.value == "(" \
                and (not member or toks[i - 2].value == "module") and not (prev is not None and prev.value == "function"):
            self.load(toks, i + 1, tok.line, f"{tok.value}(…)")
        elif tok.kind == "id" and tok.value == "import" and not member and nxt is not None:
            if nxt.value == "(":
                self.load(toks, i + 1, tok.line, "import(…)")
            elif nxt.kind == "str":
                self.specifier(nxt.value, tok.line, f"import '{nxt.value}'")
        elif tok.kind == "id" and tok.value == "from" and nxt is not None and nxt.kind == "str" and not member:
            self.specifier(nxt.value, tok.line, f"from '{nxt.value}'")
        elif tok.kind == "id" and nxt is not None and nxt.value == "(" and not member:
            name = tok.value
            if prev is not None and prev.value == "new":
                name = tok.value
            if name in ("eval", "Function") or (i >= 2 and toks[i - 2].kind == "id" and prev and prev.value == "."):
                self.runner(toks, i, name)
        elif tok.kind == "id" and member and nxt is not None and nxt.value == "(" and i >= 2 \
                and f"{toks[i - 2].value}.{tok.value}" in _RUNNERS_JS:
            self.runner(toks, i, f"{toks[i - 2].value}.{tok.value}")

    def runner(self, toks: list[_Tok], i: int, name: str) -> None:
        if name not in _RUNNERS_JS:
            return
        first, _ = self.args(toks, i + 1)
        if name == "Function":  # the body is the last argument: every one must be a string
            if self.all_strings(toks, i + 1):
                return
        elif len(first) == 1 and first[0].kind == "str":
            return
        self.out.append(Load(toks[i].line, f"{name}(…)", "node", None,
                             reason=f"{name} of code computed when the script runs"))

    @staticmethod
    def all_strings(toks: list[_Tok], i: int) -> bool:
        """True when every argument of the call whose ``(`` is ``toks[i]`` is a string literal."""
        depth, j = 0, i
        while j < len(toks):
            t = toks[j]
            if t.kind == "punct" and t.value in ("(", "[", "{"):
                depth += 1
                if depth > 1:
                    return False
            elif t.kind == "punct" and t.value in (")", "]", "}"):
                return depth == 1 and t.value == ")"
            elif not (t.kind == "str" or (t.kind == "punct" and t.value == ",")):
                return False
            j += 1
        return False

    def load(self, toks: list[_Tok], i: int, line: int, word: str) -> None:
        first, _ = self.args(toks, i)
        v = self.value(first) if first else None
        if v is None:
            shown = _short(" ".join(str(t.value) if t.kind != "tpl" else "`…`" for t in first) or "…", 60)
            self.out.append(Load(line, word.replace("…", shown), "node", None,
                                 reason="a module path computed when the script runs"))
            return
        self.specifier(v, line, word.replace("…", repr(v)))

    def specifier(self, spec: str, line: int, word: str) -> None:
        if spec.startswith("file://"):
            spec = urllib.parse.unquote(spec[len("file://"):])
        if spec.startswith(("./", "../")) or spec in (".", ".."):
            self.out.append(Load(line, _short(word), "node", os.path.normpath(os.path.join(os.path.dirname(self.script),
                                                                                          spec))))
        elif os.path.isabs(spec):
            self.out.append(Load(line, _short(word), "node", os.path.normpath(spec)))
        elif spec and not spec.startswith("node:"):
            # a bare specifier: node_modules (covered by the caller) or a builtin, unless it
            # names the script's own package (a self-reference) or is ``#name`` (the
            # package.json imports map): both followed by the caller
            self.out.append(Load(line, _short(word), "nodebare", None, module=spec))


# -- Node: what a script can reach, and the files it names -----------------------------------

#: Node's built-in modules (``require('module').builtinModules``, without the internals)
_NODE_BUILTINS = frozenset("""
    assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel dns domain
    events fs http http2 https inspector module net os path perf_hooks process punycode querystring readline repl
    stream string_decoder sys timers tls trace_events tty url util v8 vm wasi worker_threads zlib test sqlite sea
""".split())
#: built-in modules that can neither run code given as text nor start programs; importing
#: any other (``vm``, ``inspector``, ``repl``, ``cluster``, ``wasi``, ``v8``, ``test``,
#: ``sqlite`` …) is unverified unless wskit models it (:data:`_NODE_MODELED`)
_NODE_INERT = frozenset("""
    assert assert/strict async_hooks buffer console constants crypto dgram diagnostics_channel dns dns/promises
    events fs fs/promises http http2 https net os path path/posix path/win32 perf_hooks punycode querystring
    readline readline/promises stream stream/promises stream/web stream/consumers string_decoder timers
    timers/promises tls tty url util util/types zlib
""".split())
#: built-in modules followed by their own rules (``child_process`` is unverified as a
#: whole; ``new Worker``, the module API's ``register``/``_load`` one by one)
_NODE_MODELED = frozenset({"child_process", "worker_threads", "module"})
#: objects through which every module, global or the loader is reached by a name
_JS_REACH_OBJECTS = frozenset({"process", "globalThis", "global", "require", "module", "Reflect", "self", "window"})
#: members that hand out built-in modules or native bindings by a name
_JS_MODULE_GETTERS = frozenset({"getBuiltinModule", "binding", "_linkedBinding"})


def node_reach(node: _Node, toks: list[_Tok]) -> list[Load]:
    """The code-running capability a Node script can reach and the scanner does not
    follow, decided by what is reachable: an import of a built-in module that is neither
    inert nor modeled; ``process.getBuiltinModule``/``binding``/``_linkedBinding``; any
    ``constructor`` (a function's constructor is ``Function``); a computed member of
    ``process``, ``globalThis``, ``global``, ``require``, ``module`` or ``Reflect``, or one
    of them passed on as a value; ``eval``/``Function`` used other than as a direct call.
    Each is a computed ``node`` load: the caller names it unverified."""
    out: list[Load] = []
    seen: set[tuple[int, str]] = set()

    def flag(tok: _Tok, word: str, reason: str) -> None:
        if (tok.line, word) not in seen:
            seen.add((tok.line, word))
            out.append(Load(tok.line, _short(word), "node", None, reason=reason))

    for i, tok in enumerate(toks):
        prev = toks[i - 1] if i else None
        prev2 = toks[i - 2] if i >= 2 else None
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        member = prev is not None and prev.kind == "punct" and prev.value in (".", "?.")
        if tok.kind == "str":
            spec = tok.value
            imported = prev is not None and ((prev.kind == "id" and prev.value in ("from", "import")) or (
                prev.value == "(" and prev2 is not None and prev2.kind == "id"
                and (prev2.value in node.requires or prev2.value == "import")))
            name = spec[5:] if spec.startswith("node:") else spec
            if imported and (spec.startswith("node:") or name.split("/")[0] in _NODE_BUILTINS) \
                    and name not in _NODE_INERT and name.split("/")[0] not in _NODE_MODELED:
                flag(tok, f"'{spec}'", f"the built-in module {name} can run code given as text or start programs; "
                                       "what it runs is not followed")
            elif spec == "constructor":
                flag(tok, "['constructor']", "a constructor reached by name (a function's is Function): the code it "
                                             "makes is not followed")
            continue
        if tok.kind != "id":
            continue
        if member and tok.value == "constructor":
            flag(tok, ".constructor", "a constructor (a function's is Function, which runs text as code): the code "
                                      "it makes is not followed")
        elif member and tok.value in _JS_MODULE_GETTERS:
            flag(tok, f".{tok.value}", f"{tok.value} hands out built-in modules or native bindings by name; what "
                                       "they run is not followed")
        elif member and tok.value in ("eval", "Function"):
            flag(tok, f".{tok.value}", f"{tok.value} reached through an object: the code it runs is not followed")
        elif not member and tok.value in ("eval", "Function") and nxt is not None and nxt.value not in ("(", ".", ":") \
                and not (prev is not None and prev.value in ("function", "typeof")):
            flag(tok, tok.value, f"{tok.value} used other than as a direct call (an alias, an argument): the code "
                                 "it runs is not followed")
        elif not member and tok.value in _JS_REACH_OBJECTS and tok.value != "require" and nxt is not None \
                and nxt.value != ":" and not (prev is not None and prev.value in ("typeof", "function", "const", "let",
                                                                                     "var")):
            if nxt.value == "[":
                flag(tok, f"{tok.value}[…]", f"a member of {tok.value} computed when the script runs: the module, "
                                             "global or loader it reaches is not followed")
            elif nxt.value not in (".", "?.") and tok.value in ("process", "globalThis", "global", "Reflect"):
                flag(tok, tok.value, f"{tok.value} passed on as a value: what is reached through it is not "
                                     "followed")
    return out


#: Node calls whose path arguments the script writes (its own state, not covered)
_JS_WRITES = frozenset({"writeFileSync", "writeFile", "appendFileSync", "appendFile", "mkdirSync", "mkdir",
                        "rmSync", "rm", "unlinkSync", "unlink", "rmdirSync", "rmdir", "createWriteStream",
                        "renameSync", "rename", "copyFileSync", "copyFile", "cpSync", "cp", "truncateSync",
                        "truncate", "openSync", "utimesSync", "symlinkSync", "linkSync"})


def node_paths(node: _Node, toks: list[_Tok]) -> list[Load]:
    """Every path expression of a Node script whose value the evaluator knows (a call's
    argument, a ``const``'s value: ``path.join(__dirname, 'deny.txt')``) as a ``path``
    load, the caller covers each that names a file or folder of the project or a plugin;
    the arguments of calls that write (``writeFileSync``, ``appendFile``, ``mkdirSync`` …)
    are left out."""
    values: list[tuple[int, str]] = []
    writes: set[str] = set()
    for i, tok in enumerate(toks):
        if tok.kind != "punct" or tok.value != "(" or not i:
            continue
        callee = toks[i - 1].value if toks[i - 1].kind == "id" else None
        args, cur, depth = [], [], 0
        for t in toks[i + 1:]:
            if t.kind == "punct" and t.value in ("(", "[", "{"):
                depth += 1
            elif t.kind == "punct" and t.value in (")", "]", "}"):
                if depth == 0:
                    break
                depth -= 1
            if t.kind == "punct" and t.value == "," and depth == 0:
                args.append(cur)
                cur = []
            else:
                cur.append(t)
            if len(args) > 8:
                break
        args.append(cur)
        for a in args:
            v = node.value(a) if a else None
            if v is None:
                continue
            if callee in _JS_WRITES:
                writes.add(os.path.normpath(v))
            else:
                values.append((tok.line, v))
    values.extend((1, v) for v in node.values.values())
    out: list[Load] = []
    seen: set[str] = set()
    for line, v in values:
        if v.startswith("file://"):
            v = urllib.parse.unquote(v[len("file://"):])
        if not v or len(v) > 1024 or "\n" in v or "\0" in v or "://" in v or v in seen \
                or os.path.normpath(v) in writes:
            continue
        seen.add(v)
        out.append(Load(line, _short(v), "path", os.path.normpath(v)))
    return out


#: member calls that load or run code by a path or bytes (native addons, the module
#: loader's internals, WebAssembly)
_JS_CODE_MEMBERS = frozenset({"process.dlopen", "WebAssembly.instantiate", "WebAssembly.compile",
                              "WebAssembly.instantiateStreaming", "WebAssembly.compileStreaming", "Module.runMain",
                              "module.register", "Module.register", "Module._resolveFilename"})
_JS_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "\n": ""}

