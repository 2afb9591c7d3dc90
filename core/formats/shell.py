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
from collections.abc import Mapping
from typing import Any

from wskit.errors import WskitError
from wskit.values import FrozenValue

__all__ = [
    "MAX_COMMAND_CHARS", "ShellSyntaxError", "Word", "parse", "read_word", "split_command", "split_words",
    "substitutions",
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


def read_word(raw: str, known: Mapping[str, str] | None = None) -> Word:
    """Read one shell word from its source text ``raw`` (POSIX quoting): ``'…'`` is
    literal, ``"…"`` literal but for ``$``, backquote and ``\\``; an unquoted ``\\``
    escapes one character (and drops a line continuation).

    :param known: variables the caller knows the value of (``CLAUDE_PROJECT_DIR`` …);
        ``$NAME`` and ``${NAME}`` of these are put in. An unquoted one whose value holds
        a blank or a glob character leaves the word dynamic (the shell would split or
        match it). Any other expansion leaves it dynamic, with the reason.
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


#: words a hook ``if`` drops before a subcommand (Claude Code 2.1.337 fires ``Bash(touch *)``
#: for ``if true; then touch b; fi``, ``! touch b``; not for ``time touch b``)
_LEADING_KEYWORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!"})


def split_command(command: str, *, nested: bool = False) -> list[str]:
    """The parts of a compound shell command, split at ``&&``, ``||``, ``;``, ``|``, ``&``
    and newlines outside quotes; each part stripped, empty parts dropped. ``2>&1``,
    ``&>`` and ``>|`` are redirections, not separators. A backslash escapes one character.

    :param nested: also split where a command starts inside another: ``(``, ``)``, ``{``,
        ``}``, backquotes, ``$(``, ``<(`` and ``>(`` (inside double quotes too, where a
        substitution still runs); drop comments (``#`` where a word starts, to the end of
        the line); and drop from each part its leading keywords (``then``, ``do``,
        ``else``, ``elif``, ``if``, ``while``, ``until``, ``!``) and ``NAME=value``
        assignments. This is how Claude Code's hook ``if`` sees subcommands (recorded in
        ``tests/conformance/hook_if_recorded.json``: ``echo "$(touch b)"`` and
        ``case x in x) touch b;; esac`` match ``Bash(touch *)``, ``echo a # ; touch b``
        does not, nor does the whole ``echo a && touch b`` match a rule written for it).
        Without it the split is the permission rules' (``tests/conformance/test_bash_rules.py``),
        where substitutions are handled apart (:func:`substitutions`).
    """
    parts: list[str] = []
    cur: list[str] = []
    quote: str | None = None
    restore: list[str | None] = []  # nested: the quote to return to when a substitution ends
    i, n = 0, len(command)

    def cut() -> None:
        parts.append("".join(cur))
        cur.clear()

    while i < n:
        c = command[i]
        if nested and quote != "'" and (command.startswith("$(", i) or (c == "`" and (
                not restore or restore[-1] != "`" + (quote or "")))):
            restore.append(("`" if c == "`" else ")") + (quote or ""))
            quote = None
            cut()
            i += 1 if c == "`" else 2
            continue
        if nested and quote is None and restore and ((c == "`" and restore[-1][0] == "`") or (
                c == ")" and restore[-1][0] == ")")):
            back = restore.pop()[1:]
            quote = back or None
            cut()
            i += 1
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
        elif nested and c == "#" and (not cur or cur[-1] in " \t\n;&|(){}"):
            j = command.find("\n", i)
            i = n if j < 0 else j  # a comment, up to the newline (a separator)
            continue
        elif nested and c in "<>" and command.startswith("(", i + 1):
            restore.append(")")
            cut()
            i += 2
            continue
        elif nested and c in "(){}":
            if c == "(" :
                restore.append(")")
            elif c == ")" and restore and restore[-1] == ")":
                restore.pop()
            cut()
        elif c in ";|&\n":
            cut()
            if c in "|&" and i + 1 < n and command[i + 1] in (c, "&" if c == "|" else c):
                i += 1
        else:
            cur.append(c)
        i += 1
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
