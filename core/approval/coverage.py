"""What an approval covers: the files of the project or a plugin that a command executes.

:func:`command_coverage` (a hook's shell command) and :func:`argv_coverage` (an MCP or
LSP stdio server's ``command`` + ``args``) answer a :class:`Coverage`: the files whose
bytes, executable bit and existence are in its :meth:`~Coverage.digest`, and the words it
could not follow (:class:`Unverified`, each with the reason). The rule is *fail closed*:
every word that could make the command execute project or plugin bytes is either
followed to the files it names or listed as unverified, never skipped. Nothing is run,
nothing is expanded but the variables of the mapping the caller gives that are known
(``<HOST>_PROJECT_DIR``, ``<HOST>_PLUGIN_ROOT``, ``CLAUDE_…`` too), no glob is matched
against the disk (a glob is unverified), every read is byte-bounded through
:mod:`wskit.fs`, and only files inside ``project_root`` or ``plugin_root`` count
(``/usr/bin/jq`` is not the project's).

How each spelling is treated (``docs/hooks.md``, "What an approval covers"):

- Words come from a real shell parser (:mod:`wskit.formats.shell`, ``bashlex``); where it
  refuses the command, the whole command is unverified.
- ``cd DIR`` (and ``pushd``) moves the folder later relative words are read against;
  after ``;`` or ``||`` both the old and the new folder count (``cd`` may fail), after
  ``&&`` the new one; a subshell, pipeline stage or substitution keeps its own. ``cd``
  to a folder that is not a literal (``cd $X``, ``cd -``, ``cd``) leaves relative words
  after it unverified.
- An executed file (a program named by a path, a shell, ``python``, ``node`` … script, a
  ``source``/``.``-d file, ``awk -f``/``sed -f``/``jq -f`` programs, an interpreter's
  stdin redirected from a file) is covered together with what its interpreter may load
  beside it: Python the importable entries of ``sys.path[0]`` (``*.py``, ``*.pyc``,
  extension modules, regular packages and the ``__pycache__`` bytecode of the script's
  folder, or of the working folder for ``-c``/``-m``/stdin), Node and every other
  interpreter the script's whole folder; both bounded (:data:`MAX_FOLDER_FILES`,
  :data:`MAX_FOLDER_BYTES`), past the bound the folder is unverified.
- A missing file is covered as missing: creating it changes the digest.
- A variable that is not known, a command or process substitution, a glob, brace or
  tilde expansion, ``$'…'``: unverified when the word matters (always, for a hook
  command: any such word is listed).
- ``find … -exec``/``-execdir``/``-ok``: the command it runs is followed, ``{}`` is a
  file chosen at run time (unverified where it is executed).
- A program found on ``PATH`` is the system's; one that loads code from the working
  folder's configuration (``make``, ``npm``, ``npx``, ``uv run``, ``pytest`` …) or that
  wskit does not know is unverified: its configuration is not followed. Programs that
  only read data (``cat``, ``jq``, ``grep`` …) and shell builtins are known.
- Links: a link inside the roots is followed to its target (both paths and the target's
  bytes are in the digest); one that leads outside the roots, a hard-linked file, a
  secret-looking path, a file over :data:`MAX_FILE_BYTES`: unverified.
- Output redirections (``> log``) are not covered (the hook writes them); an input
  redirection feeding an interpreter is executed and covered.
- A shell script's own commands (and the programs a Python script starts) go through
  this same dispatch (:meth:`_Collector.script_command`), named ``<script>:<line>:
  <word>`` when unverified; there a variable matters only where it is executed or
  loaded. ``$1``/``"$@"`` of a script are the words the command gives it (a wrapper's
  arguments are followed as its scripts).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from wskit import fs
from wskit.approval import loads as loads_mod
from wskit.approval.loads import _NODES, _PYTHONS, _SHELLS, _version_suffix
from wskit.formats.shell import ShellSyntaxError, Word, device_path, parse, read_word, walk_substitutions
from wskit.values import FrozenValue, Value, field

#: Largest single file whose bytes are covered, bytes (a larger one is unverified).
MAX_FILE_BYTES = 4 << 20
#: Most files covered for one folder an interpreter may load from (more: unverified).
MAX_FOLDER_FILES = 256
#: Most bytes covered for one such folder (more: unverified).
MAX_FOLDER_BYTES = 16 << 20
#: Deepest folder level walked below a covered folder.
MAX_FOLDER_DEPTH = 8
#: Deepest nesting of ``sh -c``, here-documents and wrappers followed.
MAX_NESTING = 8
#: Most working folders a command's ``cd`` may leave open at once.
MAX_CWDS = 8
#: Deepest chain of loads followed from a script (``source`` of a file that sources …).
MAX_LOAD_DEPTH = 8
#: Most scripts whose loads are read for one command.
MAX_LOADED_SCRIPTS = 64


class CoveredFile(FrozenValue):
    """One path whose state is in the digest.

    :ivar path: absolute path as the command names it (lexical).
    :ivar digest: SHA-256 hex of its bytes; None when it does not exist (its absence
        is covered: creating it changes the digest). For a folder listing (``path``
        ending in ``/``) the SHA-256 of the sorted names that matter in it.
    :ivar executable: any executable bit set (``mode & 0o111``).
    :ivar target: the absolute path a link among its components leads to, else None.
    """

    path: str
    digest: str | None
    executable: bool = False
    target: str | None = None

    def state(self) -> list[Any]:
        """The canonical form that enters :meth:`Coverage.digest`."""
        return [self.path, self.digest or "missing", self.executable, self.target]


class Unverified(FrozenValue):
    """A word wskit could not follow. :ivar word: the word as written (or a path).
    :ivar reason: why (``"variable $X"``, ``"glob pattern"``, ``"program make loads …"``)."""

    word: str
    reason: str


class Coverage(FrozenValue):
    """What an approved command executes from the project or a plugin.

    :ivar files: covered paths, sorted by path, each once.
    :ivar unverified: words not followed, in the order met, each once.
    """

    files: tuple[CoveredFile, ...] = ()
    unverified: tuple[Unverified, ...] = ()

    @property
    def complete(self) -> bool:
        """True when nothing is unverified."""
        return not self.unverified

    def digest(self) -> str:
        """``sha256:<hex>`` over every covered path's state (content digest or
        ``missing``, executable bit, link target) and the unverified words, in a
        canonical order: equal for equal coverage, whatever order it was found in."""
        data = {"files": sorted(f.state() for f in self.files),
                "unverified": sorted([u.word, u.reason] for u in self.unverified)}
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        # a path of bytes that are not UTF-8 holds surrogate escapes: hashed as they are
        return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def known_variables(env: Mapping[str, str]) -> dict[str, str]:
    """The variables of ``env`` a command's words may expand: ``*_PROJECT_DIR`` and
    ``*_PLUGIN_ROOT`` (``CLAUDE_PROJECT_DIR``, ``GEMINI_PROJECT_DIR``, ``CLAUDE_PLUGIN_ROOT``…,
    what the hook runner and the server launchers set). Every other variable is unverified."""
    return {k: v for k, v in env.items()
            if isinstance(k, str) and isinstance(v, str) and (k.endswith("_PROJECT_DIR") or k.endswith("_PLUGIN_ROOT"))}


def command_coverage(command: str, *, cwd: str, project_root: str | None, plugin_root: str | None,
                     env: Mapping[str, str]) -> Coverage:
    """The coverage of shell command ``command`` run by ``/bin/sh -c`` in ``cwd``.

    :param cwd: absolute folder the command starts in (a hook's execution root).
    :param project_root: the project (files under it count), or None.
    :param plugin_root: the plugin the command comes from (files under it count), or None.
    :param env: the variables the command will see; only :func:`known_variables` are expanded.
    Never raises on any input text; never runs anything.
    """
    c = _Collector(project_root, plugin_root, env)
    c.environment()
    c.shell_text(command, frozenset({os.path.abspath(cwd)}), 0, command)
    return c.result()


def argv_coverage(argv: Sequence[str], *, cwd: str, project_root: str | None, plugin_root: str | None,
                  env: Mapping[str, str], defined_env: Mapping[str, Any] | None = None) -> Coverage:
    """The coverage of a program started without a shell (an MCP or LSP stdio server's
    ``command`` and ``args``): each element is one word, literal but for ``$NAME`` /
    ``${NAME}`` of the known variables (hosts put in ``${VAR}`` placeholders). Any other
    ``$`` reference is unverified, except an element that is one whole variable
    (``--token ${TOKEN}``): a value, unverified only where it is executed (the program, a
    script). ``defined_env``: the definition's own ``env`` map; each loader variable it
    sets (``NODE_OPTIONS``, ``HOME``, ``GIT_CONFIG_*`` …) is unverified. Same rules as
    :func:`command_coverage` otherwise."""
    c = _Collector(project_root, plugin_root, env)
    c.environment()
    c.defined_env(defined_env or {}, frozenset({os.path.abspath(cwd)}))
    words = [c.argv_word(str(a)) for a in argv]
    if words:
        c.run(words, frozenset({os.path.abspath(cwd)}), 0, stdin=None)
    return c.result()


# -- the walk ---------------------------------------------------------------------------

Cwds = frozenset[str] | None  # None: not known (after cd to a word that is not literal)

#: programs that only read data from their arguments, and shell builtins: nothing they
#: are given is executed (``awk``, ``sed`` and ``jq`` program files are handled apart)
_DATA_PROGRAMS = frozenset("""
    [ test true false : echo printf cat tac head tail grep egrep fgrep wc sort uniq cut tr tee
    date sleep mkdir rmdir touch rm cp mv ln ls basename dirname realpath readlink base64 sha1sum sha256sum
    sha512sum md5sum shasum diff cmp stat pwd mktemp chmod chown seq yes id whoami uname hostname which type
    printenv tput xxd od nl paste comm join fold column rev fmt expand unexpand iconv file du df
    read exit return shift export unset set local declare readonly typeset wait kill getopts umask
    ulimit jq awk gawk mawk nawk sed curl wget logger notify-send
    cygpath sync truncate shuf numfmt envsubst gzip gunzip zcat bzip2 xz
""".split())
#: options of those programs that make them run a program
_EXEC_OPTIONS = {"sort": ("--compress-program",)}
#: builtins whose ``NAME=value`` operands are assignments
_DECLARING = frozenset({"export", "declare", "local", "readonly", "typeset"})
#: programs that run what their working folder's configuration says
_PROJECT_RUNNERS = {
    "make": "Makefile", "gmake": "Makefile", "just": "justfile", "task": "Taskfile.yml",
    "npm": "package.json scripts", "pnpm": "package.json scripts", "yarn": "package.json scripts",
    "bun": "package.json scripts and bunfig.toml", "npx": "node_modules/.bin or a downloaded package",
    "pnpx": "node_modules/.bin or a downloaded package", "bunx": "node_modules/.bin or a downloaded package",
    "uv": "pyproject.toml, uv.lock and the project's build backend",
    "uvx": "a downloaded tool and the working folder's configuration",
    "poetry": "pyproject.toml", "pipenv": "Pipfile", "hatch": "pyproject.toml", "pdm": "pyproject.toml",
    "tox": "tox.ini", "nox": "noxfile.py", "pytest": "conftest.py files", "cargo": "Cargo.toml and build.rs",
    "go": "go.mod and the package sources", "gradle": "build.gradle", "gradlew": "build.gradle",
    "mvn": "pom.xml", "rake": "Rakefile", "bundle": "Gemfile", "composer": "composer.json",
    "pre-commit": ".pre-commit-config.yaml", "git": "the repository's configuration (hooks, filters, fsmonitor)",
    "docker": "the Dockerfile and compose files", "eslint": "eslint.config.js", "prettier": "prettier.config.js",
}
#: include directives of program files (``awk -f``, ``jq -f``), on bytes
_PROGRAM_INCLUDES = {"awk": re.compile(rb"@\s*(?:include|load)\b"), "gawk": re.compile(rb"@\s*(?:include|load)\b"),
                     "jq": re.compile(rb"\b(?:include|import)\s*\"")}
_NEVER = re.compile(rb"(?!)")
#: a gawk ``@include "FILE"`` line with a literal name
_AWK_INCLUDE = re.compile(rb'^[ \t]*@[ \t]*include[ \t]+"([^"\\\n]+)"[ \t]*;?[ \t]*(?:#[^\n]*)?$', re.M)
_SHELL_ARG_OPTS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_PY_ARG_OPTS = frozenset({"-W", "-X", "--check-hash-based-pycs"})
_NODE_CODE_OPTS = frozenset({"-e", "--eval", "-p", "--print"})
_NODE_LOAD_OPTS = frozenset({"-r", "--require", "--import", "--loader", "--experimental-loader"})
#: node options that take no value (the rest, unless written ``--opt=value``, are unverified)
_NODE_FLAGS = frozenset({"--inspect", "--inspect-brk", "--trace-warnings", "--enable-source-maps", "--watch",
                         "--preserve-symlinks", "--abort-on-uncaught-exception", "--pending-deprecation"})
_NODE_FLAG_PREFIXES = ("--no-", "--experimental-", "--trace-", "--enable-", "--harmony")
_NODE_ARG_OPTS = frozenset({"--input-type", "--conditions", "-C", "--title", "--max-old-space-size"})
#: node options that read variables (``NODE_OPTIONS`` among them) from a file
_NODE_ENV_FILE_OPTS = frozenset({"--env-file", "--env-file-if-exists"})
#: other script interpreters: ``NAME [options] SCRIPT``; these options take inline code
_SCRIPT_INTERPRETERS = {"ruby": {"-e"}, "perl": {"-e", "-E"}, "php": {"-r"}, "lua": {"-e"},
                        "Rscript": {"-e"}, "pwsh": {"-c", "-Command"}, "fish": {"-c"}, "tclsh": set(),
                        "julia": {"-e"}, "elixir": {"-e"}}
#: wrappers that run their remaining words as a command (after their own options)
_WRAPPER_ARG_OPTS = {
    "command": frozenset(), "exec": frozenset({"-a"}), "nohup": frozenset(), "builtin": frozenset(),
    "nice": frozenset({"-n"}), "setsid": frozenset(), "stdbuf": frozenset({"-i", "-o", "-e"}),
    "chrt": frozenset(), "ionice": frozenset({"-c", "-n"}), "flock": frozenset({"-w", "-E"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
}
#: assigned variables that change what a program loads
_LOADER_VARIABLES = frozenset({
    "PATH", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE", "NODE_OPTIONS", "NODE_PATH", "BASH_ENV",
    "ENV", "LD_PRELOAD", "LD_LIBRARY_PATH", "PERL5LIB", "PERL5OPT", "RUBYLIB", "RUBYOPT", "CDPATH", "IFS",
    "GIT_DIR", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_EXEC_PATH", "SHELLOPTS", "BASHOPTS", "PS4",
    "AWKPATH", "AWKLIBPATH", "PERLLIB", "PYTHONPYCACHEPREFIX", "PYTHONNOUSERSITE", "PYTHONSAFEPATH",
    "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "NODE_EXTRA_CA_CERTS", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM",
    "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "PYTHONEXECUTABLE", "NODE_REPL_EXTERNAL_MODULE", "ZDOTDIR",
    "LD_AUDIT", "GCONV_PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "PYTHONBREAKPOINT",
    "PYTHONINSPECT", "PYTHONPLATLIBDIR", "PYTHONWARNINGS", "LOCPATH", "NLSPATH", "GIT_SSH_COMMAND", "GIT_ASKPASS",
    "SSH_ASKPASS", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "EDITOR", "VISUAL", "BROWSER", "LESSOPEN",
    "LESSCLOSE", "PROMPT_COMMAND", "MANPAGER", "CLASSPATH", "LUA_INIT", "LUA_PATH", "LUA_CPATH", "TCLLIBPATH",
    "R_PROFILE_USER", "R_LIBS_USER", "GEM_PATH", "GEM_HOME", "BUNDLE_GEMFILE", "PERL5DB", "RUSTC_WRAPPER",
    # configuration files that name libraries or commands: OpenSSL providers and engines,
    # curl's and wget's rc files, Kerberos plugins, make's flags and makefiles, glibc tunables
    "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES", "CURL_HOME", "WGETRC", "KRB5_CONFIG",
    "MAKEFLAGS", "MAKEFILES", "GLIBC_TUNABLES",
})
#: families of variables read by a loader or an interpreter's start-up (any member may
#: load code: glibc's ``LD_AUDIT``, npm's ``npm_config_*``, ``PYTHONBREAKPOINT``,
#: ``JAVA_TOOL_OPTIONS`` …), judged by prefix (see :func:`loader_variable`)
_LOADER_FAMILIES = ("LD_", "DYLD_", "GIT_CONFIG_", "npm_config_", "NPM_CONFIG_", "PYTHON", "NODE_", "JAVA_",
                    "_JAVA_", "JDK_JAVA_", "PERL", "RUBY", "GEM_", "BUNDLE_", "LUA_", "BASH_FUNC_", "GCONV_",
                    "TCL", "R_PROFILE", "R_LIBS", "CLASSPATH", "GIT_SSH", "GIT_EXTERNAL", "GIT_ASKPASS",
                    "OPENSSL_", "CURL_", "KRB5", "GLIBC_")
#: variables whose value never makes a program load code: not loaders, even in a loader
#: family, and their values are not read as paths (rule (c))
_HARMLESS_VARIABLES = frozenset({
    "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONHASHSEED",
    "PYTHONFAULTHANDLER", "PYTHONOPTIMIZE", "PYTHONDEVMODE", "PYTHONMALLOC", "PYTHONTRACEMALLOC",
    "PYTHONNODEBUGRANGES", "PYTHONINTMAXSTRDIGITS", "PYTHONVERBOSE", "PYTHONDEBUG", "PYTHONCOERCECLOCALE",
    "PYTHONLEGACYWINDOWSSTDIO", "PYTHONWARNDEFAULTENCODING", "PYTHONNOUSERSITE", "PYTHONSAFEPATH",
    "NODE_ENV", "NODE_NO_WARNINGS", "NODE_TLS_REJECT_UNAUTHORIZED", "NODE_DEBUG", "NODE_DISABLE_COLORS",
    "NODE_PENDING_DEPRECATION", "NODE_MAX_HEADER_SIZE",
    "TERM", "LANG", "LANGUAGE", "TZ", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "CI", "DEBUG", "LOG_LEVEL",
    "TMPDIR", "TMP", "TEMP", "PWD", "OLDPWD", "SHELL", "USER", "LOGNAME", "HOSTNAME", "EDITOR_NAME",
})
#: programs whose words name files they change, not files they read (rule (a) leaves them out)
_NAMES_NOT_READ = frozenset({"cd", "pushd", "popd", "touch", "mkdir", "rm", "rmdir", "truncate", "chmod", "chown",
                             "mktemp", "ln", "unset", "export", "declare", "local", "readonly", "typeset", "trap",
                             "shred", "unlink", "kill", "exit", "return", "sleep"})
#: loader variables the host's own environment holds as a matter of course: named only when
#: a definition (a hook's ``VAR=…`` prefix, a server's ``env``) sets them
_HOST_OWNED = frozenset({"PATH", "IFS", "PS4", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "PYTHONPYCACHEPREFIX",
                         "PYTHONNOUSERSITE", "PYTHONSAFEPATH", "NODE_EXTRA_CA_CERTS", "ZDOTDIR",
                         "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "PYTHONWARNINGS", "LOCPATH", "NLSPATH",
                         "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER",
                         "EDITOR", "VISUAL", "BROWSER", "LESSOPEN", "LESSCLOSE", "PROMPT_COMMAND", "MANPAGER",
                         "CLASSPATH", "LUA_INIT", "LUA_PATH", "LUA_CPATH", "TCLLIBPATH", "R_PROFILE_USER",
                         "R_LIBS_USER", "GEM_PATH", "GEM_HOME", "BUNDLE_GEMFILE", "PERL5DB", "RUSTC_WRAPPER",
                         "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES", "CURL_HOME", "WGETRC",
                         "KRB5_CONFIG", "MAKEFLAGS", "MAKEFILES", "GLIBC_TUNABLES"})


def loader_variable(name: str) -> bool:
    """True when setting variable ``name`` (to anything) changes what a program loads:
    :data:`_LOADER_VARIABLES`, and every name of a loader family (:data:`_LOADER_FAMILIES`:
    ``LD_*``, ``DYLD_*``, ``GIT_CONFIG_*``, ``npm_config_*``, ``PYTHON*``, ``NODE_*``,
    ``JAVA_*`` …) that is not on the family's harmless list (``PYTHONUNBUFFERED``,
    ``NODE_ENV`` …): a new variable of a family is a loader until it is known not to be."""
    if name in _LOADER_VARIABLES:
        return True
    return name.startswith(_LOADER_FAMILIES) and name not in _HARMLESS_VARIABLES
#: dynamic parts of a word whose command is followed on its own
_FOLLOWED = frozenset({"command substitution", "process substitution"})
#: what an argv element that is one whole unknown variable is (see ``argv_word``)
_WHOLE_VALUE = " (a whole argument: a value from the environment)"
_JS_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts")
_PY_SUFFIXES = (".py", ".pyc", ".pyw", ".so", ".pyd")


class _Collector(Value):
    __slots__ = ("roots", "known", "at", "load_depth", "sourced_names", "site_paths")  # worked out by __post_init__, and the walk's place

    project_root: str | None
    plugin_root: str | None
    env: Mapping[str, str]
    files: dict[str, CoveredFile] = field(default_factory=dict)
    unverified: dict[tuple[str, str], None] = field(default_factory=dict)
    folders_done: set[tuple[str, str]] = field(default_factory=set)
    functions: set[str] = field(default_factory=set)
    noted: set[str] = field(default_factory=set)
    scanned: set[tuple[str, str]] = field(default_factory=set)
    #: files outside the roots the hook's own commands write (cp/mv/tee destinations…)
    written: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.roots = [os.path.abspath(r) for r in (self.plugin_root, self.project_root) if r]
        self.roots.sort(key=len, reverse=True)  # a plugin inside the project counts as the plugin
        self.known = known_variables(self.env)
        #: ``<script>:<line>: `` while a command of a script is followed (prefixes its notes)
        self.at = ""
        #: how deep in scripts run or loaded by scripts the walk is
        self.load_depth = 0
        #: names assigned by every sourced shell file met so far (``"\0cd"``: one changes folder)
        self.sourced_names: set[str] = set()
        #: the site-packages folders of the project-local Python interpreter being followed
        #: (:meth:`venv_python`): on its ``sys.path`` after the script's folder
        self.site_paths: tuple[str, ...] = ()

    def result(self) -> Coverage:
        return Coverage(tuple(self.files[k] for k in sorted(self.files)),
                        tuple(Unverified(w, r) for w, r in self.unverified))

    def environment(self) -> None:
        """The given environment itself: a loader variable (``PYTHONPATH``, ``BASH_ENV``,
        ``NODE_OPTIONS`` …) or a ``PATH`` entry that is relative or inside a root makes
        programs load what the command does not name: unverified."""
        for name in sorted(_LOADER_VARIABLES - _HOST_OWNED):
            if self.env.get(name):
                self.note(f"${name}", f"the environment sets {name}, which changes what programs load")
        for entry in str(self.env.get("PATH") or "").split(os.pathsep):
            if entry and (not os.path.isabs(entry) or self.root_of(os.path.normpath(entry)) is not None):
                self.note("$PATH", f"PATH holds {entry!r}, a folder of the project or relative to the working "
                                   "folder: a bare program name may run a project file")

    def note(self, word: str, reason: str) -> None:
        """List ``word`` as unverified (once: the first reason found for it is kept); inside
        a script's command, ``word`` is named ``<script>:<line>: <word>``."""
        # a script's bytes that are not UTF-8 (surrogate escapes) are shown escaped
        word = (self.at + word).encode("utf-8", "backslashreplace").decode("utf-8")
        reason = reason.encode("utf-8", "backslashreplace").decode("utf-8")
        if word not in self.noted:
            self.noted.add(word)
            self.unverified.setdefault((word, reason), None)

    # -- words --------------------------------------------------------------------------

    def argv_word(self, text: str) -> Word:
        """An argv element: literal but for ``$`` references (see :func:`argv_coverage`)."""
        if "$" not in text:
            return Word(text, text)
        out: list[str] = []
        why: list[str] = []
        i = 0
        while i < len(text):
            j = text.find("$", i)
            if j < 0:
                out.append(text[i:])
                break
            out.append(text[i:j])
            k = j + 1
            if text.startswith("{", k):
                end = text.find("}", k)
                name = text[k + 1:end] if end > 0 else text[k + 1:]
                k = end + 1 if end > 0 else len(text)
            else:
                e = k
                while e < len(text) and (text[e].isalnum() or text[e] == "_"):
                    e += 1
                name, k = text[j + 1:e], e
            if not name:
                out.append("$")
            elif name in self.known:
                out.append(self.known[name])
            else:
                why.append(f"variable ${{{name}}}")
            i = k
        if len(why) == 1 and "".join(out) == "" and text.startswith("$"):
            # one whole variable: a value the user's environment gives (``--token ${TOKEN}``);
            # unverified only where it is executed (program, script)
            why = [why[0] + _WHOLE_VALUE]
        return Word(text, None if why else "".join(out), tuple(why))

    def word(self, node: Any, src: str) -> Word:
        raw = src[node.pos[0]:node.pos[1]]
        return read_word(raw, self.known)

    # -- shell text -------------------------------------------------------------------

    def shell_text(self, text: str, cwds: Cwds, depth: int, shown: str) -> Cwds:
        """Follow shell ``text``; ``shown`` names it in an unverified entry. Returns the
        working folders after it (for ``source``)."""
        if depth > MAX_NESTING:
            self.note(_short(shown), f"nested more than {MAX_NESTING} levels deep")
            return None
        try:
            trees = parse(text)
        except ShellSyntaxError as err:
            self.note(_short(shown), f"not followed, the whole command: {err}")
            return cwds
        try:
            for tree in trees:  # what the text writes, before anything is followed: a loop may
                self.prewrites(tree, text, cwds)  # run a file a later command of it writes
            for tree in trees:
                cwds = self.node(tree, text, cwds, depth, None)
        except RecursionError:
            self.note(_short(shown), "not followed, the whole command: it nests too deeply")
            return None
        return cwds

    def prewrites(self, node: Any, src: str, cwds: Cwds) -> None:
        """Record what every simple command under ``node`` writes (:meth:`writes`), read in
        the folders the text starts in (a later ``cd``'s folder is recorded where the walk
        meets the command)."""
        if getattr(node, "kind", None) == "command":
            words = [self.word(p, src) for p in node.parts if p.kind == "word"]
            outputs = [read_word(t, self.known) for p in node.parts if p.kind == "redirect"
                       for t in [loads_mod.output_target(p, src)] if t is not None]
            self.writes(words, cwds, outputs)
        for attr in ("parts", "list"):
            for child in getattr(node, attr, None) or []:
                if hasattr(child, "kind"):
                    self.prewrites(child, src, cwds)
        for r in getattr(node, "redirects", None) or []:
            target = loads_mod.output_target(r, src) if getattr(r, "kind", "") == "redirect" else None
            if target is not None:
                self.writes([], cwds, [read_word(target, self.known)])

    def node(self, node: Any, src: str, cwds: Cwds, depth: int, stdin: str | None) -> Cwds:
        """Follow one syntax node; returns the working folders after it. ``stdin``:
        ``"pipe"`` when the node reads a pipe."""
        kind = node.kind
        if kind == "list":
            return self.sequence(node.parts, src, cwds, depth)
        if kind == "pipeline":
            stages = [p for p in node.parts if p.kind not in ("pipe", "reservedword")]
            for i, p in enumerate(stages):
                self.node(p, src, cwds, depth, "pipe" if i else stdin)
            return cwds  # every stage runs in a subshell
        if kind == "command":
            return self.command(node, src, cwds, depth, stdin)
        if kind == "function":  # f() { …; } and function f { …; }: the body is followed here
            names = [p for p in node.parts if p.kind == "word"]
            if names:
                self.functions.add(names[0].word)
            for p in node.parts:
                if p.kind not in ("reservedword", "word"):
                    self.node(p, src, cwds, depth, None)
            return cwds
        if kind == "compound":
            for r in getattr(node, "redirects", None) or []:
                self.redirect(r, src, cwds, depth)
            items = [p for p in node.list if p.kind != "reservedword"]
            subshell = bool(node.list) and getattr(node.list[0], "word", "") == "("
            after = self.sequence(items, src, cwds, depth) if items else cwds
            return cwds if subshell else after
        if kind in ("if", "while", "until", "for"):
            inner = cwds
            for p in node.parts:
                if p.kind == "word":  # for's variable and list: words, not commands
                    w = self.word(p, src)
                    if w.value is None and any(r not in _FOLLOWED for r in w.dynamic):
                        self.note(w.raw, ", ".join(r for r in w.dynamic if r not in _FOLLOWED))
                    for sub in walk_substitutions(p):
                        self.node(sub, src, cwds, depth + 1, None)
                elif p.kind not in ("reservedword", "operator"):
                    inner = self.node(p, src, inner, depth, None)
            return _union(cwds, inner)  # the body may run or not
        if kind in ("reservedword", "operator", "pipe"):
            return cwds
        self.note(_short(src[node.pos[0]:node.pos[1]]), f"shell construct {kind!r} not followed")
        return cwds

    def sequence(self, parts: Sequence[Any], src: str, cwds: Cwds, depth: int) -> Cwds:
        """``a && b || c ; d &``: the folders each part may start in (see the module doc)."""
        chain = cwds  # every folder a part of the current and-or chain may start in
        cur = cwds
        pending: Any = None
        for p in parts:
            if p.kind == "operator":
                op = p.op
                if pending is None:
                    continue
                before, after = pending
                if op == "&&":
                    cur = after
                    chain = _union(chain, after)
                elif op == "||":
                    chain = _union(chain, after)
                    cur = chain
                elif op == "&":
                    cur = chain = before
                else:  # ; or newline
                    cur = chain = _union(chain, after)
                pending = None
                continue
            after = self.node(p, src, cur, depth, None)
            pending = (cur, after)
        if pending is not None:
            cur = _union(chain, pending[1])
        return cur

    # -- one simple command -----------------------------------------------------------

    def command(self, node: Any, src: str, cwds: Cwds, depth: int, stdin: str | None) -> Cwds:
        words: list[Word] = []
        redirects: list[Any] = []
        assigns: list[Any] = []
        for p in node.parts:
            for sub in walk_substitutions(p):  # substitutions run first, in a subshell each
                self.node(sub, src, cwds, depth + 1, None)
            if p.kind == "word":
                words.append(self.word(p, src))
            elif p.kind == "assignment":
                assigns.append(p)
            elif p.kind == "redirect":
                redirects.append(p)
        for a in assigns:
            self.assignment(self.word(a, src), cwds)
        feed = stdin
        outputs: list[Word] = []
        for r in redirects:
            got = self.redirect(r, src, cwds, depth)
            if got is not None:
                feed = got
                if got.startswith("file:"):
                    # rule (a): a file read through ``< F`` (``$(< F)``, ``exec 3< F``) is covered
                    self.named_path(got[5:], cwds, got[5:])
            target = loads_mod.output_target(r, src)
            if target is not None:
                outputs.append(read_word(target, self.known))
        self.writes(words, cwds, outputs)
        if not words:
            return cwds
        return self.run(words, cwds, depth, feed)

    def assignment(self, w: Word, cwds: Cwds = frozenset()) -> None:
        name = w.raw.split("=", 1)[0].lstrip("+")
        # a hook command lists every dynamic word; a script's value matters only where used
        if w.value is None and not self.at and any(r not in _FOLLOWED for r in w.dynamic):
            self.note(w.raw, ", ".join(r for r in w.dynamic if r not in _FOLLOWED))
        if loader_variable(name.rstrip("+")):
            self.note(w.raw, f"assigning {name} changes what programs load")
        if w.value is not None and "=" in w.value:
            self.variable_paths(name.rstrip("+"), w.value.split("=", 1)[1], cwds, w.raw)

    def defined_env(self, env: Mapping[str, Any], cwds: Cwds = frozenset()) -> None:
        """A definition's own environment (an MCP or LSP server's ``env``): every loader
        variable it sets, whatever the value (``HOME``, ``NODE_OPTIONS``, ``GIT_CONFIG_*``…),
        is unverified, as the same assignment before a hook command is; a value naming a
        path is covered (:meth:`variable_paths`)."""
        for name in sorted(str(k) for k in env):
            if loader_variable(name):
                self.note(f"env.{name}", f"the definition sets {name}, which changes what programs load")
            value = env[name]
            if isinstance(value, str):
                w = self.argv_word(value)
                if w.value is not None:
                    self.variable_paths(name, w.value, cwds, f"env.{name}")

    def variable_paths(self, name: str, value: str, cwds: Cwds, raw: str) -> None:
        """Rule (c): a variable that is not on the harmless list (:data:`_HARMLESS_VARIABLES`)
        and whose value names a path (``/…``, ``./…``, ``a/b``, each part of a ``:`` list)
        may make a program load that path, whatever wskit knows of the name: inside the
        project or a plugin the path is covered, a missing one as missing (planting it
        changes the digest); outside, a path another local user may write is unverified
        (:meth:`outside`); a relative path after a ``cd`` wskit cannot follow is unverified."""
        if name in _HARMLESS_VARIABLES or name.startswith("LC_") or not value or len(value) > 4096:
            return
        for part in value.split(os.pathsep):
            if not (part.startswith(("/", "./", "../", "~/")) or "/" in part.strip("/")) or "://" in part \
                    or any(c.isspace() for c in part):
                continue
            if part.startswith("~"):
                self.note(raw, f"{name} names a path under the home folder ({part}); not covered")
                continue
            if not os.path.isabs(part) and cwds is None:
                self.note(raw, "a relative path after cd to a folder decided at run time")
                continue
            for full in ([os.path.normpath(part)] if os.path.isabs(part) else
                         [os.path.normpath(os.path.join(c, part)) for c in sorted(cwds or ())]):
                if self.root_of(full) is None:
                    self.outside(full, raw)
                else:
                    self.named_path(full, cwds, raw, missing=True)

    def redirect(self, r: Any, src: str, cwds: Cwds, depth: int) -> str | None:
        """Note a redirection; returns what it feeds to stdin (``"file:<path>"``,
        ``"text:<script>"``) or None."""
        target = r.output if hasattr(r.output, "kind") else None
        if r.type in ("<<", "<<-", "<", "<>", "<<<"):
            feed, why = loads_mod.input_feed(r, src)
            if feed == "unknown" and r.type in ("<", "<>") and target is not None:
                w = self.word(target, src)  # a path built from known variables ($CLAUDE_PROJECT_DIR)
                if w.value is not None:
                    feed = "file:" + w.value
            if feed == "unknown":
                shown = (getattr(getattr(r, "heredoc", None), "value", "") or "") if r.type in ("<<", "<<-") else (
                    src[target.pos[0]:target.pos[1]] if target is not None else "<")
                self.note(_short(shown), why)
            elif feed is not None and feed.startswith("file:") and target is not None:
                w = self.word(target, src)  # the known variables put in
                feed = "file:" + w.value if w.value is not None else feed
            return feed
        if target is not None:
            w = self.word(target, src)
            if w.value is None:
                self.note(w.raw, ", ".join(w.dynamic))
        return None  # output: written by the command, not executed

    def run(self, words: list[Word], cwds: Cwds, depth: int, stdin: str | None) -> Cwds:
        """Follow one command's words (program first); returns the folders after it. What
        the program executes is followed first; then every word naming a file or folder of
        the project or a plugin is covered (:meth:`named_words`)."""
        after = self.dispatch(words, cwds, depth, stdin)
        if words and words[0].value is not None and depth <= MAX_NESTING:
            self.named_words(words[0].value.rstrip("/").rsplit("/", 1)[-1], words[1:], cwds)
        return after

    def dispatch(self, words: list[Word], cwds: Cwds, depth: int, stdin: str | None) -> Cwds:
        """Follow what one command executes (see :meth:`run`)."""
        if depth > MAX_NESTING:
            self.note(_short(" ".join(w.raw for w in words)), f"nested more than {MAX_NESTING} levels deep")
            return cwds
        # in a hook command a variable, glob, brace or tilde expansion is unverified
        # wherever it stands (a script's commands: where it is executed or loaded); a
        # substitution's command is followed, its output is only text here
        for w in words[1:] if not self.at else ():
            if w.value is None and any(r not in _FOLLOWED and not r.endswith(_WHOLE_VALUE) for r in w.dynamic):
                self.note(w.raw, ", ".join(r for r in w.dynamic if r not in _FOLLOWED))
        prog = words[0]
        if prog.value is None:
            self.note(prog.raw, "the program is decided when the command runs: " + ", ".join(prog.dynamic))
            return cwds
        name = prog.value
        args = words[1:]
        if "/" in name:
            pybase = name.rstrip("/").rsplit("/", 1)[-1]
            site = self.venv_python(name, cwds, prog.raw) \
                if pybase.startswith(_PYTHONS) and _version_suffix(pybase) else None
            if site is not None:  # a project-local interpreter: its venv is followed
                return self.with_site(site, lambda: self.python(args, cwds, depth, stdin), cwds)
            # a program named by its path: the file is covered when it is the project's
            # or a plugin's; what it then runs is followed by its name (``/bin/sh x.sh``,
            # ``/usr/bin/env node x.js``)
            self.execute(name, cwds, prog.raw, argv=args)
            base = name.rstrip("/").rsplit("/", 1)[-1]
            if not _known_program(base):
                if not self.inside(name, cwds):
                    self.note(prog.raw, "a program outside the project that wskit does not know: what it loads "
                                        "from the project (its configuration, its plugins) is not followed")
                return cwds
            name = base
        base = name
        if name in self.functions or name == "":
            return cwds  # the script's own function (walked where it is defined), or nothing to run
        if name in ("cd", "pushd"):
            return self.cd(args, cwds)
        if name == "popd":
            self.note(name, "popd returns to a folder chosen at run time; later relative words are not followed")
            return None
        if name in ("source", "."):
            if not args:
                return cwds
            self.script(args[0], cwds, "source")
            return None if args[0].value is None else cwds
        if name == "eval":
            if any(a.value is None for a in args):
                self.note(" ".join(a.raw for a in [prog, *args]), "eval runs text decided when the command runs: "
                          + ", ".join(r for a in args for r in a.dynamic))
                return cwds
            return self.shell_text(" ".join(a.value or "" for a in args), cwds, depth + 1, "eval")
        if name == "trap":
            if args and args[0].value is not None and not args[0].value.startswith("-"):
                self.shell_text(args[0].value, cwds, depth + 1, args[0].raw)
            return cwds
        if name == "env":
            return self.env_command(args, cwds, depth, stdin)
        if name in _WRAPPER_ARG_OPTS:
            return self.wrapper(name, args, cwds, depth, stdin)
        if name == "xargs":
            return self.xargs(args, cwds, depth)
        if name == "find":
            self.find(args, cwds, depth)
            return cwds
        if base in _SHELLS:
            self.shell(base, args, cwds, depth, stdin)
            return cwds
        if base.startswith(_PYTHONS) and _version_suffix(base):
            # a Python found on PATH (or named by a path outside the project) is the system's
            return self.with_site((), lambda: self.python(args, cwds, depth, stdin), cwds)
        if base in _NODES:
            self.node_js(base, args, cwds, stdin)
            return cwds
        if base in _SCRIPT_INTERPRETERS:
            self.interpreter(base, args, cwds, stdin)
            return cwds
        if base in ("awk", "gawk", "mawk", "nawk", "sed", "jq"):
            self.program_files(base, args, cwds)
            return cwds
        if base in _DECLARING:
            for a in args:
                if a.value is not None and "=" in a.value and not a.value.startswith("-"):
                    self.assignment(a)
            return cwds
        if base in _DATA_PROGRAMS:
            for a in args:
                if a.value is not None and a.value.startswith(_EXEC_OPTIONS.get(base, ("\0",))):
                    self.note(a.raw, f"{base} {a.value} runs a program; not followed")
            return cwds
        if base in _PROJECT_RUNNERS:
            self.note(" ".join(w.raw for w in words[:3]),
                      f"{base} runs what {_PROJECT_RUNNERS[base]} in the working folder says; not followed")
            return cwds
        self.note(name, "a program found on PATH that wskit does not know: what it loads from the project "
                        "(its configuration, its plugins) is not followed")
        return cwds

    # -- programs ----------------------------------------------------------------------

    def cd(self, args: list[Word], cwds: Cwds) -> Cwds:
        ops = [a for a in args if not (a.value or "").startswith("-") or a.value == "-"]
        if not ops:
            self.note("cd", "cd to the home folder; later relative words are not followed")
            return None
        w = ops[0]
        if w.value is None or w.value == "-" or "CDPATH" in self.env:
            self.note(w.raw, "cd to a folder decided at run time; later relative words are not followed")
            return None
        if cwds is None and not os.path.isabs(w.value):
            return None
        if os.path.isabs(w.value):
            return frozenset({os.path.normpath(w.value)})
        return frozenset(os.path.normpath(os.path.join(c, w.value)) for c in cwds or ())

    def with_site(self, site: tuple[str, ...], follow: Any, cwds: Cwds) -> Cwds:
        """Run ``follow()`` with :attr:`site_paths` set to ``site``; returns ``cwds``."""
        saved = self.site_paths
        self.site_paths = site
        try:
            follow()
        finally:
            self.site_paths = saved
        return cwds

    def venv_python(self, path: str, cwds: Cwds, raw: str) -> tuple[str, ...] | None:
        """A Python interpreter named by a path inside the project or a plugin whose folder's
        parent holds ``pyvenv.cfg`` (``.venv/bin/python``, linked to the system's or a
        ``--copies`` binary): the interpreter is covered — its bytes, or as a link its target
        path (a system interpreter outside the roots is the system's, checked as any outside
        file is) — with ``pyvenv.cfg``, and what Python runs from the venv at start-up is
        followed (:meth:`site_folder`). Returns the venv's site-packages folders (searched
        for the script's imports after its own folder), or None when ``path`` is not such an
        interpreter (it is then followed as any program)."""
        if os.path.isabs(path):
            candidates = [os.path.normpath(path)]
        elif cwds is None or "/" not in path:
            return None
        else:
            candidates = [os.path.normpath(os.path.join(c, path)) for c in sorted(cwds)]
        site: list[str] = []
        for full in candidates:
            venv = os.path.dirname(os.path.dirname(full))
            cfg = os.path.join(venv, "pyvenv.cfg")
            if self.root_of(full) is None or self.root_of(venv) is None or not os.path.isfile(cfg):
                return None
            self.cover(cfg, raw)
            self.interpreter_file(full, raw)
            try:
                libs = sorted(n for n in os.listdir(os.path.join(venv, "lib")) if n.startswith(("python", "pypy")))
            except OSError:
                libs = []
            for lib in libs:
                folder = os.path.join(venv, "lib", lib, "site-packages")
                if os.path.isdir(folder) and folder not in site:
                    site.append(folder)
        for folder in site:
            self.site_folder(folder, tuple(site), cwds, raw)
        return tuple(site)

    def interpreter_file(self, full: str, raw: str) -> None:
        """Cover a venv's interpreter: a regular file by its bytes; a link (to the system's
        Python) by where it leads, so pointing it elsewhere changes the digest, the target
        itself being checked as any file outside the roots is (:meth:`outside`)."""
        if not os.path.islink(full):
            self.cover(full, raw)
            return
        real = os.path.realpath(full)
        if self.root_of(real) is not None:
            self.cover(full, raw)
            return
        chain = []
        cur = full
        for _ in range(40):  # the link chain inside the roots, each link's text
            if not os.path.islink(cur) or self.root_of(cur) is None:
                break
            text = os.readlink(cur)
            chain.append([cur, text])
            cur = os.path.normpath(os.path.join(os.path.dirname(cur), text))
        digest = hashlib.sha256(json.dumps(chain).encode("utf-8", "surrogatepass")).hexdigest()
        self.files.setdefault(full, CoveredFile(full, digest, False, real))
        self.outside(real, raw)

    def site_folder(self, folder: str, site: tuple[str, ...], cwds: Cwds, raw: str) -> None:
        """What Python runs from a project venv's site-packages at start-up: the listing of
        its top-level names is covered (a planted ``sitecustomize.py``, ``.pth`` or module
        changes the digest), each ``.pth`` file's bytes, the ``import`` lines of each (run
        by ``site``: read as Python; the modules they import are read, what those import
        is covered and named past the load depth), and ``sitecustomize``; a
        ``.pth`` folder line inside the roots is named (its modules are not followed)."""
        if ("site", folder) in self.folders_done:
            return
        self.folders_done.add(("site", folder))
        root = self.root_of(folder)
        if root is None:
            return
        try:
            entries = fs.scan_dir(root, os.path.relpath(folder, root).replace(os.sep, "/"))
        except fs.SafeFsError as err:
            self.note(raw, f"folder {folder} is not covered: {err.code}")
            return
        names = sorted(e.name + ("/" if e.type == "dir" else "") for e in entries)
        if len(names) > MAX_FOLDER_FILES * 16:
            self.note(raw, f"{folder} holds more than {MAX_FOLDER_FILES * 16} names; not covered")
            return
        key = os.path.join(folder, "*")
        self.files[key] = CoveredFile(key, hashlib.sha256(json.dumps(names).encode("utf-8", "surrogatepass"))
                                      .hexdigest(), False, None)
        for name in names:
            if not name.endswith(".pth"):
                continue
            pth = os.path.join(folder, name)
            self.cover(pth, raw)
            data = self.script_bytes(pth)
            if data is None:
                continue
            for n, line in enumerate(data.decode("utf-8", "surrogateescape").splitlines(), 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                if line.startswith(("import ", "import\t")):
                    found = loads_mod.scan(line, "python", script=pth)
                    found = [ld.copy_with(line=n) for ld in found]
                    # the module it imports is read, what that imports only covered: a deeper
                    # chain (a whole build backend behind a shim) is named, not walked
                    self.follow(found, "python", pth, cwds, depth=MAX_LOAD_DEPTH - 1, dollar0=None, syspath=site)
                else:
                    added = os.path.normpath(os.path.join(folder, line))
                    if self.root_of(added) is not None:
                        self.note(f"{self.shown(pth)}:{n}: {line}", "a .pth file adds a folder of the project to "
                                                                    "sys.path; what is imported from it is not followed")
        self.python_module("sitecustomize", site, cwds, 0, f"{self.shown(folder)}/sitecustomize")

    def env_command(self, args: list[Word], cwds: Cwds, depth: int, stdin: str | None) -> Cwds:
        i = 0
        while i < len(args):
            v = args[i].value
            if v is None:
                self.note(args[i].raw, "env runs a command decided when the command runs: " + ", ".join(args[i].dynamic))
                return cwds
            if v in ("-u", "--unset"):
                i += 2
            elif v in ("-C", "--chdir"):
                if i + 1 < len(args):
                    cwds = self.cd([args[i + 1]], cwds)
                i += 2
            elif v.startswith("-S") or v.startswith("--split-string"):
                self.note(args[i].raw, "env -S splits a string into a command; not followed")
                return cwds
            elif v.startswith("-") and v != "-":
                i += 1
            elif "=" in v:
                self.assignment(args[i], cwds)
                i += 1
            else:
                break
        if i < len(args):
            self.run(args[i:], cwds, depth + 1, stdin)
        return cwds

    def wrapper(self, name: str, args: list[Word], cwds: Cwds, depth: int, stdin: str | None) -> Cwds:
        i = 0
        while i < len(args) and (args[i].value or "").startswith("-") and args[i].value != "-":
            v = args[i].value or ""
            if v == "--":
                i += 1
                break
            if name == "command" and v in ("-v", "-V"):
                return cwds  # a lookup, nothing runs
            i += 2 if v in _WRAPPER_ARG_OPTS[name] else 1
        if name == "timeout" and i < len(args):
            i += 1  # the duration
        if name == "flock" and i < len(args):
            i += 1  # the lock file
        if i < len(args):
            after = self.run(args[i:], cwds, depth + 1, stdin)
            return after if name in ("command", "builtin") else cwds
        return cwds

    def xargs(self, args: list[Word], cwds: Cwds, depth: int) -> Cwds:
        takes = {"-a", "-d", "-E", "-e", "-I", "-L", "-l", "-n", "-P", "-s", "--arg-file", "--delimiter",
                 "--max-args", "--max-procs", "--max-lines", "--max-chars", "--eof"}
        i = 0
        while i < len(args) and (args[i].value or "").startswith("-"):
            v = args[i].value or ""
            if v.startswith(("-I", "-i", "--replace")):
                self.note(args[i].raw, "xargs puts words read at run time into the command; not followed")
                return cwds
            i += 2 if v in takes else 1
        rest = args[i:] or [Word("echo", "echo")]
        self.run(rest + [Word("<words xargs reads>", None, ("words xargs reads at run time",))], cwds, depth + 1,
                 "pipe")
        return cwds

    def find(self, args: list[Word], cwds: Cwds, depth: int) -> None:
        i = 0
        while i < len(args):
            v = args[i].value
            if v in ("-exec", "-execdir", "-ok", "-okdir"):
                j = i + 1
                while j < len(args) and args[j].value not in (";", "+"):
                    j += 1
                inner = [Word(a.raw, None, ("a file find chooses when the command runs ({})",))
                         if a.value is not None and "{}" in a.value else a for a in args[i + 1:j]]
                if inner:
                    self.run(inner, cwds if v in ("-exec", "-ok") else None, depth + 1, None)
                i = j + 1
            elif v in ("-fprint", "-fprint0", "-fprintf", "-fls"):
                i += 2
            else:
                i += 1

    def shell(self, name: str, args: list[Word], cwds: Cwds, depth: int, stdin: str | None) -> None:
        i = 0
        inline = from_stdin = False
        while i < len(args):
            v = args[i].value
            if v is None:
                break  # an operand decided at run time
            if v == "--" or v == "-":
                i += 1
                break
            if v in _SHELL_ARG_OPTS:
                if v in ("--rcfile", "--init-file") and i + 1 < len(args):
                    self.script(args[i + 1], cwds, "rcfile")
                i += 2
                continue
            if v.startswith("--"):
                if v not in ("--norc", "--noprofile", "--posix", "--login", "--noediting", "--restricted"):
                    self.note(v, f"{name} option {v} not followed")
                i += 1
                continue
            if v[:1] in "-+" and len(v) > 1:
                if "c" in v[1:] and v[0] == "-":
                    inline = True
                if "s" in v[1:] and v[0] == "-":
                    from_stdin = True
                if "o" in v[1:] or "O" in v[1:]:
                    i += 1  # set -o NAME
                i += 1
                continue
            break
        if from_stdin and not inline:
            self.stdin_script(name, stdin, cwds, depth)  # the operands are $1…, the script is stdin
            return
        if inline:
            if i >= len(args):
                self.note(f"{name} -c", f"{name} -c without a script")
            elif args[i].value is None:
                self.note(args[i].raw, f"the script {name} -c runs is decided when the command runs: "
                                       + ", ".join(args[i].dynamic))
            else:
                self.shell_text(args[i].value, cwds, depth + 1, args[i].raw)
            return
        if i < len(args):
            self.script(args[i], cwds, name, argv=args[i + 1:])
            return
        self.stdin_script(name, stdin, cwds, depth)

    def stdin_script(self, name: str, stdin: str | None, cwds: Cwds, depth: int, shell: bool = True) -> None:
        """An interpreter reading its program from stdin."""
        if stdin is not None and stdin.startswith("text:"):
            if shell:
                self.shell_text(stdin[5:], cwds, depth + 1, stdin[5:])
            elif name != "python":
                self.note(_short(stdin[5:]), f"{name} reads inline code; what it loads is not followed")
            else:  # Python's imports from the working folder are covered (importable), its loads read
                self.inline_python(stdin[5:], cwds, False)
            return
        if stdin is not None and stdin.startswith("file:"):
            self.script(Word(stdin[5:], stdin[5:]), cwds, name)
            return
        self.note(name, f"{name} reads its program from standard input ({'a pipe' if stdin else 'the hook input'})")

    def python(self, args: list[Word], cwds: Cwds, depth: int, stdin: str | None) -> None:
        i = 0
        safe_path = False
        while i < len(args):
            v = args[i].value
            if v is None:
                self.script(args[i], cwds, "python")
                return
            if v == "-c" or (v.startswith("-") and not v.startswith("--") and v.endswith("c") and "c" not in v[1:-1]
                             and len(v) > 2 and set(v[1:-1]) <= set("BbdEhIiOPqSsuvx")):
                safe_path = safe_path or "I" in v or "P" in v
                self.importable(cwds, None if safe_path else "cwd")
                if i + 1 < len(args) and args[i + 1].value is not None:
                    self.inline_python(args[i + 1].value, cwds, safe_path)
                return
            if v == "-m" or (v.startswith("-") and v.endswith("m") and len(v) > 2 and set(v[1:-1]) <= set("BbdEIOPqSsuvx")):
                safe_path = safe_path or "I" in v or "P" in v
                if not safe_path:
                    self.importable(cwds, "cwd")
                    mod = args[i + 1].value if i + 1 < len(args) else None
                    if mod and cwds:
                        self.python_module(mod, tuple(sorted(cwds)) + self.site_paths, cwds, 0, f"python -m {mod}",
                                           main=True)
                return
            if v in _PY_ARG_OPTS or v.startswith("-X"):
                x = v[2:] if v.startswith("-X") and len(v) > 2 else (
                    (args[i + 1].value or "?") if v == "-X" and i + 1 < len(args) else "")
                if x.startswith("pycache_prefix") or (v == "-X" and i + 1 < len(args) and args[i + 1].value is None):
                    self.note(f"python -X {x}", "python -X pycache_prefix reads bytecode from a folder it names, "
                                                "not from the private one wskit gives; not covered")
                i += 1 if v.startswith("-X") and len(v) > 2 else 2
                continue
            if v == "-":
                self.importable(cwds, "cwd")
                self.stdin_script("python", stdin, cwds, depth, shell=False)
                return
            if v.startswith("-"):
                if not v.startswith("--") and set(v[1:]) <= set("BbdEIOPqSsuvxRW"):
                    safe_path = safe_path or "I" in v or "P" in v
                    i += 1
                    continue
                self.note(v, f"python option {v} not followed")
                i += 1
                continue
            self.script(args[i], cwds, "python")
            return
        if not safe_path:
            self.importable(cwds, "cwd")
        self.stdin_script("python", stdin, cwds, depth, shell=False)

    def node_js(self, name: str, args: list[Word], cwds: Cwds, stdin: str | None) -> None:
        i = 0
        while i < len(args):
            v = args[i].value
            if v is None:
                self.script(args[i], cwds, name)
                return
            opt, eq, val = v.partition("=")
            if opt in _NODE_ENV_FILE_OPTS:
                self.note(f"{name} {v}", f"{name} {opt} reads variables (NODE_OPTIONS…) from a file; what they "
                                         "make it load is not followed")
                i += 1 if eq else 2
                continue
            if eq and opt.startswith("-") and opt in _NODE_CODE_OPTS:
                self.note(f"{name} {v}", f"{name} runs inline code; the modules it loads are not followed")
                return
            if eq and opt.startswith("-") and opt in _NODE_LOAD_OPTS:
                # ``--require=./x.js``: the value is loaded as the spaced spelling's is
                args = [*args[:i], Word(opt, opt), Word(args[i].raw, val), *args[i + 1:]]
                v = opt
            elif eq and opt.startswith("-") and opt not in _NODE_ARG_OPTS:
                self.note(f"{name} {v}", f"{name} option {opt} with a value not followed")
                i += 1
                continue
            if v in _NODE_CODE_OPTS:
                self.note(f"{name} {v}", f"{name} runs inline code; the modules it loads are not followed")
                return
            if v in _NODE_LOAD_OPTS:
                if i + 1 < len(args):
                    m = args[i + 1]
                    if m.value is not None and (m.value.startswith(("./", "../", "/"))):
                        self.script(m, cwds, name)
                    elif m.value is not None:
                        self.note(m.raw, f"{name} {v} loads a package resolved from node_modules; not followed")
                i += 2
                continue
            if v in _NODE_ARG_OPTS:
                i += 2
                continue
            if name == "deno" and v in ("run", "x"):
                i += 1
                continue
            if v.startswith("-"):
                if not (v.startswith(_NODE_FLAG_PREFIXES) or (eq and opt in _NODE_ARG_OPTS) or v in _NODE_FLAGS):
                    self.note(f"{name} {v}", f"{name} option {v} not followed (it may take a value)")
                i += 1
                continue
            self.script(args[i], cwds, name)
            return
        self.stdin_script(name, stdin, cwds, 0, shell=False)

    def interpreter(self, name: str, args: list[Word], cwds: Cwds, stdin: str | None) -> None:
        inline = _SCRIPT_INTERPRETERS[name]
        for i, a in enumerate(args):
            v = a.value
            if v is None:
                self.script(a, cwds, name)
                return
            if v in inline:
                self.note(f"{name} {v}", f"{name} runs inline code; what it loads is not followed")
                return
            if v.startswith("-"):
                self.note(f"{name} {v}", f"{name} option {v} not followed (it may load files or take a value)")
                # which word is the script is not known: cover every word naming a file
                self.existing_words(name, args[i + 1:], cwds)
                return
            self.script(args[i], cwds, name)
            return
        self.stdin_script(name, stdin, cwds, 0, shell=False)

    def existing_words(self, name: str, args: list[Word], cwds: Cwds) -> None:
        """After an option not understood: every word that names an existing file or
        folder is covered as a script of ``name`` (covering more is safe); a computed
        word is unverified."""
        for a in args:
            v = a.value
            if v is None:
                self.note(a.raw, f"{name} runs a word decided when the command runs: " + ", ".join(a.dynamic))
            elif not v.startswith("-") and (cwds is None or any(os.path.lexists(os.path.join(c, v)) for c in cwds)):
                self.script(a, cwds, name)

    def program_file_runs(self, name: str, w: Word, cwds: Cwds) -> None:
        """The text of an ``awk -f``/``sed -f`` program file gets the inline program's
        check: ``system(``, a pipe, sed's ``e`` command or ``e``/``w`` flag run commands or
        write files; unverified. A file that cannot be read (outside the roots, missing,
        too large) is checked as far as it can be: missing or unreadable is unverified
        here only when it is inside a root (its coverage says the rest)."""
        if name == "jq" or w.value is None or (cwds is None and not os.path.isabs(w.value)):
            return
        paths = [os.path.normpath(w.value)] if os.path.isabs(w.value) else [
            os.path.normpath(os.path.join(c, w.value)) for c in sorted(cwds or ())]
        for full in paths:
            root = self.root_of(full)
            try:
                if root is not None:
                    data = fs.read_bytes(root, os.path.relpath(full, root), max_bytes=MAX_FILE_BYTES).raw
                else:
                    data = fs.read_bytes(os.path.dirname(full) or "/", os.path.basename(full),
                                         max_bytes=MAX_FILE_BYTES).raw
            except (fs.SafeFsError, OSError, ValueError):
                continue
            text = data.decode("utf-8", "replace")
            if name == "sed":
                if _sed_runs(text) or _sed_writes(text):
                    self.note(w.raw, "a sed program file that runs commands (e) or writes files (w); what they "
                                     "run is not followed")
            elif "system" in text or "|" in text:
                self.note(w.raw, f"an {name} program file that runs commands (system, pipes); what they run is "
                                 "not followed")

    def program_files(self, name: str, args: list[Word], cwds: Cwds) -> None:
        """``awk -f F``, ``sed -f F``, ``jq -f F`` / ``--from-file F``: F is a program, in
        every spelling of the option (:func:`_program_file_words`: ``-nf F``, ``-Ef F``,
        ``--file=F``, ``-fF``, gawk ``-E F``/``--exec F``, mawk ``-W exec F``)."""
        for i, a in enumerate(args[:-1]):
            if name in ("jq",) and a.value in ("-L",):
                self.note(args[i + 1].raw, "jq -L: the modules jq includes from this folder are not followed")
        files = _program_file_words(name, args)
        for w in files:
            self.execute_word(w, cwds, with_folder=False)
            self.program_includes(name, w, cwds)
            self.program_file_runs(name, w, cwds)
        if files:
            return
        # an inline program: awk's system() and pipes, sed's e command and s///e flag run commands
        prog = next((a for a in args if a.value is not None and not a.value.startswith("-")), None)
        text = prog.value if prog is not None and prog.value is not None else ""
        if name == "sed":
            text = " ".join(args[i + 1].value or "" for i, a in enumerate(args[:-1]) if a.value in ("-e", "--expression")
                            ) or text
            if _sed_runs(text):
                self.note(prog.raw if prog else name, "a sed script that runs commands (e); what they run is not followed")
        if _PROGRAM_INCLUDES.get(name, _NEVER).search(text.encode()):
            self.note(prog.raw if prog else name, f"an {name} program that includes other files; not followed")
        elif name != "jq" and ("system" in text or "|" in text):
            self.note(prog.raw if prog else name, f"an {name} program that runs commands (system, pipes); "
                                                  "what they run is not followed")

    def program_includes(self, name: str, w: Word, cwds: Cwds, depth: int = 0) -> None:
        """A program file that includes others. gawk ``@include "FILE"`` with a literal
        name is followed (FILE, then FILE.awk, relative to the working folder as gawk
        looks first; covered, missing too, and read for its own includes); any other
        directive (``@load`` of a shared library, an include not read, jq's
        ``include``/``import``) is unverified."""
        pattern = _PROGRAM_INCLUDES.get(name)
        if pattern is None or w.value is None or (cwds is None and not os.path.isabs(w.value)):
            return
        for c in sorted(cwds or {"/"}):
            raw = self.script_bytes(os.path.normpath(os.path.join(c, w.value)))
            if raw is None or not pattern.search(raw):
                continue
            literal = _AWK_INCLUDE.findall(raw) if name in ("awk", "gawk") else []
            if len(literal) != len(pattern.findall(raw)) or depth > MAX_LOAD_DEPTH:
                self.note(w.raw, f"an {name} program that includes other files (@load, or an include not "
                                 "read as a literal name); what it includes is not followed")
                return
            for inc in literal:
                text = inc.decode("utf-8", "surrogateescape")
                for cand in [text] + ([text + ".awk"] if not text.endswith(".awk") else []):
                    self.execute_word(Word(f"{w.raw}: @include {text}", cand), cwds, with_folder=False)
                    self.program_includes(name, Word(f"{w.raw}: @include {text}", cand), cwds, depth + 1)

    # -- files -------------------------------------------------------------------------

    def script(self, w: Word, cwds: Cwds, by: str, argv: Sequence[Word] | None = None) -> None:
        """A script an interpreter runs (with what it may load beside it); ``argv``: its
        arguments (a shell script's ``$1``…), None when not known."""
        if w.value is None:
            self.note(w.raw, f"{by} runs a script decided when the command runs: " + ", ".join(w.dynamic))
            return
        self.execute_word(w, cwds, with_folder=True, python=by == "python", node=by in _NODES, by=by, argv=argv)

    def execute(self, path: str, cwds: Cwds, raw: str, argv: Sequence[Word] | None = None) -> None:
        self.execute_word(Word(raw, path), cwds, with_folder=True, by="exec", argv=argv)

    def execute_word(self, w: Word, cwds: Cwds, *, with_folder: bool, python: bool = False,
                     node: bool = False, by: str | None = None, argv: Sequence[Word] | None = None) -> None:
        value = w.value
        if value is None:
            self.note(w.raw, "a program file decided when the command runs: " + ", ".join(w.dynamic))
            return
        if os.path.isabs(value):
            candidates = [os.path.normpath(value)]
        elif cwds is None:
            self.note(w.raw, "a relative path after cd to a folder decided at run time")
            return
        else:
            candidates = [os.path.normpath(os.path.join(c, value)) for c in sorted(cwds)]
        for full in candidates:
            if self.root_of(full) is None:
                self.outside(full, w.raw)
            else:
                self.written_then_run(full, w.raw)
            st = self.cover(full, w.raw)
            if st is None or not with_folder:
                continue
            folder = full if stat.S_ISDIR(st.st_mode) else os.path.dirname(full)
            if python or (stat.S_ISDIR(st.st_mode) and os.path.exists(os.path.join(full, "__main__.py"))):
                self.importable(frozenset({folder}), "script")
            # the script's whole folder, as a shell or Node script's: what it reads beside
            # itself (``dirname(__file__)/deny.txt``) is covered too
            self.folder(folder, w.raw)
            if node or full.endswith(_JS_SUFFIXES):
                self.node_ancestors(folder, w.raw)
        if by is None or not with_folder:
            return
        for full in candidates:
            got = self.files.get(full)
            if got is not None and got.digest is not None:  # a file (covered now or before)
                self.loads(full, by, cwds, depth=self.load_depth, syspath=(os.path.dirname(full),) if python else (),
                           argv=argv)

    # -- what a script loads by a path (wskit.approval.loads) ----------------------------

    def loads(self, full: str, by: str, cwds: Cwds, *, depth: int = 0, dollar0: str | None = None,
              syspath: tuple[str, ...] = (), argv: Sequence[Word] | None = None) -> None:
        """Cover what script ``full`` (run by ``by``) loads by a path, recursively (at most
        :data:`MAX_LOAD_DEPTH` deep and :data:`MAX_LOADED_SCRIPTS` scripts); a load whose
        path is computed is unverified, named ``<script>:<line>: <word>``."""
        data = self.script_bytes(full)
        if data is None:
            return
        shown = self.shown(full)
        if _is_binary(data):
            if ("binary", full) not in self.scanned:
                self.scanned.add(("binary", full))
                self.note(shown, "a binary executable: what it loads is not followed")
            return
        if by == "exec" and data.startswith(b"#!") and ("shebang", full) not in self.scanned:
            self.scanned.add(("shebang", full))
            self.shebang(full, data, cwds)
        family = loads_mod.family_of(by, data[:256])
        if by == "exec" and family == "python":
            interp = _shebang_program(data[:256])
            if interp and os.path.isabs(interp) and self.root_of(os.path.normpath(interp)) is not None:
                site = self.venv_python(interp, cwds, f"{shown}: #!{interp}")
                if site is not None:
                    self.with_site(site, lambda: self.loads(full, "python", cwds, depth=depth, dollar0=dollar0,
                                                            syspath=syspath or (os.path.dirname(full),), argv=argv),
                                   None)
                    return
        if family is None:
            if ("other", full) not in self.scanned:
                self.scanned.add(("other", full))
                self.note(shown, f"a {by if by != 'exec' else 'script'} whose loads wskit does not read (only shell, "
                                 "Python and Node scripts are read): files it loads by a path are not covered")
            return
        if (family, full) in self.scanned:
            return
        if depth > MAX_LOAD_DEPTH:
            self.note(shown, f"loads nested more than {MAX_LOAD_DEPTH} levels deep; not followed")
            return
        if len(self.scanned) >= MAX_LOADED_SCRIPTS:
            self.note(shown, f"more than {MAX_LOADED_SCRIPTS} scripts loaded; the loads of this one are not followed")
            return
        self.scanned.add((family, full))
        text = data.decode("utf-8", "surrogateescape")
        found = loads_mod.scan(text, family, script=full, dollar0=dollar0, known=self.known)
        if family == "python" and depth > 0:
            # a loaded module's chdir moves the folder the loading script's relative paths
            # are resolved against, which the script's own scan cannot see: fail closed
            line = loads_mod.python_chdir_line(text, full)
            if line is not None:
                self.note(f"{shown}:{line}", "a module the script loads changes the working folder (os.chdir): "
                                             "relative paths of the scripts that load it are not followed")
        def rescan(names: frozenset[str]) -> list[loads_mod.Load]:
            return loads_mod.scan(text, family, script=full, dollar0=dollar0, known=self.known, unknown=names)

        saved = self.at, self.load_depth
        self.at, self.load_depth = "", depth + 1
        try:
            self.follow(found, family, full, cwds, depth=depth, dollar0=dollar0, syspath=syspath, argv=argv,
                        sourced=by == "source", rescan=rescan if family == "shell" else None)
        finally:
            self.at, self.load_depth = saved

    def shebang(self, full: str, data: bytes, cwds: Cwds) -> None:
        """The ``#!`` line of a file run by its path is a command line the kernel builds:
        the interpreter, the rest of the line as one argument (if any), then the file. It
        goes through the same dispatch as a hook command, so its options are followed or
        named (``#!/bin/bash --rcfile F -i``, ``#!/usr/bin/python3 -X …``); ``env -S``
        splits its argument into words, followed when they hold no quote, backslash or
        ``$`` (``#!/usr/bin/env -S node -r ./x.js`` covers ``x.js``), unverified otherwise."""
        line = data[2:].split(b"\n", 1)[0].decode("utf-8", "replace").strip()
        parts = line.split(None, 1)
        if len(parts) < 2:
            return  # a bare interpreter: the family decides how the file is read
        interp, arg = parts[0], parts[1].strip()
        shown = self.shown(full)
        words = [Word(interp, interp)]
        if interp.rsplit("/", 1)[-1] == "env" and arg.startswith("-"):
            opt, _, rest = arg.partition(" ")
            if opt not in ("-S", "--split-string") or any(c in rest for c in "\"'\\$"):
                self.note(f"{shown}:1: #!{_short(line, 60)}", "env with options in a #! line builds a command "
                                                               "wskit does not follow")
                return
            words += [Word(w, w) for w in rest.split()]
        elif interp.rsplit("/", 1)[-1] == "env":
            words += [Word(w, w) for w in arg.split()]
        else:
            words.append(Word(arg, arg))
        words.append(Word(full, full))
        saved = self.at
        self.at = f"{shown}:1: "
        try:
            self.run(words, cwds, 1, None)
        finally:
            self.at = saved

    def inline_python(self, code: str, cwds: Cwds, safe_path: bool) -> None:
        """The loads of Python code given inline (``python -c``, a here-document on stdin),
        read as a script in each working folder (``sys.path[0]`` unless ``-I``/``-P``)."""
        for cwd in sorted(cwds or ()):
            script = os.path.join(cwd, "<string>")
            found = loads_mod.scan(code, "python", script=script)
            self.follow(found, "python", script, cwds, depth=0, dollar0=None, syspath=() if safe_path else (cwd,))

    def follow(self, found: list[loads_mod.Load], family: str, full: str, cwds: Cwds, *, depth: int,
               dollar0: str | None, syspath: tuple[str, ...], argv: Sequence[Word] | None = None,
               sourced: bool = False, rescan: Any = None) -> None:
        """Cover the loads ``found`` in script ``full`` (see :meth:`loads`); a shell
        script's commands are followed as a hook command's are (:meth:`script_command`)."""
        shown = self.shown(full)
        commands = [ld for ld in found if ld.kind in ("run", "argv", "shell", "setenv")]
        defined = {ld.word for ld in found if ld.kind == "function"}
        cds = next((ld for ld in found if ld.kind == "cd"), None)
        outer_names = self.sourced_names
        if sourced:  # what this file assigns or a cd in it changes the script that sources it
            outer_names |= {w.raw for ld in found if ld.kind == "assigns" for w in ld.words}
            if cds is not None:
                outer_names.add("\0cd")
        self.sourced_names = set()  # filled by the files this one sources, below
        found = [ld for ld in found if ld.kind not in ("run", "argv", "shell", "setenv", "cd", "function", "assigns")]
        paths = list(syspath) + ([p for p in self.site_paths if p not in syspath] if family == "python" else [])
        # sys.path first (an import resolves on every folder the script adds, wherever it adds it)
        for ld in found:
            if ld.kind not in ("pyfolder", "sitedir") or ld.path is None:
                continue
            for folder in self.resolve(ld.path, cwds, f"{shown}:{ld.line}: {ld.word}"):
                if ld.kind == "sitedir":
                    self.cover(folder, shown)
                    self.folder(folder, shown)
                    self.pth_files(folder, f"{shown}:{ld.line}: {ld.word}")
                else:
                    if not os.path.isdir(folder):
                        # a zip archive (``lib.zip``, ``.egg``, ``.pyz``) or a folder not made yet:
                        # its bytes, or its absence, are covered
                        self.cover(folder, f"{shown}:{ld.line}: {ld.word}")
                    self.importable(frozenset({folder}), "sys.path")
                paths.append(folder)
        def one(ld: loads_mod.Load) -> None:
            word = f"{shown}:{ld.line}: {ld.word}"
            if ld.kind == "path":  # a file or folder the script names: covered, whatever it does with it
                self.named_path(ld.path or "", cwds, word, script=full)
            elif ld.kind == "nodebare":
                if not self.node_self_reference(full, ld.module or "", word, cwds, depth):
                    self.node_package(full, ld.module or "", word, cwds, depth)
            elif ld.path is None and ld.kind != "pymodule":
                self.note(word, ld.reason)
            elif ld.kind == "pymodule":
                if not ld.module:
                    self.note(word, ld.reason)
                else:
                    self.python_module(ld.module, tuple(paths), cwds, depth, word)
            elif ld.kind == "pyrelative":
                self.python_module(ld.module, (ld.path,), cwds, depth, word, missing=True)  # type: ignore[arg-type]
            elif ld.kind == "file":
                for cand in self.resolve(ld.path, cwds, word):  # type: ignore[arg-type]
                    if self.root_of(cand) is None:
                        self.outside(cand, word)
                    else:
                        self.written_then_run(cand, word)
                    st = self.cover(cand, word)
                    got = self.files.get(cand)
                    if st is not None and stat.S_ISDIR(st.st_mode):
                        self.importable(frozenset({cand}), "script")  # runpy.run_path of a folder
                        cand = os.path.join(cand, "__main__.py")
                        self.cover(cand, word)
                        got = self.files.get(cand)
                    if got is not None and got.digest is not None:
                        nxt = "source" if family == "shell" else family
                        self.loads(cand, nxt, cwds, depth=depth + 1, syspath=tuple(paths),
                                   dollar0=(dollar0 or full) if family == "shell" else None)
            elif ld.kind == "node":
                self.node_module(ld.path, cwds, depth, word)  # type: ignore[arg-type]
            elif ld.kind == "data":  # bytes that run as code (a pickle, a native library): covered, not read
                for cand in self.resolve(ld.path, cwds, word):  # type: ignore[arg-type]
                    self.cover(cand, word)

        # what the script's commands write, before anything is followed: a loop or a later
        # line may run (or source) what another line writes
        for ld in commands:
            if ld.kind == "run":
                self.writes(ld.words, self.script_cwds(cwds, cds), ld.writes)
        for ld in found:
            one(ld)
        # the script's commands last: a file it sources may define the functions they call,
        # assign the variables they use (read again with those unknown) or change folder
        changed = self.sourced_names
        self.sourced_names = outer_names
        if sourced:
            outer_names |= changed
        if changed and rescan is not None:
            again = rescan(frozenset(n for n in changed if n.isidentifier()))
            commands = [ld for ld in again if ld.kind in ("run", "setenv")]
            cds = next((ld for ld in again if ld.kind == "cd"), None)
            for ld in again:  # a source whose word a sourced file changes: followed again (more is safe)
                if ld.kind == "file" and ld not in found:
                    one(ld)
        here = None if "\0cd" in changed else self.script_cwds(cwds, cds)
        outer = set(self.functions)
        self.functions |= defined
        try:
            for ld in commands:
                self.script_command(ld, shown, here, argv)
        finally:
            if not sourced:  # a sourced file's functions stay defined in the script that sources it
                self.functions = outer

    def pth_files(self, folder: str, word: str) -> None:
        """A folder Python processes as a site folder (``site.addsitedir``): its ``.pth``
        files run their ``import`` lines and add folders to ``sys.path``, which is not
        followed: unverified when it holds one (their bytes are covered with the folder)."""
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".pth"))
        except OSError:
            return
        if names:
            self.note(word, f"a site folder holding {names[0]}: a .pth file runs its import lines and adds "
                            "folders to sys.path; not followed")

    def script_cwds(self, cwds: Cwds, cds: loads_mod.Load | None) -> Cwds:
        """The folders a script's commands may run in: where it was started, and every
        folder its ``cd``s may lead to, in any order (the walk does not follow the order of
        a script's commands: fail closed); None when a target is not literal."""
        if cds is None or cwds is None:
            return cwds
        here: Cwds = cwds
        for w in cds.words:
            if w.value is None or here is None:
                return None
            if os.path.isabs(w.value):
                here = _union(here, frozenset({os.path.normpath(w.value)}))
            else:
                here = _union(here, frozenset(os.path.normpath(os.path.join(c, w.value)) for c in here))
        return here

    def script_command(self, ld: loads_mod.Load, shown: str, cwds: Cwds, argv: Sequence[Word] | None) -> None:
        """One simple command of a shell script, followed by :meth:`run` as a hook
        command's words are (one dispatch: what it does not recognise is unverified);
        ``$1``…/``"$@"`` are the script's arguments ``argv`` when known."""
        saved = self.at
        self.at = f"{shown}:{ld.line}: "
        try:
            if ld.kind == "setenv":  # a script changing its environment (shell: read, printf -v, for, declare -n)
                if not ld.module or loader_variable(ld.module):
                    self.note(ld.word, f"setting {ld.module or 'a variable computed when the script runs'} in the "
                                       "environment of the programs the script starts changes what they load")
                return
            if ld.kind in ("argv", "shell"):  # a program a Python script starts
                if ld.path is None:
                    self.note(ld.word, "a working folder computed when the script runs")
                    return
                here = self.resolve(ld.path, cwds, ld.word) if ld.path else None
                start = frozenset(here) if here else cwds
                if ld.kind == "shell":
                    self.shell_text(ld.words[0].value or "", start, 1, ld.word)
                elif ld.words:
                    self.run(list(ld.words), start, 0, None)
                return
            words = _positionals(ld.words, argv if ld.positional else None)
            for a in ld.assigns:
                self.assignment(a, cwds)
            if words:
                self.run(words, cwds, 0, ld.stdin)
        finally:
            self.at = saved

    def manifest(self, path: str, word: str, what: str) -> dict[str, Any] | None:
        """Cover and read the ``package.json`` at ``path`` (byte-bounded); None, with
        ``word`` named unverified, when it is not a JSON object."""
        self.cover(path, word)
        raw = self.script_bytes(path)
        try:
            data = json.loads(raw.decode("utf-8")) if raw is not None else None
        except ValueError:
            data = None
        if not isinstance(data, dict):
            self.note(word, f"{self.shown(path)} cannot be read for {what}")
            return None
        return data

    def node_package(self, full: str, spec: str, word: str, cwds: Cwds, depth: int) -> None:
        """A bare ``require('pkg/sub')`` / ``import 'pkg'`` of script ``full``: the package
        node finds in the ``node_modules`` of the script's folder or a folder above it
        (inside the root; none there: a builtin or the system's) is followed to the files it
        loads — every literal target of its ``package.json`` ``exports`` (all conditions and
        subpaths: more than node picks, which is safe), else ``main`` or ``index`` — and
        those files are read for their own loads, so a ``main`` or a ``require`` that leaves
        the package is covered. A pattern or package target in ``exports``, or a
        ``package.json`` that cannot be read: unverified."""
        parts = spec.split("/")
        n = 2 if spec.startswith("@") else 1
        name, sub = "/".join(parts[:n]), "/".join(parts[n:])
        if not name or name.startswith(("node:", "#")) or ".." in parts[:n]:
            return
        root = self.root_of(full)
        cur = os.path.dirname(full)
        while root is not None and self.root_of(cur) == root:
            pkg = os.path.join(cur, "node_modules", *name.split("/"))
            if os.path.isdir(pkg):
                real = os.path.realpath(pkg)
                if self.root_of(real) is not None:
                    pkg = real  # node resolves a linked package (workspaces, pnpm) at its real path
                manifest = os.path.join(pkg, "package.json")
                data: Any = {}
                if os.path.lexists(manifest):
                    data = self.manifest(manifest, word, "its main and exports")
                    if data is None:
                        return
                else:
                    self.cover(manifest, word)  # missing: creating it changes the digest
                if "exports" in data:
                    targets = _package_targets(data["exports"])
                    if not targets:
                        self.note(word, f"the exports of {self.shown(manifest)}: a target that is a pattern, a "
                                        "package or missing; not followed")
                        return
                    for t in targets:
                        self.node_module(os.path.normpath(os.path.join(pkg, t)), cwds, depth, word)
                    return
                main = data.get("main") if isinstance(data.get("main"), str) else None
                entry = sub or main or "index"
                self.node_module(os.path.normpath(os.path.join(pkg, entry)), cwds, depth, word)
                if not sub and main:  # node falls back to index.js when main is not found
                    self.node_module(os.path.join(pkg, "index"), cwds, depth, word)
                return
            if cur == root:
                return
            cur = os.path.dirname(cur)

    def node_self_reference(self, full: str, spec: str, word: str, cwds: Cwds = None, depth: int = 0) -> bool:
        """A bare ``require('name/…')`` naming the package of the script's nearest
        ``package.json`` inside the root is a self-reference through its ``exports``; a
        ``#name`` specifier goes through its ``imports``. The map's targets are followed
        when every one is a literal ``./`` path (each target of every condition and subpath
        is covered: more than node picks, which is safe); a pattern (``*``), a target that
        is a package, a missing entry or a package.json that cannot be read: unverified."""
        root = self.root_of(full)
        cur = os.path.dirname(full)
        parts = spec.split("/")
        name = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
        while root is not None and self.root_of(cur) == root:
            pkg = os.path.join(cur, "package.json")
            if os.path.lexists(pkg):
                data = self.manifest(pkg, word, "its name, imports and exports")
                if data is None:
                    return True
                if spec.startswith("#"):
                    entry = (data.get("imports") or {}).get(spec) if isinstance(data.get("imports"), dict) else None
                    what = f"the package.json imports entry {spec}"
                elif data.get("name") == name:
                    entry = data.get("exports", data.get("main", "./index.js"))
                    what = "a self-reference to the script's own package (its exports)"
                else:
                    return False  # another package (node_package) or a builtin
                targets = _package_targets(entry)
                if not targets:
                    self.note(word, f"{what}: a target that is a pattern, a package or missing; not followed")
                    return True
                for t in targets:
                    self.node_module(os.path.normpath(os.path.join(cur, t)), cwds, depth, word)
                return True
            if cur == root:
                break
            cur = os.path.dirname(cur)
        if spec.startswith("#"):
            self.note(word, f"the package.json imports entry {spec}: no package.json inside the root holds it")
            return True
        return False

    def script_bytes(self, full: str) -> bytes | None:
        """The bytes of a covered script inside a root (None: not a covered file)."""
        got = self.files.get(full)
        root = self.root_of(full)
        if got is None or got.digest is None or root is None:
            return None
        path = got.target or full
        try:
            return fs.read_bytes(root, os.path.relpath(path, root).replace(os.sep, "/"), max_bytes=MAX_FILE_BYTES).raw
        except (fs.SafeFsError, OSError, ValueError) as err:
            self.note(self.shown(full), f"{full} cannot be read for what it loads: {err}")
            return None

    def shown(self, full: str) -> str:
        """``full`` relative to its root (how an unverified load names its script)."""
        root = self.root_of(full)
        return os.path.relpath(full, root).replace(os.sep, "/") if root is not None else full

    def resolve(self, path: str, cwds: Cwds, word: str) -> list[str]:
        """``path`` (absolute, or relative to the working folder) as absolute paths."""
        if os.path.isabs(path):
            return [os.path.normpath(path)]
        if cwds is None:
            self.note(word, "a relative path after cd to a folder decided at run time")
            return []
        return [os.path.normpath(os.path.join(c, path)) for c in sorted(cwds)]

    def python_module(self, module: str, paths: tuple[str, ...], cwds: Cwds, depth: int, word: str,
                      missing: bool = False, main: bool = False) -> None:
        """Follow ``import module`` on the folders ``paths`` (those inside a root: the
        rest are the system's); each module file met on the way is read for its loads.
        ``missing``: cover the module's file as missing when no folder holds it (a
        relative import). ``main`` (``python -m``): a module no folder of the project holds
        and that is not the standard library's is unverified."""
        seen = False
        for folder in paths:
            if self.root_of(folder) is None:
                continue
            cur, found, namespace = folder, False, False
            for part in module.split("."):
                pkg, mod = os.path.join(cur, part), os.path.join(cur, part + ".py")
                init = os.path.join(pkg, "__init__.py")
                if os.path.isfile(init):
                    target, cur = init, pkg
                elif os.path.isfile(mod):
                    target, cur = mod, ""
                elif os.path.isdir(pkg):
                    # a namespace package (no ``__init__.py``): its folder is covered, the
                    # walk goes on inside it, and the later folders of ``paths`` are
                    # searched too (they may hold more portions of it)
                    self.cover(pkg, word)
                    self.folder(pkg, word)
                    cur, found, namespace = pkg, True, True
                    continue
                else:
                    break
                self.cover(target, word)
                found = True
                got = self.files.get(target)
                if got is not None and got.digest is not None:
                    self.loads(target, "python", cwds, depth=depth + 1, syspath=paths)
                if not cur:
                    break
            if found and main and cur:  # ``python -m pkg`` runs pkg/__main__.py
                entry = os.path.join(cur, "__main__.py")
                self.cover(entry, word)
                if self.files.get(entry) is not None and self.files[entry].digest is not None:
                    self.loads(entry, "python", cwds, depth=depth + 1, syspath=paths)
            if found and not namespace:
                return
            seen = seen or found
        if main and not seen and module.split(".")[0] not in sys.stdlib_module_names:
            self.note(word, "python -m of a module not found in the project: the interpreter's installed packages "
                            "decide what runs (an editable install or a .pth file may lead into the project); "
                            "not followed")
        if missing and paths and self.root_of(paths[0]) is not None:
            self.cover(os.path.join(paths[0], *module.split(".")) + ".py", word)

    def node_module(self, path: str, cwds: Cwds, depth: int, word: str) -> None:
        """Follow ``require('./x')``: ``x``, ``x.js``, ``x.json``, ``x.node``, ``x.cjs``,
        ``x.mjs``, ``x.ts``, then the folder ``x`` (whole, with its ``node_modules`` and
        ``package.json`` chain); the candidates before the one found are covered missing."""
        for full in self.resolve(path, cwds, word):
            if self.root_of(full) is None:
                continue
            for cand in [full] + [full + ext for ext in (".js", ".json", ".node", ".cjs", ".mjs", ".ts")]:
                st = self.cover(cand, word)
                got = self.files.get(cand)
                if st is not None and stat.S_ISDIR(st.st_mode):
                    self.folder(cand, word)
                    self.node_ancestors(os.path.join(cand, "index.js"), word)
                    for entry in ("index.js", "index.mjs", "index.cjs"):
                        inner = self.files.get(os.path.join(cand, entry))
                        if inner is not None and inner.digest is not None:
                            self.loads(inner.path, "node", cwds, depth=depth + 1)
                    break
                if got is not None and got.digest is not None:
                    folder = os.path.dirname(cand)
                    modules = os.path.join(folder, "node_modules")
                    mst = self.cover(modules, word)
                    if mst is not None and stat.S_ISDIR(mst.st_mode):
                        self.folder(modules, word)
                    self.cover(os.path.join(folder, "package.json"), word)
                    self.node_ancestors(folder, word)
                    if not cand.endswith((".json", ".node")):
                        self.loads(cand, "node", cwds, depth=depth + 1)
                    break

    def node_ancestors(self, folder: str, raw: str) -> None:
        """Node resolves ``require('pkg')`` in ``node_modules`` of the script's folder and
        every folder above it, and reads their ``package.json`` (``type``, ``imports``):
        within the root, each is covered (a missing one as missing, so creating it counts)."""
        root = self.root_of(folder)
        cur = os.path.dirname(folder)
        while root is not None and self.root_of(cur) == root:
            modules = os.path.join(cur, "node_modules")
            st = self.cover(modules, raw)
            if st is not None and stat.S_ISDIR(st.st_mode):
                self.folder(modules, raw)
            self.cover(os.path.join(cur, "package.json"), raw)
            if cur == root:
                break
            cur = os.path.dirname(cur)

    def named_words(self, prog: str, args: Sequence[Word], cwds: Cwds) -> None:
        """Rule (a) for a command's words: every literal word (or ``--opt=VALUE``'s value)
        that names a file or folder of the project or a plugin is covered, whatever the
        program does with it (``grep -f policy/deny.txt``, ``python3 g.py rules.json``),
        but for programs that only change files (``touch``, ``rm``, ``mkdir`` …, ``sed -i``)
        and the builtins that take no path (``cd`` is followed on its own)."""
        if prog in _NAMES_NOT_READ or (prog == "sed" and any((a.value or "").startswith(("-i", "--in-place"))
                                                             for a in args)):
            return
        for a in args:
            v = a.value
            if v is None:
                continue
            if v.startswith("-"):
                if "=" not in v:
                    if not v.startswith("--"):
                        # an operand attached to a short option (``-Kcurlrc``, ``-Ff"$DIR"/deny``):
                        # each tail after one to six flag letters that names a file is covered
                        for k in range(2, min(len(v), 8)):
                            if not v[1:k].isalpha():
                                break
                            self.named_path(v[k:], cwds, a.raw)
                    continue
                v = v.split("=", 1)[1]
            self.named_path(v, cwds, a.raw)

    def named_path(self, value: str, cwds: Cwds, raw: str, *, script: str | None = None,
                   missing: bool = False) -> None:
        """Cover ``value`` (absolute, or relative to each working folder) when it names a
        file or folder of the project or a plugin: a file's bytes, a folder's listing of
        names (not its files: each file a script names is covered on its own); a missing
        path only when ``missing`` (a variable's value: planting it changes the digest).
        Left out: a root itself, a folder the script or the command stands in (how paths
        are built, not what is read), and what the command's own commands write."""
        if not value or len(value) > 1024:
            return
        if os.path.isabs(value):
            cands = [os.path.normpath(value)]
        elif cwds is None:
            return
        else:
            cands = [os.path.normpath(os.path.join(c, value)) for c in sorted(cwds)]
        for full in cands:
            root = self.root_of(full)
            if root is None or full == root or any(full == w or full.startswith(w.rstrip("/") + "/")
                                                   for w in self.written):
                continue
            if (script or "").startswith(full + os.sep) or any(c.startswith(full + os.sep) for c in cwds or ()):
                continue
            if os.path.isdir(full):
                if self.cover(full, raw) is not None:
                    self.listing(full, raw)
            elif missing or os.path.lexists(full):
                self.cover(full, raw)

    def listing(self, folder: str, raw: str) -> None:
        """Cover the names in ``folder`` (one level; a file added or removed changes the
        digest), unless the folder is covered whole already."""
        key = os.path.join(folder, "")
        root = self.root_of(folder)
        if key in self.files or root is None:
            return
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        try:
            entries = fs.scan_dir(root, None if rel == "." else rel)
        except fs.SafeFsError as err:
            self.note(raw, f"folder {folder} is not covered: {err.code}")
            return
        names = json.dumps(sorted(e.name + ("/" if e.type == "dir" else "") for e in entries), ensure_ascii=True)
        self.files[key] = CoveredFile(key, hashlib.sha256(names.encode("ascii")).hexdigest(), False, None)

    def inside(self, path: str, cwds: Cwds) -> bool:
        """True when ``path`` (relative to each of ``cwds``) lies under a root; a relative
        path after an unknown ``cd`` counts as inside (it is unverified already)."""
        if os.path.isabs(path):
            return self.root_of(os.path.normpath(path)) is not None
        if cwds is None:
            return True
        return any(self.root_of(os.path.normpath(os.path.join(c, path))) is not None for c in cwds)

    def root_of(self, full: str) -> str | None:
        for r in self.roots:
            if full == r or full.startswith(r.rstrip(os.sep) + os.sep):
                return r
        return None

    def writes(self, words: Sequence[Word], cwds: Cwds, outputs: Sequence[Word] = ()) -> None:
        """Record the files a command writes: the targets of its output redirections
        (``> F``, ``>> F``, ``&> F``, ``cat > F <<EOF``), ``cp``/``mv``/``install``/``ln``
        destinations, ``tee`` operands, ``dd of=``, ``curl -o``, ``wget -O``. A file the
        command then runs, sources or feeds to an interpreter, inside the roots or not, is
        unverified (:meth:`written_then_run`): its bytes at approval are not what runs."""
        dests: list[str] = [w.value for w in outputs if w.value is not None and not w.value.startswith("/dev/")]
        if not words or words[0].value is None:
            self.record_writes(dests, cwds)
            return
        prog = words[0].value.rsplit("/", 1)[-1]
        vals = [w.value for w in words[1:]]
        if prog in ("cp", "mv", "install", "ln", "rsync"):
            ops = [v for v in vals if v is not None and not v.startswith("-")]
            dests += [vals[i + 1] for i, v in enumerate(vals[:-1]) if v in ("-t", "--target-directory")
                      and vals[i + 1] is not None]  # type: ignore[misc]
            dests += [v.split("=", 1)[1] for v in vals if v is not None and v.startswith("--target-directory=")]
            if len(ops) >= 2 and not dests:
                dests.append(ops[-1])
        elif prog == "tee":
            dests += [v for v in vals if v is not None and not v.startswith("-")]
        elif prog == "dd":
            dests += [v[3:] for v in vals if v is not None and v.startswith("of=")]
        elif prog in ("curl", "wget"):
            flag = ("-o", "--output") if prog == "curl" else ("-O", "--output-document")
            dests += [vals[i + 1] for i, v in enumerate(vals[:-1]) if v in flag and vals[i + 1] is not None]  # type: ignore[misc]
        self.record_writes(dests, cwds)

    def record_writes(self, dests: Sequence[str], cwds: Cwds) -> None:
        for d in dests:
            if os.path.isabs(d):
                self.written.add(os.path.normpath(d))
            else:
                self.written.update(os.path.normpath(os.path.join(c, d)) for c in cwds or ())

    def written_then_run(self, full: str, raw: str) -> bool:
        """True (and ``raw`` noted unverified) when ``full`` is a file, or lies under a
        folder, that the command's own commands write (:meth:`writes`): what runs is what
        that write put there, not the bytes covered at approval."""
        if any(full == w or full.startswith(w.rstrip("/") + "/") for w in self.written):
            self.note(raw, f"{full} is written by the hook's own commands, then run: what it holds is not "
                           "covered")
            return True
        return False

    def outside(self, full: str, raw: str) -> None:
        """A file run or read from outside the roots is the user's system and is not covered,
        unless someone other than the user may decide what it holds — then it is unverified:
        a file the hook's own commands wrote (:meth:`writes`); a file descriptor or device
        (``/dev/stdin``, ``/dev/fd/3``, ``/proc/self/fd/3``: a program fed from a redirection
        the script chose); a path in a folder every local user can write (``/tmp``,
        ``/dev/shm``, sticky or not; a missing file there included), under a folder above it
        that is (without the sticky bit), or a file or folder on its way owned by a user
        other than root and the one running wskit (what another local user, threat T4, could
        swap). Only ``stat`` is used, on the path as written, from ``/`` down to the file."""
        if self.written_then_run(full, raw):
            return
        if device_path(full):
            self.note(raw, f"{full} is a file descriptor or device: the program it gives is decided when the "
                           "command runs")
            return
        why = _shared_path(full)
        if why:
            self.note(raw, f"{full} is outside the project, {why}: not covered")

    def cover(self, full: str, raw: str) -> os.stat_result | None:
        """Cover one path (file, folder or missing); returns its ``stat`` when it exists
        inside a root and was covered (None otherwise)."""
        root = self.root_of(full)
        if root is None or full in self.files:
            return None
        rel = os.path.relpath(full, root).replace(os.sep, "/")
        target: str | None = None
        real_root = os.path.realpath(root)
        real = os.path.realpath(full)
        read_base, read_rel = root, rel
        if rel != "." and real != os.path.join(real_root, *rel.split("/")):
            want = "dir" if os.path.isdir(full) else "file"
            got, shown, why = fs.inside_target(root, rel, want=want)
            if got is None:
                self.note(raw, f"{full} is reached through a link that {why} ({shown})")
                return None
            target = os.path.join(root, *got.split("/"))
            read_rel = got
        try:
            st = os.stat(full)
        except FileNotFoundError:
            if os.path.lexists(full):
                self.note(raw, f"{full} is a broken link")
                return None
            self.files[full] = CoveredFile(full, None, False, target)
            return None
        except OSError as err:
            self.note(raw, f"{full} cannot be read: {err.strerror}")
            return None
        if stat.S_ISDIR(st.st_mode):
            return st  # a folder: its files are covered by the caller's folder walk
        try:
            raw_bytes = fs.read_bytes(read_base, read_rel, max_bytes=MAX_FILE_BYTES).raw
        except fs.SafeFsError as err:
            self.note(raw, f"{full} is not covered: {err.code} ({_short(str(err), 120)})")
            return None
        except (OSError, ValueError) as err:
            self.note(raw, f"{full} cannot be read: {err}")
            return None
        self.files[full] = CoveredFile(full, hashlib.sha256(raw_bytes).hexdigest(), bool(st.st_mode & 0o111), target)
        return st

    def folder(self, folder: str, raw: str) -> None:
        """Cover every file under ``folder`` (bounded): what an interpreter may load beside a script."""
        if ("all", folder) in self.folders_done:
            return
        self.folders_done.add(("all", folder))
        root = self.root_of(folder)
        if root is not None:
            self.walk(root, folder, raw, python=False)

    def importable(self, cwds: Cwds, why: str | None) -> None:
        """Cover what Python may import from ``sys.path[0]`` (each folder of ``cwds``):
        the listing of importable names (so a new ``json.py`` changes the digest), each
        module file and each regular package (walked, bounded)."""
        if why is None:
            return
        if cwds is None:
            self.note("python", "python imports from a working folder decided at run time")
            return
        for folder in sorted(cwds):
            if ("py", folder) in self.folders_done:
                continue
            self.folders_done.add(("py", folder))
            root = self.root_of(folder)
            if root is not None:
                self.walk(root, folder, folder, python=True)

    def walk(self, root: str, folder: str, raw: str, *, python: bool) -> None:
        """Cover the files under ``folder`` and its listing (``folder/`` or, for Python's
        importable names, ``folder/*.py``); all or nothing: past a bound it is unverified."""
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        files_left, bytes_left = MAX_FOLDER_FILES, MAX_FOLDER_BYTES
        listing: list[str] = []
        covered: dict[str, CoveredFile] = {}
        stack: list[tuple[str, int]] = [(rel, 0)]
        shown = os.path.join(root, rel) if rel != "." else root
        while stack:
            cur, depth = stack.pop()
            try:
                entries = fs.scan_dir(root, None if cur == "." else cur)
            except fs.SafeFsError as err:
                if err.code == "not-found" and cur == rel:
                    return
                self.note(raw, f"folder {shown} is not covered: {err.code}")
                return
            for e in entries:
                child = e.name if cur == "." else f"{cur}/{e.name}"
                full = os.path.join(root, *child.split("/"))
                top = python and depth == 0
                if e.type == "dir":
                    # Python's bytecode beside a covered module is covered: a planted ``.pyc``
                    # runs in place of the source wherever the private PYTHONPYCACHEPREFIX does
                    # not hold (``-E``, ``-I``, ``env -i``, ``sys.pycache_prefix = None``)
                    if top and e.name != "__pycache__" and not os.path.exists(os.path.join(full, "__init__.py")):
                        continue  # a namespace package never shadows a module found elsewhere
                    if depth + 1 > MAX_FOLDER_DEPTH:
                        self.note(raw, f"folder {shown} is deeper than {MAX_FOLDER_DEPTH} levels; not covered")
                        return
                    listing.append(child + "/")
                    stack.append((child, depth + 1))
                    continue
                if top and not e.name.endswith(_PY_SUFFIXES):
                    continue
                listing.append(child)
                files_left -= 1
                if files_left < 0:
                    self.note(raw, f"folder {shown} holds more than {MAX_FOLDER_FILES} files an interpreter "
                                   "may load; not covered")
                    return
                if e.type == "special":
                    self.note(raw, f"{full} is a FIFO, socket or device")
                    continue
                read_rel, target = child, None
                if e.type == "link":
                    got, named, why = fs.inside_target(root, child)
                    if got is None:
                        self.note(raw, f"{full} is a link that {why} ({named})")
                        continue
                    read_rel, target = got, os.path.join(root, *got.split("/"))
                try:
                    data = fs.read_bytes(root, read_rel, max_bytes=MAX_FILE_BYTES).raw
                    mode = os.stat(full).st_mode
                except fs.SafeFsError as err:
                    self.note(raw, f"{full} is not covered: {err.code}")
                    continue
                except OSError as err:
                    self.note(raw, f"{full} cannot be read: {err.strerror}")
                    continue
                bytes_left -= len(data)
                if bytes_left < 0:
                    self.note(raw, f"folder {shown} holds more than {MAX_FOLDER_BYTES} bytes an interpreter "
                                   "may load; not covered")
                    return
                covered[full] = CoveredFile(full, hashlib.sha256(data).hexdigest(), bool(mode & 0o111), target)
        for k, v in covered.items():
            self.files.setdefault(k, v)
        key = os.path.join(folder, "*.py" if python else "")
        names = json.dumps(sorted(listing), ensure_ascii=True).encode("ascii")
        self.files[key] = CoveredFile(key, hashlib.sha256(names).hexdigest(), False, None)


