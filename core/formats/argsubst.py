"""Argument substitution in skill bodies and custom commands — one implementation
for :mod:`wskit.builtin_plugins.skills.runtime` and :mod:`wskit.builtin_plugins.commands.expand`.

The rules are Claude Code's (reference/conventions.md, skills and commands
frontmatter, "Body substitutions"), because users bring Claude Code skills and
commands; where wskit had to choose, the choice is marked *(wskit)*:

- ``$ARGUMENTS`` (and ``${ARGUMENTS}``) -> the whole argument string;
- ``$ARGUMENTS[N]`` and ``$N`` -> the N-th argument, **0-based**, the argument
  string split into words like a POSIX shell would (:func:`split_words`); ``$10``
  is index 10, never ``$1`` followed by ``0``; a missing index stays literal (with
  two arguments ``$2`` stays ``$2``);
- ``$name`` / ``${name}`` for each name listed in the frontmatter ``arguments``
  -> the word at that name's position; a declared name without a value becomes
  ``""`` (Sakura's rule, reference/holon-sakura.md B3: Claude Code's reference
  does not say); an undeclared ``$name`` stays as written;
- a backslash right before a placeholder makes it literal and is removed
  (``\\$1`` -> ``$1``); a backslash before anything else stays;
- if no placeholder was replaced and the argument string is not blank,
  ``ARGUMENTS: <value>`` is appended after a blank line (:func:`append_arguments`),
  so arguments are never dropped silently. An escaped placeholder and an index
  with no argument replace nothing. The reference says "if ``$ARGUMENTS`` is
  absent"; Claude Code appends only when nothing was substituted, the rule
  here: a body that uses ``$0`` or a declared ``$name`` already has its arguments.

Everything is found in one left-to-right pass over the *template*: a
substituted value is never scanned again, so argument text cannot bring in a
placeholder (``--args '$1'`` is the text ``$1``). Time is linear in the text and
argument lengths. Never raises for any text or arguments.
"""

from __future__ import annotations

from collections.abc import Sequence

from wskit.util.lazyre import lazy_pattern

__all__ = [
    "append_arguments", "MAX_INDEX_DIGITS", "parse_args", "render", "split_words", "substitute",
    "WHITESPACE"
]


#: Characters that separate words (the set :func:`shlex.split` uses).
WHITESPACE = " \t\r\n"
#: Indexes longer than this many digits are never looked up (they stay literal):
#: ``int()`` of a 5,000-digit run would raise.
MAX_INDEX_DIGITS = 6

# One alternative per form; none can backtrack more than the identifier or digit run
# right after its own ``$``, so a scan is linear (tests/core/formats/test_argsubst.py).
_PLACEHOLDER = lazy_pattern(
    globals(), "_PLACEHOLDER",
    r"(\\?)\$(?:\{([A-Za-z_][A-Za-z0-9_-]*)\}|([0-9]+)|([A-Za-z_][A-Za-z0-9_]*)(\[[0-9]+\])?)")


def split_words(text: str) -> list[str]:
    """Split an argument string into words like a POSIX shell, without running one.

    The same words as :func:`shlex.split` (POSIX mode, no comments): blanks
    (`` \\t\\r\\n``) separate words; ``'...'`` is literal; in ``"..."`` a backslash
    escapes only ``"`` and ``\\``; outside quotes a backslash makes the next
    character literal; ``''`` is an empty word; no variables, globs or operators.

    Where a shell (and :func:`shlex.split`) would fail, *(wskit)* never raises: an
    unterminated quote is closed at the end of the text (``a "b c`` -> ``a``,
    ``b c``) and a trailing lone backslash is a literal backslash.

    :param text: the argument string as typed.
    :returns: the words, in order; linear time.
    """
    words: list[str] = []
    cur: list[str] = []
    started = False  # a word is open (even an empty one, from '' or "")
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in WHITESPACE:
            if started:
                words.append("".join(cur))
                cur, started = [], False
            i += 1
        elif c == "'":
            end = text.find("'", i + 1)
            end = n if end < 0 else end
            cur.append(text[i + 1:end])
            started, i = True, end + 1
        elif c == '"':
            i += 1
            started = True
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n and text[i + 1] in '"\\':
                    cur.append(text[i + 1])
                    i += 2
                else:
                    cur.append(text[i])
                    i += 1
            i += 1  # the closing quote (past the end when unterminated)
        elif c == "\\":
            cur.append(text[i + 1] if i + 1 < n else "\\")
            started, i = True, i + 2
        else:
            cur.append(c)
            started, i = True, i + 1
    if started:
        words.append("".join(cur))
    return words


