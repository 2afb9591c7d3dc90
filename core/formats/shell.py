"""Shell command text: the one tokenizer the permission rules and hook approval share.

Two layers, both pure (nothing here runs, expands against the real environment or
touches a file):

- **Syntax** (:func:`parse`, :func:`read_word`): the command's syntax tree from
  ``bashlex`` (a port of bash's own grammar), and each word's literal value read from
  its source text, quote by quote. A word whose value is decided only when the shell
  runs (a variable not in the caller's mapping, a command substitution, an unquoted
  glob, brace or tilde expansion, ``$'…'``) has no value: :class:`Word` says why. Where
  ``bashlex`` refuses a command (``[[ … ]]``, ``case``, arithmetic, ``time``, ``coproc``,
  an unterminated quote…), :func:`parse` raises :class:`ShellSyntaxError`; callers
  that must fail closed treat the whole command as not understood, never guess.
- **Lexical** (:func:`split_command`, :func:`split_words`, :func:`writes_file`,
  :func:`substitutions`): total
  functions over the text (they never refuse), for matching a command against
  permission rules the way Claude Code splits it (``&&``, ``||``, ``;``, ``|``, ``&``,
  newlines outside quotes; the recorded cases are ``tests/conformance/test_bash_rules.py``).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping
from typing import Any

from wskit.errors import WskitError
from wskit.util.lazyre import lazy_pattern
from wskit.values import FrozenValue

__all__ = [
    "MAX_COMMAND_CHARS", "MAX_DEPTH", "MAX_FORMS", "MAX_READINGS", "SHELLS", "WRAPPERS", "CommandForms", "ShellSyntaxError", "Word",
    "command_forms", "device_path", "parse", "read_word", "split_command", "split_words", "substitutions",
    "walk_substitutions", "writes_file",
]

#: Longest command text :func:`parse` reads, characters (a longer one is refused, not truncated).
MAX_COMMAND_CHARS = 16 * 1024
_GLOB = frozenset("*?[")
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = _NAME_START | frozenset("0123456789")
_IFS = frozenset(" \t\n")


class ShellSyntaxError(WskitError):
    """``bashlex`` could not parse the command (unsupported construct or bad syntax);
    the message says what and where."""


def parse(command: str) -> list[Any]:
    """The syntax trees of ``command`` (``bashlex`` nodes: ``list``, ``pipeline``,
    ``command``, ``compound``, ``function``…; positions index ``command``).

    :raises ShellSyntaxError: the text is longer than :data:`MAX_COMMAND_CHARS`, holds a
        NUL, or ``bashlex`` refuses it (it does not implement ``[[``, ``case``, arithmetic,
        ``time``, ``coproc``, array assignments, quoted here-document delimiters).
    """
    if len(command) > MAX_COMMAND_CHARS:
        raise ShellSyntaxError(f"command is {len(command)} characters, over the limit of {MAX_COMMAND_CHARS}")
    if "\x00" in command:
        raise ShellSyntaxError("command holds a NUL character")
    if not command.strip():
        return []
    got = _parse_cached(command)
    if isinstance(got, str):
        raise ShellSyntaxError(got)
    return list(got)


@functools.lru_cache(maxsize=1)
def _bashlex() -> Any:
    """``bashlex``, with its one known endless loop closed: ``${`` without a ``}`` after it
    in a word (``{'${'``) makes its ``_paramexpand`` return index 0 and the word is
    expanded again from the start, forever (bashlex 0.18, ``subst.py``). The guard
    refuses such a word the way bash does ("bad substitution")."""
    import bashlex
    from bashlex import errors, subst

    original = subst._paramexpand
    if getattr(original, "_wskit_guarded", False):
        return bashlex

    def guarded(parserobj: Any, string: str, sindex: int) -> Any:
        if string.startswith("${", sindex) and string.find("}", sindex + 2) < 0:
            raise errors.ParsingError(f"bad substitution: no closing '}}' in {string[:60]!r}", string, sindex)
        return original(parserobj, string, sindex)

    guarded._wskit_guarded = True  # type: ignore[attr-defined]
    subst._paramexpand = guarded
    return bashlex


@functools.lru_cache(maxsize=512)
def _parse_cached(command: str) -> tuple[Any, ...] | str:
    """``bashlex.parse`` of ``command``, or the refusal's message (a pure function of the
    text, so kept: a hook's command is parsed once per process; callers never change the
    trees)."""
    bashlex = _bashlex()
    try:
        return tuple(bashlex.parse(command))
    except RecursionError:
        return "command nests too deeply to parse"
    except Exception as err:  # bashlex raises ParsingError, NotImplementedError, MatchedPairError, …
        text = " ".join(str(err).split()) or type(err).__name__
        return f"the shell parser cannot read it: {text[:200]}"


class Word(FrozenValue):
    """One shell word as the shell would see it before running the command.

    :ivar raw: the word as written (quotes and all).
    :ivar value: its literal value after quote removal and expansion of the known
        variables; None when part of it is decided only at run time.
    :ivar dynamic: why ``value`` is None (``"variable $X"``, ``"glob pattern"``,
        ``"command substitution"``, …), empty when it is known.
    """

    raw: str
    value: str | None
    dynamic: tuple[str, ...] = ()


def read_word(raw: str, known: Mapping[str, str] | None = None, *, ansi_c: bool = False) -> Word:
    """Read one shell word from its source text ``raw`` (POSIX quoting): ``'…'`` is
    literal, ``"…"`` literal but for ``$``, backquote and ``\\``; an unquoted ``\\``
    escapes one character (and drops a line continuation).

    :param known: variables the caller knows the value of (``CLAUDE_PROJECT_DIR`` …);
        ``$NAME`` and ``${NAME}`` of these are put in. An unquoted one whose value holds
        a blank or a glob character leaves the word dynamic (the shell would split or
        match it). Any other expansion leaves it dynamic, with the reason.
    :param ansi_c: decode ``$'…'`` (bash's ANSI-C quoting: ``\\n``, ``\\x72``, ``\\162``,
        ``\\u…``, ``\\cX``…) and read ``$"…"`` as ``"…"`` (no message catalogue is
        consulted), as :func:`command_forms` does; without it such a word is dynamic.
    """
    known = known or {}
    out: list[str] = []
    why: list[str] = []
    i, n = 0, len(raw)

    def dollar(j: int, quoted: bool) -> int:
        """Read the expansion starting at ``raw[j] == '$'``; returns the index after it."""
        nxt = raw[j + 1] if j + 1 < n else ""
        if nxt == "(":
            why.append("arithmetic expansion" if raw.startswith("((", j + 1) else "command substitution")
            depth, k = 0, j + 1
            while k < n:
                depth += {"(": 1, ")": -1}.get(raw[k], 0)
                k += 1
                if depth == 0:
                    break
            return k
        if nxt == "{":
            close = raw.find("}", j + 2)
            if close < 0:
                why.append("unterminated parameter expansion")
                return n
            _variable(raw[j + 2:close], quoted)
            return close + 1
        if nxt in _NAME_START:
            k = j + 1
            while k < n and raw[k] in _NAME_CHARS:
                k += 1
            _variable(raw[j + 1:k], quoted)
            return k
        if nxt and (nxt.isdigit() or nxt in "@*#?-$!"):
            why.append(f"variable ${nxt}")
            return j + 2
        if not quoted and ansi_c and nxt == '"':
            return j + 1  # $"…" is "…" without a message catalogue
        if not quoted and ansi_c and nxt == "'":
            text, end = _ansi_c(raw, j + 2)
            out.append(text)
            return end
        if not quoted and nxt in ("'", '"'):
            why.append("$'…' quoting" if nxt == "'" else '$"…" quoting')
            return j + 1
        out.append("$")  # a lone dollar is literal
        return j + 1

    def _variable(name: str, quoted: bool) -> None:
        simple = name and name[0] in _NAME_START and all(c in _NAME_CHARS for c in name)
        if not simple:
            why.append(f"parameter expansion ${{{name}}}")
        elif name in known:
            value = known[name]
            if not quoted and any(c in _IFS or c in _GLOB for c in value):
                why.append(f"variable ${name} unquoted, its value split or matched by the shell")
            out.append(value)
        else:
            why.append(f"variable ${name}")

    brace_open = False
    while i < n:
        c = raw[i]
        if c == "\\":
            if i + 1 < n and raw[i + 1] != "\n":
                out.append(raw[i + 1])
            i += 2
        elif c == "'":
            end = raw.find("'", i + 1)
            end = n if end < 0 else end
            out.append(raw[i + 1:end])
            i = end + 1
        elif c == '"':
            i += 1
            while i < n and raw[i] != '"':
                ch = raw[i]
                if ch == "\\" and i + 1 < n and raw[i + 1] in '$`"\\\n':
                    if raw[i + 1] != "\n":
                        out.append(raw[i + 1])
                    i += 2
                elif ch == "$":
                    i = dollar(i, True)
                elif ch == "`":
                    why.append("command substitution")
                    end = raw.find("`", i + 1)
                    i = n if end < 0 else end + 1
                else:
                    out.append(ch)
                    i += 1
            i += 1
        elif c == "$":
            i = dollar(i, False)
        elif c == "`":
            why.append("command substitution")
            end = raw.find("`", i + 1)
            i = n if end < 0 else end + 1
        elif c in "<>" and raw.startswith("(", i + 1):
            why.append("process substitution")
            i = n
        else:
            if c in _GLOB:
                why.append("glob pattern")
            elif c == "~" and i == 0:
                why.append("tilde expansion")
            elif c == "{":
                brace_open = True
            elif c == "}" and brace_open and ("," in raw or ".." in raw):
                why.append("brace expansion")
            out.append(c)
            i += 1
    reasons = tuple(dict.fromkeys(why))
    return Word(raw, None if reasons else "".join(out), reasons)


_ANSI_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
                 "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def _ansi_c(raw: str, i: int) -> tuple[str, int]:
    """The value of the ``$'…'`` body starting at ``raw[i]`` (after ``$'``) and the index
    after its closing quote: bash's escapes (``\\n``, ``\\xHH``, octal ``\\NNN``,
    ``\\uHHHH``, ``\\UHHHHHHHH``, ``\\cX``); an unknown escape stays as written."""
    out: list[str] = []
    n = len(raw)
    while i < n and raw[i] != "'":
        c = raw[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = raw[i + 1]
        if e in _ANSI_ESCAPES:
            out.append(_ANSI_ESCAPES[e])
            i += 2
        elif e in "01234567":
            j = i + 1
            while j < n and j < i + 4 and raw[j] in "01234567":
                j += 1
            out.append(chr(int(raw[i + 1:j], 8) & 0xFF))
            i = j
        elif e in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[e]
            j = i + 2
            while j < n and j < i + 2 + width and raw[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i + 2:
                out.append(raw[i:i + 2])
            else:
                code = int(raw[i + 2:j], 16)
                out.append(chr(code) if code <= 0x10FFFF else "\ufffd")
            i = j
        elif e == "c" and i + 2 < n:
            out.append(chr(ord(raw[i + 2].upper()) ^ 0x40) if raw[i + 2] != "?" else "\x7f")
            i += 3
        else:
            out.append(raw[i:i + 2])
            i += 2
    return "".join(out), i + 1


def walk_substitutions(node: Any) -> list[Any]:
    """The commands inside the command and process substitutions of ``node`` (a
    ``bashlex`` word, assignment or redirection), outermost first, not descending into them."""
    found: list[Any] = []
    stack = [node]
    while stack:
        cur = stack.pop()
        kind = getattr(cur, "kind", None)
        if kind in ("commandsubstitution", "processsubstitution"):
            found.append(cur.command)
            continue
        for attr in ("parts", "output"):
            child = getattr(cur, attr, None)
            if isinstance(child, list):
                stack.extend(reversed(child))
            elif child is not None and hasattr(child, "kind"):
                stack.append(child)
    return found


# -- lexical layer (permission rules) ---------------------------------------------------


def split_words(text: str) -> list[str] | None:
    """The words of one simple command with quotes removed (POSIX rules, no comments,
    nothing expanded), or None when the text does not tokenise (an open quote, a
    trailing backslash). The permission rules' deny forms read the first word with it."""
    import shlex

    try:
        return shlex.split(text, posix=True)
    except ValueError:
        return None


#: brackets and substitutions :func:`split_command` opens one inside another; deeper ones
#: stay text of the part holding them (:func:`command_forms` then calls the command unresolved)
_MAX_NESTING = 32
#: words a hook ``if`` drops before a subcommand (Claude Code 2.1.337 fires ``Bash(touch *)``
#: for ``if true; then touch b; fi``, ``! touch b``; not for ``time touch b``)
_LEADING_KEYWORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!"})


def split_command(command: str, *, nested: bool = False) -> list[str]:
    """The parts of a compound shell command, split at ``&&``, ``||``, ``;``, ``|``, ``&``
    and newlines outside quotes; each part stripped, empty parts dropped. ``2>&1``,
    ``&>`` and ``>|`` are redirections, not separators. A backslash escapes one character.

    :param nested: also split where a command starts inside another: ``(``, ``)``, a ``{``
        or ``}`` standing as a word (not ``${IFS}`` or ``{a,b}``), and the commands inside
        backquotes, ``$(``, ``<(`` and ``>(`` (inside double quotes too, where a
        substitution still runs), each of which is a part of its own while the command
        holding it keeps the substitution's text (``echo $(touch b)`` gives ``touch b`` and
        ``echo $(touch b)``); drop comments (``#`` where a word starts, to the end of
        the line); and drop from each part its leading keywords (``then``, ``do``,
        ``else``, ``elif``, ``if``, ``while``, ``until``, ``!``) and ``NAME=value``
        assignments. This is how Claude Code's hook ``if`` sees subcommands (recorded in
        ``tests/conformance/hook_if_recorded.json``: ``echo "$(touch b)"`` and
        ``case x in x) touch b;; esac`` match ``Bash(touch *)``, ``echo a # ; touch b``
        does not, nor does the whole ``echo a && touch b`` match a rule written for it),
        and the first step of :func:`command_forms`. Without it the split is the
        permission rules' allow split (``tests/conformance/test_bash_rules.py``).
    """
    parts: list[str] = []
    cur: list[str] = []
    quote: str | None = None
    # nested: open brackets, innermost last: (closer, quote to return to, the holding
    # command's text so far for a substitution or None for a bracket, where it opened)
    stack: list[tuple[str, str | None, list[str] | None, int]] = []
    i, n = 0, len(command)

    def cut() -> None:
        parts.append("".join(cur))
        cur.clear()

    def word_start() -> bool:
        return not cur or cur[-1] in " \t\n;&|()"

    while i < n:
        c = command[i]
        if nested and quote is None and stack and c == stack[-1][0]:  # a bracket or substitution closes
            _, back, outer, start = stack.pop()
            cut()
            if outer is not None:  # the holding command keeps the substitution as written
                cur.extend(outer)
                cur.append(command[start:i + 1])
            quote = back
            i += 1
            continue
        if nested and quote != "'" and (command.startswith("$(", i) or c == "`") and len(stack) < _MAX_NESTING:
            stack.append(("`" if c == "`" else ")", quote, cur.copy(), i))
            quote = None
            cur.clear()
            i += 1 if c == "`" else 2
            continue
        if quote:
            cur.append(c)
            if c == "\\" and quote == '"' and i + 1 < n:
                cur.append(command[i + 1])
                i += 1
            elif c == quote:
                quote = None
        elif c == "\\" and i + 1 < n:
            cur.append(c + command[i + 1])
            i += 1
        elif c in "'\"":
            quote = c
            cur.append(c)
        elif (c == "&" and ((cur and cur[-1] in "<>") or command.startswith(">", i + 1))) \
                or (c == "|" and cur and cur[-1] == ">"):
            cur.append(c)  # part of a redirection (``2>&1``, ``&>``, ``>|``), not a separator
        elif nested and c == "#" and word_start():
            j = command.find("\n", i)
            i = n if j < 0 else j  # a comment, up to the newline (a separator)
            continue
        elif nested and c in "<>" and command.startswith("(", i + 1) and len(stack) < _MAX_NESTING:
            stack.append((")", None, cur.copy(), i))
            cur.clear()
            i += 2
            continue
        elif nested and c in "()":
            if c == "(" and len(stack) < _MAX_NESTING:
                stack.append((")", None, None, i))
            cut()
        elif nested and c in "{}" and word_start() and (
                i + 1 == n or command[i + 1] in (" \t\n" if c == "{" else " \t\n;&|)")):
            cut()  # a brace group's bracket (a reserved word), not part of ``${x}`` or ``{a,b}``
        elif c in ";|&\n":
            cut()
            if c in "|&" and i + 1 < n and command[i + 1] in (c, "&" if c == "|" else c):
                i += 1
        else:
            cur.append(c)
        i += 1
    while nested and stack:  # unclosed: the holding command keeps what was read
        _, _, outer, start = stack.pop()
        cut()
        if outer is not None:
            cur.extend(outer)
            cur.append(command[start:])
    cut()
    out = [p.strip() for p in parts if p.strip()]
    return [q for q in (_strip_leading(p) for p in out) if q] if nested else out


def _strip_leading(part: str) -> str:
    """``part`` without its leading keywords and ``NAME=value`` assignments (quotes kept
    together: ``B='x y' cmd`` is ``cmd``)."""
    while True:
        words = split_words(part.split("\n", 1)[0]) or []
        head = part.split(None, 1)
        if not head:
            return ""
        first = head[0]
        if first in _LEADING_KEYWORDS:
            part = head[1] if len(head) > 1 else ""
            continue
        name, eq, _ = first.partition("=")
        if eq and name and name[0] in _NAME_START and all(ch in _NAME_CHARS for ch in name) and words \
                and words[0].startswith(name + "="):
            # drop the assignment as the shell reads it (its value may hold quoted blanks)
            rest = _after_first_word(part)
            if rest is None:
                return part
            part = rest
            continue
        return part.strip()


def _after_first_word(text: str) -> str | None:
    """``text`` after its first shell word (quotes respected), or None when a quote is open."""
    import io
    import shlex

    lexer = shlex.shlex(io.StringIO(text), posix=True, punctuation_chars=False)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        if lexer.get_token() is None:
            return ""
    except ValueError:
        return None
    return text[lexer.instream.tell():].strip()


# -- one normaliser: the simple commands a command text runs --------------------------

#: programs that run the rest of their words as a command: ``name -> (its options that
#: take a separate value, its options that take none, the operands it reads before the
#: command)``. An option in neither set may or may not take a value: both readings are
#: followed (a deny rule may then see one word too many, never one too few).
WRAPPERS: Mapping[str, tuple[frozenset[str], frozenset[str], int]] = {name: (frozenset(v.split()), frozenset(f.split()), n)
                                                                       for name, (v, f, n) in {
    "command": ("", "-p", 0), "builtin": ("", "", 0), "exec": ("-a", "-c -l", 0), "nohup": ("", "", 0),
    "time": ("-f -o --format --output", "-p -v -a -q --portability --verbose --append --quiet", 0),
    "nice": ("-n --adjustment", "", 0), "setsid": ("", "-c -f -w --ctty --fork --wait", 0),
    "stdbuf": ("-i -o -e --input --output --error", "", 0),
    "ionice": ("-c -n -p -P -u --class --classdata", "-t --ignore", 0),
    "chrt": ("-T -P -D --sched-runtime --sched-period --sched-deadline",
             "-a -b -d -f -i -o -r -R -m -v --all-tasks --batch --deadline --fifo --idle --other --rr "
             "--reset-on-fork --verbose", 1),
    "taskset": ("", "-a -c --all-tasks --cpu-list", 1),
    "flock": ("-w -E --timeout --conflict-exit-code",
              "-s -x -n -u -o -e -F --shared --exclusive --nonblock --nb --unlock --close --no-fork --verbose", 1),
    "timeout": ("-s -k --signal --kill-after", "-v --verbose --preserve-status --foreground", 1),
    "sudo": ("-u -g -h -p -C -D -r -t -U -T --user --group --host --prompt --close-from --chdir --role --type "
             "--other-user --command-timeout",
             "-A -b -E -H -i -k -K -n -P -S -s -B -N --askpass --background --preserve-env --set-home --login "
             "--reset-timestamp --non-interactive --preserve-groups --stdin --shell --bell", 0),
    "doas": ("-u -C", "-n -s -L", 0), "runuser": ("-u -g -G --user --group", "-l -m -p --login", 0),
    "chroot": ("--userspec --groups", "--skip-chdir", 1), "unbuffer": ("", "-p", 0),
    "strace": ("-e -o -p -s -u -E -a -b -I -O -P -S -X",
               "-f -ff -c -C -d -D -h -i -k -q -qq -r -t -tt -ttt -T -v -V -x -xx -y -yy -z -Z", 0),
    "ltrace": ("-e -o -p -s -u -a -n", "-f -c -C -d -h -i -r -S -t -tt -ttt -T -V", 0),
    "env": ("-u --unset -C --chdir -P", "-i -0 -v --ignore-environment --null --debug", 0),
    "xargs": ("-a -d -E -I -L -n -P -s --arg-file --delimiter --max-args --max-procs --max-lines --max-chars "
              "--eof --replace",
              "-0 -r -t -p -x -o --null --no-run-if-empty --verbose --interactive --exit --open-tty", 0),
    "watch": ("-n --interval -q --equexit",
              "-d -t -b -e -g -c -x -p -w --differences --no-title --beep --errexit --chgexit --color --exec "
              "--precise --no-wrap", 0),
    # ``coproc CMD`` runs CMD in the background; ``busybox``/``toybox APPLET`` run their applet;
    # the sandbox and namespace launchers run the rest of their words
    "coproc": ("", "", 0), "busybox": ("", "", 0), "toybox": ("", "", 0), "firejail": ("", "", 0),
    "systemd-run": ("-p -u -E -M --property --unit --setenv --uid --gid --working-directory --machine "
                    "--description --slice",
                    "-t -P -q -G -r --user --system --scope --pty --pipe --quiet --wait --collect "
                    "--remain-after-exit --no-block", 0),
    "unshare": ("", "-m -u -i -n -p -U -C -T -f -r --mount --uts --ipc --net --pid --user --cgroup --time "
                "--fork --map-root-user", 0),
    "nsenter": ("-t -S -G --target --setuid --setgid", "-a -m -u -i -n -p -U -C -T -r -w -F --all --mount "
                "--uts --ipc --net --pid --user --cgroup --time --root --wd --no-fork", 0),
}.items()}
#: programs that read the commands they run from standard input (``at now <<< CMD``)
_STDIN_RUNNERS = frozenset({"at", "batch"})

#: shells whose ``-c`` operand is a script (``su -c`` too), read as a command text of its own
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "fish", "yash", "posh"})
_SHELL_VALUE_OPTS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
#: builtins whose operands are run as shell code (``alias`` values, for an ``expand_aliases`` shell)
_CODE_BUILTINS = frozenset({"eval", "trap", "alias"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_ASSIGNMENT = lazy_pattern(globals(), "_ASSIGNMENT", r"^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")
_ASSIGNED = lazy_pattern(globals(), "_ASSIGNED", r"(?:^|(?<=[\s;&|(){}`]))([A-Za-z_][A-Za-z0-9_]*)=")
_IFS_USE = lazy_pattern(globals(), "_IFS_USE", r"\$IFS(?![A-Za-z0-9_])|\$\{IFS\}")
#: at most this many forms per command, and this many levels of commands inside commands
MAX_FORMS = 256
MAX_DEPTH = 6
#: at most this many simple commands and texts read per command (wrapper options read both
#: ways multiply): past it the command is unresolved
MAX_READINGS = 2048


class CommandForms(FrozenValue):
    """What :func:`command_forms` found in a command text.

    :ivar commands: every simple command the text may run, each as written (a part of
        :func:`split_command` ``nested=True``) and normalised (words unquoted and joined by
        one space; leading assignments, redirections and wrappers dropped; a program path
        by its last name: ``/bin/rm -rf /`` gives ``rm -rf /`` too), in order, no repeats.
    :ivar unresolved: one line per command whose program cannot be known before the shell
        runs it (``$x -rf /``, ``$(echo rm)``, ``eval "$v"``, ``bash -c "$s"``, a shell
        reading its commands from standard input, a command nesting past :data:`MAX_DEPTH`,
        past :data:`MAX_FORMS` forms or :data:`MAX_READINGS` readings): ``"<word>: <why>"``.
        Any program could run there.
    """

    commands: tuple[str, ...]
    unresolved: tuple[str, ...] = ()


def device_path(path: str) -> bool:
    """True when ``path`` (absolute, as written) is a device or a process's descriptor
    (``/dev/stdin``, ``/dev/fd/3``, ``/proc/self/fd/3``, ``/dev/tty``): a program read from
    there is decided by whatever feeds it when the command runs. The one test approval
    coverage and the command normaliser share."""
    return path.startswith(("/dev/", "/proc/"))


def _reads_stdin(word: Word) -> bool:
    """True when a shell's or ``.``'s script operand ``word`` is standard input (``-``), a
    device or descriptor (:func:`device_path`), or computed."""
    v = word.value
    return v is None or v == "-" or device_path(v)


@functools.lru_cache(maxsize=512)
def command_forms(command: str) -> CommandForms:
    """The one normaliser the permission rules (deny and ask forms) and the hooks' ``if``
    share: every simple command ``command`` may run, as written and normalised, and where
    a program cannot be known (:class:`CommandForms`). Pure and total: nothing runs, no
    variable is read from the environment, any text gives an answer.

    Followed: compound commands (``&&``, ``;``, pipes, ``if``/``for``/``while``/``case``
    bodies, functions, subshells, brace groups, substitutions: :func:`split_command`
    ``nested=True``), the wrappers of :data:`WRAPPERS` (``timeout 5 rm`` is ``rm``, their
    own options skipped; ``env -S 'rm x'`` read as a command), a shell's ``-c`` script
    (``bash -lc 'rm x'``, ``su -c``), the operands of ``eval``, ``trap`` and ``alias``
    values, ``find -exec CMD ;``, ``$'…'`` and ``$"…"`` quoting, and an unquoted ``$IFS``
    or ``${IFS}`` as the blank it is (unless the text assigns ``IFS``). A variable that
    names the program is read from the literal assignments of the same text
    (``x=rm; $x -rf /`` gives ``rm -rf /``) and is unresolved all the same (the
    assignment may not have run, or the value came from the environment).
    """
    if len(command) > MAX_COMMAND_CHARS:  # read no further than the syntax layer would
        return CommandForms(tuple(dict.fromkeys(split_command(command)[:MAX_FORMS])),
                            (f"command: {len(command)} characters, over the limit of {MAX_COMMAND_CHARS}",))
    forms: list[str] = []
    seen: set[str] = set()
    unresolved: list[str] = []
    assigned: dict[str, list[str]] = {}
    budget = [MAX_READINGS]

    def add(form: str) -> None:
        form = form.strip()
        if form and form not in seen:
            if len(forms) >= MAX_FORMS:
                if not unresolved or unresolved[-1] != "command: too many forms":
                    unresolved.append("command: too many forms")
                return
            seen.add(form)
            forms.append(form)

    def text(cmd: str, depth: int) -> None:
        if spent():
            return
        if depth > MAX_DEPTH:
            unresolved.append(f"{cmd[:60]}: commands nested more than {MAX_DEPTH} levels deep")
            return
        if _nesting(cmd) >= _MAX_NESTING:
            unresolved.append(f"{cmd[:60]}: brackets or substitutions nested {_MAX_NESTING} deep")
        ifs_blank = "IFS" not in _IFS_USE.sub("", cmd)  # the text never sets IFS
        for m in itertools.islice(_ASSIGNED.finditer(cmd), 64):
            raws = _raw_words((split_command(cmd[m.end():m.end() + 1024]) or [""])[0], ifs_blank) or [""]
            value = read_word(raws[0], ansi_c=True).value if cmd[m.end():m.end() + 1] not in " \t;&|" else ""
            assigned.setdefault(m.group(1), []).append(value or "")
        for part in split_command(cmd, nested=True):
            add(part)
            raws = _raw_words(part, ifs_blank)
            if raws is None:
                unresolved.append(f"{part[:60]}: an unterminated quote or substitution")
                continue
            words = [read_word(r, ansi_c=True) for r in raws]
            simple(words, depth)

    def spent() -> bool:
        """One more reading; True once :data:`MAX_READINGS` are spent (then unresolved)."""
        budget[0] -= 1
        if budget[0] < 0:
            if budget[0] == -1:
                unresolved.append(f"command: more than {MAX_READINGS} readings")
            return True
        return False

    def simple(words: list[Word], depth: int) -> None:
        if spent():
            return
        i = 0
        while i < len(words) and _ASSIGNMENT.match(words[i].raw):
            i += 1
        if i >= len(words) or len(forms) >= MAX_FORMS:
            return
        prog, rest = words[i], words[i + 1:]
        if prog.value is None:
            unresolved.append(f"{prog.raw}: the program is decided when the command runs ({', '.join(prog.dynamic)})")
            name = _variable_name(prog.raw)
            for value in assigned.get(name or "", []):
                text(" ".join([value, *(w.value if w.value is not None else w.raw for w in rest)]), depth + 1)
            return
        name = prog.value
        base = name.rstrip("/").rsplit("/", 1)[-1] or name
        add(" ".join([base, *(w.value if w.value is not None else w.raw for w in rest)]))
        if base != name:
            add(" ".join([name, *(w.value if w.value is not None else w.raw for w in rest)]))
        if depth >= MAX_DEPTH:
            unresolved.append(f"{prog.raw}: commands nested more than {MAX_DEPTH} levels deep")
            return
        if base in _CODE_BUILTINS:
            code(base, rest, depth)
        elif base in SHELLS or base == "su":
            shell(base, rest, depth)
        elif base == "find":
            for j, w in enumerate(rest):
                if w.value in _FIND_EXEC:
                    end = next((k for k in range(j + 1, len(rest)) if rest[k].value in (";", "+")), len(rest))
                    simple(rest[j + 1:end], depth + 1)
        elif base in WRAPPERS:
            wrapper(base, rest, depth)
        elif base in (".", "source") and rest and _reads_stdin(rest[0]):
            unresolved.append(f"{base} {rest[0].raw}: reads its commands from standard input")
        elif base in _STDIN_RUNNERS:
            unresolved.append(f"{base}: runs commands it reads from standard input")
        elif base == "sg":
            # ``sg GROUP -c CMD`` or ``sg GROUP CMD``: CMD is run by /bin/sh -c
            words = [w for w in rest if w.value not in ("-", "-c")] if rest else []
            if len(words) > 1:
                cmd = words[1:]
                if any(w.value is None for w in cmd):
                    unresolved.append(f"sg {cmd[0].raw}: a command decided when it runs")
                else:
                    text(" ".join(w.value or "" for w in cmd), depth + 1)
        elif base == "script":
            script_command(rest, depth)

    def script_command(rest: list[Word], depth: int) -> None:
        # ``script -c CMD [FILE]`` (util-linux): CMD is run by a shell
        for j, w in enumerate(rest):
            v = w.value
            if v is None:
                continue
            if v in ("-c", "--command") and j + 1 < len(rest):
                return script_text("script", rest[j + 1], depth)
            if v.startswith("--command="):
                return text(v.split("=", 1)[1], depth + 1)
            if v.startswith("-") and not v.startswith("--") and v[1:].isalpha() and v.endswith("c") \
                    and j + 1 < len(rest):
                return script_text("script", rest[j + 1], depth)

    def code(base: str, rest: list[Word], depth: int) -> None:
        if base == "alias":
            for w in rest:
                if w.value is not None and "=" in w.value:
                    text(w.value.split("=", 1)[1], depth + 1)
            return
        args = rest[:1] if base == "trap" else rest
        if any(w.value is None for w in args):
            bad = next(w for w in args if w.value is None)
            unresolved.append(f"{base} {bad.raw}: runs text decided when the command runs ({', '.join(bad.dynamic)})")
            if len(args) == 1:
                for value in assigned.get(_variable_name(bad.raw) or "", []):
                    text(value, depth + 1)
            return
        if args and not (base == "trap" and (args[0].value or "").startswith("-")):
            text(" ".join(w.value or "" for w in args), depth + 1)

    def shell(base: str, rest: list[Word], depth: int) -> None:
        has_c, j = False, 0
        while j < len(rest):
            v = rest[j].value
            if v is None:
                break
            if base == "su" and v in ("-c", "--command") and j + 1 < len(rest):
                has_c, j = True, j + 1
                break
            if base == "su" and v.startswith("--command="):
                script = Word(v, v.split("=", 1)[1])
                return script_text(base, script, depth)
            if base == "su" and not v.startswith("-"):
                j += 1  # the user
                continue
            if v in _SHELL_VALUE_OPTS:
                j += 2
                continue
            if v == "--":
                j += 1
                break
            if v[:1] in "-+" and len(v) > 1:
                has_c = has_c or (v[0] == "-" and not v.startswith("--") and "c" in v[1:]) or v == "--command"
                j += 1
                continue
            break
        if has_c:
            if j < len(rest):
                script_text(base, rest[j], depth)
            return
        if j >= len(rest) and base != "su":
            unresolved.append(f"{base}: a shell reading its commands from standard input")
        elif j < len(rest) and base != "su" and _reads_stdin(rest[j]):
            unresolved.append(f"{base} {rest[j].raw}: a shell reading its commands from standard input")

    def script_text(base: str, script: Word, depth: int) -> None:
        if script.value is None:
            unresolved.append(f"{base} -c {script.raw}: a script decided when the command runs "
                              f"({', '.join(script.dynamic)})")
            for value in assigned.get(_variable_name(script.raw) or "", []):
                text(value, depth + 1)
        else:
            text(script.value, depth + 1)

    def wrapper(base: str, rest: list[Word], depth: int) -> None:
        if base == "env":
            for j, w in enumerate(rest):
                v = w.value or ""
                if v in ("-S", "--split-string") and j + 1 < len(rest):
                    script_text(base, rest[j + 1], depth)
                elif v.startswith("--split-string=") or (v.startswith("-S") and len(v) > 2):
                    text(v.split("=", 1)[1] if v.startswith("--") else v[2:], depth + 1)
                elif not v.startswith("-"):
                    break
        if base == "flock":
            for j, w in enumerate(rest):
                if w.value in ("-c", "--command") and j + 1 < len(rest):
                    script_text(base, rest[j + 1], depth)
        starts = _wrapped_starts(base, rest)
        if base == "command" and any(w.value in ("-v", "-V") for w in rest[:min(starts, default=0)]):
            return  # a lookup: nothing runs
        if base == "xargs" and not any(s < len(rest) for s in starts):
            return  # xargs alone runs echo
        if base == "watch":  # it runs its words through sh -c
            for s in starts:
                if s < len(rest) and all(w.value is not None for w in rest[s:]):
                    text(" ".join(w.value or "" for w in rest[s:]), depth + 1)
        for s in starts:
            tail = rest[s:]
            while tail and base == "env" and tail[0].value is not None and _ASSIGNMENT.match(tail[0].value):
                tail = tail[1:]
            if tail:
                simple(tail, depth + 1)

    text(command, 0)
    return CommandForms(tuple(forms), tuple(dict.fromkeys(unresolved)))


def _nesting(text: str) -> int:
    """How deep ``(`` and backquotes nest in ``text`` (quotes ignored: an upper bound)."""
    depth = most = 0
    tick = False
    for c in text:
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(depth - 1, 0)
        elif c == "`":
            tick = not tick
            depth += 1 if tick else -1
        most = max(most, depth)
    return most


def _wrapped_starts(name: str, words: list[Word]) -> list[int]:
    """Where the command a wrapper runs may start in ``words`` (its words after its
    name): past its options (an option it does not list is read both as a flag and as
    taking the next word) and its operands; at most 16 readings."""
    value_opts, flags, operands = WRAPPERS[name]
    starts: list[int] = []
    todo = [0]
    while todo and len(starts) < 16:
        i = todo.pop()
        v = words[i].value if i < len(words) else None
        if v is not None and v.startswith("-") and len(v) > 1 and v != "--":
            if v in value_opts:
                todo.append(i + 2)
            elif v in flags or (v.startswith("--") and "=" in v) or v[:2] in value_opts:
                todo.append(i + 1)  # a flag, --opt=value, -o0
            else:
                todo.extend((i + 2, i + 1))
            continue
        if v == "--":
            i += 1
        if i + operands not in starts:
            starts.append(i + operands)
    return sorted(starts)


def _variable_name(raw: str) -> str | None:
    """``x`` of a program word that is exactly ``$x``, ``${x}`` or ``"$x"``, else None."""
    inner = raw[1:-1] if len(raw) > 2 and raw[0] == raw[-1] == '"' else raw
    if inner.startswith("${") and inner.endswith("}"):
        inner = "$" + inner[2:-1]
    name = inner[1:]
    if inner.startswith("$") and name and name[0] in _NAME_START and all(c in _NAME_CHARS for c in name):
        return name
    return None


def _raw_words(part: str, ifs_blank: bool) -> list[str] | None:
    """The words of one simple command as written (quotes, substitutions and ``${…}``
    kept whole), redirections and their targets left out; an unquoted ``$IFS``/``${IFS}``
    splits words when ``ifs_blank``. None: an unterminated quote or substitution."""
    words: list[str] = []
    cur: list[str] = []
    i, n = 0, len(part)
    skip_next = False

    def end() -> None:
        nonlocal skip_next
        if cur:
            if not skip_next:
                words.append("".join(cur))
            skip_next = False
            cur.clear()

    def closing(j: int, opener: str, closer: str) -> int:
        depth, q = 0, None
        while j < n:
            ch = part[j]
            if q:
                if ch == "\\" and q == '"':
                    j += 1
                elif ch == q:
                    q = None
            elif ch == "\\":
                j += 1
            elif ch in "'\"":
                q = ch
            elif ch == opener:
                depth += 1
            elif ch == closer:
                depth -= 1
                if depth == 0:
                    return j
            j += 1
        return -1

    while i < n:
        c = part[i]
        if c in " \t\n":
            end()
            i += 1
        elif c == "\\":
            if not part.startswith("\n", i + 1):  # a line continuation is nothing, inside a word too
                cur.append(part[i:i + 2])
            i += 2
        elif c == "'" or (c == "$" and part.startswith("$'", i)):
            j = i + (2 if c == "$" else 1)
            while j < n and part[j] != "'":
                j += 2 if (c == "$" and part[j] == "\\") else 1
            if j >= n:
                return None
            cur.append(part[i:j + 1])
            i = j + 1
        elif c == '"':
            j = i + 1
            while j < n and part[j] != '"':
                if part[j] == "\\":
                    j += 1
                elif part.startswith("$(", j) or part[j] == "`":
                    k = closing(j + 1, "(", ")") if part[j] == "$" else part.find("`", j + 1)
                    if k < 0:
                        return None
                    j = k
                j += 1
            if j >= n:
                return None
            cur.append(part[i:j + 1])
            i = j + 1
        elif ifs_blank and (part.startswith("${IFS}", i) or (part.startswith("$IFS", i) and (
                i + 4 >= n or part[i + 4] not in _NAME_CHARS))):
            end()
            i += 6 if part.startswith("${", i) else 4
        elif c == "$" and part.startswith("${", i):
            j = part.find("}", i)
            if j < 0:
                return None
            cur.append(part[i:j + 1])
            i = j + 1
        elif (c == "$" or c in "<>") and part.startswith("(", i + 1):
            j = closing(i + 1, "(", ")")
            if j < 0:
                return None
            cur.append(part[i:j + 1])
            i = j + 1
        elif c == "`":
            j = part.find("`", i + 1)
            if j < 0:
                return None
            cur.append(part[i:j + 1])
            i = j + 1
        elif c in "<>":
            held = "".join(cur)
            if held.isdigit() or held == "&":
                cur.clear()  # a descriptor (``2>``) or ``&>``: part of the operator
            else:
                end()  # ``a>b`` is the word ``a`` and a redirection
            j = i
            while j < n and part[j] in "<>&|":
                j += 1
            dup = part[j - 1] == "&" and j < n and (part[j].isdigit() or part[j] == "-")
            while dup and j < n and (part[j].isdigit() or part[j] == "-"):
                j += 1
            i = j
            skip_next = not dup  # the next word is the redirection's target
        else:
            cur.append(c)
            i += 1
    end()
    return words


def writes_file(command: str) -> str | None:
    """The first file an output redirection of ``command`` writes (``>``, ``>>``, ``>|``,
    ``&>``, ``N>``), or None: a duplication (``2>&1``, ``>&-``) and ``/dev/null`` write none,
    and a ``>`` inside quotes is text. Claude Code 2.1.337 asks before such a redirection
    even when an allow rule matches the command (``Bash(echo:*)`` and ``echo hi > f``:
    "Output redirection to 'f' needs approval"; recorded in tests/conformance/bash_recorded.json)."""
    quote: str | None = None
    i, n = 0, len(command)
    while i < n:
        c = command[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 1
            elif c == quote:
                quote = None
        elif c == "\\":
            i += 1
        elif c in "'\"":
            quote = c
        elif c == ">" and not command.startswith("(", i + 1):
            i += 1
            if i < n and command[i] in ">|":
                i += 1
            elif i < n and command[i] == "&":  # >&N, >&- duplicate a descriptor; >& FILE writes one
                j = i + 1
                while j < n and command[j] == " ":
                    j += 1
                k = j
                while k < n and (command[k].isdigit() or command[k] == "-"):
                    k += 1
                if k > j and (k == n or command[k] in " \t;|&\n<>"):
                    i = k
                    continue
                i += 1
            while i < n and command[i] in " \t":
                i += 1
            j = i
            word: list[str] = []
            wq: str | None = None
            while j < n and (wq or command[j] not in " \t;|&\n<>()"):
                ch = command[j]
                if wq:
                    if ch == wq:
                        wq = None
                    else:
                        word.append(ch)
                elif ch in "'\"":
                    wq = ch
                else:
                    word.append(ch)
                j += 1
            target = "".join(word)
            if target != "/dev/null":
                return target or command[i:j]
            i = j
            continue
        i += 1
    return None


def substitutions(text: str) -> list[str]:
    """The commands inside ``$(…)``, ``<(…)``, ``>(…)`` (brackets counted) and backticks
    of ``text``, at most 32."""
    found: list[str] = []
    i, n = 0, len(text)
    while i < n and len(found) < 32:
        if text.startswith("$(", i) or text.startswith("<(", i) or text.startswith(">(", i):
            depth, j = 1, i + 2
            while j < n and depth:
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
            found.append(text[i + 2:j - 1] if depth == 0 else text[i + 2:])
            i = j
        elif text[i] == "`":
            j = text.find("`", i + 1)
            found.append(text[i + 1:j] if j > 0 else text[i + 1:])
            i = j + 1 if j > 0 else n
        else:
            i += 1
    return found