def _program_file_words(name: str, args: Sequence[Word]) -> list[Word]:
    """The program files of an ``awk``/``sed``/``jq`` command: the word after ``-f``,
    ``--file``, ``--from-file``, a cluster of short flags ending in ``f`` (``-nf``,
    ``-Ef``, ``-sf``), gawk's ``-E``/``--exec`` and mawk's ``-W exec``; the value of
    ``--file=F``/``--from-file=F``/``--exec=F``; awk's ``-fF``. Stops at ``--``."""
    out: list[Word] = []
    awk = name != "sed" and name != "jq"
    i = 0
    while i < len(args):
        a = args[i]
        v = a.value or ""
        nxt = args[i + 1] if i + 1 < len(args) else None
        if v == "--":
            break
        takes = v in ("-f", "--file", "--from-file") or (awk and v in ("-E", "--exec")) or (
            name != "jq" and v.startswith("-") and not v.startswith("--") and len(v) > 2 and v[1:].isalpha()
            and v.endswith("f"))
        if awk and v == "-W" and nxt is not None and (nxt.value or "").startswith("exec"):
            i += 1
            nxt = args[i + 1] if i + 1 < len(args) else None
            takes = True
        if takes and nxt is not None:
            out.append(nxt)
            i += 2
            continue
        for opt in ("--file=", "--from-file=", "--exec=", "-Wexec="):
            if v.startswith(opt):
                out.append(Word(a.raw, v[len(opt):]))
        if name != "jq" and v.startswith("-") and not v.startswith("--"):
            # an operand attached to its option: ``-fF``, ``-nfF``, ``-f"$DIR"/F`` (the
            # letters before ``f`` are flags; sed's ``-i`` and awk's ``-v``/``-F`` take an
            # attached value instead)
            at = v.find("f", 1)
            flags = v[1:at] if at > 0 else ""
            if (at > 0 and at + 1 < len(v) and (at == 1 or flags.isalpha())
                    and not (name == "sed" and "i" in flags) and not (awk and ("v" in flags or "F" in flags))):
                out.append(Word(v[at + 1:], v[at + 1:]))
        i += 1
    return out


