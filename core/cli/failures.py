"""The ``error: …`` line of a failed ``wsctl`` operation, the same under click
(:class:`wskit.cli.LazyGroup`, :class:`wskit.cli.WsctlError`) and under the per-turn
dispatcher (:mod:`wskit.cli.fast`); click-free."""

from __future__ import annotations

from typing import Any

from wskit.cli.plain import echo

#: Longest run of non-blank characters an error line shows whole.
MAX_SHOWN_RUN = 300


def shorten_runs(text: str, limit: int = MAX_SHOWN_RUN) -> str:
    """``text`` with every run of more than ``limit`` non-blank characters (a
    100,000-character name echoed in a message) cut to its head and tail around
    ``…[N characters]…``, so an error stays one readable line."""
    if len(text) <= limit:
        return text
    import re

    def cut(m: re.Match) -> str:
        run = m.group()
        return f"{run[:120]}…[{len(run)} characters]…{run[-40:]}"

    return re.sub(rf"\S{{{limit + 1},}}", cut, text)


def shown_message(message: str) -> str:
    """An error message as the terminal may show it: hints completed
    (:func:`~wskit.cli.context.with_global_args`), every byte of a name that is not UTF-8
    as ``\\xNN``, every control character (an escape sequence in a folder name) escaped
    but line feeds, and runs of 300+ characters shortened."""
    from wskit.cli.context import line_text, with_global_args  # not for `wsctl --version`
    from wskit.fs.names import shown_path

    return shorten_runs(line_text(shown_path(with_global_args(message))))


def paint_error_line(message: str) -> str:
    """``error: <message>`` (``error:`` coloured on a terminal), the message through :func:`shown_message`."""
    from wskit.cli.context import paint

    return paint("error:", "error", err=True) + f" {shown_message(message)}"


def show_error(message: str) -> None:
    """Print :func:`paint_error_line` on stderr, the one line of a failed operation (exit
    status 1)."""
    echo(paint_error_line(message), err=True)


def failure_message(err: BaseException, argv: list[str]) -> str:
    """The one-line message of an error a command let through: an OS error names
    its file (``File name too long``, ``Device or resource busy``); a text that
    cannot be encoded names the argument that is not UTF-8."""
    if isinstance(err, UnicodeError):
        from wskit.fs.names import shown_path, undecodable

        for arg in argv:
            if isinstance(arg, str) and undecodable(arg) is not None:
                return (f"argument {shown_path(arg)!r} is not valid UTF-8 text; "
                        "names, ids and refs must be UTF-8")
        return f"a value is not valid UTF-8 text ({err.reason})"
    if isinstance(err, OSError):
        names = " -> ".join(repr(n) for n in (err.filename, err.filename2) if n is not None)
        why = err.strerror or type(err).__name__
        return f"{names}: {why}" if names else why
    return str(err)


def searched_hint(obj: Any, err: Exception) -> str:
    """For an unknown or ambiguous resource name: the folder that was searched and
    whether it was trusted (an untrusted project loads none of its own resources)."""
    ws = getattr(obj, "last_workspace", None)
    if ws is None or not getattr(err, "searched_hint", False):  # errors about a name looked up
        return ""
    root = ws.binding.source_root
    if ws.trust.trusted:
        return f" (searched {root} and the user folders; the project is trusted)"
    return (f" (searched {root}: untrusted, so only user and plugin resources were loaded; "
            f"'wsctl trust grant {root}' loads the project's)")


def command_failure(err: BaseException, argv: list[str], obj: Any) -> str | None:
    """The ``error:`` line's message for an exception a command body let through, the
    same under click (:class:`wskit.cli.LazyGroup`) and the dispatcher; None for an
    exception that is not a failure of the operation (it propagates as an internal error).
    A closed stdout (``BrokenPipeError``) is the caller's to tell first."""
    from wskit.errors import WskitError

    if isinstance(err, (WskitError, FileNotFoundError, NotADirectoryError, PermissionError)):
        from wskit.cli.context import with_global_args

        # hints are completed here, while the command line's options are still known
        return with_global_args(str(err) + searched_hint(obj, err))  # type: ignore[arg-type]
    if isinstance(err, (OSError, UnicodeError)):
        # a name too long for the file system, a path that is busy, an argument
        # that is not UTF-8 reaching JSON or a store: one error line, not a traceback
        return failure_message(err, argv)
    return None


#: exit status when stdout was closed by its reader: 128 + SIGPIPE, what a shell reports
#: for git or ``cat`` cut off by ``| head``
STDOUT_CLOSED_STATUS = 141


def stdout_closed() -> bool:
    """Whether stdout is a pipe whose reader has gone; if so it is pointed at
    ``/dev/null``, so the interpreter's last flush at exit prints nothing either."""
    import os
    import sys

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):  # not a real stream (a test runner's buffer)
        return False
    gone = False
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        gone = True
    except (OSError, ValueError):
        pass
    import select

    if not gone and hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        gone = any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))
    if gone:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    return gone