def parse_args(args: str | Sequence[str] | None) -> tuple[str, list[str]]:
    """The whole argument string and its words.

    :param args: the argument string as typed (split with :func:`split_words`);
        or the words already split (a list from a command line, as ``wsctl
        commands render`` gets them: the whole string is then the words joined by
        single spaces, *(wskit)*); or None (no arguments: ``""`` and no words).
    :returns: ``(whole, words)``.
    """
    if args is None:
        return "", []
    if isinstance(args, str):
        return args, split_words(args)
    words = [str(a) for a in args]
    return " ".join(words), words


def substitute(text: str, whole: str, words: Sequence[str], names: Sequence[str] = (), *,
               indexed: bool = True) -> tuple[str, bool]:
    """Replace the placeholders of ``text`` in one pass (see the module docstring).

    :param whole: the value of ``$ARGUMENTS``. :param words: the indexed arguments.
    :param names: the frontmatter ``arguments`` names, in order.
    :param indexed: False leaves ``$N`` and ``$ARGUMENTS[N]`` alone (skill files
        other than ``SKILL.md``, which follow Sakura's ``$ARGUMENTS``-and-names rule).
    :returns: the text and whether any placeholder was replaced (an escaped one is not).
    """
    if "$" not in text:
        return text, False
    named = {n: (words[i] if i < len(words) else "") for i, n in enumerate(names)}
    out: list[str] = []
    pos = 0
    used = False
    for m in _PLACEHOLDER.finditer(text):
        escaped, braced, index, name, sub = m.groups()
        start = m.start()
        if index is not None:  # $N
            if not indexed:
                continue
            if escaped:
                replacement = m.group(0)[1:]
            else:
                value = _index(words, index)
                if value is None:  # a missing index stays literal
                    continue
                replacement = value
        elif (braced or name) == "ARGUMENTS":
            if sub is not None and not indexed:
                continue
            if escaped:
                replacement = m.group(0)[1:]
            elif sub is not None:  # $ARGUMENTS[N]
                value = _index(words, sub[1:-1])
                if value is None:
                    continue
                replacement = value
            else:
                replacement = whole
        elif (braced or name) in named:
            replacement = m.group(0)[1:] if escaped else named[braced or name] + (sub or "")
        else:  # not an argument placeholder: as written, backslash included
            continue
        used = used or not escaped
        out.append(text[pos:start])
        out.append(replacement)
        pos = m.end()
    if not out:
        return text, False
    out.append(text[pos:])
    return "".join(out), used


def _index(words: Sequence[str], digits: str) -> str | None:
    if len(digits) > MAX_INDEX_DIGITS:
        return None
    i = int(digits)
    return words[i] if i < len(words) else None


def append_arguments(text: str, whole: str) -> str:
    """Claude Code's rule for a text without argument placeholders: the arguments are
    appended as ``ARGUMENTS: <value>`` after one blank line (after the text's own
    trailing newlines, whose last one is kept at the end). Blank arguments
    append nothing; the value is the argument string with outer blanks stripped."""
    value = whole.strip()
    if not value:
        return text
    body = text.rstrip("\n")
    tail = "\n" if text.endswith("\n") else ""
    return f"{body}\n\nARGUMENTS: {value}{tail}" if body else f"ARGUMENTS: {value}{tail}"


def render(text: str, args: str | Sequence[str] | None, names: Sequence[str] = (), *,
           indexed: bool = True, append: bool = True) -> str:
    """Substitute ``args`` into ``text`` and, with ``append``, add ``ARGUMENTS:``
    when no placeholder was replaced (the full rule for a ``SKILL.md`` body or a
    markdown command; see the module docstring).

    :param args: see :func:`parse_args`. :param names: frontmatter ``arguments``.
    :returns: the text; never raises.
    """
    whole, words = parse_args(args)
    out, used = substitute(text, whole, words, names, indexed=indexed)
    return out if used or not append else append_arguments(out, whole)