def _sed_runs(script: str) -> bool:
    """True when a sed script may hold GNU sed's ``e`` command or the ``e`` flag of ``s``:
    an ``e`` where a command starts (after an address) or among the flags after a ``/``
    (a superset: ``s/a/e/`` counts too)."""
    starts = True
    for i, ch in enumerate(script):
        if ch == "e":
            slash = script.rfind("/", 0, i)
            if starts or (slash >= 0 and all(c in "gpIiMmw0123456789" for c in script[slash + 1:i])):
                return True
        starts = ch in ";\n{}" or (starts and (ch.isspace() or ch.isdigit() or ch in "$,!"))
    return False


def _sed_writes(script: str) -> bool:
    """True when a sed script may write a file: a ``w``/``W`` command or flag (a
    superset, as :func:`_sed_runs`)."""
    return bool(re.search(r"(?:^|[;\n{}/0-9$,!\s])[wW]\s", script))


#: a word that is one positional parameter: ``$1``, ``"$@"``, ``"${2}"``, ``$*``
_POSITIONAL = re.compile(r'(")?\$(\{)?([@*1-9])(?(2)\})(?(1)")')


def _positionals(words: Sequence[Word], argv: Sequence[Word] | None) -> list[Word]:
    """``words`` of a script's command with each word that is one positional parameter
    replaced by the script's arguments ``argv`` (None: not known, the word stays
    dynamic). Unquoted, an argument holding a blank or a glob character is dynamic (the
    shell would split or match it); ``"$*"`` is one word."""
    if argv is None:
        return list(words)
    out: list[Word] = []
    for w in words:
        m = _POSITIONAL.fullmatch(w.raw)
        if m is None:
            out.append(w)
            continue
        quoted, which = bool(m.group(1)), m.group(3)
        picked = list(argv) if which in "@*" else list(argv[int(which) - 1:int(which)])
        if which == "*" and quoted:
            values = [a.value for a in picked]
            picked = [Word(w.raw, None if None in values else " ".join(values),  # type: ignore[arg-type]
                           tuple(r for a in picked for r in a.dynamic))]
        elif not quoted:
            picked = [a if a.value is None or not any(c in a.value for c in " \t\n*?[") else
                      Word(a.raw, None, ("an argument the shell splits or matches (unquoted)",)) for a in picked]
            picked = [a for a in picked if a.value != ""]
        elif not picked and which not in "@*":
            picked = [Word(w.raw, "")]
        out.extend(picked)
    return out


def _package_targets(entry: Any, limit: int = 64) -> list[str] | None:
    """Every target of a package.json ``exports``/``imports`` value (a string, or
    conditions and subpaths nested in objects and arrays), each a literal ``./`` path;
    None when one is a pattern (``*``), a package name or not a string, or there are
    more than ``limit``."""
    out: list[str] = []
    stack = [entry]
    while stack:
        cur = stack.pop()
        if cur is None:
            continue
        if isinstance(cur, dict):
            if any("*" in str(k) for k in cur):
                return None
            stack.extend(cur.values())
        elif isinstance(cur, list):
            stack.extend(cur)
        elif isinstance(cur, str) and cur.startswith("./") and "*" not in cur:
            out.append(cur)
        else:
            return None
        if len(out) + len(stack) > limit:
            return None
    return out or None


def _known_program(name: str) -> bool:
    """A program name :meth:`_Collector.run` dispatches on (not an unknown one)."""
    return (name in _DATA_PROGRAMS or name in _PROJECT_RUNNERS or name in _SHELLS or name in _NODES
            or name in _SCRIPT_INTERPRETERS or name in _WRAPPER_ARG_OPTS or name in ("env", "xargs", "find")
            or (name.startswith(_PYTHONS) and _version_suffix(name)))


def _shebang_program(head: bytes) -> str | None:
    """The interpreter a ``#!`` line names (after ``env`` and its options), or None."""
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if words and words[0].rsplit("/", 1)[-1] == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    return words[0] if words else None


def _union(a: Cwds, b: Cwds) -> Cwds:
    if a is None or b is None:
        return None
    u = a | b
    return u if len(u) <= MAX_CWDS else None


#: Leading bytes of binary executables: ELF, Mach-O (both byte orders, 32/64 bit, fat), PE.
_BINARY_MAGICS = (b"\x7fELF", b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe",
                  b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe", b"MZ")


def _is_binary(data: bytes) -> bool:
    """True when ``data`` is a binary executable (a known magic, or a NUL byte in its first
    KiB, which no shell, Python or Node script holds): it is not read as a script."""
    return data.startswith(_BINARY_MAGICS) or b"\x00" in data[:1024]


def _shared_path(full: str) -> str:
    """Why another local user could replace the file ``full`` (an absolute path), or ``""``
    (:meth:`_Collector.outside`). Never raises: a path that cannot be examined is named."""
    me = os.geteuid() if hasattr(os, "geteuid") else 0
    parts = [p for p in full.split(os.sep) if p]
    here, above = os.sep, None
    for i, part in enumerate(parts):
        try:
            st = os.stat(here)
        except FileNotFoundError:  # whoever may write the last folder that exists may create it
            if above is not None and above[1].st_mode & stat.S_IWOTH:
                return f"in {above[0]}, a folder every local user can write"
            return ""
        except OSError as err:
            return f"in a folder that cannot be examined ({err.strerror})"
        above = (here, st)
        last = i == len(parts) - 1
        if st.st_mode & stat.S_IWOTH and (last or not st.st_mode & stat.S_ISVTX):
            return f"in {here}, a folder every local user can write"
        if st.st_uid not in (0, me):
            return f"in {here}, a folder owned by another user (uid {st.st_uid})"
        here = os.path.join(here, part)
    try:
        st = os.stat(here)
    except FileNotFoundError:
        return ""
    except OSError as err:
        return f"a file that cannot be examined ({err.strerror})"
    if st.st_uid not in (0, me):
        return f"a file owned by another user (uid {st.st_uid})"
    if st.st_mode & stat.S_IWOTH:
        return "a file every local user can write"
    return ""


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"

